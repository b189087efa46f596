"""Confidence intervals: percentile bootstrap for any statistic, and intervals of a mean over
repeated measurements."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from intellimetry.checks import check_choice, check_float, check_int


@dataclass(frozen=True)
class Interval:
    estimate: float  # the statistic on the whole sample
    low: float
    high: float
    level: float     # e.g. 0.95
    resamples: int = 0           # bootstrap resamples (0 when the interval needs none)
    method: str = "bootstrap"    # how the interval was made

    def as_dict(self) -> dict:
        return asdict(self)


def bootstrap_interval(samples, statistic: Callable[[np.ndarray], float], resamples: int,
                       rng: np.random.Generator, level: float = 0.95, progress: bool = False) -> Interval:
    """Resample with replacement `resamples` times; the interval holds the central `level` share."""
    check_float("level", level, 0, 1, low_open=True, high_open=True)
    check_int("resamples", resamples, 2)
    samples = np.asarray(samples)
    estimate = float(statistic(samples))
    indices = (rng.integers(0, samples.size, samples.size) for _ in range(resamples))
    if progress:
        from tqdm import tqdm
        indices = tqdm(indices, total=resamples, desc="bootstrap", leave=False)
    values = np.array([statistic(samples[i]) for i in indices])
    tail = (1 - level) / 2 * 100
    if np.isnan(values).all():
        raise ValueError("no bootstrap resample gave a value: the sample is too small")
    low, high = np.nanpercentile(values, [tail, 100 - tail])  # NaN: a resample with no estimate
    return Interval(estimate=estimate, low=float(low), high=float(high), level=level, resamples=resamples)


MEAN_INTERVALS = ("t", "percentile")


def mean_interval(values, level: float = 0.95, method: str = "t") -> Interval:
    """The mean of repeated measurements with an interval: "t" is mean ± t_{(1+level)/2, n-1} · sd/√n
    (sd with ddof = 1), "percentile" the central `level` share of the values themselves."""
    from scipy import stats

    check_float("level", level, 0, 1, low_open=True, high_open=True)
    check_choice("interval method", method, MEAN_INTERVALS)
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        raise ValueError("an interval needs at least two values")
    mean = float(values.mean())
    if method == "t":
        half = stats.t.ppf((1 + level) / 2, values.size - 1) * values.std(ddof=1) / np.sqrt(values.size)
        return Interval(mean, mean - half, mean + half, level, method="t")
    low, high = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return Interval(mean, float(low), float(high), level, method="percentile")
