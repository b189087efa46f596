"""Discrete power laws P(k) ∝ k^-alpha: seeded sampling and maximum-likelihood fits on [k_min, k_max]."""
from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats

# powerlaw's default alpha range for discrete fits is [0, 3], which silently clips steep tails.
ALPHA_RANGE = (1.0001, 20.0)


@dataclass(frozen=True)
class PowerLawFit:
    alpha: float
    sigma: float  # asymptotic standard error of the MLE
    n: int        # samples inside [k_min, k_max]
    k_min: int
    k_max: int | None

    def as_dict(self) -> dict:
        return asdict(self)


def sample_discrete_power_law(alpha: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """`size` integers k >= 1 with P(k) = k^-alpha / zeta(alpha) (needs alpha > 1)."""
    if alpha <= 1:
        raise ValueError(f"alpha must be > 1 for an unbounded discrete power law, got {alpha}")
    return stats.zipf.rvs(alpha, size=size, random_state=rng)


def fit_discrete_power_law(samples, k_min: int = 1, k_max: int | None = None) -> PowerLawFit:
    """Discrete MLE of alpha on the stated range (the powerlaw package, xmin and xmax fixed)."""
    import powerlaw

    samples = np.asarray(samples)
    inside = samples[(samples >= k_min) & ((samples <= k_max) if k_max is not None else True)]
    if inside.size < 2 or np.unique(inside).size < 2:
        raise ValueError(f"need at least two distinct values in [{k_min}, {k_max}] to fit a power law")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # powerlaw warns on every fit about optional settings
        fit = powerlaw.Fit(inside, discrete=True, xmin=k_min, xmax=k_max, verbose=False,
                           parameter_ranges={"alpha": list(ALPHA_RANGE)})
        alpha, sigma = float(fit.power_law.alpha), float(fit.power_law.sigma)
    return PowerLawFit(alpha=alpha, sigma=sigma, n=int(inside.size), k_min=k_min, k_max=k_max)
