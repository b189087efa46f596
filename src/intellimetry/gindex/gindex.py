"""The g-index formula: domain distance Ω, generalisation difficulty, curriculum weights, experience."""
from __future__ import annotations

import numpy as np

from intellimetry.gindex.divergence import IGNORED_KEYS, _check_rule, _divergence_exact

EXPERIENCE_MODES = ("log2", "log2_1p", "raw")


def domain_distance_matrix(flows_by_domain: dict, rule: str = "either", decimals: int = 3,
                           ignored_keys=IGNORED_KEYS) -> tuple[list, np.ndarray]:
    """Ω(a, b) = mean over tasks of a of the min over tasks of b of Δ(task of a, task of b), rounded."""
    _check_rule(rule)
    names = list(flows_by_domain)  # the caller's order; no dependence on directory listing order
    for name in names:
        if len(flows_by_domain[name]) == 0:
            raise ValueError(f"domain {name!r} has no flows")
    omega = np.zeros((len(names), len(names)))
    for a, name_a in enumerate(names):
        for b, name_b in enumerate(names):
            if a != b:  # the diagonal is 0 by definition (each task meets itself)
                nearest = [min(_divergence_exact(ga, gb, rule, ignored_keys) for gb in flows_by_domain[name_b])
                           for ga in flows_by_domain[name_a]]
                omega[a, b] = float(sum(nearest) / len(nearest))
    # kept asymmetric: Δ counts only the first node's keys, so Ω(a, b) may differ from Ω(b, a)
    return names, np.round(omega, decimals)


def pairwise_divergences(graphs: list, rule: str = "either", ignored_keys=IGNORED_KEYS) -> list[list]:
    """Δ(graphs[i], graphs[j]) as exact fractions for every ordered pair i != j (None on the diagonal):
    Ω and the within-domain divergence of any grouping of the same tasks follow without a new clique search."""
    _check_rule(rule)
    return [[None if i == j else _divergence_exact(a, b, rule, ignored_keys) for j, b in enumerate(graphs)]
            for i, a in enumerate(graphs)]


def _check_groups(groups: dict, size: int) -> None:
    members = sorted(k for indices in groups.values() for k in indices)
    if any(len(indices) == 0 for indices in groups.values()):
        raise ValueError("every domain needs at least one task")
    if members != list(range(size)):
        raise ValueError(f"the domains must share out the {size} tasks, each task once")


def domain_distance_from_pairwise(pairwise: list[list], groups: dict, decimals: int = 3) -> tuple[list, np.ndarray]:
    """Ω as domain_distance_matrix computes it, from pairwise_divergences of the tasks and `groups`
    ({domain: indices of its tasks}, in the caller's order)."""
    _check_groups(groups, len(pairwise))
    names = list(groups)
    omega = np.zeros((len(names), len(names)))
    for a, name_a in enumerate(names):
        for b, name_b in enumerate(names):
            if a != b:
                nearest = [min(pairwise[i][j] for j in groups[name_b]) for i in groups[name_a]]
                omega[a, b] = float(sum(nearest) / len(nearest))
    return names, np.round(omega, decimals)


def within_domain_from_pairwise(pairwise: list[list], groups: dict) -> list[float]:
    """Per domain (the order of `groups`), the mean Δ between its distinct tasks; NaN for a single task."""
    _check_groups(groups, len(pairwise))
    return [float(np.mean([float(pairwise[i][j]) for i in indices for j in indices if i != j]))
            if len(indices) > 1 else float("nan") for indices in groups.values()]


def _omega(omega) -> np.ndarray:
    """Domain distances as a float array checked to lie in [0, 1]."""
    values = np.asarray(omega, dtype=float)
    if np.isnan(values).any() or (values < 0).any() or (values > 1).any():
        raise ValueError("domain distances Ω must lie in [0, 1]")
    return values


def generalisation_difficulty(omega, scale: float = 10.0):
    """GD = exp(scale · Ω)."""
    return np.exp(scale * _omega(omega))


def curriculum_weights(samples) -> np.ndarray:
    """W_i = 1 / (1 + log2 n_i); a domain with no samples gets weight 0 (the limit n -> 0)."""
    n = np.asarray(samples, dtype=float)
    if np.isnan(n).any() or (n < 0).any() or (n != np.round(n)).any():
        raise ValueError("training samples must be non-negative integers")
    with np.errstate(divide="ignore"):  # log2(0) = -inf gives the limit weight 0
        return 1.0 / (1.0 + np.log2(n))


def experience(compute_pf: float, mode: str = "log2") -> float:
    """Experience E from training compute in petaFLOPs: log2(C) (spec), log2(1 + C), or raw C."""
    if mode not in EXPERIENCE_MODES:
        raise ValueError(f"unknown experience mode {mode!r}; allowed: {', '.join(EXPERIENCE_MODES)}")
    compute = float(compute_pf)
    if not compute >= 0:
        raise ValueError(f"training compute must be >= 0 petaFLOPs, got {compute_pf!r}")
    if mode == "raw":  # what the reference responsiveness simulations passed as E
        return compute
    if mode == "log2_1p":  # >= 0 for any compute: usable for small local models below 1 PF
        return float(np.log2(1.0 + compute))
    if compute == 0:
        raise ValueError("log2 experience needs compute > 0 petaFLOPs; use mode='log2_1p'")
    # caveat: negative below 1 PF, and rho + E <= 0 makes the g-index undefined (see task_contributions)
    return float(np.log2(compute))


def task_contributions(theta, omega, samples, experience, prior: float = 1e-4,
                       theta_scale: float = 12.0, gd_scale: float = 10.0) -> np.ndarray:
    """TC_j = sqrt(exp(θ_scale·θ_j) · Σ_i W_i · GD(j, i) / (ρ + E)), rows j = test, columns i = curriculum."""
    theta = np.asarray(theta, dtype=float).ravel()
    if theta.size == 0 or np.isnan(theta).any() or (theta < 0).any() or (theta > 1).any():
        raise ValueError("θ must be a non-empty array of values in [0, 1]")
    weights = curriculum_weights(samples).ravel()
    difficulty = generalisation_difficulty(np.atleast_2d(omega), gd_scale)
    if difficulty.shape != (theta.size, weights.size):
        raise ValueError(f"Ω has shape {difficulty.shape}; expected (test domains, curriculum domains) = "
                         f"({theta.size}, {weights.size})")
    denominator = prior + float(experience)
    if not denominator > 0:
        raise ValueError(f"ρ + E = {denominator} must be > 0 (log2 experience is negative below 1 PF)")
    return np.sqrt(np.exp(theta_scale * theta) * (difficulty @ weights) / denominator)


def g_index(theta, omega, samples, experience, prior: float = 1e-4,
            theta_scale: float = 12.0, gd_scale: float = 10.0) -> float:
    """g-index = mean over test domains of the task contributions TC_j."""
    return float(np.mean(task_contributions(theta, omega, samples, experience, prior, theta_scale, gd_scale)))
