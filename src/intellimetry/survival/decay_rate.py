"""A subject's decay rate: its frequency table, the bounded power-law fit on its failure counts' support
with a bootstrap interval, the level it implies, and the log-binned least-squares slope (the paper's style
of fit) beside it.

A subject ranking K candidates makes 0 .. K-1 failures, so its counts are fitted on [k_min, K - 1]: the
support's size K travels with every rate row (`support`), and `status` says whether the rate was measured
("measured") or not ("too few events", "bound", "not a power law"; stats.bounded_power_law).
"""
from __future__ import annotations

import numpy as np

from intellimetry.checks import check_int
from intellimetry.stats import fit_log_binned
from intellimetry.stats.bounded_power_law import SEARCH_RANGE, fit_bounded_power_law
from intellimetry.survival.levels import classify_interval


def frequency_table(failures) -> tuple[np.ndarray, np.ndarray]:
    """(k, count) for every k >= 1 that occurs; k = 0 (success at the first try) is dropped."""
    values, counts = np.unique(np.asarray(failures, dtype=np.int64), return_counts=True)
    keep = values >= 1
    return values[keep], counts[keep]


def estimate_decay_rate(failures, k_min: int, support: int, resamples: int, rng: np.random.Generator,
                        level: float = 0.95, bins_per_decade: int = 10) -> dict:
    """The bounded power-law fit of alpha on [k_min, support - 1] with its percentile bootstrap interval,
    status and comparison with truncated alternatives; the level (and whether the interval straddles a
    boundary), None when no rate was fitted; and the log-binned least-squares slope and R²."""
    check_int("support", support, k_min + 2)
    failures = np.asarray(failures)
    if failures.size and (failures.min() < 0 or failures.max() > support - 1):
        raise ValueError(f"failure counts must lie in [0, {support - 1}] for a support of {support} candidates; "
                         f"got [{failures.min()}, {failures.max()}]")
    fit = fit_bounded_power_law(failures, k_min, support - 1, resamples, rng, level)
    fitted = fit.alpha is not None
    try:
        binned = fit_log_binned(failures, k_min, support - 1, bins_per_decade)
        line = {"log_binned_alpha": binned.alpha, "log_binned_r2": binned.r2}
    except ValueError:  # fewer than two non-empty bins: no line
        line = {"log_binned_alpha": None, "log_binned_r2": None}
    levels = (classify_interval(fit.alpha, fit.ci_low, fit.ci_high) if fitted
              else {"level": None, "low_level": None, "high_level": None, "straddles": None})
    row = {**fit.as_dict(), "support": int(support), "events": int(failures.size), **levels, **line}
    return {**row, "summary": describe_rate(row)}


def describe_rate(row: dict) -> str:
    """A rate row in words, safe to print whatever the fit found: 'α = 1.32 [1.28, 1.36], measured,
    Limited (140 events in [5, 49151])'; an interval end at the search range's end is written as the bound
    it is ('[1.42, ≥ 20]'); the level only for a measured rate; 'no rate: bound, alpha >= 20 (3 events in
    [5, 999])' where none was fitted."""
    found = f"{row['events_in_range']} events in [{row['k_min']}, {row['k_max']}]"
    if row["alpha"] is None:
        return f"no rate: {row['status']}" + (f", {row['bound']}" if row.get("bound") else "") + f" ({found})"
    low, high = SEARCH_RANGE
    low_text = f"≤ {low:g}" if row["ci_low"] <= low else f"{row['ci_low']:.2f}"
    high_text = f"≥ {high:g}" if row["ci_high"] >= high else f"{row['ci_high']:.2f}"
    level = f", {row['level']}" if row["status"] == "measured" and row.get("level") else ""
    return f"α = {row['alpha']:.2f} [{low_text}, {high_text}], {row['status']}{level} ({found})"
