"""Responsiveness simulations of the g-index (the paper's Figures 6-8), seeded and fully parameterised.

The reference simulations (authors' repository mayahq/g-index-benchmark, recovered in the spec) passed
the raw compute value as the experience E, not its log2; the callers here take E as given.
Every test domain gets the same performance θ, so θ scales each curve by exp(6θ) and the random
curriculum splits are drawn once per point and shared by all θ lines (common random numbers).
"""
from __future__ import annotations

import numpy as np

from intellimetry.gindex.gindex import g_index
from intellimetry.gindex.reference import load_domain_distance
from intellimetry.stats import rank_correlation

OMEGA_SOURCES = ("sample-flows", "uniform")


def responsiveness_omega(source: str, uniform: float, n_domains: int = 16) -> np.ndarray:
    """Ω of the responsiveness figures: the authors' matrix from their sample flows, or every
    distance `uniform` (0 on the diagonal), to show which effects come from Ω's structure."""
    if source == "sample-flows":
        return load_domain_distance().to_numpy()
    omega = np.full((n_domains, n_domains), uniform)
    np.fill_diagonal(omega, 0.0)
    return omega


def even_split(per_domain: int, n_domains: int) -> np.ndarray:
    """The curriculum split evenly: `per_domain` samples in each of `n_domains` domains."""
    if per_domain < 1 or n_domains < 1:
        raise ValueError("need at least one sample per domain and one domain")
    return np.full(n_domains, int(per_domain))


def uneven_splits(per_domain: int, n_domains: int, n_splits: int, rng: np.random.Generator,
                  concentration: float = 1.0) -> np.ndarray:
    """`n_splits` random splits of per_domain·n_domains samples, every domain keeping at least one sample.

    The samples above one per domain go to the domains multinomially, with proportions drawn from a
    symmetric Dirichlet(concentration): small concentrations give very uneven curricula. Shape
    (n_splits, n_domains); each row sums to per_domain·n_domains.
    """
    if per_domain < 1 or n_domains < 1 or n_splits < 1:
        raise ValueError("need per_domain >= 1, n_domains >= 1, n_splits >= 1")
    if not concentration > 0:
        raise ValueError("the Dirichlet concentration must be > 0")
    spare = (int(per_domain) - 1) * n_domains
    shares = rng.dirichlet(np.full(n_domains, float(concentration)), size=n_splits)
    return 1 + np.array([rng.multinomial(spare, p) for p in shares])


def closed_form_even(theta: float, omega, per_domain: int, experience: float, prior: float) -> float:
    """g-index of an even split with uniform θ: sqrt(e^{12θ} / ((1 + log2 n)(ρ + E))) · mean_j sqrt(Σ_i e^{10Ω_ji})."""
    gd_rows = np.exp(10.0 * np.asarray(omega, dtype=float)).sum(axis=1)
    return float(np.sqrt(np.exp(12.0 * theta) / ((1.0 + np.log2(per_domain)) * (prior + experience)))
                 * np.mean(np.sqrt(gd_rows)))


def _curve_summary(values: np.ndarray) -> dict:
    """Mean, min, max, standard deviation over the last axis (the random splits)."""
    return {"mean": values.mean(axis=-1), "min": values.min(axis=-1), "max": values.max(axis=-1),
            "std": values.std(axis=-1)}


def samples_curves(samples_per_domain, thetas, omega, experience: float, prior: float, n_splits: int,
                   seed: int, concentration: float = 1.0, uneven: bool = True) -> dict:
    """Figure 6: g-index against samples per domain, one line per θ, fixed E and ρ.

    Returns `even` (θ × points, the evenly split curriculum) and `splits` (θ × points × n_splits, the
    random uneven splits, or the even split repeated when uneven is False) with their summaries.
    """
    points = [(int(n), float(experience)) for n in samples_per_domain]
    return _sweep(points, np.asarray(samples_per_domain), thetas, omega, prior, n_splits, seed, concentration, uneven)


def compute_curves(computes, thetas, omega, per_domain: int, prior: float, n_splits: int, seed: int,
                   concentration: float = 1.0, uneven: bool = True) -> dict:
    """Figure 7: g-index against the experience E (the raw compute), fixed samples per domain and ρ."""
    points = [(per_domain, float(compute)) for compute in computes]
    return _sweep(points, np.asarray(computes, dtype=float), thetas, omega, prior, n_splits, seed, concentration,
                  uneven)


def _sweep(points, x, thetas, omega, prior: float, n_splits: int, seed: int, concentration: float,
           uneven: bool) -> dict:
    """The g-index at each (samples per domain, experience) point, one line per uniform θ."""
    omega = np.asarray(omega, dtype=float)
    n_domains = omega.shape[1]
    rng = np.random.default_rng(seed)
    thetas = [float(t) for t in thetas]
    even = np.empty((len(thetas), len(points)))
    splits = np.empty((len(thetas), len(points), n_splits))
    for p, (per_domain, experience) in enumerate(points):
        curricula = (uneven_splits(per_domain, n_domains, n_splits, rng, concentration) if uneven
                     else np.tile(even_split(per_domain, n_domains), (n_splits, 1)))
        for t, theta in enumerate(thetas):
            uniform = np.full(omega.shape[0], theta)
            even[t, p] = g_index(uniform, omega, even_split(per_domain, n_domains), experience, prior)
            splits[t, p] = [g_index(uniform, omega, c, experience, prior) for c in curricula]
    return {"x": x, "thetas": thetas, "even": even, "splits": splits, **_curve_summary(splits)}


