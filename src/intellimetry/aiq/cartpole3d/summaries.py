"""What the CartPole3D figures (paper Figs. 23-29) record for their verdicts: the statements of
:mod:`intellimetry.aiq.cartpole3d.claims`, each estimated comparison with a 95 % bootstrap interval,
whether the measurement rose above its noise floor, and the same statistics for a null subject
computed in the same run through the same code (issue 32):

* Fig. 23: the novelty labels of the MCCPs shuffled; intervals over the pools' networks;
* Fig. 24: the measured dissimilarities shuffled among the ordered pairs; intervals over the cells;
  the noise floor is a novelty's dissimilarity with itself (the diagonal);
* Figs. 25 and 27: the suite's space from the shuffled dissimilarities; the novelty labels shuffled
  on the hull and random actions in place of the network;
* Fig. 28: the handicapped networks shuffled among the layer groups; intervals over the novelties;
* Fig. 29: each system's APTI shuffled among the novelties; intervals over the trials.

Every shuffle is seeded by the figure's seed, and every interval resamples with
:func:`intellimetry.stats.bootstrap_interval`; one resample's measurement is computed once and shared
by every statistic read from it (:func:`resampled_intervals`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from intellimetry.aiq.cartpole3d.claims import (
    apti_aiq_claims,
    complexity_claims,
    depth_group_claims,
    dimensions_for_share,
    dissimilarity_claims,
    hull_vertices,
)
from intellimetry.aiq.controls import correlation_interval, pair, shuffled_off_diagonal
from intellimetry.aiq.measures import aiq, mccp
from intellimetry.aiq.pools import stable_seed
from intellimetry.aiq.study import intelligence_space, space_dimensions, volume_share
from intellimetry.stats import bootstrap_interval, mean_interval

RESAMPLES = 1000


def as_text(items) -> str:
    """A list as a reader sees it: "16, 4, 15" (the book prints no Python lists)."""
    return ", ".join(str(x) for x in items)


def control_seed(seed: int, what: str) -> int:
    """The seed of one figure's null (a shuffle), fixed by the figure's seed."""
    return stable_seed("cartpole3d-control", int(seed), what)


def control_rng(seed: int, what: str) -> np.random.Generator:
    """The generator of one figure's null, fixed by the figure's seed."""
    return np.random.default_rng(control_seed(seed, what))


def resampled_intervals(size: int, measure: Callable[[np.ndarray], object],
                        statistics: Mapping[str, Callable[[object], float]], seed: int,
                        resamples: int = RESAMPLES) -> dict:
    """{name: [low, high]}: the 95 % percentile bootstrap interval of each statistic of
    ``measure(units)``, the units (0..size-1) resampled with replacement, the same resamples for every
    statistic. ``measure`` must depend on the multiset of units only (it is computed once per multiset)."""
    cache: dict = {}

    def measured(units: np.ndarray):
        key = tuple(np.sort(units).tolist())
        if key not in cache:
            cache[key] = measure(np.asarray(key, dtype=int))
        return cache[key]

    out = {}
    for name, statistic in statistics.items():
        rng = np.random.default_rng(stable_seed("cartpole3d-bootstrap", int(seed)))
        interval = bootstrap_interval(np.arange(size), lambda units, f=statistic: f(measured(units)), resamples, rng)
        out[name] = [interval.low, interval.high]
    return out


# --------------------------------------------------------------------------- Fig. 23: complexity

def _pool_members(complexities) -> tuple[list, list]:
    """(sizes, performances): per novelty, per pool, per member; every pool has the same number of members."""
    sizes = [[np.array([a.size for a in pool], dtype=float) for pool in c.pools] for c in complexities]
    performances = [[np.asarray(p, dtype=float) for p in c.performances] for c in complexities]
    counts = {len(p) for novelty in performances for p in novelty}
    if len(counts) != 1:
        raise ValueError(f"every pool needs the same number of members, got {sorted(counts)}")
    return sizes, performances


def member_mccps(sizes, performances, members, rule: str = "neighbour") -> np.ndarray:
    """Each novelty's MCCP (mean over its pools) from the pool members ``members`` (positions in every pool)."""
    return np.array([np.mean([mccp(s[members], p[members], rule=rule) for s, p in zip(novelty_sizes, novelty_perf)])
                     for novelty_sizes, novelty_perf in zip(sizes, performances)])


