"""What the AIQ figures quote about their measurements: the statistics each paper item's criterion
reads (rank trends, slopes, the suite's structure, the handicapping claims), computed from what
:mod:`intellimetry.aiq.study` measured, so that the notebooks only call and record them.

``volume_share``, ``space_dimensions`` and ``handicap_aiq`` live in :mod:`intellimetry.aiq.study`
and are re-exported here.
"""
from __future__ import annotations

from collections.abc import Callable
from itertools import permutations

import numpy as np
from scipy.stats import pearsonr, rankdata, spearmanr

from intellimetry.aiq.controls import (
    RESAMPLES,
    correlation_interval,
    mccp_bootstrap,
    mccp_intervals,
    pair,
    relabelled_columns,
    shuffled,
    shuffled_off_diagonal,
    shuffled_pairing_curve,
)
from intellimetry.aiq.measures import MCCP_BINS, MCCPCurve, bins_above, normalise_across
from intellimetry.aiq.study import (  # noqa: F401 (handicap_aiq, space_dimensions, volume_share: re-exported)
    Mixing,
    Suite,
    handicap_aiq,
    intelligence_space,
    paper_domain,
    space_dimensions,
    volume_share,
)
from intellimetry.aiq.sweeps import pool_curve
from intellimetry.stats import bootstrap_interval, rank_correlation


def trend_values(key: str, x, y) -> dict:
    """{key: Spearman ρ, key_p: its p-value}: a rank trend as a figure records it."""
    rho, p = rank_correlation(x, y)
    return {key: rho, f"{key}_p": p}


def half_slopes(x, y) -> tuple[float, float]:
    """Mean slope of y over the first and the second half of x (split at the middle point), so a
    curve that rises fast and then levels off has a first slope above the second."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3:
        return float("nan"), float("nan")
    mid = len(x) // 2
    return float((y[mid] - y[0]) / (x[mid] - x[0])), float((y[-1] - y[mid]) / (x[-1] - x[mid]))


def mccp_estimates(complexities) -> np.ndarray:
    """The MCCP point estimate of each domain (or setting of a sweep), in order."""
    return np.array([c.interval.estimate for c in complexities])


def mccp_gaps(mccps) -> np.ndarray:
    """|MCCP_i − MCCP_j| for every pair of domains: the complexity difference DS is set beside."""
    mccps = np.asarray(mccps)
    return np.abs(mccps[:, None] - mccps[None, :])


def relative_intervals(complexities, intervals=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, low, high) of each MCCP divided by the largest estimate, so complexities of very
    different size can share an axis with another normalised prediction; the intervals are the
    complexities' own (t over the pools) unless ``intervals`` (one Interval each) are given."""
    mccps = mccp_estimates(complexities)
    scale = mccps.max()
    bounds = intervals if intervals is not None else [c.interval for c in complexities]
    low = np.array([b.low for b in bounds]) / scale
    high = np.array([b.high for b in bounds]) / scale
    return mccps / scale, low, high


def paper_intervals(names, intervals) -> dict:
    """{the paper's domain name: [low, high]} of MCCP intervals, as the ordering criteria read them."""
    return {paper_domain(n): pair(i) for n, i in zip(names, intervals)}


EXACT_UP_TO = 8  # pairs up to which a rank correlation's p counts every pairing (8! = 40320)


def exact_rank_correlation(x, y) -> tuple[float, float]:
    """Spearman's ρ with its exact two-sided p: the share of all pairings of ``y`` with ``x`` whose |ρ|
    reaches ours (up to :data:`EXACT_UP_TO` pairs; beyond, the t approximation of
    :func:`~intellimetry.stats.rank_correlation`). Over five domains a perfect ranking has p = 2/120,
    where the t approximation gives 0."""
    rho, p = rank_correlation(x, y)
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size > EXACT_UP_TO or (p == 1.0 and rho == 0.0):  # too many pairings, or undefined
        return rho, p
    rx, ry = rankdata(x), rankdata(y)
    pairings = np.array(list(permutations(ry)))
    centred = pairings - pairings.mean(axis=1, keepdims=True)
    rhos = centred @ (rx - rx.mean()) / (np.linalg.norm(centred, axis=1) * np.linalg.norm(rx - rx.mean()))
    return rho, float(np.mean(np.abs(rhos) >= abs(rho) - 1e-12))


