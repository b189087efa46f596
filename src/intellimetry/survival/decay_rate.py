"""A subject's decay rate: its frequency table, the MLE on a stated range, its bootstrap interval and
the level it implies."""
from __future__ import annotations

import numpy as np

from intellimetry.stats import fit_log_binned, fit_with_interval
from intellimetry.survival.levels import classify_interval


def frequency_table(failures) -> tuple[np.ndarray, np.ndarray]:
    """(k, count) for every k >= 1 that occurs; k = 0 (success at the first try) is dropped."""
    values, counts = np.unique(np.asarray(failures, dtype=np.int64), return_counts=True)
    keep = values >= 1
    return values[keep], counts[keep]


def estimate_decay_rate(failures, k_min: int, k_max: int, resamples: int, rng: np.random.Generator,
                        level: float = 0.95, bins_per_decade: int = 10) -> dict:
    """Discrete power-law MLE of alpha on [k_min, k_max] with a percentile bootstrap interval over
    events, the level (and whether the interval straddles a boundary), and the log-binned
    least-squares slope and R² for comparison with the paper's style of fit."""
    failures = np.asarray(failures)
    mle, interval = fit_with_interval(failures, k_min, k_max, resamples, rng, level)
    binned = fit_log_binned(failures, k_min, k_max, bins_per_decade)
    return {
        "alpha": mle.alpha, "alpha_se": mle.sigma, "ci_low": interval.low, "ci_high": interval.high,
        "ci_level": level, "resamples": resamples, "events": int(failures.size), "events_in_range": mle.n,
        "k_min": k_min, "k_max": k_max,
        **classify_interval(mle.alpha, interval.low, interval.high),
        "log_binned_alpha": binned.alpha, "log_binned_r2": binned.r2,
    }