def mccp_gap(mccps, named_mask) -> float:
    """Mean MCCP of the named novelties minus that of the others."""
    mccps, named_mask = np.asarray(mccps, dtype=float), np.asarray(named_mask, dtype=bool)
    return float(mccps[named_mask].mean() - mccps[~named_mask].mean())


def _complexity_statistics(novelties, mccps, paper_most_complex, intervals) -> dict:
    out = complexity_claims(novelties, mccps, paper_most_complex)
    named = np.isin(novelties, paper_most_complex)
    return {**out, "top_three_text": as_text(out["top_three"]), "mccp_gap": mccp_gap(mccps, named),
            "mccp_gap_interval": intervals}


def complexity_summary(novelties, complexities, paper_most_complex, rule: str = "neighbour", seed: int = 0,
                       resamples: int = RESAMPLES) -> dict:
    """Fig. 23: :func:`complexity_claims`, the gap between the named novelties' mean MCCP and the
    others' with a bootstrap interval over the pools' members (the same positions resampled in every
    pool and novelty, so the shared architectures stay paired), and under ``shuffled_labels`` the
    same statistics with the MCCPs' novelty labels shuffled (the null: labels that carry nothing)."""
    novelties = list(novelties)
    sizes, performances = _pool_members(complexities)
    mccps = np.array([c.interval.estimate for c in complexities], dtype=float)
    named = np.isin(novelties, paper_most_complex)
    permutation = control_rng(seed, "fig23").permutation(len(novelties))
    intervals = resampled_intervals(
        len(performances[0][0]), lambda members: member_mccps(sizes, performances, members, rule),
        {"ours": lambda m: mccp_gap(m, named), "shuffled": lambda m: mccp_gap(m[permutation], named)}, seed, resamples)
    shuffled = _complexity_statistics(novelties, mccps[permutation], paper_most_complex, intervals["shuffled"])
    return {**_complexity_statistics(novelties, mccps, paper_most_complex, intervals["ours"]),
            "shuffled_labels": {**shuffled, "permutation": [novelties[i] for i in permutation]}}


# --------------------------------------------------------------------------- Fig. 24: dissimilarity

def noise_floor(ds) -> dict:
    """How far the dissimilarity between different novelties rises above a novelty's dissimilarity with
    itself (the diagonal: the same task on both sides of the mixture, so only training noise): for each
    novelty whose diagonal cell was measured, the mean DS of its measured cells with other novelties
    minus its own diagonal DS; their mean and 95 % t interval. With fewer than two such novelties the
    interval is the whole possible range [-1, 1] (nothing is known)."""
    ds = np.asarray(ds, dtype=float)
    n = len(ds)
    off = ~np.eye(n, dtype=bool)
    rows = [i for i in range(n) if np.isfinite(ds[i, i])]
    excess = [float(np.nanmean(np.concatenate([ds[i][off[i]], ds[:, i][off[:, i]]])) - ds[i, i]) for i in rows]
    if len(excess) >= 2:
        interval = mean_interval(excess)
        low, high = interval.low, interval.high
    else:
        low, high = -1.0, 1.0
    return {"self_dissimilarity": float(np.mean([ds[i, i] for i in rows])) if rows else float("nan"),
            "excess_over_self": float(np.mean(excess)) if excess else 0.0,
            "excess_over_self_interval": [float(low), float(high)], "tests_with_self_cell": len(rows)}


