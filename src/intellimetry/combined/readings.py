"""The readings of the paper's generator text side by side: learning curves of 3-RPM and 6-RPM under each
reading, and the statistics the items rpm6-* judge them by (data/reference/combined/rpm-readings.yaml
lists the readings and why the book uses ``shared``).

Per reading, the paper's networks (24 -> 3 for 3-RPM, 48 -> 6 for 6-RPM) are trained side by side with
the same seeds, the same number of steps per epoch (``train_problems`` problems' worth) and the same
epochs; 6-RPM learns from ``train_problems`` distinct problems, 3-RPM from as many as the reading has
(bounded 3-RPM has only 64 problems, so it passes its set more often per epoch). After every epoch each
agent is scored on the held-out tenth of its set. Scores are also given as *skill*, (score - chance) /
(1 - chance), so that 3-RPM (chance 1/3) and 6-RPM (chance 1/6) compare on one scale.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from intellimetry.checks import check_choice, check_int
from intellimetry.combined import rpm
from intellimetry.combined.scoring import RPM_THRESHOLD, difficulty
from intellimetry.combined.study import Recipe, Sets, agent_seeds, run_cohort
from intellimetry.combined.validity import mean_spread

TESTS = {"3-RPM": (3, "small"), "6-RPM": (6, "large")}
PAPER_6RPM_SCORE = 0.853  # Table 2: the 6-RPM agent on 6-RPM
SEED_OFFSET = 90  # the readings' agents, apart from every other figure's


def reading_sets(reading: str, train_problems: int, set_seed: int) -> Sets:
    """The problem sets of a reading: 6-RPM with ``train_problems`` training problems (90 % of the set), and
    3-RPM of the same size or, where the reading has fewer distinct 3-RPM problems, all of them."""
    check_choice("reading", reading, rpm.PROGRESSIONS)
    size6 = round(check_int("train_problems", train_problems, 9) / (1 - rpm.TEST_FRACTION))
    size3 = min(size6, rpm.characteristic_grids(3, reading) ** 3)
    return Sets(reading, reading, size3, size6, set_seed)


def skill(score, n: int) -> np.ndarray:
    """A score on N-RPM rescaled so that chance (1/N) is 0 and a perfect score 1."""
    return (np.asarray(score, dtype=float) - 1 / n) / (1 - 1 / n)


def reading_runs(reading: str, train_problems: int, epochs: int, agents: int, learning_rate: float,
                 batch_size: int, set_seed: int, seed: int, cache_root=None, progress: bool = True) -> dict:
    """Per test ("3-RPM", "6-RPM"): ``curve`` (epochs, agents) of held-out scores after each epoch, the
    untrained networks' scores ``initial`` (agents,), and the cohort ``records`` (from the model cache)."""
    sets = reading_sets(reading, train_problems, set_seed)
    seeds = agent_seeds(seed, agents, offset=SEED_OFFSET)
    found = {}
    for test, (_, topology) in TESTS.items():
        trained = run_cohort(Recipe(test, topology, epochs, learning_rate, batch_size, epoch_problems=train_problems),
                             [0] * agents, seeds, sets, (test,), track=True, cache_root=cache_root, progress=progress)
        untrained = run_cohort(Recipe(test, topology, 0, learning_rate, batch_size), [0] * agents, seeds, sets,
                               (test,), cache_root=cache_root, progress=progress)
        found[test] = {"curve": np.asarray(trained["curve"], dtype=float),
                       "initial": np.asarray(untrained["scores"][test], dtype=float),
                       "records": [trained, untrained], "set": sets.get(test).describe()}
    return found


def _test_summary(curve: np.ndarray, initial: np.ndarray, n: int) -> dict:
    """A test's curve summary: mean and interval per epoch, the final score, the gain in skill over the
    untrained networks (per agent), and the epochs to the paper's mastery threshold, 0.95 (``mastery``:
    :func:`~intellimetry.combined.scoring.difficulty`, an agent that never reached it counted with the
    epochs it trained; ``mastered``: how many reached it)."""
    intervals = [mean_spread(row) for row in curve]
    final = curve[-1]
    gain = skill(final, n) - skill(initial, n)
    mastery = difficulty(curve, RPM_THRESHOLD)
    return {"mean": curve.mean(axis=1).tolist(), "interval": intervals, "chance": 1 / n,
            "initial": float(initial.mean()), "final": float(final.mean()), "final_interval": mean_spread(final),
            "gain": float(gain.mean()), "gain_interval": mean_spread(gain),
            "mastery": mastery, "mastered": mastery["agents"] - mastery["censored"]}


def summarise_reading(runs: Mapping[str, Mapping]) -> dict:
    """What the items rpm6-* read, for one reading's :func:`reading_runs`: per test its curve summary, and
    ``harder_gap``, the mean over the epochs of 3-RPM skill minus 6-RPM skill (agent j of both tests share
    a seed) with its interval over agents; ``vs_table2``: the final 6-RPM score minus the paper's 0.853."""
    found = {}
    for test, (n, _) in TESTS.items():
        found["rpm3" if n == 3 else "rpm6"] = _test_summary(runs[test]["curve"], runs[test]["initial"], n)
    gap = (skill(runs["3-RPM"]["curve"], 3) - skill(runs["6-RPM"]["curve"], 6)).mean(axis=0)
    six = runs["6-RPM"]["curve"][-1] - PAPER_6RPM_SCORE
    return {**found, "harder_gap": float(gap.mean()), "harder_gap_interval": mean_spread(gap),
            "vs_table2": float(six.mean()), "vs_table2_interval": mean_spread(six),
            "sets": {test: runs[test]["set"] for test in TESTS}}


def untrained_runs(runs: Mapping[str, Mapping]) -> dict:
    """The control: the same networks untrained, scored along the same curve (their initial scores at
    every epoch)."""
    return {test: {**run, "curve": np.repeat(run["initial"][None], len(run["curve"]), axis=0)}
            for test, run in runs.items()}


def readings_study(readings: Sequence[str], train_problems: int, epochs: int, agents: int, learning_rate: float,
                   batch_size: int, set_seed: int, seed: int, cache_root=None, progress: bool = True) -> dict:
    """Every reading's runs and summaries: {"readings": {reading: summary}, "control": {"readings": ...},
    "runs": {reading: runs}} (the control: :func:`untrained_runs` through the same summary)."""
    runs = {reading: reading_runs(reading, train_problems, epochs, agents, learning_rate, batch_size, set_seed,
                                  seed, cache_root, progress) for reading in readings}
    return {"readings": {reading: summarise_reading(run) for reading, run in runs.items()},
            "control": {"readings": {reading: summarise_reading(untrained_runs(run)) for reading, run in runs.items()}},
            "runs": runs}
