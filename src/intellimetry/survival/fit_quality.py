"""Estimator study: how well three decay-rate estimators recover a known alpha from synthetic samples."""
from __future__ import annotations

import numpy as np
import pandas as pd

from intellimetry.stats import fit_discrete_power_law, fit_log_binned, fit_raw_histogram, sample_discrete_power_law

ESTIMATORS = ("mle", "log_binned", "raw_histogram")
ESTIMATOR_NAMES = {"mle": "discrete MLE", "log_binned": "least squares, log-binned",
                   "raw_histogram": "least squares, raw histogram"}


def fit_all(samples, k_min: int, k_max: int, bins_per_decade: int) -> dict:
    """{estimator: fit} for the three estimators on the same range (each fit has .alpha)."""
    return {"mle": fit_discrete_power_law(samples, k_min, k_max),
            "log_binned": fit_log_binned(samples, k_min, k_max, bins_per_decade),
            "raw_histogram": fit_raw_histogram(samples, k_min, k_max)}


def compare_estimators(alphas, sizes, replicates: int, k_min: int, k_max: int, bins_per_decade: int,
                       rng: np.random.Generator, progress: bool = True) -> pd.DataFrame:
    """One row per (alpha, size, replicate, estimator) with the estimate and the line's R²."""
    jobs = [(a, n, r) for a in alphas for n in sizes for r in range(replicates)]
    if progress:
        from tqdm import tqdm
        jobs = tqdm(jobs, desc="estimator study")
    rows = []
    for alpha, size, replicate in jobs:
        samples = sample_discrete_power_law(alpha, size, rng)
        for name, fit in fit_all(samples, k_min, k_max, bins_per_decade).items():
            rows.append({"alpha": alpha, "size": size, "replicate": replicate, "estimator": name,
                         "estimate": fit.alpha, "r2": getattr(fit, "r2", np.nan)})  # the MLE has no R²
    return pd.DataFrame(rows)


def summarise(study: pd.DataFrame) -> pd.DataFrame:
    """Mean, spread, bias and root-mean-square error of each estimator at each (alpha, size)."""
    grouped = study.assign(error=study["estimate"] - study["alpha"]).groupby(["estimator", "alpha", "size"])
    return grouped.agg(mean=("estimate", "mean"), sd=("estimate", "std"), bias=("error", "mean"),
                       rmse=("error", lambda e: float(np.sqrt(np.mean(e**2)))), r2=("r2", "mean")).reset_index()


def sample_truncated_power_law(alpha: float, size: int, k_min: int, k_max: int,
                               rng: np.random.Generator) -> np.ndarray:
    """`size` integers in [k_min, k_max] with P(k) ∝ k^-alpha (any alpha: the range is finite)."""
    k = np.arange(k_min, k_max + 1)
    weights = k.astype(float) ** -float(alpha)
    return rng.choice(k, size=int(size), p=weights / weights.sum())


def attainable_r2(alpha: float, events: int, k_min: int, k_max: int, bins_per_decade: int, replicates: int,
                  rng: np.random.Generator) -> float:
    """The median R² of the log-binned least-squares line on `replicates` samples of `events` counts
    drawn from an exact power law of decay rate `alpha` on [k_min, k_max]: the R² a perfect power law
    reaches with that many events in the range (sparse bins scatter, so fewer events reach less)."""
    values = []
    for _ in range(replicates):
        sample = sample_truncated_power_law(alpha, events, k_min, k_max, rng)
        try:
            values.append(fit_log_binned(sample, k_min, k_max, bins_per_decade).r2)
        except ValueError:  # fewer than two non-empty bins: no line
            values.append(0.0)
    return float(np.median(values))
