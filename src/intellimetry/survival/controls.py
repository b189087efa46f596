"""What the chapter's verdicts read besides a figure's own statistics: the failure counts of a null
subject, whether a decay rate was measured at all, and the intervals an ordering is judged with.

* The null subject is a **uniformly random ranker** over the same candidates: every candidate of every
  event gets an independent uniform score, and the same `failure_counts` counts the candidates scored
  above the reference (so a failure count is uniform on 0 .. K-1, K the candidates left after any
  exclusions). Its counts go through the same fitting code as the subject's.
* A decay rate is **measured** when its bounded fit says so (`rates.is_measured`): at least
  MIN_EVENTS_IN_RANGE events in the range [k_min, K - 1], an estimate inside the search range (not a
  bound), and no truncated alternative fitting significantly better (stats.bounded_power_law).
* A rate **decays** when its whole interval is above 0: a random ranker's counts are uniform (alpha = 0).
* Orderings and "faster than" are judged with the bootstrap intervals the rates carry.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from intellimetry.stats.bounded_power_law import MIN_EVENTS as MIN_EVENTS_IN_RANGE
from intellimetry.survival.failure_counts import failure_counts
from intellimetry.survival.rates import decay_rates, is_measured

CONTROL_STREAM = 32  # the control's generator: np.random.default_rng([CONTROL_STREAM, seed])
NULL_SUBJECT = "a uniformly random ranker over the same candidates, for the same events"
BLOCK_ELEMENTS = 2**22  # random scores held at once (4 M doubles = 32 MB)


def control_rng(seed: int) -> np.random.Generator:
    """The generator of a figure's control: its own stream of the figure's seed, so drawing the control
    changes none of the subject's numbers."""
    return np.random.default_rng([CONTROL_STREAM, int(seed)])