def entropy_fit(complexities, entropy, intervals) -> dict:
    """How one entropy baseline tracks MCCP: the rank correlation with its exact p-value
    (:func:`exact_rank_correlation`), how many
    normalised entropies fall inside the normalised MCCP ``intervals`` (one Interval per domain) and
    whether all do, and the normalised values and intervals the figure draws."""
    relative, low, high = relative_intervals(complexities, intervals)
    normalised = normalise_across(entropy)
    inside = [bool(lo <= e <= hi) for e, lo, hi in zip(normalised, low, high)]
    rho, p = exact_rank_correlation(mccp_estimates(complexities), entropy)
    return {"spearman_mccp_entropy": rho, "spearman_mccp_entropy_p": p,
            "entropy_inside_interval": int(sum(inside)), "entropy_all_inside_interval": all(inside),
            "normalised": {"entropy": normalised.tolist(), "mccp": relative.tolist(), "low": low.tolist(),
                           "high": high.tolist()}}


def entropy_prediction(names, complexities, entropy, seed: int = 0, others: dict | None = None) -> dict:
    """MCCP against the entropic prediction: the ranking by MCCP (its ends also under the paper's
    names), each MCCP with its bootstrap interval over the pools' networks
    (:func:`~intellimetry.aiq.controls.mccp_intervals`) under the paper's names, and
    :func:`entropy_fit` of ``entropy``; ``others`` ({name: entropies}) adds the fit of each other
    baseline under its name, against the same intervals."""
    mccps = mccp_estimates(complexities)
    intervals = mccp_intervals(complexities, seed=seed)
    order = [names[i] for i in np.argsort(mccps)]
    return {"ranking_by_mccp": order, "most_complex": order[-1], "least_complex": order[0],
            "most_complex_paper": paper_domain(order[-1]), "least_complex_paper": paper_domain(order[0]),
            "mccp_paper": {paper_domain(n): float(m) for n, m in zip(names, mccps)},
            "mccp_intervals_paper": paper_intervals(names, intervals),
            **entropy_fit(complexities, entropy, intervals),
            **{name: entropy_fit(complexities, e, intervals) for name, e in (others or {}).items()}}


def domain_table(names, complexities, entropy, domains, summed=None) -> dict:
    """{domain: its MCCP summary, entropy (the baseline judged) and number of samples} for the figure's
    record; ``summed`` (one per domain) adds the paper's entropy summed over the samples."""
    table = {n: {**c.summary(), "entropy": float(e), "samples": len(d.y_train) + len(d.y_test)}
             for n, c, e, d in zip(names, complexities, entropy, domains)}
    for n, total in zip(names, summed if summed is not None else []):
        table[n]["entropy_summed"] = float(total)
    return table


def noise_summary(levels, complexities, entropy) -> dict:
    """MCCP and entropy against the noise level: a quadratic fit of MCCP (the paper's curve), rank
    trends with p-values, the entropy gained in the first and second half of the sweep, and whether
    it levels off (rises over the first half, and faster than over the second)."""
    mccps = mccp_estimates(complexities)
    quadratic = np.polyfit(levels, mccps, 2) if len(levels) > 2 else [float("nan")] * 3
    middle = len(entropy) // 2
    first, second = half_slopes(levels, entropy)
    return {"quadratic": [float(c) for c in quadratic],
            **trend_values("spearman_noise_mccp", levels, mccps),
            **trend_values("spearman_noise_entropy", levels, entropy),
            "entropy_levels_off": bool(first > 0 and first > second),
            "entropy_gain_first_half": float(entropy[middle] - entropy[0]),
            "entropy_gain_second_half": float(entropy[-1] - entropy[middle]),
            "mccp_clean": float(mccps[0]), "mccp_noisiest": float(mccps[-1])}


def relative_spread(mccps) -> float:
    """(largest − smallest) / mean of a sweep's MCCPs: how far MCCP moves over the sweep."""
    mccps = np.asarray(mccps, dtype=float)
    return float((mccps.max() - mccps.min()) / mccps.mean())