def _cells(ds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, columns, values) of the measured off-diagonal cells."""
    ds = np.asarray(ds, dtype=float)
    rows, cols = np.nonzero(np.isfinite(ds) & ~np.eye(len(ds), dtype=bool))
    return rows, cols, ds[rows, cols]


def pair_margins(n: int, rows, cols, values, pair_index) -> dict:
    """From measured cells (row, column, DS), each a sample the bootstrap may repeat: the paper's pair's
    margins, positive when the statement holds: ``top_two`` = the smaller of the pair's mean DS to the
    others minus the largest among the others (both on top); ``one_in_top_two`` = the larger of the
    pair's minus the second largest among the others; ``similar`` = the smaller of the pair's mean DS to
    the tests outside the pair minus the DS between them. NaN where the cells do not define one."""
    rows, cols, values = np.asarray(rows), np.asarray(cols), np.asarray(values, dtype=float)
    a, b = pair_index
    with np.errstate(invalid="ignore", divide="ignore"):
        sums = np.bincount(rows, values, n) + np.bincount(cols, values, n)
        counts = np.bincount(rows, minlength=n) + np.bincount(cols, minlength=n)
        mean = sums / counts  # NaN for a test without a cell
    others = np.delete(mean, [a, b])
    others = np.sort(others[np.isfinite(others)])
    pair = np.isin(rows, pair_index) & np.isin(cols, pair_index)

    def to_outside(i):  # mean DS of test i to the tests outside the pair
        mine = ((rows == i) | (cols == i)) & ~pair
        return values[mine].mean() if mine.any() else np.nan

    nan = float("nan")
    return {"top_two": float(min(mean[a], mean[b]) - others[-1]) if len(others) else nan,
            "one_in_top_two": float(max(mean[a], mean[b]) - others[-2]) if len(others) > 1 else nan,
            "similar": float(min(to_outside(a), to_outside(b)) - values[pair].mean()) if pair.any() else nan}


def _dissimilarity_statistics(novelties, ds, paper_pair, seed: int, resamples: int) -> dict:
    out = dissimilarity_claims(novelties, ds, paper_pair)
    n, pair_index = len(ds), [novelties.index(x) for x in paper_pair]
    rows, cols, values = _cells(ds)
    margins = pair_margins(n, rows, cols, values, pair_index)
    cell_intervals = resampled_intervals(
        len(values), lambda k: pair_margins(n, rows[k], cols[k], values[k], pair_index),
        {name: (lambda m, name=name: m[name]) for name in margins}, seed, resamples)
    iu = np.triu_indices(n, 1)
    upper, lower = ds[iu], ds.T[iu]
    both = np.isfinite(upper) & np.isfinite(lower)
    symmetry = pair(correlation_interval(upper[both], lower[both], resamples=resamples, seed=seed))
    return {**out, "most_dissimilar_two_text": as_text(out["most_dissimilar_two"]),
            "symmetry_r_interval": symmetry,
            **{f"pair_{name}_margin": value for name, value in margins.items()},
            **{f"pair_{name}_margin_interval": value for name, value in cell_intervals.items()}}


def dissimilarity_summary(novelties, ds, paper_pair, seed: int = 0, resamples: int = RESAMPLES) -> dict:
    """Fig. 24: :func:`dissimilarity_claims`, the pair's margins and the mirror R with bootstrap
    intervals over the measured cells, the :func:`noise_floor`, and under ``shuffled_cells`` the same
    statistics once the measured dissimilarities are shuffled among the pairs (the null: a matrix
    whose cells say nothing about which two novelties they belong to)."""
    novelties, ds = list(novelties), np.asarray(ds, dtype=float)
    off = ~np.eye(len(ds), dtype=bool)
    shuffled = shuffled_off_diagonal(ds, control_seed(seed, "fig24"))
    return {**_dissimilarity_statistics(novelties, ds, paper_pair, seed, resamples), **noise_floor(ds),
            "cells_measured": int(np.isfinite(ds).sum()), "diagonal_mean": float(np.nanmean(np.diag(ds))),
            "off_diagonal_mean": float(np.nanmean(ds[off])),
            "shuffled_cells": _dissimilarity_statistics(novelties, shuffled, paper_pair, seed, resamples)}


# --------------------------------------------------------------------------- Figs. 25-27: the space

def hull_statistics(novelties, points, paper_bounding_tests, top_k: int) -> dict:
    """The novelties on the hull of the origin and the points (top ``top_k`` dimensions), and how many
    of the paper's bounding tests are among them."""
    vertices = sorted(list(novelties)[i] for i in hull_vertices(points, top_k))
    return {"hull_vertices": vertices, "hull_vertices_text": as_text(vertices),
            "paper_bounding_vertices": int(sum(n in vertices for n in paper_bounding_tests))}


