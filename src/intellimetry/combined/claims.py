"""The statistics the combined-tests items are judged by, each comparison with its interval over agents
(issue 32: "greater than" and "best" need the spread over at least three seeds), and the paper's own
table numbers shaped like our values.

* Tables 1-2: how far each specialist leads on its own test, and how far an agent leads (or trails) every
  other on the mixed score, as differences of means with the t-interval of the per-agent differences
  (the rows' agents are independent, so pairing them by index is as good as any pairing).
* Fig. 4: the 3-RPM minus 6-RPM score at a 10 % training share, with the same kind of interval.
* Fig. 5: how much better a straight line fits the 6-RPM handicap curve than the 3-RPM one, with a
  percentile bootstrap interval over agents (intellimetry.stats.bootstrap_interval).
* Fig. 6: the weight-change trends, and the same trends with each agent's epochs shuffled (the control).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from intellimetry.combined.scoring import mixed_score
from intellimetry.combined.validity import convergence, linear_r2, mean_spread
from intellimetry.stats import bootstrap_interval

MIXED = "Mixed"


def lead(own, other) -> tuple[float, list[float]]:
    """mean(own) - mean(other) and the interval of the mean of the per-agent differences (pairs by index;
    one agent per row: the difference itself, no spread)."""
    own, other = np.asarray(own, dtype=float), np.asarray(other, dtype=float)
    if own.shape != other.shape or own.ndim != 1 or own.size == 0:
        raise ValueError(f"need two rows with the same number of agents, got shapes {own.shape} and {other.shape}")
    return float(own.mean() - other.mean()), mean_spread(own - other)


def per_agent_mixed(row: Mapping[str, Sequence[float]], weights: Mapping[str, float]) -> list[float]:
    """Each agent's mixed score (Eq. 3) from its scores on the tests that ``weights`` names."""
    agents = len(next(iter(row.values())))
    return [mixed_score({test: row[test][i] for test in weights}, weights) for i in range(agents)]


def table_claim(scores: Mapping[str, Mapping[str, Sequence[float]]], tests: Sequence[str]) -> dict:
    """The ranking statistics of a table: ``scores`` holds, per agent name (the specialists named as their
    test), every agent's score on each test and on the mixed test.

    ``own_lead[test]``: the specialist's mean score on its own test minus the best other agent's there
    (``own_runner_up``), with ``own_lead_interval``; ``mixed_lead[name]``: the agent's mean mixed score
    minus the best other agent's, and ``mixed_trail[name]``: the worst other agent's mean mixed score
    minus this agent's (positive when it is last), each with its interval."""
    names = list(scores)
    arrays = {name: {col: np.asarray(values, dtype=float) for col, values in scores[name].items()} for name in names}
    out = {"own_lead": {}, "own_lead_interval": {}, "own_runner_up": {}, "mixed_lead": {}, "mixed_lead_interval": {},
           "mixed_trail": {}, "mixed_trail_interval": {}}
    for test in tests:
        if test not in arrays:
            raise ValueError(f"no specialist row for {test!r}; rows: {names}")
        runner = max((n for n in names if n != test), key=lambda n: arrays[n][test].mean())
        out["own_runner_up"][test] = runner
        out["own_lead"][test], out["own_lead_interval"][test] = lead(arrays[test][test], arrays[runner][test])
    for name in names:
        others = [n for n in names if n != name]
        best = max(others, key=lambda n: arrays[n][MIXED].mean())
        worst = min(others, key=lambda n: arrays[n][MIXED].mean())
        out["mixed_lead"][name], out["mixed_lead_interval"][name] = lead(arrays[name][MIXED], arrays[best][MIXED])
        out["mixed_trail"][name], out["mixed_trail_interval"][name] = lead(arrays[worst][MIXED], arrays[name][MIXED])
    return out


def table_claim_from_rows(rows: Mapping[str, Mapping[str, Sequence[float]]], tests: Sequence[str],
                          weights: Mapping[str, float]) -> dict:
    """:func:`table_claim` for agent rows of per-agent scores on each test (by agent name), the mixed score
    of every agent computed with ``weights`` (Eq. 3)."""
    return table_claim({name: {**{t: row[t] for t in tests}, MIXED: per_agent_mixed(row, weights)}
                        for name, row in rows.items()}, tests)


def paper_table_for(tests: Sequence[str]) -> dict:
    """The paper's table (``{"tests", "rows"}`` from data/reference/combined/paper.yaml) whose tests are ``tests``."""
    from intellimetry.paths import load_reference

    paper = load_reference("combined/paper.yaml")
    for which in ("table1", "table2"):
        if list(paper[which]["tests"]) == list(tests):
            return paper[which]
    raise ValueError(f"the paper has no table of the tests {list(tests)}")


def _abs_interval(low: float, high: float) -> tuple[float, float]:
    """The interval of |d| for d in [low, high]."""
    near = 0.0 if low <= 0 <= high else min(abs(low), abs(high))
    return near, max(abs(low), abs(high))