def duplication_summary(copies, complexities, entropy, seed: int = 0) -> dict:
    """Copies of the data leave MCCP unchanged but multiply the entropy: MCCP's relative spread with
    its bootstrap interval, each copy count's MCCP bootstrap interval over the pools' networks
    (:func:`~intellimetry.aiq.controls.mccp_intervals`), whether they all share a point, the widest
    one's half-width relative to its estimate (how large a change the run could see), and the entropy
    ratio beside the copies ratio (their quotient is 1 when the entropy grows in proportion to the copies)."""
    mccps = mccp_estimates(complexities)
    intervals = mccp_intervals(complexities, seed=seed)
    overlap = max(i.low for i in intervals) <= min(i.high for i in intervals)
    spread = mccp_bootstrap(complexities, relative_spread, seed=seed)
    return {"mccp_relative_spread": relative_spread(mccps), "mccp_relative_spread_interval": pair(spread),
            "mccp_intervals": {str(k): pair(i) for k, i in zip(copies, intervals)},
            "widest_relative_half_width": float(max((i.high - i.low) / 2 / i.estimate for i in intervals)),
            "intervals_overlap": bool(overlap), "overlap_text": "overlap" if overlap else "do not all overlap",
            "entropy_ratio_last_first": float(entropy[-1] / entropy[0]),
            "copies_ratio_last_first": float(copies[-1] / copies[0]),
            "entropy_per_copy_ratio": float(entropy[-1] / entropy[0] / (copies[-1] / copies[0]))}


def stepwise_correlations(mccps, step_ds) -> tuple[float, float]:
    """Pearson R of the stepwise DS with the complexity reached (level) and with the complexity's
    change over the step; each needs three steps, else NaN."""
    mccps = np.asarray(mccps)
    if len(step_ds) <= 2:
        return float("nan"), float("nan")
    return pearsonr(mccps[1:], step_ds)[0], pearsonr(np.abs(np.diff(mccps)), step_ds)[0]


def mccp_curve_summary(curve: MCCPCurve, pool) -> dict:
    """One pool's MCCP curve: its area, how its bins were filled, the pool's size range and best
    accuracy, and the rank trend of the minimal size on the performance level over the bins a
    trained network fills (the filled-in bins follow the rules, not the data)."""
    sources = {s: int((curve.source == s).sum()) for s in sorted(set(curve.source))}
    observed = curve.source == "observed"
    rho, p = rank_correlation(curve.centres[observed], curve.sizes[observed])
    return {"mccp": curve.area, "smallest_size": min(a.size for a in pool), "largest_size": max(a.size for a in pool),
            "best_accuracy": max(a.accuracy for a in pool), "bins_by_source": sources,
            "observed_bins": sources.get("observed", 0), "size_trend": {"rho": rho, "p": p}}


def slope_difference(x) -> Callable[[np.ndarray], float]:
    """The statistic "first-half slope minus second-half slope" of values over ``x`` (positive: the
    increase diminishes), for :func:`~intellimetry.aiq.controls.mccp_bootstrap`."""
    def difference(values: np.ndarray) -> float:
        first, second = half_slopes(x, values)
        return first - second
    return difference


def class_count_summary(class_counts, complexities, seed: int = 0) -> dict:
    """MCCP against the number of classes: the rank trend, the first and last increments, and
    whether the increase diminishes (a steeper mean slope over the first half of the counts), with the
    slopes' difference and its bootstrap interval over the pools' networks."""
    mccps = mccp_estimates(complexities)
    increments = np.diff(mccps)
    first, second = half_slopes(class_counts, mccps)
    difference = mccp_bootstrap(complexities, slope_difference(class_counts), seed=seed)
    return {**trend_values("spearman_classes_mccp", class_counts, mccps),
            "first_increment": float(increments[0]) if len(increments) else float("nan"),
            "last_increment": float(increments[-1]) if len(increments) else float("nan"),
            "slope_first_half": first, "slope_second_half": second, "diminishing_returns": bool(first > second),
            "slope_difference": float(first - second), "slope_difference_interval": pair(difference),
            "mccp_fewest": float(mccps[0]), "mccp_most": float(mccps[-1])}


