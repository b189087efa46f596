"""The decay rate of failure counts on their bounded support: a discrete power law fitted on [k_min, k_max]
with k_max the largest failure count a subject can make (its candidates minus one), where any alpha is a
proper distribution, with a bootstrap interval, its goodness of fit and a test against truncated
alternatives.

Why not the powerlaw package's fit: powerlaw 2.0 normalises a discrete power law with the Hurwitz zeta
function, which has no value for alpha <= 1, so its fit stops at alpha = 1 even with `xmax` set (a uniformly
random ranker comes out as alpha = 1.0000; tests/test_bounded_power_law.py shows it). On a bounded support
the normaliser is a finite sum, so the likelihood is solved here by explicit sums; above alpha = 1 it agrees
with the package. The comparison with the alternatives is the package's (`powerlaw.statistics`): Vuong's
test against a truncated exponential (not nested), and the likelihood-ratio test against a truncated
discrete lognormal, which holds the power law as its case sigma -> infinity (nested: chi-squared, one degree
of freedom, as the package's `distribution_compare` does for nested pairs; Vuong's normalised test is
degenerate for nested laws: on 1,000 events of k^-1.5 exp(-0.003 k) on [1, 999] it rejected the power law
in 6 of 50 samples, the nested test in 35).

The likelihood of P(k) = k^-alpha / sum_j j^-alpha depends on the events only through the mean of log k, so
the MLE solves E_alpha[log k] = mean(log k), and since E falls with alpha, a bootstrap interval of alpha is
the solved ends of the interval of that mean: 100,000 events and 1,000 resamples take about a second.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import optimize, special

from intellimetry.checks import check_int

# Where alpha is searched. Any alpha is a proper law on a bounded support; a negative one (counts rising
# with k) is a subject worse than chance. An estimate at either end is reported as a bound, not a value.
SEARCH_RANGE = (-5.0, 20.0)
# Fewer events in the range cannot place a rate within a level: the MLE's standard error is about
# 1 / (sqrt(n) * sd(log k)), a third of a level's width at 50 events on a range of one decade.
MIN_EVENTS = 50
# An alternative "wins" when its likelihood is higher with p below this. A chapter judges dozens of rates
# at once and any rejected law makes its claim inconclusive, so 0.05 would reject some true power law in
# most figures (two tests per rate); 0.01 keeps that to a few per cent per figure.
SIGNIFICANCE = 0.01
MAX_LAM = 10.0  # the alternatives' largest exponential rate per unit of k (e^-10 per step: a hard cut-off)
STATUSES = ("measured", "too few events", "bound", "not a power law")


@dataclass(frozen=True)
class BoundedFit:
    """A bounded power-law fit. `alpha`, `ci_low` and `ci_high` are None unless the estimate is inside
    SEARCH_RANGE; then `bound` says which end it reached (e.g. "alpha >= 20")."""
    alpha: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    resamples: int
    k_min: int
    k_max: int
    events_in_range: int
    ks: float | None           # Kolmogorov-Smirnov distance between the fitted and the observed CDF
    alternatives: dict         # {name: {"R": log-likelihood ratio (power law minus it), "p": ..., parameters}}
    bound: str | None
    status: str

    @property
    def measured(self) -> bool:
        return self.status == "measured"

    def as_dict(self) -> dict:
        return {**asdict(self), "measured": self.measured}


def fit_bounded_power_law(counts, k_min: int, k_max: int, resamples: int, rng: np.random.Generator,
                          level: float = 0.95, min_events: int = MIN_EVENTS) -> BoundedFit:
    """Fit P(k) ∝ k^-alpha on [k_min, k_max] to the counts inside it, with a percentile bootstrap interval.

    `status`: "bound" (the estimate at an end of SEARCH_RANGE, e.g. every event at k_min), "too few
    events" (fewer than `min_events` in the range, or none), "not a power law" (a truncated exponential or
    lognormal fits significantly better), else "measured"."""
    check_int("k_min", k_min, 1)
    check_int("k_max", k_max, k_min + 1)
    check_int("resamples", resamples, 2)
    counts = np.asarray(counts, dtype=np.int64)
    inside = counts[(counts >= k_min) & (counts <= k_max)]
    support = Support(k_min, k_max)
    if inside.size == 0:
        return _unfitted(support, inside.size, level, resamples)
    log_k = np.log(inside.astype(float))
    alpha, edge = support.solve_alpha(log_k.mean())
    if edge:
        return _unfitted(support, inside.size, level, resamples, bound=edge)
    means = _bootstrap_means(log_k, resamples, rng)
    tail = (1 - level) / 2 * 100
    high_mean, low_mean = np.percentile(means, [100 - tail, tail])  # alpha falls as the mean rises
    ci_low, ci_high = support.solve_alpha(high_mean)[0], support.solve_alpha(low_mean)[0]
    alternatives = support.compare_alternatives(inside, alpha)
    status = ("too few events" if inside.size < min_events
              else "not a power law" if any(_alternative_wins(a) for a in alternatives.values())
              else "measured")
    return BoundedFit(alpha=float(alpha), ci_low=float(ci_low), ci_high=float(ci_high), ci_level=level,
                      resamples=resamples, k_min=k_min, k_max=k_max, events_in_range=int(inside.size),
                      ks=support.ks_distance(inside, alpha), alternatives=alternatives, bound=None, status=status)


def sample_bounded_power_law(alpha: float, size: int, k_min: int, k_max: int, rng: np.random.Generator,
                             cutoff: int | None = None) -> np.ndarray:
    """`size` integers in [k_min, k_max] with P(k) ∝ k^-alpha (any alpha: the range is finite); with
    `cutoff`, none above it (a hard cut-off of the same law)."""
    top = k_max if cutoff is None else min(cutoff, k_max)
    k = np.arange(k_min, top + 1)
    weights = np.exp(-float(alpha) * (np.log(k) - np.log(k_min)))
    return rng.choice(k, size=int(size), p=weights / weights.sum())


class Support:
    """The integers [k_min, k_max], with the moments, normalisers and fits the laws on them need."""

    def __init__(self, k_min: int, k_max: int):
        self.k_min, self.k_max = int(k_min), int(k_max)
        self.k = np.arange(self.k_min, self.k_max + 1, dtype=float)
        self.log_k = np.log(self.k)

    # --- the power law
    def log_normaliser(self, alpha: float) -> float:
        return float(special.logsumexp(-alpha * self.log_k))

    def mean_log(self, alpha: float) -> float:
        """E_alpha[log k] under k^-alpha on the support."""
        log_weights = -alpha * self.log_k
        weights = np.exp(log_weights - log_weights.max())
        return float(weights @ self.log_k / weights.sum())

    def solve_alpha(self, mean_log_k: float) -> tuple[float, str | None]:
        """(the alpha whose E[log k] is `mean_log_k`, None), or (an end of SEARCH_RANGE, "alpha >= 20" or
        "alpha <= -5") when the root lies beyond it."""
        low, high = SEARCH_RANGE
        if mean_log_k >= self.mean_log(low):
            return low, f"alpha <= {low:g}"
        if mean_log_k <= self.mean_log(high):
            return high, f"alpha >= {high:g}"
        root = optimize.brentq(lambda a: self.mean_log(a) - mean_log_k, low, high, xtol=1e-10)
        return float(root), None

    def power_law_log_pmf(self, k: np.ndarray, alpha: float) -> np.ndarray:
        return -alpha * np.log(k) - self.log_normaliser(alpha)

    def ks_distance(self, inside: np.ndarray, alpha: float) -> float:
        log_weights = -alpha * self.log_k
        pmf = np.exp(log_weights - special.logsumexp(log_weights))
        model_cdf = np.cumsum(pmf)
        observed = np.bincount(inside - self.k_min, minlength=self.k.size).cumsum() / inside.size
        return float(np.abs(model_cdf - observed).max())

    # --- the alternatives: exp(-lam k) and k^-alpha exp(-lam k), exponential families on the support
    def _features(self, name: str, k: np.ndarray) -> np.ndarray:
        """Sufficient statistics of an alternative at k, one row per parameter (k in units of the support's
        width, so lam is of order one)."""
        if name == "exponential":
            return (k / (self.k_max - self.k_min + 1))[None, :]
        log_k = np.log(k)
        return np.vstack([log_k, log_k**2])

    def fit_alternative(self, name: str, inside: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        """The MLE theta of an alternative with P(k) ∝ exp(theta · features(k)), and its log-likelihood per
        event: the exponential's theta = (-lam,), the lognormal's (a, b) with b <= 0 (b = 0: the power law
        k^a, so the two are nested)."""
        width = self.k_max - self.k_min + 1
        support_features = self._features(name, self.k)
        statistics = self._features(name, inside.astype(float)).mean(axis=1)
        if name == "exponential":
            start, bounds = np.zeros(1), [(-MAX_LAM * width, 50.0)]
        else:
            start, bounds = np.array([-alpha, 0.0]), [(None, None), (None, 0.0)]

        def negative_mean_log_likelihood(theta):
            log_weights = theta @ support_features
            log_z = special.logsumexp(log_weights)
            probabilities = np.exp(log_weights - log_z)
            return log_z - theta @ statistics, support_features @ probabilities - statistics
        theta = optimize.minimize(negative_mean_log_likelihood, start, jac=True, method="L-BFGS-B",
                                  bounds=bounds).x
        per_event = theta @ self._features(name, inside.astype(float)) - special.logsumexp(theta @ support_features)
        return theta, per_event

    def compare_alternatives(self, inside: np.ndarray, alpha: float) -> dict:
        """Log-likelihood ratios of the power law against an exponential (Vuong's test, not nested) and a
        lognormal (the likelihood-ratio test, nested: b <= 0), by powerlaw.statistics: R > 0 favours the
        power law, and p is the significance of R's sign (1 where the two fits coincide, R = 0)."""
        from powerlaw.statistics import loglikelihood_ratio

        power_law = self.power_law_log_pmf(inside.astype(float), alpha)
        width = self.k_max - self.k_min + 1
        found = {}
        for name in ("exponential", "lognormal"):
            theta, per_event = self.fit_alternative(name, inside, alpha)
            with np.errstate(invalid="ignore", divide="ignore"):
                ratio, p = loglikelihood_ratio(power_law, per_event, nested=name == "lognormal")
            p = p if np.isfinite(p) else 1.0  # identical likelihoods on every event (e.g. uniform counts)
            found[name] = ({"R": float(ratio), "p": float(p), "lam": float(-theta[0] / width)} if name == "exponential"
                           else {"R": float(ratio), "p": float(p), **_lognormal_parameters(theta)})
        return found


def _lognormal_parameters(theta: np.ndarray) -> dict:
    """mu and sigma of log k from P(k) ∝ exp(a log k + b log² k), b < 0 (a lognormal's pmf times k)."""
    a, b = float(theta[0]), float(theta[1])
    if b >= 0:
        return {"mu": None, "sigma": None}  # the power law itself (b = 0): no finite sigma
    return {"mu": (a + 1) / (-2 * b), "sigma": float(np.sqrt(1 / (-2 * b)))}


def _alternative_wins(comparison: dict) -> bool:
    return comparison["R"] < 0 and comparison["p"] < SIGNIFICANCE


def _bootstrap_means(log_k: np.ndarray, resamples: int, rng: np.random.Generator,
                     block_draws: int = 2**22) -> np.ndarray:
    """Means of log k over `resamples` resamples of the events with replacement (drawn in blocks)."""
    n = log_k.size
    rows = max(1, block_draws // n)
    means = np.empty(resamples)
    for start in range(0, resamples, rows):
        stop = min(start + rows, resamples)
        means[start:stop] = log_k[rng.integers(0, n, (stop - start, n))].mean(axis=1)
    return means


def _unfitted(support: Support, events: int, level: float, resamples: int, bound: str | None = None) -> BoundedFit:
    status = "bound" if bound else "too few events"
    return BoundedFit(alpha=None, ci_low=None, ci_high=None, ci_level=level, resamples=resamples,
                      k_min=support.k_min, k_max=support.k_max, events_in_range=int(events), ks=None,
                      alternatives={}, bound=bound, status=status)
