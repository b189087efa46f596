"""The three levels of the Intelligence Test, defined by the decay rate alpha of P(k) ∝ k^-alpha.

The mean failure count is finite only for alpha > 2 and its variance only for alpha > 3, so:
Limited (alpha <= 2), Capable (2 < alpha <= 3), Autonomous (alpha > 3).
"""
from __future__ import annotations

LEVELS = ("Limited", "Capable", "Autonomous")
THRESHOLDS = (2.0, 3.0)


def classify_level(alpha: float) -> str:
    if alpha <= THRESHOLDS[0]:
        return LEVELS[0]
    if alpha <= THRESHOLDS[1]:
        return LEVELS[1]
    return LEVELS[2]
