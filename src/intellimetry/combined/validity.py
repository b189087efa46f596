"""The paper's two validity criteria for a sub-test (its Sections 3 and 8), and the statistics its figures
are judged by.

1. **Handicap**: "valid if a linear decline in score is observed when an agent is incrementally and
   linearly handicapped" (nodes removed from every hidden layer, one more per step).
2. **Training**: "valid if we observe a steady linear increase in score as the amount of training increases
   linearly" (the share of the problem set trained on).

Each is a function returning a verdict and its statistics: the mean score must move the right way (Spearman
rho of the mean score against the handicap or training amount, p < 0.05) and roughly linearly (a straight
line explains at least ``LINEAR_R2`` of the variance of the mean scores). The threshold is ours, fixed
before any run: the paper names no number.
"""
from __future__ import annotations

import numpy as np

from intellimetry.stats import mean_interval, rank_correlation

ALPHA = 0.05
LINEAR_R2 = 0.8  # "roughly linear": a straight line explains at least this share of the variance
VALID, NOT_VALID = "valid", "not valid"


def linear_r2(x, y) -> float:
    """R^2 of the least-squares line of y on x (0 when y is constant: a line explains nothing)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.size < 2:
        raise ValueError(f"need two equal-length sequences of at least two values, got {x.shape} and {y.shape}")
    total = float(((y - y.mean()) ** 2).sum())
    if total == 0:
        return 0.0
    slope, intercept = np.polyfit(x, y, 1)
    return float(1 - ((y - (slope * x + intercept)) ** 2).sum() / total)


def mean_spread(values, level: float = 0.95) -> list[float]:
    """[low, high]: the t-interval of the mean of per-agent values (intellimetry.stats.mean_interval);
    a single agent has no spread, so its interval is the value itself (a verdict then needs the item's
    `measured` condition on the number of agents to say so)."""
    values = np.asarray(values, dtype=float).ravel()
    if values.size == 1:
        return [float(values[0])] * 2
    interval = mean_interval(values, level)
    return [interval.low, interval.high]


def _summary(x, scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, mean, s.d.) of scores given as (levels, agents)."""
    x, scores = np.asarray(x, dtype=float), np.asarray(scores, dtype=float)
    if scores.ndim != 2 or scores.shape[0] != x.size or x.size < 2:
        raise ValueError(f"scores must be (levels, agents) with one row per level ({x.size}), got {scores.shape}")
    return x, scores.mean(axis=1), scores.std(axis=1)


def _verdict(rho: float, p: float, r2: float, sign: int) -> str:
    return VALID if rho * sign > 0 and p < ALPHA and r2 >= LINEAR_R2 else NOT_VALID


def handicap_validity(removed, scores, plateau_end: int = 12) -> dict:
    """The handicap criterion and Fig. 2's statistics for scores (levels, agents) at nodes ``removed``.

    ``largest_drop_at``: the handicap whose step from the previous level lowers the mean score most;
    ``plateau_change``: |mean at ``plateau_end`` - mean unhandicapped| / mean unhandicapped (the paper saw
    no change up to 12 removed), ``plateau_shift`` the same change with its sign and ``plateau_interval``
    its interval over agents (agent j of every level shares a seed, so each agent's own change is one
    value); ``rho``, ``p``: Spearman of the mean score against nodes removed; ``linear_r2``: R^2 of a
    line through the means."""
    x, mean, sd = _summary(removed, scores)
    if not (np.diff(x) > 0).all():
        raise ValueError(f"removed must increase, got {x.tolist()}")
    drops = mean[:-1] - mean[1:]
    rho, p = rank_correlation(x, mean)
    r2 = linear_r2(x, mean)
    levels = x.astype(int).tolist()
    plateau = shift = interval = None
    if 0 in levels and plateau_end in levels and mean[levels.index(0)] > 0:
        base = mean[levels.index(0)]
        per_agent = (np.asarray(scores, dtype=float)[levels.index(plateau_end)]
                     - np.asarray(scores, dtype=float)[levels.index(0)]) / base
        shift = float((mean[levels.index(plateau_end)] - base) / base)
        plateau, interval = abs(shift), mean_spread(per_agent)
    return {"removed": levels, "mean": mean.tolist(), "sd": sd.tolist(),
            "largest_drop_at": levels[int(np.argmax(drops)) + 1], "largest_drop": float(drops.max()),
            "plateau_change": plateau, "plateau_shift": shift, "plateau_interval": interval,
            "rho": rho, "p": p, "linear_r2": r2, "linear_r2_threshold": LINEAR_R2,
            "verdict": _verdict(rho, p, r2, sign=-1)}


def training_validity(shares, scores, at_share: float = 0.10, problems=None) -> dict:
    """The training criterion and Figs. 3-4's statistics for scores (levels, agents) at training ``shares``
    (fractions of the problem set). ``score_at_10pct``: the mean score at ``at_share`` (None if not run),
    with ``score_at_10pct_interval`` its interval over agents; with ``problems`` (the training problems per
    share), also how many that share was."""
    x, mean, sd = _summary(shares, scores)
    rho, p = rank_correlation(x, mean)
    r2 = linear_r2(x, mean)
    near = np.flatnonzero(np.isclose(x, at_share))
    found = {"shares": x.tolist(), "mean": mean.tolist(), "sd": sd.tolist(), "rho": rho, "p": p, "linear_r2": r2,
             "linear_r2_threshold": LINEAR_R2, "score_at_10pct": float(mean[near[0]]) if near.size else None,
             "score_at_10pct_interval": mean_spread(np.asarray(scores, dtype=float)[near[0]]) if near.size else None,
             "verdict": _verdict(rho, p, r2, sign=1)}
    if problems is not None:
        found["problems"] = [int(count) for count in problems]
        found["problems_at_10pct"] = found["problems"][near[0]] if near.size else None
    return found


def convergence(changes) -> dict:
    """Fig. 6: the weight change per epoch, (epochs, agents), averaged over agents and scaled by its maximum;
    ``rho``, ``p``: Spearman of the change against the epoch (negative: the agent converges)."""
    changes = np.asarray(changes, dtype=float)
    if changes.ndim != 2 or len(changes) < 3:
        raise ValueError(f"changes must be (epochs >= 3, agents), got shape {changes.shape}")
    mean = changes.mean(axis=1)
    scaled = mean / mean.max() if mean.max() > 0 else mean
    epochs = np.arange(1, len(mean) + 1)
    rho, p = rank_correlation(epochs, mean)
    return {"scaled": scaled.tolist(), "rho": rho, "p": p, "converging": bool(rho < 0 and p < ALPHA),
            "first_tenth": float(scaled[: max(1, len(scaled) // 10)].mean()),
            "last_tenth": float(scaled[-max(1, len(scaled) // 10):].mean())}
