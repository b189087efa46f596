"""Percentile bootstrap intervals for any statistic of a one-dimensional sample."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True)
class Interval:
    estimate: float  # the statistic on the whole sample
    low: float
    high: float
    level: float     # e.g. 0.95
    resamples: int

    def as_dict(self) -> dict:
        return asdict(self)


def bootstrap_interval(samples, statistic: Callable[[np.ndarray], float], resamples: int,
                       rng: np.random.Generator, level: float = 0.95, progress: bool = False) -> Interval:
    """Resample with replacement `resamples` times; the interval holds the central `level` share."""
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    if resamples < 2:
        raise ValueError(f"resamples must be at least 2, got {resamples}")
    samples = np.asarray(samples)
    estimate = float(statistic(samples))
    indices = (rng.integers(0, samples.size, samples.size) for _ in range(resamples))
    if progress:
        from tqdm.auto import tqdm
        indices = tqdm(indices, total=resamples, desc="bootstrap", leave=False)
    values = np.array([statistic(samples[i]) for i in indices])
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return Interval(estimate=estimate, low=float(low), high=float(high), level=level, resamples=resamples)