def space_summary(novelties, complexities, ds, space, paper_bounding_tests, agent_performance, random_performance,
                  complexity_scale: str = "max", anchors: int | None = None, top_k: int = 3, seed: int = 0) -> dict:
    """Figs. 25-27 from the novelties' complexities (:class:`~intellimetry.aiq.study.Complexity`), their
    dissimilarity matrix and the space built from both: the space's dimensions
    (:func:`space_dimensions`, and how many hold 80 % of the positive spectrum), the hull's vertices,
    the agent's share of the suite's volume, the :func:`noise_floor` of the dissimilarities the space
    is built from, and two nulls: under
    ``shuffled_cells`` the dimensions of the space built from the dissimilarities shuffled among the
    pairs (Fig. 25), under ``null_agent`` the paper's bounding tests on the hull with the novelty
    labels shuffled and the share of random actions in place of the network (Fig. 27)."""
    novelties, names = list(novelties), [f"N{n}" for n in novelties]
    mccps = [c.interval.estimate for c in complexities]
    full = space.volume(top_k)
    agent_aiq = space.aiq(np.asarray(agent_performance, dtype=float), top_k)
    shuffled_space = intelligence_space(names, mccps, shuffled_off_diagonal(ds, control_seed(seed, "fig25")),
                                        complexity_scale, anchors)
    permutation = control_rng(seed, "fig27").permutation(len(novelties))
    random_aiq = space.aiq(np.asarray(random_performance, dtype=float), top_k)
    return {**space_dimensions(space.embedding),
            "dimensions_for_80_percent": dimensions_for_share(space.embedding, 0.8),
            **hull_statistics(novelties, space.points, paper_bounding_tests, top_k), **noise_floor(ds),
            "suite_volume": float(full), "agent_aiq": float(agent_aiq), "agent_share": volume_share(agent_aiq, full),
            "shuffled_cells": {"dimensions_for_80_percent": dimensions_for_share(shuffled_space.embedding, 0.8),
                               **space_dimensions(shuffled_space.embedding)},
            "null_agent": {**hull_statistics([novelties[i] for i in permutation], space.points, paper_bounding_tests,
                                             top_k),
                           "agent_share": volume_share(random_aiq, full),
                           "agent_performance": {n: float(v) for n, v in zip(names, random_performance)}}}


# --------------------------------------------------------------------------- Fig. 28: handicapping

