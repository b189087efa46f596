"""What the CartPole3D figures (paper Figs. 23-29) state, as numbers computed from a run.

Pure functions of measured arrays: they know the paper's statements (which novelties it names) only
through their arguments, which the notebooks read from ``data/reference/aiq/paper.yaml``.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr

from intellimetry.aiq.measures import Embedding, hull_faces


def complexity_claims(novelties, mccps, paper_most_complex) -> dict:
    """Fig. 23: the three most complex novelties, how many of the paper's named ones are among them,
    and whether the named ones' mean MCCP lies above the others' mean."""
    novelties, mccps = list(novelties), np.asarray(mccps, dtype=float)
    named = [n for n in paper_most_complex if n in novelties]
    if len(named) != len(paper_most_complex):
        raise ValueError(f"the suite must include the paper's most complex novelties {list(paper_most_complex)}; "
                         f"it has {novelties}")
    top = [novelties[i] for i in np.argsort(-mccps, kind="stable")[:len(named)]]
    inside = np.array([n in named for n in novelties])
    return {"top_three": top, "paper_three_in_top_three": int(sum(n in named for n in top)),
            "paper_three_mean_mccp": float(mccps[inside].mean()), "rest_mean_mccp": float(mccps[~inside].mean()),
            "paper_three_above_rest": bool(mccps[inside].mean() > mccps[~inside].mean()),
            "most_complex": novelties[int(np.argmax(mccps))], "least_complex": novelties[int(np.argmin(mccps))]}


def mean_dissimilarity_to_others(ds) -> np.ndarray:
    """Each test's mean DS to every other test, over both directions of the cells measured (NaN = not measured)."""
    ds = np.asarray(ds, dtype=float)
    off = ~np.eye(len(ds), dtype=bool)
    both = np.where(off, ds, np.nan)
    return np.array([np.nanmean(np.concatenate([both[i], both[:, i]])) for i in range(len(ds))])


def dissimilarity_claims(novelties, ds, paper_pair) -> dict:
    """Fig. 24: symmetry (Pearson R of the cells measured in both directions against their mirrors), the
    two novelties most dissimilar to the others (mean DS), and whether the paper's pair is that pair and
    closer to each other (symmetrised DS) than each of them is to the others on average."""
    novelties, ds = list(novelties), np.asarray(ds, dtype=float)
    a, b = (novelties.index(n) for n in paper_pair)
    iu = np.triu_indices(len(ds), 1)
    upper, lower = ds[iu], ds.T[iu]
    both = np.isfinite(upper) & np.isfinite(lower)
    symmetry = float(np.corrcoef(upper[both], lower[both])[0, 1]) if both.sum() > 2 else float("nan")
    mean_to_others = mean_dissimilarity_to_others(ds)
    top_two = [novelties[i] for i in np.argsort(-mean_to_others, kind="stable")[:2]]
    pair_ds = float(np.nanmean([ds[a, b], ds[b, a]]))
    others = [i for i in range(len(ds)) if i not in (a, b)]

    def mean_to(i):  # mean DS of test i to the tests outside the pair
        return float(np.nanmean(np.concatenate([ds[i, others], ds[others, i]])))

    return {"symmetry_r": symmetry, "cells_measured_both_ways": int(both.sum()),
            "mean_dissimilarity": {str(n): float(v) for n, v in zip(novelties, mean_to_others)},
            "most_dissimilar_two": top_two,
            "paper_pair_most_dissimilar": bool(set(top_two) == set(paper_pair)),
            "paper_pair_one_in_top_two": bool(set(top_two) & set(paper_pair)),
            "paper_pair_ds": pair_ds, "paper_pair_mean_to_others": [mean_to(a), mean_to(b)],
            "paper_pair_similar": bool(pair_ds < min(mean_to(a), mean_to(b)))}


def dimensions_for_share(embedding: Embedding, share: float = 0.8) -> int:
    """The smallest number of dimensions whose eigenvalues hold ``share`` of the positive spectrum
    (the tests' squared coordinates summed per dimension)."""
    positive = np.sort(embedding.eigenvalues[embedding.eigenvalues > 0])[::-1]
    if not len(positive):
        return 0
    cumulative = np.cumsum(positive) / positive.sum()
    return int(np.searchsorted(cumulative, share - 1e-12) + 1)


def hull_vertices(points, top_k: int = 3) -> list[int]:
    """Indices of the tests (rows of ``points``) that are vertices of the hull of the origin and the
    points in the first ``top_k`` dimensions; empty when the hull is flat."""
    vertices, faces = hull_faces(np.asarray(points, dtype=float)[:, :top_k])
    return sorted({int(v) - 1 for v in np.unique(faces) if v > 0})


def depth_group_claims(depths, mean_performance, aiq_scores) -> dict:
    """Fig. 28 over layer groups (rows: depths, columns: widths): do the groups' means over widths rank
    alike by mean performance and by AIQ, and how far the one-layer group sits below the best group by
    each (a share of the best group's mean)."""
    depths = list(depths)
    perf = np.asarray(mean_performance, dtype=float).mean(axis=1)
    score = np.asarray(aiq_scores, dtype=float).mean(axis=1)
    shallow = depths.index(min(depths))
    perf_share = float(perf[shallow] / perf.max()) if perf.max() > 0 else 0.0
    aiq_share = float(score[shallow] / score.max()) if score.max() > 0 else 0.0
    order_perf = [depths[i] for i in np.argsort(-perf, kind="stable")]
    order_aiq = [depths[i] for i in np.argsort(-score, kind="stable")]
    return {"group_mean_performance": {str(d): float(v) for d, v in zip(depths, perf)},
            "group_mean_aiq": {str(d): float(v) for d, v in zip(depths, score)},
            "depth_order_by_mean_performance": order_perf, "depth_order_by_aiq": order_aiq,
            "same_depth_order": order_perf == order_aiq,
            "one_layer_performance_share": perf_share, "one_layer_aiq_share": aiq_share,
            "aiq_penalises_one_layer": bool(aiq_share < perf_share)}


def ranking(names, scores) -> list:
    """Names from the highest score to the lowest (ties keep the given order)."""
    return [names[i] for i in np.argsort(-np.asarray(scores, dtype=float), kind="stable")]


def apti_aiq_claims(agents, mean_apti, aiq_scores, baseline: str) -> dict:
    """Fig. 29: the systems ranked by mean APTI and by AIQ, whether the rankings differ, and whether the
    baseline ranks higher (a smaller place number) by AIQ than by mean APTI."""
    agents = list(agents)
    by_apti, by_aiq = ranking(agents, mean_apti), ranking(agents, aiq_scores)
    rho = spearmanr(mean_apti, aiq_scores)[0] if len(agents) > 2 else float("nan")
    return {"ranking_by_apti": by_apti, "ranking_by_aiq": by_aiq, "ranking_changed": by_apti != by_aiq,
            "baseline_place_by_apti": by_apti.index(baseline) + 1, "baseline_place_by_aiq": by_aiq.index(baseline) + 1,
            "baseline_lowest_apti": by_apti[-1] == baseline,
            "baseline_rises_by_aiq": by_aiq.index(baseline) < by_apti.index(baseline),
            "spearman_apti_aiq": float(rho)}