def versus_paper(rows: Mapping[str, Mapping[str, Sequence[float]]], tests: Sequence[str],
                 weights: Mapping[str, float], paper_rows: Mapping[str, Mapping[str, float]]) -> dict:
    """Every score the paper prints beside ours: per agent and column (the tests and Mixed, ours by Eq. 3
    with ``weights`` unless a row gives its own), ``diff`` = our mean minus the paper's value with
    ``interval``, the t-interval over our agents. ``worst_gap``: the largest |diff| over the cells, and
    ``worst_gap_interval`` the interval it can take ([largest near end, largest far end] of the cells'
    |diff| intervals): below a tolerance by its whole interval only if every cell is; ``worst_cell``:
    [agent, column] of the largest |diff|."""
    cells, near, far, worst, worst_cell = {}, [], [], 0.0, None
    for name, paper_row in paper_rows.items():
        ours = {**{t: rows[name][t] for t in tests},
                MIXED: rows[name][MIXED] if MIXED in rows[name] else per_agent_mixed(rows[name], weights)}
        cells[name] = {}
        for column, printed in paper_row.items():
            values = np.asarray(ours[column], dtype=float) - float(printed)
            low, high = mean_spread(values)
            cells[name][column] = {"ours": float(values.mean() + printed), "paper": float(printed),
                                   "diff": float(values.mean()), "interval": [low, high]}
            a, b = _abs_interval(low, high)
            near.append(a)
            far.append(b)
            if worst_cell is None or abs(float(values.mean())) > worst:
                worst, worst_cell = abs(float(values.mean())), [name, column]
    return {"cells": cells, "worst_gap": worst, "worst_gap_interval": [max(near), max(far)],
            "worst_cell": worst_cell, "cell_count": len(near)}


def paper_table_values(which: str) -> dict:
    """The paper's Table 1 or 2 (``which``: "table1" or "table2") shaped like our table's values: its
    printed means as one-agent rows (so each interval is the value itself), its own mixed column."""
    from intellimetry.paths import load_reference

    paper = load_reference("combined/paper.yaml")[which]
    rows = paper["rows"]
    scores = {name: {col: [value] for col, value in row.items()} for name, row in rows.items()}
    best = max(rows, key=lambda name: rows[name][MIXED])
    worst = min(rows, key=lambda name: rows[name][MIXED])
    return {which: {**table_claim(scores, paper["tests"]), "best_mixed_agent": best, "worst_mixed_agent": worst,
                    "vs_paper": versus_paper(scores, paper["tests"], {}, rows),
                    "specialists_best_own": all(max(rows, key=lambda n, t=t: rows[n][t]) == t for t in paper["tests"]),
                    "agents_per_row": None}}


def table1_paper_values() -> dict:
    return paper_table_values("table1")


def table2_paper_values() -> dict:
    return paper_table_values("table2")


# ----------------------------------------------------------------------------- Figs. 4 and 5

def training_gap(rpm3_scores, rpm6_scores, rpm3_summary: Mapping, rpm6_summary: Mapping) -> dict:
    """Fig. 4: the 3-RPM minus the 6-RPM mean score at the 10 % share (``gap_to_rpm3_at_10pct``), with the
    interval of the per-agent differences (``gap_interval``). Scores are (shares, agents); the summaries
    are :func:`~intellimetry.combined.validity.training_validity`'s, which locate the 10 % share."""
    at3 = _share_row(rpm3_scores, rpm3_summary)
    at6 = _share_row(rpm6_scores, rpm6_summary)
    gap, interval = lead(at3, at6)
    return {"gap_to_rpm3_at_10pct": gap, "gap_interval": interval}


def _share_row(scores, summary: Mapping) -> np.ndarray:
    shares = np.asarray(summary["shares"], dtype=float)
    near = np.flatnonzero(np.isclose(shares, 0.10))
    if not near.size:
        raise ValueError(f"no 10 % share among {shares.tolist()}")
    return np.asarray(scores, dtype=float)[near[0]]


def linear_gain(removed, rpm6_scores, rpm3_scores, resamples: int, rng: np.random.Generator,
                level: float = 0.95) -> dict:
    """Fig. 5: R² of a line through the 6-RPM mean handicap curve minus R² of the 3-RPM one
    (``linear_r2_gain``), with a percentile bootstrap interval over agents (``linear_r2_gain_interval``:
    agent j of both curves resampled together). Scores are (levels, agents)."""
    six, three = np.asarray(rpm6_scores, dtype=float), np.asarray(rpm3_scores, dtype=float)
    if six.shape != three.shape:
        raise ValueError(f"the two handicap curves need the same levels and agents, got {six.shape} and {three.shape}")

    def gain(agents: np.ndarray) -> float:
        return linear_r2(removed, six[:, agents].mean(axis=1)) - linear_r2(removed, three[:, agents].mean(axis=1))

    interval = bootstrap_interval(np.arange(six.shape[1]), gain, resamples, rng, level)
    return {"linear_r2_gain": interval.estimate, "linear_r2_gain_interval": [interval.low, interval.high]}


# ----------------------------------------------------------------------------- Fig. 6

def convergence_claim(changes: Mapping[str, np.ndarray], rng: np.random.Generator | None = None) -> dict:
    """Fig. 6's statistics per agent kind (``changes``: weight change per epoch, (epochs, agents), by
    "rpm3", "cartpole", "mixed") and whether the mixed agent is not converging (no significant fall).
    With ``rng``, each agent's epochs are shuffled first: the control, whose weight changes have no
    order in time."""
    found = {}
    for name, values in changes.items():
        values = np.asarray(values, dtype=float)
        if rng is not None:
            values = np.stack([rng.permutation(column) for column in values.T], axis=1)
        found[name] = convergence(values)
    return {**{name: {k: v for k, v in stats.items() if k != "scaled"} for name, stats in found.items()},
            "mixed_not_converging": not found["mixed"]["converging"]}