def cartpole_sweep_summary(name: str, settings, complexities, data=None, entropy=None) -> dict:
    """MCCP of CartPole over a swept setting (force or gravity): the rank trend, and how well the
    pools did, as t / 200: the lowest best score of a pool over the settings (a pool whose best
    network controls the cart fully at every setting was never pushed by the setting) and the networks'
    mean score at the first and the last setting. With ``data``
    (the teachers' :class:`CartPoleData`, one per setting) also the lowest teacher score (a teacher
    that controls fully means the data carries a solution); with ``entropy`` (one per setting), its
    rank trend and values too."""
    mccps = mccp_estimates(complexities)
    per_setting = {f"{x:g}": r.summary() for x, r in zip(settings, complexities)}
    means = [float(np.mean([v for pool in r.performances for v in pool])) for r in complexities]
    out = {**trend_values(f"spearman_{name}_mccp", settings, mccps),
           "lowest_best_performance": float(min(r.best_performance for r in complexities)),
           # the networks' mean performance at the smallest and the largest setting of the sweep
           "mean_performance_first": means[0], "mean_performance_last": means[-1],
           "n_settings": len(per_setting), "settings": per_setting}
    if data is not None:
        teacher = [d.teacher.mean_length / d.control_task().max_steps for d in data]
        for key, d, t in zip(per_setting, data, teacher):
            per_setting[key].update({"teacher_steps": d.teacher.mean_length, "teacher_performance": float(t),
                                     "samples": len(d.domain.y_train) + len(d.domain.y_test)})
        out["teacher_lowest_performance"] = float(min(teacher))
    if entropy is not None:
        out.update(trend_values(f"spearman_{name}_entropy", settings, entropy))
        for key, e in zip(per_setting, entropy):
            per_setting[key]["entropy"] = float(e)
    return out


def pool_learning(settings, complexities, bins: int = MCCP_BINS) -> dict:
    """Whether every pool learned at every setting of a sweep: each pool's best performance (t / 200),
    how many MCCP bins lie above it (:func:`~intellimetry.aiq.measures.bins_above`: those the curve
    extrapolates), the lowest best over all pools and settings, the settings where some pool's best
    missed the top bin, and ``pool_learns_everywhere`` when none did (no MCCP extrapolated above
    its best network)."""
    best = {f"{x:g}": [float(max(pool)) for pool in c.performances] for x, c in zip(settings, complexities)}
    above = {key: [bins_above(b, bins) for b in values] for key, values in best.items()}
    missed = [key for key, counts in above.items() if any(counts)]
    return {"pool_best": best, "bins_above_best": above, "lowest_pool_best": min(min(v) for v in best.values()),
            "settings_not_learned": missed, "settings_learned": len(best) - len(missed),
            "pool_learns_everywhere": not missed}


def mixing_summary(curve: Mixing, paper: float) -> dict:
    """One mixing curve beside the paper's DS: ours, the gap and ratio, the two single-domain
    performances and their gap, the spread of the curve, and its share below the diagonal."""
    ds = curve.dissimilarity
    return {"dissimilarity": ds, "paper_dissimilarity": paper, "dissimilarity_gap": ds - paper,
            "dissimilarity_ratio": ds / paper, "labels": curve.labels, "v_first": curve.v_first,
            "v_second": curve.v_second, "performance_gap": abs(curve.v_first - curve.v_second),
            "performance_mean": float(curve.performance.mean()), "performance_sd": float(curve.performance.std()),
            "share_below_diagonal": curve.share_below_diagonal, "p": curve.p.tolist(),
            "performance": curve.performance.tolist()}


def subset_dissimilarity_summary(subset_sizes, ds, seed: int | None = 0) -> dict:
    """DS of the first n classes from the full domain against n: the least-squares line, its Pearson
    R with the two-sided p-value, the same without the smallest subset (does the trend rest on one
    point?), and the two ends. Below three points or with a constant DS there is no evidence of a
    trend: R = 0, p = 1. Unless ``seed`` is None, also the control under "control": R and p of the
    same DS values in a shuffled order of n (:func:`~intellimetry.aiq.controls.shuffled`)."""
    ds = np.asarray(ds, dtype=float)
    slope, intercept = np.polyfit(subset_sizes, ds, 1)
    r, p = _pearson(subset_sizes, ds)
    r_rest, p_rest = _pearson(subset_sizes[1:], ds[1:])
    out = {"dissimilarity": {str(n): float(d) for n, d in zip(subset_sizes, ds)}, "r_linear": r,
           "r_linear_p": p, "r_linear_without_smallest": r_rest, "r_linear_without_smallest_p": p_rest,
           "slope": float(slope), "intercept": float(intercept),
           "ds_smallest_subset": float(ds[0]), "ds_full": float(ds[-1])}
    if seed is not None and len(ds) > 1:
        r_null, p_null = _pearson(subset_sizes, shuffled(ds, seed))
        out["control"] = {"r_linear": r_null, "r_linear_p": p_null}
    return out


