"""The vision figure's numbers: per task, every model's decay rate and level, and the decay rate
against parameter count over the family (through the shared :mod:`intellimetry.survival.rates`)."""
from __future__ import annotations

import numpy as np

from intellimetry.survival.rates import at_lower_bound, decay_rates, size_scaling

SCORE_KEYS = ("accuracy", "recall_at_1")  # what a member reports besides its failures (by task)


def rises_with_size(line: dict) -> bool:
    """The criterion's reading of "larger models come closer to Capable": a positive log-log slope of α
    on size, with the largest member's α measured (not pinned at the estimator's lower bound)."""
    largest = int(np.argmax(line["sizes"]))
    return bool(line["slope"] > 0 and not at_lower_bound(line["alphas"][largest]))


def task_summary(members: dict, task: str, k_max: int, resamples: int, rng: np.random.Generator,
                 k_min: int = 1) -> dict:
    """Decay rate (MLE with bootstrap interval, level) per member on [k_min, k_max], the members'
    parameter counts and scores, the α-vs-size line and whether it rises with size."""
    rates = {name: decay_rates({task: m["failures"]}, k_min, k_max, resamples, rng) for name, m in members.items()}
    params = {name: m["params"] for name, m in members.items()}
    line = size_scaling({name: {task: rows[task]["alpha"]} for name, rows in rates.items()}, params)[task]
    rows = {name: {**rates[name][task], "params": params[name], "trained_now": m["record"]["trained_now"],
                   **{key: m[key] for key in SCORE_KEYS if key in m}} for name, m in members.items()}
    return {"models": rows, "rates": rates, "scaling": line, "rises_with_size": rises_with_size(line),
            "k_min": k_min, "k_max": k_max, "test_events": int(len(next(iter(members.values()))["failures"]))}


def all_limited(summaries: dict) -> bool:
    """Whether every (model, task) pair is at the Limited level."""
    return all(row["level"] == "Limited" for summary in summaries.values() for row in summary["models"].values())
