"""The AIQ claims' negative controls and the intervals their comparisons carry (issue 32).

A claim is reproduced only when it holds for our subject and fails for a null subject measured in
the same run through the same code. The null subjects of the pools (untrained networks, random
policies) are a flag of the measurement itself: ``untrained=True`` in
:func:`intellimetry.aiq.study.complexity` and its siblings, and in
:func:`intellimetry.aiq.study.handicap_accuracies`. This module holds the other nulls, which reorder
what was measured so that any relation the claim reads is broken by construction:

* :func:`shuffled`: a sweep's values in a random order (a trend over the settings has none);
* :func:`shuffled_pairing_curve`: a pool's network sizes paired with other networks' performances;
* :func:`relabelled_columns`: a dissimilarity matrix whose columns belong to other domains (no
  domain is paired with itself on the diagonal);
* :func:`shuffled_off_diagonal`: a dissimilarity matrix's off-diagonal cells in random places.

And the intervals (the shared :func:`intellimetry.stats.bootstrap_interval`, percentile, 95 %):

* :func:`mccp_bootstrap`: of any statistic of MCCPs, over the pools' networks drawn with
  replacement, the same draw for every setting of a sweep (the pools' architectures and seeds do not
  depend on the domain, so network i of every setting is the same network);
* :func:`correlation_interval`: of a Pearson or Spearman correlation, over its pairs of points.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy.stats import rankdata

from intellimetry.aiq.measures import MCCPCurve, mccp, mccp_curve
from intellimetry.checks import check_int
from intellimetry.stats import Interval, bootstrap_interval

RESAMPLES = 400  # bootstrap resamples of every interval here: a 95 % percentile interval from its 10th and 390th
CORRELATIONS = ("pearson", "spearman")


def permutation(n: int, seed: int = 0, fixed_points: bool = True) -> np.ndarray:
    """A seeded random order of range(n) that is never the identity (n >= 2); ``fixed_points=False``
    moves every index (a derangement, n >= 2)."""
    n = check_int("n", n, 2)
    rng = np.random.default_rng(seed)
    for _ in range(1000):
        order = rng.permutation(n)
        moved = order != np.arange(n)
        if moved.all() if not fixed_points else moved.any():
            return order
    return np.roll(np.arange(n), 1)  # unreachable in practice: a derangement of n >= 2


def shuffled(values, seed: int = 0) -> np.ndarray:
    """``values`` (along the first axis) in a random order that is not the original one."""
    values = np.asarray(values)
    return values[permutation(len(values), seed)]


def shuffled_pairing_curve(pool, rule: str = "neighbour", seed: int = 0) -> MCCPCurve:
    """The MCCP curve of a pool whose network sizes are paired with other networks' performances:
    the same sizes and the same performances, no relation between them."""
    sizes = shuffled([a.size for a in pool], seed)
    return mccp_curve(sizes, [a.accuracy for a in pool], rule=rule)


def relabelled_columns(matrix, seed: int = 0) -> np.ndarray:
    """The matrix with its columns permuted so that none stays in place: row i's diagonal cell now
    holds its dissimilarity with another domain, and domain names no longer match the cells."""
    matrix = np.asarray(matrix, dtype=float)
    return matrix[:, permutation(matrix.shape[1], seed, fixed_points=False)]


def shuffled_off_diagonal(matrix, seed: int = 0) -> np.ndarray:
    """The matrix with its measured off-diagonal cells moved to random measured off-diagonal places
    (the diagonal and the unmeasured, NaN, cells stay where they are)."""
    matrix = np.array(matrix, dtype=float)
    cells = np.isfinite(matrix) & ~np.eye(len(matrix), dtype=bool)
    matrix[cells] = shuffled(matrix[cells], seed)
    return matrix


def _resample_seed(seed: int) -> np.random.Generator:
    return np.random.default_rng(int(seed))


def mccp_bootstrap(complexities: Sequence, statistic: Callable[[np.ndarray], float], resamples: int = RESAMPLES,
                   seed: int = 0) -> Interval:
    """A 95 % percentile bootstrap interval of ``statistic(mccps)``, ``mccps`` holding one MCCP per
    complexity (each the mean over its pools, as :attr:`Complexity.interval`'s estimate).

    A resample draws the pools' networks with replacement (index k = pool k // n, network k % n, n
    networks per pool), the same draw for every complexity, and recomputes each pool's MCCP from the
    networks drawn for it with the complexity's own rule."""
    complexities = list(complexities)
    counts = {(len(c.pools), len(c.pools[0])) for c in complexities}
    if len(counts) != 1 or any(len(pool) != len(c.pools[0]) for c in complexities for pool in c.pools):
        raise ValueError(f"every complexity needs the same number of pools of the same size, got {sorted(counts)}")
    repeats, n = counts.pop()
    arrays = [[(np.array([a.size for a in pool], dtype=float), np.asarray(perf, dtype=float))
               for pool, perf in zip(c.pools, c.performances)] for c in complexities]
    rules = [c.rule for c in complexities]

    def resampled(index: np.ndarray) -> float:
        pools, members = index // n, index % n
        chosen = [members[pools == r] for r in range(repeats)]
        if any(c.size == 0 for c in chosen):
            return float("nan")
        mccps = np.array([np.mean([mccp(s[k], v[k], rule=rule) for (s, v), k in zip(pairs, chosen)])
                          for pairs, rule in zip(arrays, rules)])
        return float(statistic(mccps))

    return bootstrap_interval(np.arange(repeats * n), resampled, resamples, _resample_seed(seed))


def mccp_intervals(complexities: Sequence, resamples: int = RESAMPLES, seed: int = 0) -> list[Interval]:
    """Each complexity's MCCP with its :func:`mccp_bootstrap` interval, in order."""
    complexities = list(complexities)
    return [mccp_bootstrap([c], lambda m: m[0], resamples, seed) for c in complexities]


def correlation(x, y, method: str = "pearson") -> float:
    """Pearson R or Spearman ρ of paired values; NaN where undefined (fewer than three distinct
    points, or a constant side)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if method not in CORRELATIONS:
        raise ValueError(f"method: unknown correlation {method!r}; allowed: {', '.join(CORRELATIONS)}")
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    if method == "spearman":
        x, y = rankdata(x), rankdata(y)
    return float(np.corrcoef(x, y)[0, 1])  # Pearson's R (of the ranks: Spearman's ρ), as scipy's, without its checks


def correlation_interval(x, y, method: str = "pearson", resamples: int = RESAMPLES, seed: int = 0) -> Interval:
    """The correlation of (x, y) with a 95 % percentile bootstrap interval over its pairs of points
    (resamples where it is undefined are left out; where every one is, the interval is [-1, 1], which
    says nothing)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"need two 1-d sequences of equal length, got shapes {x.shape} and {y.shape}")
    try:
        return bootstrap_interval(np.arange(len(x)), lambda i: correlation(x[i], y[i], method), resamples,
                                  _resample_seed(seed))
    except ValueError:  # no resample gave a correlation (too few distinct points)
        return Interval(correlation(x, y, method), -1.0, 1.0, 0.95, resamples)


def pair(interval: Interval) -> list[float]:
    """[low, high] of an interval, as a criterion's `interval` key reads it."""
    return [float(interval.low), float(interval.high)]
