"""Do the measures agree? Rank agreement, its dependence on the subjects included, and factors.

The data: `values[measure]` is an array (subjects, seeds), one measure's value for every subject and
seed (NaN where the measure gave none). A subject's value is its mean over seeds.

* Kendall's τ-b (scipy.stats.kendalltau) between every pair of measures over the subjects, with a
  percentile bootstrap that resamples subjects and, within each, its seeds;
* τ per subset of subjects (all, learners only, each family, the top half): agreement is known to
  depend on which subjects are compared (a field of trivially weak subjects makes any two measures
  agree);
* a factor analysis of the standardised matrix: the eigenvalues of the measures' correlation matrix,
  the share of the first, the number of factors Horn's parallel analysis retains (eigenvalues above
  the 95th percentile of those of column-shuffled data), and one-factor loadings (sklearn's
  FactorAnalysis);
* the pair of measures that agrees least, and the subjects it ranks furthest apart.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np
from scipy.stats import kendalltau, rankdata

from intellimetry.checks import check_int


def subject_means(values: dict) -> dict:
    return {m: np.nanmean(np.asarray(v, dtype=float), axis=1) for m, v in values.items()}


def tau(x, y) -> float:
    """Kendall's τ-b over the subjects where both are defined; NaN with fewer than 3 or no variation."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(x) & np.isfinite(y)
    if keep.sum() < 3 or np.ptp(x[keep]) == 0 or np.ptp(y[keep]) == 0:
        return float("nan")
    return float(kendalltau(x[keep], y[keep]).statistic)


def pairs(measures) -> list[tuple[str, str]]:
    return list(combinations(measures, 2))


def tau_table(means: dict, rows=None) -> dict:
    """τ of every pair of measures over the subjects `rows` (all when None): {"a|b": τ}."""
    pick = slice(None) if rows is None else np.asarray(rows)
    return {f"{a}|{b}": tau(means[a][pick], means[b][pick]) for a, b in pairs(means)}


def resample_means(values: dict, rng: np.random.Generator) -> dict:
    """One bootstrap draw: subjects with replacement, and each drawn subject's seeds with replacement."""
    first = np.asarray(next(iter(values.values())))
    n_subjects, n_seeds = first.shape
    subjects = rng.integers(0, n_subjects, n_subjects)
    seeds = rng.integers(0, n_seeds, (n_subjects, n_seeds))
    return {m: np.nanmean(np.asarray(v, dtype=float)[subjects[:, None], seeds], axis=1) for m, v in values.items()}


def bootstrap_taus(values: dict, resamples: int, rng: np.random.Generator, rows=None) -> dict:
    """Per pair, the bootstrap τ values (resamples,) over the subjects `rows` (all when None)."""
    check_int("resamples", resamples, 2)
    chosen = values if rows is None else {m: np.asarray(v)[np.asarray(rows)] for m, v in values.items()}
    draws = [tau_table(resample_means(chosen, rng)) for _ in range(resamples)]
    return {key: np.array([d[key] for d in draws]) for key in draws[0]}


def percentile_interval(samples, level: float = 0.95) -> list[float]:
    samples = np.asarray(samples, dtype=float)
    samples = samples[np.isfinite(samples)]
    if samples.size == 0:
        return [float("nan"), float("nan")]
    tail = (1 - level) / 2 * 100
    return [float(np.percentile(samples, tail)), float(np.percentile(samples, 100 - tail))]


def agreement(values: dict, resamples: int, rng: np.random.Generator, rows=None, level: float = 0.95) -> dict:
    """τ of every pair with its bootstrap interval, and the mean τ over pairs with its interval."""
    means = subject_means(values)
    pick = None if rows is None else np.asarray(rows)
    point = tau_table(means, pick)
    draws = bootstrap_taus(values, resamples, rng, pick)
    mean_draws = np.nanmean(np.vstack(list(draws.values())), axis=0)
    return {"tau": point, "interval": {k: percentile_interval(d, level) for k, d in draws.items()},
            "mean_tau": float(np.nanmean(list(point.values()))),
            "mean_interval": percentile_interval(mean_draws, level),
            "mean_draws": mean_draws}


