"""Confidence intervals: percentile bootstrap for any statistic, and intervals of a mean over
repeated measurements."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from intellimetry.checks import check_choice, check_float, check_int
from intellimetry.parallel import in_process, parallel_map


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
                       rng: np.random.Generator, level: float = 0.95, progress: bool = False,
                       workers: int = 1) -> Interval:
    """Resample with replacement `resamples` times; the interval holds the central `level` share.

    With ``workers > 1`` (or a Dask cluster in use) the resamples are scored through
    :func:`intellimetry.parallel.parallel_map` in chunks, ``statistic`` then being a top-level function
    (or a functools.partial of one). Every chunk replays `rng`'s stream from where the chunk starts,
    so the resamples, the values and `rng`'s state afterwards are those of ``workers=1``."""
    check_float("level", level, 0, 1, low_open=True, high_open=True)
    check_int("resamples", resamples, 2)
    samples = np.asarray(samples)
    estimate = float(statistic(samples))
    chunks = _chunk_sizes(resamples, check_int("workers", workers, 1))
    if in_process(workers, len(chunks)):
        indices = (rng.integers(0, samples.size, samples.size) for _ in range(resamples))
        if progress:
            from tqdm import tqdm
            indices = tqdm(indices, total=resamples, desc="bootstrap", leave=False)
        values = np.array([statistic(samples[i]) for i in indices])
    else:
        starts = [_advance(rng, samples.size, count) for count in chunks]
        per_chunk = parallel_map(_score_chunk, starts, workers=workers, shared=(samples, statistic),
                                 desc="bootstrap", progress=progress)
        values = np.concatenate(per_chunk)
    tail = (1 - level) / 2 * 100
    if np.isnan(values).all():
        raise ValueError("no bootstrap resample gave a value: the sample is too small")
    low, high = np.nanpercentile(values, [tail, 100 - tail])  # NaN: a resample with no estimate
    return Interval(estimate=estimate, low=float(low), high=float(high), level=level, resamples=resamples)


CHUNKS_PER_WORKER = 4  # a few chunks per worker even out unequal chunk times


def _chunk_sizes(resamples: int, workers: int) -> list[int]:
    """Resamples per chunk; any split gives the same values (each chunk replays its part of the stream)."""
    chunks = min(resamples, workers * CHUNKS_PER_WORKER)
    return [len(part) for part in np.array_split(np.arange(resamples), chunks)]


def _advance(rng: np.random.Generator, size: int, count: int) -> tuple[dict, int, int]:
    """The generator's state where a chunk of `count` resamples starts, then `rng` moved past them
    (drawing is cheap beside a statistic worth parallelising)."""
    state = rng.bit_generator.state
    for _ in range(count):
        rng.integers(0, size, size)
    return state, size, count


def _score_chunk(shared: tuple[np.ndarray, Callable], start: tuple[dict, int, int]) -> np.ndarray:
    """The statistic of a chunk's resamples, drawn from a generator at the chunk's recorded state."""
    samples, statistic = shared
    state, size, count = start
    rng = np.random.Generator(getattr(np.random, state["bit_generator"])())
    rng.bit_generator.state = state
    return np.array([statistic(samples[rng.integers(0, size, size)]) for _ in range(count)], dtype=float)


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
