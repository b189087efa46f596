"""Subjects shared by the cross-paper chapter: worlds with known oracles, learners with a capacity
knob and a training budget, baselines, and what each measure needs from them (rankings, per-world
accuracies, online prediction of AGITB's 10-bit inputs). Shared library: it imports no paper."""