def network_scores(points, performance, novelty_index, top_k: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean performance, AIQ) of every network (rows of ``performance``: networks, columns: novelties)
    over the novelties ``novelty_index`` (which the bootstrap may repeat)."""
    points, performance = np.asarray(points, dtype=float)[novelty_index], np.asarray(performance)[:, novelty_index]
    return performance.mean(axis=1), np.array([aiq(points, row, top_k) for row in performance])


def group_statistics(depths, widths, mean_performance, aiq_scores, order) -> dict:
    """:func:`depth_group_claims` of the networks taken in ``order`` (flat indices over depths × widths:
    the identity, or a shuffle for the null), with the orders as text and their agreement as a number
    (1 the same order, 0 not), and the margin by which AIQ puts the one-layer group further below the
    best group than mean performance does."""
    shape = (len(depths), len(widths))
    out = depth_group_claims(depths, np.asarray(mean_performance)[order].reshape(shape),
                             np.asarray(aiq_scores)[order].reshape(shape))
    return {**out, "depth_order_by_mean_performance_text": " > ".join(map(str, out["depth_order_by_mean_performance"])),
            "depth_order_by_aiq_text": " > ".join(map(str, out["depth_order_by_aiq"])),
            "order_agreement": float(out["same_depth_order"]),
            "one_layer_penalty": out["one_layer_performance_share"] - out["one_layer_aiq_share"]}


INTERVAL_KEYS = ("order_agreement", "one_layer_aiq_share", "one_layer_performance_share", "one_layer_penalty")


HULL_RESAMPLES = 500  # each resample computes a hull per network: half the usual count keeps Fig. 28 cheap


def handicap_group_summary(depths, widths, performance, points, top_k: int = 3, seed: int = 0,
                           resamples: int = HULL_RESAMPLES) -> dict:
    """Fig. 28 from the networks' performance (depths, widths, novelties) and the suite's points:
    :func:`group_statistics`, each with a bootstrap interval over the novelties (resampled jointly for
    every network), and under ``shuffled_depths`` the same with the networks shuffled among the layer
    groups (the null: depth that does not matter)."""
    depths, widths, performance = list(depths), list(widths), np.asarray(performance, dtype=float)
    flat = performance.reshape(len(depths) * len(widths), -1)
    identity = np.arange(len(flat))
    shuffle = control_rng(seed, "fig28").permutation(len(flat))

    summaries: dict = {}

    def summary(order, scores):  # once per resample and order, shared by the statistics read from it
        key = (id(scores), id(order))
        if key not in summaries:
            summaries[key] = (scores, group_statistics(depths, widths, *scores, order))
        return summaries[key][1]

    measure = lambda k: network_scores(points, flat, k, top_k)  # noqa: E731
    statistics = {f"{which}.{key}": (lambda s, order=order, key=key: summary(order, s)[key])
                  for which, order in (("ours", identity), ("null", shuffle)) for key in INTERVAL_KEYS}
    intervals = resampled_intervals(flat.shape[1], measure, statistics, seed, resamples)
    scores = measure(np.arange(flat.shape[1]))

    def record(which, order):
        return {**summary(order, scores), **{f"{key}_interval": intervals[f"{which}.{key}"] for key in INTERVAL_KEYS}}

    return {**record("ours", identity), "mean_performance": {str(d): row.tolist() for d, row in
                                                             zip(depths, scores[0].reshape(len(depths), -1))},
            "aiq": {str(d): row.tolist() for d, row in zip(depths, scores[1].reshape(len(depths), -1))},
            "shuffled_depths": {**record("null", shuffle),
                                "networks": [[depths[i // len(widths)], widths[i % len(widths)]] for i in shuffle]}}


# --------------------------------------------------------------------------- Fig. 29: APTI and AIQ

def apti_array(names: Sequence[str], novelties: Sequence[int], results) -> np.ndarray:
    """APTI per system, novelty and trial (systems × novelties × trials) from run_apti's results."""
    found = {(r.agent, r.novelty): r.apti for r in results}
    missing = [(a, n) for a in names for n in novelties if (a, n) not in found]
    if missing:
        raise ValueError(f"no APTI result for {missing}")
    return np.array([[found[(a, n)] for n in novelties] for a in names], dtype=float)