def _pearson(x, y) -> tuple[float, float]:
    """Pearson R and its two-sided p; (0, 1) for fewer than three points or a constant series."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0, 1.0
    r, p = pearsonr(x, y)
    return float(r), float(p)


def setting_dissimilarity_summary(settings, matrix, seed: int = 0) -> dict:
    """DS between CartPole settings against the settings' difference (Pearson R off the diagonal),
    the matrix's symmetry (R of the upper against the lower triangle, three settings or more), each
    with a bootstrap interval over its cells (:func:`~intellimetry.aiq.controls.correlation_interval`),
    and the matrix's diagonal, off-diagonal and asymmetry means."""
    x, matrix = np.asarray(settings, dtype=float), np.asarray(matrix, dtype=float)
    off = ~np.eye(len(x), dtype=bool)
    difference = np.abs(x[:, None] - x[None, :])
    iu = np.triu_indices(len(x), 1)
    r = correlation_interval(difference[off], matrix[off], seed=seed)
    symmetry = correlation_interval(matrix[iu], matrix.T[iu], seed=seed) if len(x) > 2 else None
    return {"r": r.estimate, "r_interval": pair(r),
            "symmetry_r": symmetry.estimate if symmetry else float("nan"),
            "symmetry_r_interval": pair(symmetry) if symmetry else [float("nan")] * 2,
            "asymmetry_mean": float(np.abs(matrix - matrix.T)[iu].mean()),
            "diagonal_mean": float(np.diag(matrix).mean()), "off_diagonal_mean": float(matrix[off].mean())}


def gravity_dissimilarity_claims(gravities, matrix, paper_r: float, seed: int = 0, control: bool = True) -> dict:
    """What Fig. 14's item reads: R of DS on the gravity difference and the mirror R, with their
    intervals (:func:`setting_dissimilarity_summary`), beside the paper's R; with ``control``, the same
    for the null subject under "control": the matrix with its gravities assigned to the rows and
    columns in a shuffled order (the same cells, no relation to the gravity difference)."""
    summary = setting_dissimilarity_summary(gravities, matrix, seed)
    out = {"r_dissimilarity_vs_gravity_difference": summary["r"], "r_interval": summary["r_interval"],
           "paper_r": paper_r, "r_gap": float(summary["r"] - paper_r), "symmetry_r": summary["symmetry_r"],
           "symmetry_r_interval": summary["symmetry_r_interval"], "asymmetry_mean": summary["asymmetry_mean"],
           "diagonal_mean": summary["diagonal_mean"], "off_diagonal_mean": summary["off_diagonal_mean"],
           "diagonal_excess": summary["diagonal_mean"] - summary["off_diagonal_mean"],
           "matrix": np.asarray(matrix, dtype=float).tolist()}
    if control:
        out["control"] = gravity_dissimilarity_claims(shuffled(gravities, seed), matrix, paper_r, seed, False)
        out["control"].pop("matrix")
    return out


def stepwise_claims(mccps, step_ds, paper_r: float, seed: int = 0, control: bool = True) -> dict:
    """What Fig. 15's item reads: Pearson R of the stepwise DS with the complexity reached, with its
    bootstrap interval over the steps, and with the complexity's change over the step, beside the
    paper's R; with ``control``, the same for the stepwise DS in a shuffled order under "control"."""
    mccps, step_ds = np.asarray(mccps, dtype=float), np.asarray(step_ds, dtype=float)
    r_level, r_change = stepwise_correlations(mccps, step_ds)
    interval = correlation_interval(mccps[1:], step_ds, seed=seed) if len(step_ds) > 2 else None
    out = {"mccp": mccps.tolist(), "stepwise_dissimilarity": step_ds.tolist(),
           "r_complexity_vs_stepwise": float(r_level),
           "r_complexity_vs_stepwise_interval": pair(interval) if interval else [float("nan")] * 2,
           "r_complexity_change_vs_stepwise": float(r_change), "paper_r": paper_r,
           "r_gap": float(r_level - paper_r)}
    if control:
        out["control"] = stepwise_claims(mccps, shuffled(step_ds, seed), paper_r, seed, False)
    return out


def matrix_cosine(a, b) -> float:
    """Dot-product similarity of two matrices, each first divided by its largest entry (the paper
    compares DS with |ΔMCCP| this way)."""
    a_unit, b_unit = a / a.max(), b / b.max()
    return float((a_unit * b_unit).sum() / np.linalg.norm(a_unit) / np.linalg.norm(b_unit))


