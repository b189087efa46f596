"""Rank correlations that a verdict can always judge, shared by the chapters' trend statistics: a
finite ρ and p-value even where Spearman's is undefined (fewer than three points, or a constant
side), where "no trend" (ρ = 0, p = 1) is the answer."""
from __future__ import annotations

import math

import numpy as np
from scipy.stats import spearmanr


def rank_correlation(x, y) -> tuple[float, float]:
    """Spearman's (ρ, two-sided p) of paired values; (0.0, 1.0) when it is undefined."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"need two 1-d sequences of equal length, got shapes {x.shape} and {y.shape}")
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0, 1.0
    rho, p = spearmanr(x, y)
    if not (math.isfinite(rho) and math.isfinite(p)):
        return 0.0, 1.0
    return float(rho), float(p)