def shuffled(values: dict, rng: np.random.Generator) -> dict:
    """The control: each measure's rows (subjects) permuted independently, so the measures describe
    unrelated subjects (shuffled labels). Seeds stay together with their subject's row."""
    return {m: np.asarray(v)[rng.permutation(len(v))] for m, v in values.items()}


def top_half(values: dict) -> np.ndarray:
    """Indices of the subjects whose mean standardised rank over the measures is in the upper half."""
    means = subject_means(values)
    ranks = np.vstack([rankdata(np.nan_to_num(v, nan=-np.inf)) for v in means.values()])
    score = ranks.mean(axis=0)
    return np.flatnonzero(score >= np.median(score))


# --------------------------------------------------------------------------- factors

def standardised(values: dict) -> np.ndarray:
    """(subjects, measures) matrix of the subject means, each column z-scored; rows with NaN dropped."""
    matrix = np.column_stack(list(subject_means(values).values()))
    matrix = matrix[np.isfinite(matrix).all(axis=1)]
    spread = matrix.std(axis=0)
    spread[spread == 0] = 1.0
    return (matrix - matrix.mean(axis=0)) / spread


def eigenvalues(z: np.ndarray) -> np.ndarray:
    """Eigenvalues (largest first) of the correlation matrix of the standardised columns."""
    corr = np.corrcoef(z, rowvar=False)
    corr = np.nan_to_num(corr, nan=0.0)
    np.fill_diagonal(corr, 1.0)
    return np.sort(np.linalg.eigvalsh(corr))[::-1]


def factor_analysis(values: dict, permutations: int, rng: np.random.Generator) -> dict:
    """Eigenvalues, first-factor share, the factors parallel analysis retains, and one-factor loadings."""
    from sklearn.decomposition import FactorAnalysis

    z = standardised(values)
    observed = eigenvalues(z)
    null = np.array([eigenvalues(np.column_stack([rng.permutation(col) for col in z.T]))
                     for _ in range(check_int("permutations", permutations, 10))])
    threshold = np.percentile(null, 95, axis=0)
    above = observed > threshold
    retained = int(np.argmin(above)) if not above.all() else int(above.size)  # leading run above the null
    loadings = FactorAnalysis(n_components=1, random_state=0).fit(z).components_[0]
    if loadings.sum() < 0:  # a factor's sign is arbitrary: report it pointing where most measures do
        loadings = -loadings
    return {"eigenvalues": observed.tolist(), "null_95": threshold.tolist(),
            "first_share": float(observed[0] / observed.sum()), "factors": retained,
            "loadings": dict(zip(values, loadings.tolist())), "subjects": int(z.shape[0])}


# --------------------------------------------------------------------------- disagreement

def least_agreeing(taus: dict) -> str:
    finite = {k: v for k, v in taus.items() if np.isfinite(v)}
    return min(finite, key=finite.get)


def rank_swaps(means: dict, pair: str, names: list, top: int = 4) -> list[dict]:
    """The subjects whose rank (1 = best) moves most between the two measures of `pair`."""
    a, b = pair.split("|")
    keep = np.isfinite(means[a]) & np.isfinite(means[b])
    rank_a = np.full(keep.size, np.nan)
    rank_b = np.full(keep.size, np.nan)
    rank_a[keep] = rankdata(-means[a][keep])
    rank_b[keep] = rankdata(-means[b][keep])
    moved = np.argsort(-np.nan_to_num(np.abs(rank_a - rank_b), nan=-1))[:top]
    return [{"subject": names[i], a: float(means[a][i]), b: float(means[b][i]),
             "rank_" + a: float(rank_a[i]), "rank_" + b: float(rank_b[i])} for i in moved]


def rewards(means: dict, attributes: dict) -> dict:
    """What each measure rewards: Kendall's τ of the measure with each subject attribute (capacity,
    budget, size, mean accuracy ...), over the subjects where both are defined."""
    return {m: {name: tau(v, attr) for name, attr in attributes.items()} for m, v in means.items()}