def dissimilarity_structure(ds, gaps, seed: int = 0) -> dict:
    """The suite's DS matrix: diagonal and off-diagonal means, mean asymmetry, and how it follows
    the MCCP differences (dot-product similarity, and Pearson R off the diagonal with its bootstrap
    interval over the cells)."""
    ds, gaps = np.asarray(ds, dtype=float), np.asarray(gaps, dtype=float)
    off = ~np.eye(len(ds), dtype=bool)
    r = correlation_interval(ds[off], gaps[off], seed=seed)
    return {"diagonal_mean": float(np.diag(ds).mean()), "off_diagonal_mean": float(ds[off].mean()),
            "diagonal_excess": float(np.diag(ds).mean() - ds[off].mean()),
            "asymmetry_mean": float(np.abs(ds - ds.T)[off].mean() / 2),
            "dot_product_similarity": matrix_cosine(ds, gaps),
            "pearson_ds_vs_mccp_gap": r.estimate, "pearson_ds_vs_mccp_gap_interval": pair(r)}


# The paper's groups of similar domains in its suite (§3.3.3); the CartPole group needs CartPole3D.
NIST = ("MNIST", "Fashion-MNIST")


def group_structure(ds, names, group=NIST) -> dict:
    """Is each domain closest to itself (its DS with itself below every DS to or from another), and
    are the members of ``group`` (the paper's names) closer to each other (symmetrised DS) than any
    member is to a domain outside it? False where fewer than two members are in the suite. Also
    whether the diagonal's mean lies below the off-diagonal mean, which domains are not closest to
    themselves, and each domain's nearest other domain (symmetrised DS)."""
    ds = np.asarray(ds, dtype=float)
    off = ~np.eye(len(ds), dtype=bool)
    lowest = [bool(ds[i, i] < min(ds[i, off[i]].min(), ds[off[:, i], i].min())) for i in range(len(ds))]
    sym = (ds + ds.T) / 2
    nearest = {n: names[int(np.argmin(np.where(off[i], sym[i], np.inf)))] for i, n in enumerate(names)}
    members = [i for i, n in enumerate(names) if paper_domain(n) in group]
    others = [i for i in range(len(names)) if i not in members]
    grouped = False
    if len(members) >= 2 and others:
        inside = max(sym[i, j] for i in members for j in members if i != j)
        grouped = bool(inside < min(sym[i, j] for i in members for j in others))
    return {"self_lowest": all(lowest), "nist_grouped": grouped,
            "diagonal_below_off_diagonal": bool(np.diag(ds).mean() < ds[off].mean()),
            "self_not_lowest": ", ".join(n for n, ok in zip(names, lowest) if not ok) or "none",
            "nearest_other": nearest}


def suite_summary(suite: Suite, complexity_scale: str, anchors: int | None, paper_dot_product: float,
                  untrained: list | None = None, seed: int = 0) -> dict:
    """What the book quotes about a measured suite: MCCP per domain (also under the paper's names,
    with bootstrap intervals over the pools' networks), the DS matrix, its structure and groups beside
    the paper's dot product, the space's dimensions under this complexity scale and the other one,
    each domain's point and the simplest domain; and the claims' controls (:func:`suite_controls`)."""
    mccps = mccp_estimates(suite.complexities)
    structure = dissimilarity_structure(suite.dissimilarity, mccp_gaps(mccps), seed)
    other_scale = "log" if complexity_scale == "max" else "max"
    other = intelligence_space(suite.names, mccps, suite.dissimilarity, other_scale, anchors).embedding
    space = suite.space
    return {"mccp": {s: c.summary() for s, c in zip(suite.names, suite.complexities)},
            "mccp_paper": {paper_domain(s): float(m) for s, m in zip(suite.names, mccps)},
            "mccp_intervals_paper": paper_intervals(suite.names, mccp_intervals(suite.complexities, seed=seed)),
            "dissimilarity": suite.dissimilarity.tolist(), **structure,
            **group_structure(suite.dissimilarity, suite.names),
            "paper_dot_product": paper_dot_product,
            "dot_product_gap": structure["dot_product_similarity"] - paper_dot_product,
            **space_dimensions(space.embedding), "other_scale": other_scale,
            "other_scale_non_euclidean_share": other.non_euclidean_share, "other_scale_stress": other.stress,
            "points": {s: p.tolist() for s, p in zip(suite.names, space.points)},
            "complexity_normalised": space.complexity.tolist(),
            "simplest": suite.names[int(space.complexity.argmin())],
            "simplest_complexity_normalised": float(space.complexity.min()),
            **suite_controls(suite, complexity_scale, anchors, untrained, seed)}


