"""Scaling prediction: decay rate against model size, extrapolated to the Capable and Autonomous levels.

The paper fits a straight line to log10(alpha) against log10(N) (N = non-embedding parameters),
solves it for alpha = 2 and alpha = 3, and puts the sizes in perspective: the year Moore's law would
make them trainable, the GPUs needed just to hold the weights, their price against Apple's market
value, and the neurons of all human brains.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class ScalingFit:
    slope: float      # d log10(alpha) / d log10(N)
    intercept: float  # log10(alpha) at N = 1
    r2: float
    models: int
    p: float          # two-sided p-value of the slope (t-test, models - 2 degrees of freedom)
    slope_interval: tuple[float, float] | None = None  # 95 % t interval (None for two models: no residual)

    def alpha_at(self, n_params):
        return 10 ** (self.intercept + self.slope * np.log10(n_params))

    def size_for_alpha(self, alpha: float) -> float:
        """The parameter count at which the fitted line reaches `alpha`."""
        if self.slope <= 0:
            raise ValueError(f"the decay rate does not grow with size (slope {self.slope:.4g}): "
                             f"no size reaches {alpha}")
        return float(10 ** ((np.log10(alpha) - self.intercept) / self.slope))

    def as_dict(self) -> dict:
        return asdict(self)


def fit_scaling(n_params, alpha) -> ScalingFit:
    """Ordinary least squares of log10(alpha) on log10(N), with the p-value of its slope."""
    n_params, alpha = np.asarray(n_params, float), np.asarray(alpha, float)
    if n_params.size < 2 or np.unique(n_params).size < 2:
        raise ValueError("need at least two different model sizes to fit a scaling line")
    if (n_params <= 0).any() or (alpha <= 0).any():
        raise ValueError("model sizes and decay rates must be positive (they are fitted on log scales)")
    result = stats.linregress(np.log10(n_params), np.log10(alpha))
    if n_params.size > 2:
        half = stats.t.ppf(0.975, n_params.size - 2) * result.stderr
        interval = (float(result.slope - half), float(result.slope + half))
    else:
        interval = None
    return ScalingFit(slope=float(result.slope), intercept=float(result.intercept), r2=float(result.rvalue**2),
                      models=int(n_params.size), p=float(result.pvalue), slope_interval=interval)


@dataclass(frozen=True)
class Timeline:
    """Moore's law for trainable model size: `base_size` parameters in `base_year`, doubling every `doubling_years`."""
    base_year: float = 2025.0
    base_size: float = 1e12
    doubling_years: float = 1.5

    def __post_init__(self):
        _require_positive(self, ("base_size", "doubling_years"))

    def year(self, n_params):
        return self.base_year + self.doubling_years * np.log2(np.asarray(n_params, float) / self.base_size)

    def size(self, year):
        return self.base_size * 2 ** ((np.asarray(year, float) - self.base_year) / self.doubling_years)


@dataclass(frozen=True)
class Hardware:
    """What it takes to hold a model's weights in GPU memory, and what that costs."""
    bytes_per_parameter: float = 2.0   # 16-bit weights
    gpu_memory_bytes: float = 80e9     # one H100
    gpu_price: float = 30_000.0        # US dollars
    market_value: float = 3.7e12       # Apple Inc., February 2025, US dollars
    neurons_per_brain: float = 8.6e10
    population: float = 8e9

    def __post_init__(self):
        _require_positive(self, tuple(f.name for f in fields(self)))

    def cost_of(self, n_params: float) -> dict:
        gpus = n_params * self.bytes_per_parameter / self.gpu_memory_bytes
        cost = gpus * self.gpu_price
        all_neurons = self.neurons_per_brain * self.population
        return {"gpus": gpus, "cost": cost, "market_value_multiple": cost / self.market_value,
                "all_human_neurons": all_neurons, "human_neuron_multiple": n_params / all_neurons}


def _require_positive(obj, names: tuple[str, ...]) -> None:
    for name in names:
        value = getattr(obj, name)
        if not value > 0:
            raise ValueError(f"{type(obj).__name__}.{name} must be positive, got {value}")
