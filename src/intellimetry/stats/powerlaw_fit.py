"""Discrete power laws P(k) ∝ k^-alpha: seeded sampling and maximum-likelihood fits on [k_min, k_max]."""
from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass
from functools import partial

import numpy as np
from scipy import special, stats

from intellimetry.checks import check_int
from intellimetry.stats.bootstrap import Interval, bootstrap_interval

# powerlaw's default alpha range for discrete fits is [0, 3], which silently clips steep tails.
ALPHA_RANGE = (1.0001, 20.0)


@dataclass(frozen=True)
class PowerLawFit:
    alpha: float
    sigma: float  # asymptotic standard error of the MLE
    n: int        # samples inside [k_min, k_max]
    k_min: int
    k_max: int | None

    def expected_count(self, k):
        """Events expected at failure count k under the fit, normalised over [k_min, k_max]."""
        upper = 0.0 if self.k_max is None else special.zeta(self.alpha, self.k_max + 1)
        norm = special.zeta(self.alpha, self.k_min) - upper
        return self.n * np.asarray(k, float) ** -self.alpha / norm

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


@dataclass(frozen=True)
class LineFit:
    """A straight line through log10(frequency) against log10(k); alpha = -slope."""
    alpha: float
    intercept: float  # log10 of the line's value at k = 1
    r2: float
    points: int       # (k, frequency) points the line was fitted to
    k_min: int
    k_max: int

    def expected_count(self, k):
        """The fitted line's frequency at failure count k."""
        return 10**self.intercept * np.asarray(k, float) ** -self.alpha

    def as_dict(self) -> dict:
        return asdict(self)


def fit_raw_histogram(samples, k_min: int, k_max: int) -> LineFit:
    """Least squares on the unbinned histogram (k with a zero count dropped).

    Shown only for its bias: where the tail is sparse, counts floor at 1 and the zeros vanish, so
    the line flattens and alpha comes out too small.
    """
    k, counts = np.unique(_inside(samples, k_min, k_max), return_counts=True)
    return _line_fit(k.astype(float), counts.astype(float), k_min, k_max)


def fit_log_binned(samples, k_min: int, k_max: int, bins_per_decade: int = 10) -> LineFit:
    """Least squares on log-binned frequencies: events per bin divided by the integers it holds."""
    centres, frequency = log_binned_frequency(samples, k_min, k_max, bins_per_decade)
    return _line_fit(centres, frequency, k_min, k_max)