def random_ranker_counts(n_candidates: int, rng: np.random.Generator, *, n_events: int | None = None,
                         reference=None, mask=None, block_elements: int = BLOCK_ELEMENTS) -> np.ndarray:
    """Failure counts of a ranker that scores every candidate uniformly at random.

    Give `n_events` (the reference is candidate 0 of each event), or `reference` (one index per event)
    with an optional `mask` of excluded candidates, as `failure_counts` takes them.
    """
    if n_candidates < 1:
        raise ValueError(f"a ranker needs at least one candidate, got {n_candidates}")
    if reference is None:
        if n_events is None:
            raise ValueError("give n_events or reference")
        reference = np.zeros(int(n_events), dtype=np.int64)
    reference = np.asarray(reference, dtype=np.int64).reshape(-1)
    rows = max(1, block_elements // n_candidates)
    counts = np.empty(reference.size, dtype=np.int64)
    for start in range(0, reference.size, rows):
        stop = min(start + rows, reference.size)
        scores = rng.random((stop - start, n_candidates))
        block_mask = None if mask is None else mask[start:stop]
        counts[start:stop] = failure_counts(scores, reference[start:stop], mask=block_mask)
    return counts


def random_ranker_like(counts_by_model: Mapping, candidates: Mapping, rng: np.random.Generator) -> dict:
    """{model: {test set: counts}} of random rankers over each model's candidates (`candidates[model]`),
    with as many events as the model has on each set."""
    return {model: {name: random_ranker_counts(int(candidates[model]), rng, n_events=np.asarray(c).size)
                    for name, c in by_set.items()}
            for model, by_set in counts_by_model.items()}


def null_decay_rates(counts_by_set: Mapping, k_min: int, support, resamples: int,
                     rng: np.random.Generator) -> dict:
    """`rates.decay_rates` of a null subject's counts; a set it cannot fit (fewer than two distinct counts
    in the range) gets a row with no rate and no level, never Limited, decaying or faster than another."""
    return decay_rates(dict(counts_by_set), k_min, support, resamples, rng)


def fitted(row: Mapping) -> bool:
    return row.get("alpha") is not None


def interval(row: Mapping) -> list[float]:
    """A rate row's bootstrap interval as [low, high]."""
    return [float(row["ci_low"]), float(row["ci_high"])]


def intervals(rows: Mapping) -> dict[str, list[float]]:
    """{name: [low, high]} for {name: rate row}."""
    return {name: interval(row) for name, row in rows.items()}


def rate_rows(rates: Mapping) -> list[Mapping]:
    """Every rate row of {model: {test set: row}} (or of {name: row})."""
    rows = []
    for value in rates.values():
        rows += [value] if "alpha" in value else list(value.values())
    return rows


def measurement(rows: Iterable[Mapping], min_events: int = MIN_EVENTS_IN_RANGE) -> dict:
    """Whether every rate was measured: the fewest events in a fitted range, how many rates have each
    status (`statuses`), and `measured` (every rate measured: enough events, not a bound, a power law
    the truncated alternatives do not beat)."""
    rows = list(rows)
    if not rows:
        raise ValueError("no decay rates to judge")
    fewest = min(int(row["events_in_range"]) for row in rows)
    statuses = {}
    for row in rows:
        statuses[row["status"]] = statuses.get(row["status"], 0) + 1
    measured = all(is_measured(row) for row in rows)
    return {"rates": len(rows), "fewest_events_in_range": fewest, "min_events": min_events,
            "statuses": statuses, "unfitted": int(sum(not fitted(row) for row in rows)),
            "not_power_law": int(statuses.get("not a power law", 0)),
            "enough_events": fewest >= min_events, "measured": measured and fewest >= min_events}


def all_limited(rows: Iterable[Mapping]) -> bool:
    """Whether every rate was fitted and is at the Limited level."""
    return all(row["level"] == "Limited" for row in rows)


def all_decaying(rows: Iterable[Mapping]) -> bool:
    """Whether every rate's interval lies above 0: the counts fall with k measurably faster than a
    uniformly random ranker's, which are flat (alpha = 0)."""
    return all(fitted(row) and row["ci_low"] > 0 for row in rows)


def faster_share(faster: Mapping, slower: Mapping, names: Sequence | None = None) -> dict:
    """On how many test sets the `faster` subject's rate exceeds the `slower` one's ({set: row} each).

    `share` counts the point estimates; `interval` is [the share where the two bootstrap intervals are
    apart the right way, one minus the share where they are apart the wrong way]: the range the share
    can take over the sets the intervals cannot decide.
    """
    names = list(faster if names is None else names)
    if not names:
        raise ValueError("no test sets to compare")
    both = [n for n in names if fitted(faster[n]) and fitted(slower[n])]  # an unfitted rate decides nothing
    above = [n for n in both if faster[n]["alpha"] > slower[n]["alpha"]]
    apart_up = [n for n in both if faster[n]["ci_low"] > slower[n]["ci_high"]]
    apart_down = [n for n in both if faster[n]["ci_high"] < slower[n]["ci_low"]]
    count = len(names)
    return {"share": len(above) / count, "interval": [len(apart_up) / count, 1 - len(apart_down) / count],
            "sets": above, "apart_faster": apart_up, "apart_slower": apart_down}


def difference(higher: Mapping, lower: Mapping) -> dict:
    """How far one rate is above another ({alpha, ci_low, ci_high} rows): the difference of the point
    estimates and the interval the two bootstrap intervals allow, [low - high, high - low]."""
    if not (fitted(higher) and fitted(lower)):
        raise ValueError("a difference needs two fitted rates")
    return {"value": float(higher["alpha"] - lower["alpha"]),
            "interval": [float(higher["ci_low"] - lower["ci_high"]), float(higher["ci_high"] - lower["ci_low"])]}


def smallest_margin(pairs: Iterable[tuple[Mapping, Mapping]]) -> dict:
    """The smallest of several differences (higher, lower): its value and interval, each the minimum
    over the pairs. Above zero by its whole interval exactly when every pair's intervals are apart the
    right way; below zero by its whole interval when some pair's are apart the wrong way."""
    found = [difference(higher, lower) for higher, lower in pairs]
    if not found:
        raise ValueError("no pairs to compare")
    return {"value": min(d["value"] for d in found),
            "interval": [min(d["interval"][0] for d in found), min(d["interval"][1] for d in found)]}