def suite_controls(suite: Suite, complexity_scale: str, anchors: int | None, untrained: list | None = None,
                   seed: int = 0) -> dict:
    """The suite claims' null subjects, each under its own key: "control_untrained" (the MCCP ranking of
    ``untrained``, the suite's pools untrained, with its intervals), "control_relabelled" (the group
    structure of the DS matrix with its columns moved to other domains:
    :func:`~intellimetry.aiq.controls.relabelled_columns`) and "control_shuffled" (the DS matrix's
    off-diagonal cells shuffled: its correlation with the MCCP differences and the dimensions of the
    space it spans with the same complexities)."""
    mccps = mccp_estimates(suite.complexities)
    out = {"control_relabelled": group_structure(relabelled_columns(suite.dissimilarity, seed), suite.names)}
    mixed = shuffled_off_diagonal(suite.dissimilarity, seed)
    structure = dissimilarity_structure(mixed, mccp_gaps(mccps), seed)
    space = intelligence_space(suite.names, mccps, mixed, complexity_scale, anchors)
    dimensions = space_dimensions(space.embedding)["dimensions_over_10_percent"]
    out["control_shuffled"] = {"pearson_ds_vs_mccp_gap": structure["pearson_ds_vs_mccp_gap"],
                               "pearson_ds_vs_mccp_gap_interval": structure["pearson_ds_vs_mccp_gap_interval"],
                               "dimensions_over_10_percent": dimensions}
    if untrained is not None:
        out["control_untrained"] = {
            "mccp_paper": {paper_domain(s): float(m) for s, m in zip(suite.names, mccp_estimates(untrained))},
            "mccp_intervals_paper": paper_intervals(suite.names, mccp_intervals(untrained, seed=seed))}
    return out


def depth_order(depths, per_depth) -> str:
    """The depths from the highest value to the lowest, e.g. "2 > 1 > 3"."""
    return " > ".join(str(depths[i]) for i in np.argsort(-per_depth))


def _per_depth(depths, rows) -> dict:
    return {str(d): rows[i].tolist() for i, d in enumerate(depths)}


