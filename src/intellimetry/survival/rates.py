"""Decay rates of several subjects on several test sets, the levels they reach, and decay rate
against model size: what every multi-model figure of the Intelligence Test computes (vision,
search, recommendation, language)."""
from __future__ import annotations

import numpy as np

from intellimetry.stats.powerlaw_fit import ALPHA_RANGE
from intellimetry.survival.decay_rate import estimate_decay_rate
from intellimetry.survival.levels import classify_level
from intellimetry.survival.scaling import fit_scaling


def alpha_span(rows: dict) -> dict:
    """The smallest and largest decay rate over test sets, and how many sit at the estimator's lower
    bound (a decay no faster than k^-1 over the fitted range, which the MLE cannot resolve)."""
    alphas = [row["alpha"] for row in rows.values()]
    at_bound = sum(at_lower_bound(alpha) for alpha in alphas)
    return {"alpha_min": min(alphas), "alpha_max": max(alphas), "sets": len(alphas), "at_lower_bound": at_bound}


def decay_rates(counts_by_set: dict, k_min: int, k_max: int, resamples: int, rng: np.random.Generator) -> dict:
    """Per test set: the decay-rate estimate (MLE with bootstrap interval, level, log-binned LS and R²),
    the share of events solved at the first try and the mean failure count."""
    rows = {}
    for name, counts in counts_by_set.items():
        counts = np.asarray(counts)
        if counts.size == 0 or not ((counts >= k_min) & (counts <= k_max)).any():
            raise ValueError(f"test set {name!r} has no failure counts in [{k_min}, {k_max}] "
                             f"({counts.size} events): score more events or widen the range")
        rows[name] = {**estimate_decay_rate(counts, k_min, k_max, resamples, rng),
                      "first_try": float((counts == 0).mean()), "mean_failures": float(counts.mean())}
    return rows


def levels(rates_by_model: dict) -> dict:
    """{model: {test set: level}} from decay-rate rows."""
    return {model: {name: row["level"] for name, row in rows.items()} for model, rows in rates_by_model.items()}


def level_counts(rates_by_model: dict) -> dict:
    """How many (model, test set) pairs reach each level: the figure's headline."""
    found = [row["level"] for rows in rates_by_model.values() for row in rows.values()]
    return {level: found.count(level) for level in ("Limited", "Capable", "Autonomous")}


def size_scaling(alphas_by_member: dict, params_by_member: dict) -> dict:
    """Per test set: the log-log least-squares line of α on non-embedding size over the family,
    its slope, p-value and R², and the decades of size it spans."""
    members = list(params_by_member)
    sizes = np.array([params_by_member[m] for m in members], dtype=float)
    test_sets = next(iter(alphas_by_member.values())).keys()
    lines = {}
    for name in test_sets:
        alphas = np.array([alphas_by_member[m][name] for m in members], dtype=float)
        fit = fit_scaling(sizes, alphas)
        censored = int(sum(at_lower_bound(a) for a in alphas))
        lines[name] = {**fit.as_dict(), "alphas": alphas.tolist(), "sizes": sizes.tolist(),
                       "decades": float(np.log10(sizes.max() / sizes.min())), "censored": censored,
                       # a censored rate is a bound, so a line through it (its slope, its p) measures nothing
                       "measured": not censored,
                       "rises": bool(fit.slope > 0 and not censored), "level_of_largest": classify_level(alphas[-1])}
    return lines


def at_lower_bound(alpha: float) -> bool:
    """A rate the MLE pinned at its lower bound: the counts decay no faster than k^-1 there, so the
    value is censored, not measured (differences between such rates are round-off)."""
    return alpha <= ALPHA_RANGE[0] + 1e-3


def rising_share(lines: dict, alpha: float = 0.05) -> dict:
    """Over the test sets whose line is measured (`measured`: no member's rate censored at the estimator's
    bound, and whatever else the line's maker requires):
    how many have a positive slope, how many a significantly positive one, and the share of positive
    slopes with its interval: [the share significantly positive, one minus the share significantly
    negative] (the range the share takes over the slopes the data cannot sign; [0, 0] when no line
    is measured)."""
    measured = {name: line for name, line in lines.items() if line["measured"]}
    positive = [name for name, line in measured.items() if line["slope"] > 0]
    significant = [name for name in positive if measured[name]["p"] < alpha]
    falling = [name for name, line in measured.items() if line["slope"] < 0 and line["p"] < alpha]
    count = len(measured)
    return {"sets": len(lines), "measured": count, "positive": len(positive),
            "significant": len(significant), "significantly_negative": len(falling),
            "share_positive": len(positive) / count if count else 0.0,
            "share_interval": [len(significant) / count, 1 - len(falling) / count] if count else [0.0, 0.0]}
