"""One-sided Wilcoxon signed-rank test (normal approximation) for AGITB's real-time liveness test."""
from __future__ import annotations

import math

import numpy as np

from intellimetry.checks import check_int


def _average_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks 1..n with ties given their average rank, and the size of every tie group."""
    unique, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)  # highest rank in each group
    group_rank = ends - (counts - 1) / 2.0  # mean of ranks ends-counts+1 .. ends
    return group_rank[inverse], counts


def signed_rank_z(first, second) -> tuple[float, int]:
    """z for "first is consistently larger than second" on paired samples, and the number of non-zero pairs."""
    first = np.asarray(first, dtype=float)
    second = np.asarray(second, dtype=float)
    if first.shape != second.shape or first.ndim != 1:
        raise ValueError(f"need two equally long 1-d samples, got shapes {first.shape} and {second.shape}")
    d = first - second
    d = d[d != 0]  # Wilcoxon's zero method: zero differences carry no sign, drop them
    n = d.size
    if n == 0:
        return 0.0, 0
    ranks, ties = _average_ranks(np.abs(d))
    w_plus = float(ranks[d > 0].sum())
    mean = n * (n + 1) / 4
    variance = n * (n + 1) * (2 * n + 1) / 24 - float(np.sum(ties**3 - ties)) / 48
    # One-sided upper tail: P(W+ >= w) ~ P(Z >= (w - 0.5 - mean) / sd), so the
    # continuity correction always subtracts 0.5 (as scipy does for "greater").
    return (w_plus - mean - 0.5) / math.sqrt(variance), n


def consistently_slower(complex_times, blank_times, z_threshold: float = 3.090, min_pairs: int = 20) -> dict:
    """Whether the complex model's batch times are consistently above the blank model's."""
    z, pairs = signed_rank_z(complex_times, blank_times)
    # Too few informative pairs cannot support the claim (spec: at least 20 non-zero).
    return {"z": z, "pairs": pairs, "slower": bool(z > z_threshold and pairs >= min_pairs)}


def repeated_false_alarm(z_threshold: float, repetitions: int) -> float:
    """Chance that `repetitions` independent one-sided tests at z > z_threshold raise at least one
    alarm when nothing differs (the liveness test fails at its first alarm)."""
    check_int("repetitions", repetitions, 0)
    per_test = 0.5 * math.erfc(z_threshold / math.sqrt(2))  # upper tail of the standard normal
    return 1.0 - (1.0 - per_test) ** repetitions