def linear_r2(x, y) -> float:
    """R² of the least-squares line of y on x (Pearson r squared); 0 for fewer than three points or a
    constant series, which a line does not explain."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0
    return float(np.corrcoef(x, y)[0, 1] ** 2)


def zoom_r2_gap(widths, mean_performance: np.ndarray, score: np.ndarray) -> float:
    """R² of a straight line in the width for AIQ minus that for mean performance, each averaged over
    the depths (rows): positive when AIQ is the more linear."""
    r2_aiq = np.mean([linear_r2(widths, row) for row in score])
    r2_mean = np.mean([linear_r2(widths, row) for row in mean_performance])
    return float(r2_aiq - r2_mean)


def handicap_claims(depths, widths, mean_performance: np.ndarray, score: np.ndarray,
                    zoom_width: float | None = None, alpha: float = 0.05, seed: int = 0) -> dict:
    """The paper's Figures 20-21 as numbers: does mean performance rise with the width at every depth
    (Spearman ρ > 0 with p < ``alpha``); how far the shallowest networks' AIQ at the largest width
    ends below its peak (a share of the peak; 0 when the peak is the widest); and, over the widths up
    to ``zoom_width`` (all when None), the R² of a straight line for AIQ and for mean performance,
    averaged over the depths (AIQ "more linear" when its R² is the larger), and their difference with
    a bootstrap interval over the zoomed widths (:func:`zoom_r2_gap`)."""
    widths = np.asarray(widths, dtype=float)
    mean_performance, score = np.asarray(mean_performance, dtype=float), np.asarray(score, dtype=float)
    order = np.argsort(widths)
    rises = all(rho > 0 and p < alpha for rho, p in (rank_correlation(widths, row) for row in mean_performance))
    shallowest = int(np.argmin(depths))
    curve = score[shallowest, order]
    drop = float((curve.max() - curve[-1]) / curve.max()) if curve.max() > 0 else 0.0
    zoom = widths <= (widths.max() if zoom_width is None else zoom_width)
    r2_aiq = float(np.mean([linear_r2(widths[zoom], row[zoom]) for row in score]))
    r2_mean = float(np.mean([linear_r2(widths[zoom], row[zoom]) for row in mean_performance]))
    w, m, a = widths[zoom], mean_performance[:, zoom], score[:, zoom]
    gap = bootstrap_interval(np.arange(len(w)), lambda i: zoom_r2_gap(w[i], m[:, i], a[:, i]), RESAMPLES,
                             np.random.default_rng(seed))
    return {"mean_rises_every_depth": bool(rises), "shallowest_depth": depths[shallowest], "one_layer_aiq_drop": drop,
            "zoom_linear_r2": {"aiq": r2_aiq, "mean_performance": r2_mean},
            "aiq_more_linear_in_zoom": bool(r2_aiq > r2_mean),
            "zoom_r2_gap": float(r2_aiq - r2_mean), "zoom_r2_gap_interval": pair(gap)}


def handicap_summary(names, depths, widths, accuracy: np.ndarray, score: np.ndarray, full_volume: float,
                     zoom_width: float | None = None, untrained: tuple | None = None, seed: int = 0) -> dict:
    """AIQ against mean performance for the handicapped networks: their rank correlation, the best
    network and its share of the suite's volume, both per network and averaged over widths, the
    depth orders by each, how each follows the width (rank correlations) and the paper's claims
    (:func:`handicap_claims`); with ``untrained`` = (accuracy, score) of the same networks untrained,
    the claims for that null subject under "control"."""
    mean_performance = accuracy.mean(axis=2)
    best = np.unravel_index(score.argmax(), score.shape)
    out = {**handicap_claims(depths, widths, mean_performance, score, zoom_width, seed=seed),
           "spearman_aiq_vs_mean": float(spearmanr(mean_performance.ravel(), score.ravel())[0]),
           "suite_volume": float(full_volume), "best_aiq": float(score.max()),
           "best_aiq_share": volume_share(score.max(), full_volume),
           "best_network": {"depth": depths[best[0]], "width": widths[best[1]]},
           "best_network_accuracy": {n: float(accuracy[best[0], best[1], k]) for k, n in enumerate(names)},
           "mean_performance": _per_depth(depths, mean_performance), "aiq": _per_depth(depths, score),
           "accuracy": {str(d): {n: accuracy[i, :, k].tolist() for k, n in enumerate(names)}
                        for i, d in enumerate(depths)},
           "average_over_widths": {str(d): {"mean_performance": float(mean_performance[i].mean()),
                                            "aiq_share": volume_share(score[i].mean(), full_volume)}
                                   for i, d in enumerate(depths)},
           "depth_order_by_mean_performance": depth_order(depths, mean_performance.mean(axis=1)),
           "depth_order_by_aiq": depth_order(depths, score.mean(axis=1)),
           "spearman_width_aiq": {str(d): float(spearmanr(widths, score[i])[0]) for i, d in enumerate(depths)},
           "spearman_width_mean": {str(d): float(spearmanr(widths, mean_performance[i])[0])
                                   for i, d in enumerate(depths)}}
    if untrained is not None:
        null_accuracy, null_score = untrained
        out["control"] = handicap_claims(depths, widths, null_accuracy.mean(axis=2), null_score, zoom_width, seed=seed)
    return out


def agent_hull(names, space, accuracy, top_k: int | None = 3) -> dict:
    """One agent in the suite's space (the paper's Fig. 1): its accuracy per domain and mean, the
    suite's full volume (an agent with every test solved), the agent's AIQ and its share of that volume."""
    accuracy = np.asarray(accuracy, dtype=float)
    full, agent = space.volume(top_k), space.aiq(accuracy, top_k)
    return {"agent_accuracy": dict(zip(names, accuracy.tolist())), "agent_mean_performance": float(accuracy.mean()),
            "suite_volume": float(full), "agent_aiq": float(agent), "agent_share": volume_share(agent, full)}


def mccp_curve_claims(pool, rule: str = "neighbour", seed: int = 0) -> dict:
    """What Fig. 2's item reads (:func:`mccp_curve_summary` of the pool's curve), and under "control"
    the size trend of the same pool with its sizes paired with other networks' performances
    (:func:`~intellimetry.aiq.controls.shuffled_pairing_curve`)."""
    null = mccp_curve_summary(shuffled_pairing_curve(pool, rule, seed), pool)
    return {**mccp_curve_summary(pool_curve(pool, rule), pool), "control": {"size_trend": null["size_trend"]}}