def system_scores(space, apti, top_k: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean APTI, AIQ as a share of the space's volume) per system from APTI (systems × novelties)."""
    full = space.volume(top_k)
    return apti.mean(axis=1), np.array([volume_share(space.aiq(row, top_k), full) for row in apti])


def reversal_margins(names, mean_apti, aiq_share, baseline: str) -> dict:
    """How far AIQ reverses mean APTI's order: for an ordered pair (s, t), the smaller of s's lead over t
    by mean APTI and t's lead over s by AIQ (positive when AIQ reverses them); ``largest`` over all
    pairs, ``baseline`` over the pairs with t the baseline (a system ahead of it by APTI, behind by AIQ)."""
    names, apti, share = list(names), np.asarray(mean_apti, dtype=float), np.asarray(aiq_share, dtype=float)
    margin = np.minimum(apti[:, None] - apti[None, :], share[None, :] - share[:, None])
    np.fill_diagonal(margin, -np.inf)
    b = names.index(baseline)
    return {"largest": float(margin.max()), "baseline": float(np.delete(margin[:, b], b).max())}


def _apti_statistics(names, novelties, apti, space, top_k, baseline, intervals) -> dict:
    per_novelty = apti.mean(axis=2)
    mean_apti, aiq_share = system_scores(space, per_novelty, top_k)
    claims = apti_aiq_claims(names, mean_apti, aiq_share, baseline)
    margins = reversal_margins(names, mean_apti, aiq_share, baseline)
    return {"apti": {a: {str(n): float(v) for n, v in zip(novelties, row)} for a, row in zip(names, per_novelty)},
            "mean_apti": {a: float(v) for a, v in zip(names, mean_apti)},
            "aiq_share": {a: float(v) for a, v in zip(names, aiq_share)}, **claims,
            "place_by_apti": {a: claims["ranking_by_apti"].index(a) + 1 for a in names},
            "place_by_aiq": {a: claims["ranking_by_aiq"].index(a) + 1 for a in names},
            "reversal_margin": margins["largest"], "baseline_reversal_margin": margins["baseline"],
            "reversal_margin_interval": intervals["largest"],
            "baseline_reversal_margin_interval": intervals["baseline"]}


def shuffle_novelties(apti: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """APTI (systems × novelties × trials) with each system's scores of each trial shuffled among the novelties."""
    out = np.array(apti, dtype=float)
    for s in range(out.shape[0]):
        for t in range(out.shape[2]):
            out[s, :, t] = rng.permutation(out[s, :, t])
    return out


def apti_summary(names, novelties, results, space, top_k: int, baseline: str, seed: int = 0,
                 resamples: int = RESAMPLES) -> dict:
    """Fig. 29: each system's APTI per novelty (mean over trials), its mean, its AIQ (the space scaled by
    its APTI per novelty, a share of the space's volume), the rankings (:func:`apti_aiq_claims`) and
    places, the :func:`reversal_margins` with bootstrap intervals over the trials (resampled jointly
    for every system and novelty), and under ``shuffled_novelties`` the same with each system's APTI
    shuffled among the novelties in every trial (the null: scores that do not depend on which novelty)."""
    names, novelties = list(names), list(novelties)
    apti = apti_array(names, novelties, results)
    shuffled = shuffle_novelties(apti, control_rng(seed, "fig29"))
    dims = min(top_k, len(novelties))

    def measure(trials):
        return {which: reversal_margins(names, *system_scores(space, data[:, :, trials].mean(axis=2), dims), baseline)
                for which, data in (("ours", apti), ("null", shuffled))}

    margins = {f"{w}.{k}": (lambda m, w=w, k=k: m[w][k]) for w in ("ours", "null") for k in ("largest", "baseline")}
    intervals = resampled_intervals(apti.shape[2], measure, margins, seed, resamples)

    def statistics(which, data):
        return _apti_statistics(names, novelties, data, space, dims, baseline,
                                {k: intervals[f"{which}.{k}"] for k in ("largest", "baseline")})

    return {**statistics("ours", apti), "dimensions": dims, "trials": int(apti.shape[2]),
            "shuffled_novelties": statistics("null", shuffled)}