def log_binned_frequency(samples, k_min: int, k_max: int, bins_per_decade: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """(bin centre, events per integer k) over logarithmic bins of [k_min, k_max]; empty bins dropped."""
    inside = _inside(samples, k_min, k_max)
    n_bins = max(1, int(np.ceil(np.log10((k_max + 1) / k_min) * bins_per_decade)))
    edges = np.unique(np.round(np.geomspace(k_min, k_max + 1, n_bins + 1)).astype(np.int64))
    counts, _ = np.histogram(inside, bins=edges)
    widths = np.diff(edges)                              # integers k in [edge_i, edge_i+1)
    centres = np.sqrt(edges[:-1] * (edges[1:] - 1.0))    # geometric mean of the first and last k
    keep = counts > 0
    return centres[keep], counts[keep] / widths[keep]


def _inside(samples, k_min: int, k_max: int) -> np.ndarray:
    samples = np.asarray(samples)
    return samples[(samples >= k_min) & (samples <= k_max)]


def _line_fit(k: np.ndarray, frequency: np.ndarray, k_min: int, k_max: int) -> LineFit:
    if k.size < 2:
        raise ValueError(f"need at least two non-empty points in [{k_min}, {k_max}] to fit a line")
    x, y = np.log10(k), np.log10(frequency)
    result = stats.linregress(x, y)
    return LineFit(alpha=float(-result.slope), intercept=float(result.intercept),
                   r2=float(result.rvalue**2), points=int(k.size), k_min=k_min, k_max=k_max)


def fit_with_interval(samples, k_min: int, k_max: int, resamples: int, rng: np.random.Generator,
                      level: float = 0.95, workers: int = 1):
    """The discrete MLE on [k_min, k_max] and a percentile bootstrap interval of its alpha over the
    samples in that range: (PowerLawFit, Interval).

    ``workers``: processes refitting the resamples of a range wider than MAX_SUMMED_RANGE (one
    powerlaw fit per resample; same values for any count). A narrower range solves every resample
    at once in this process: there the draws from `rng`, which must stay in order, cost about as
    much as the solving, so workers would not pay for their start."""
    inside = _inside(samples, k_min, k_max)
    fit = fit_discrete_power_law(inside, k_min, k_max)
    if k_max is not None and k_max - k_min <= MAX_SUMMED_RANGE:
        interval = _bootstrap_truncated_mle(inside, fit.alpha, k_min, k_max, resamples, rng, level)
    else:
        interval = bootstrap_interval(inside, partial(_alpha_or_nan, k_min=k_min, k_max=k_max), resamples, rng,
                                      level=level, workers=workers)
    return fit, interval


# The bootstrap refits thousands of resamples per figure; on a bounded range the MLE depends on a
# resample only through the mean of log k, so all resamples are solved at once by the same
# likelihood (tests check it against the powerlaw package's fit). Ranges wider than this are summed
# too slowly and go through the package per resample.
MAX_SUMMED_RANGE = 100_000


def _bootstrap_truncated_mle(inside: np.ndarray, estimate: float, k_min: int, k_max: int, resamples: int,
                             rng: np.random.Generator, level: float) -> Interval:
    """Percentile bootstrap of the truncated discrete MLE, with the same resamples (same draws from
    `rng`) as `bootstrap_interval`; a resample holding one distinct value has no estimate (NaN)."""
    check_int("resamples", resamples, 2)
    log_k = np.log(inside.astype(float))
    means, single = np.empty(resamples), np.empty(resamples, dtype=bool)
    for row in range(resamples):
        drawn = rng.integers(0, inside.size, inside.size)
        means[row] = log_k[drawn].mean()
        single[row] = inside[drawn].min() == inside[drawn].max()
    values = np.where(single, np.nan, truncated_mle_from_mean_log(means, k_min, k_max))
    if np.isnan(values).all():
        raise ValueError("no bootstrap resample gave a value: the sample is too small")
    tail = (1 - level) / 2 * 100
    low, high = np.nanpercentile(values, [tail, 100 - tail])
    return Interval(estimate=float(estimate), low=float(low), high=float(high), level=level, resamples=resamples)


def truncated_mle_from_mean_log(mean_log_k, k_min: int, k_max: int) -> np.ndarray:
    """The alpha maximising the likelihood of P(k) = k^-alpha / sum_{j=k_min}^{k_max} j^-alpha for
    samples whose mean log k is given: the root of E_alpha[log k] = mean (E falls with alpha), kept
    inside ALPHA_RANGE. Interpolated on a grid, then two Newton steps (dE/dalpha = -Var_alpha[log k])."""
    mean_log_k = np.asarray(mean_log_k, dtype=float)
    log_j = np.log(np.arange(k_min, k_max + 1, dtype=float))
    grid = np.linspace(*ALPHA_RANGE, 2000)
    expected = _log_moments(grid, log_j)[0]
    # np.interp needs rising x: E falls with alpha, so interpolate on the reversed grid
    alphas = np.interp(mean_log_k, expected[::-1], grid[::-1])
    for _ in range(2):
        first, variance = _log_moments(alphas, log_j)
        alphas = np.clip(alphas + (first - mean_log_k) / np.maximum(variance, 1e-300), *ALPHA_RANGE)
    return alphas


def _log_moments(alpha, log_j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of log k under k^-alpha on the range whose logs are log_j, per alpha
    (computed in blocks of alphas so a wide range never needs a large matrix)."""
    alphas = np.atleast_1d(np.asarray(alpha, dtype=float)).ravel()
    first, variance = np.empty(alphas.size), np.empty(alphas.size)
    shifted = log_j - log_j[0]  # moments about log k_min keep the variance accurate when it is small
    block = max(1, 2_000_000 // log_j.size)
    for start in range(0, alphas.size, block):
        rows = slice(start, start + block)
        weights = np.exp(-np.multiply.outer(alphas[rows], shifted))
        weights /= weights.sum(axis=1, keepdims=True)
        mean = weights @ shifted
        first[rows] = mean + log_j[0]
        variance[rows] = weights @ shifted**2 - mean**2
    return first, variance


def _alpha_or_nan(samples, k_min: int, k_max: int) -> float:
    """A resample of a few events can hold a single distinct value, which has no finite MLE: NaN,
    left out of the interval (so a small sample's interval is as wide as its fittable resamples)."""
    try:
        return fit_discrete_power_law(samples, k_min, k_max).alpha
    except ValueError:
        return float("nan")