def random_omega(n_tasks: int, n_curriculum: int, mean: float, sd: float, rng: np.random.Generator) -> np.ndarray:
    """Ω for every (task, curriculum) pair drawn from N(mean, sd) and clipped to [0, 1]."""
    return np.clip(rng.normal(mean, sd, size=(n_tasks, n_curriculum)), 0.0, 1.0)


def theta_scatter(thetas, n_domains: int, per_domain: int, experience: float, prior: float, repetitions: int,
                  omega_mean: float, omega_sd: float, seed: int) -> dict:
    """Figure 8: g-index against θ with a fresh random Ω per point (colour = mean Ω), even curriculum."""
    rng = np.random.default_rng(seed)
    thetas = np.asarray(thetas, dtype=float)
    g = np.empty((thetas.size, repetitions))
    mean_omega = np.empty_like(g)
    samples = even_split(per_domain, n_domains)
    for t, theta in enumerate(thetas):
        for r in range(repetitions):
            omega = random_omega(n_domains, n_domains, omega_mean, omega_sd, rng)
            g[t, r] = g_index(np.full(n_domains, theta), omega, samples, experience, prior)
            mean_omega[t, r] = omega.mean()
    return {"theta": thetas, "g": g, "mean_omega": mean_omega}


def is_monotone(values, direction: str) -> bool:
    """Whether a sequence strictly decreases ('decreasing') or strictly increases ('increasing')."""
    diffs = np.diff(np.asarray(values, dtype=float))
    if direction == "decreasing":
        return bool((diffs < 0).all())
    if direction == "increasing":
        return bool((diffs > 0).all())
    raise ValueError(f"direction must be 'increasing' or 'decreasing', got {direction!r}")


def theta_key(theta: float) -> str:
    """A sidecar key without dots for a θ line: 0.2 -> 'theta020'."""
    return f"theta{round(100 * float(theta)):03d}"


def curve_values(result: dict, direction: str) -> dict:
    """Per θ line: the g-index at both ends (even split and mean of the splits), the spread of the
    splits (max − min, absolute and relative to the even value) and whether the curves are monotone."""
    lines = {}
    for t, theta in enumerate(result["thetas"]):
        even, mean = result["even"][t], result["mean"][t]
        spread = result["max"][t] - result["min"][t]
        lines[theta_key(theta)] = {
            "theta": theta, "even_first": float(even[0]), "even_last": float(even[-1]),
            "mean_first": float(mean[0]), "mean_last": float(mean[-1]),
            "spread_first": float(spread[0]), "spread_last": float(spread[-1]),
            "rel_spread_first_pct": float(100 * spread[0] / even[0]),
            "rel_spread_last_pct": float(100 * spread[-1] / even[-1]),
            "ratio_last_first": float(even[-1] / even[0]),
            "monotone_even": is_monotone(even, direction), "monotone_mean": is_monotone(mean, direction)}
    return {"lines": lines, "x_first": float(result["x"][0]), "x_last": float(result["x"][-1]),
            "points": int(len(result["x"])), "direction": direction,
            "all_monotone_even": all(v["monotone_even"] for v in lines.values()),
            "all_monotone_mean": all(v["monotone_mean"] for v in lines.values())}


def spread_shrinks(summary: dict) -> bool:
    """Whether the splits' absolute spread is smaller at the last point than at the first on every
    θ line (Figure 7's caption: uneven splits matter less as compute grows)."""
    return all(v["spread_last"] < v["spread_first"] for v in summary["lines"].values())


def theta_summary(thetas, result: dict, repetitions: int) -> dict:
    """Figure 8's numbers: the g-index at the first and last θ (mean, min, max), its growth and spread,
    whether the mean grows, and the rank correlation (with its p-value) of g with θ and of what is
    left of log g once θ's exp(6θ) is taken out with the mean Ω (the domain-distance effect)."""
    g, mean_omega = result["g"], result["mean_omega"]
    mean_g = g.mean(axis=1)
    residual = np.log(g) - 6.0 * thetas[:, None]
    rho_theta, p_theta = rank_correlation(np.repeat(thetas, repetitions), g.ravel())
    rho_omega, p_omega = rank_correlation(mean_omega.ravel(), residual.ravel())
    return {
        "g_first_mean": float(mean_g[0]), "g_last_mean": float(mean_g[-1]),
        "g_first_min": float(g[0].min()), "g_first_max": float(g[0].max()),
        "g_last_min": float(g[-1].min()), "g_last_max": float(g[-1].max()),
        "ratio_last_first": float(mean_g[-1] / mean_g[0]),
        "spread_last_pct": float(100 * (g[-1].max() - g[-1].min()) / mean_g[-1]),
        "monotone_mean": is_monotone(mean_g, "increasing"),
        "spearman_theta": rho_theta, "spearman_theta_p": p_theta,
        "spearman_omega_residual": rho_omega, "spearman_omega_residual_p": p_omega,
        "mean_omega_min": float(mean_omega.min()), "mean_omega_max": float(mean_omega.max()),
    }
