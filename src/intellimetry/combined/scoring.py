"""The combined score (the paper's Eq. 1-3) and the difficulty it weights by.

Difficulty d_mu (Section 6): the mean number of epochs the baseline network needs to reach a threshold
in environment mu (3-RPM: a score of 0.95; CartPole: 190 of 200 steps), over several freshly initialised
networks. Then

    w_mu = d_mu / sum_T d           (Eq. 1)
    V_mu = mean_i r_i               (Eq. 2: the mean score over interactions)
    Upsilon = sum_T V_mu * w_mu     (Eq. 3: the mixed score)

The paper's epochs, 383 (CartPole) and 118 (3-RPM), give the weights 0.76 and 0.24.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from intellimetry.checks import check_float, check_int

RPM_THRESHOLD = 0.95  # the paper's 3-RPM accuracy threshold
CARTPOLE_THRESHOLD = 190 / 200  # the paper's CartPole threshold, as a score
THRESHOLDS = {"3-RPM": RPM_THRESHOLD, "6-RPM": RPM_THRESHOLD, "CartPole": CARTPOLE_THRESHOLD}
CARTPOLE_WINDOW = 10  # CartPole training episodes averaged before comparing with the threshold


def difficulty_weights(difficulties: Mapping[str, float]) -> dict[str, float]:
    """Eq. 1: each environment's difficulty divided by their sum."""
    if not difficulties:
        raise ValueError("difficulty_weights needs at least one environment's difficulty")
    values = {name: check_float(f"difficulty of {name}", d, 0, low_open=True) for name, d in difficulties.items()}
    total = sum(values.values())
    return {name: d / total for name, d in values.items()}


def mixed_score(scores: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """Eq. 3: the weighted sum of an agent's scores V over the environments that ``weights`` names."""
    missing = sorted(set(weights) - set(scores))
    if missing:
        raise ValueError(f"no score for {missing}; scores given for {sorted(scores)}")
    return float(sum(check_float(f"score on {name}", scores[name], 0, 1) * w for name, w in weights.items()))


def epochs_to_threshold(curve, threshold: float, window: int = 1) -> list[int | None]:
    """Per agent, the first epoch (1-based) whose score, averaged over the last ``window`` epochs (fewer at
    the start), reaches ``threshold``; None when it never does. ``curve``: scores (epochs, agents)."""
    curve = np.asarray(curve, dtype=float)
    if curve.ndim != 2 or curve.shape[0] == 0:
        raise ValueError(f"curve must be a non-empty (epochs, agents) array, got shape {curve.shape}")
    window = check_int("window", window, 1)
    sums = np.cumsum(curve, axis=0)
    lagged = np.vstack([np.zeros((window, curve.shape[1])), sums])[: len(curve)]
    counts = np.minimum(np.arange(1, len(curve) + 1), window)[:, None]
    smoothed = (sums - lagged) / counts
    found = []
    for agent in range(curve.shape[1]):
        hits = np.flatnonzero(smoothed[:, agent] >= threshold - 1e-12)
        found.append(int(hits[0]) + 1 if hits.size else None)
    return found


def difficulty(curve, threshold: float, window: int = 1) -> dict:
    """The mean epochs to ``threshold`` over agents; an agent that never reached it counts with the number of
    epochs it trained (so the mean is a lower bound then), and ``censored`` says how many did not."""
    epochs = epochs_to_threshold(curve, threshold, window)
    trained = int(np.asarray(curve).shape[0])
    filled = [trained if e is None else e for e in epochs]
    return {"epochs": float(np.mean(filled)), "per_agent": epochs, "censored": sum(e is None for e in epochs),
            "agents": len(epochs), "trained_epochs": trained, "threshold": threshold, "window": window}
