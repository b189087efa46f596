"""Reproduction verdicts: does our run support the paper's claim, by a criterion fixed in advance?

Every figure and table of every paper is an *item* in data/reference/<paper>/items.yaml. An item our
run covers names the figure id that reproduces it and a `criterion` set from the paper's claim alone
(before looking at our number); an optional `qualitative` criterion states what "the direction holds"
means. `save_figure` judges every item that names the figure and writes the verdicts into its sidecar:

    reproduced       the criterion holds
    qualitative      it does not, but the qualitative criterion does
    not reproduced   neither holds: our run contradicts the paper

A criterion is a mapping with a `test` (one of TESTS) and `ours`, the dotted key of the statistic in
the figure's `values`; `all: [criterion, ...]` requires every one. Example:

    criterion: {test: within_factor, ours: alpha_fit, paper: 2.5, factor: 1.2}
    qualitative: {test: above, ours: alpha_fit, threshold: 2}
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from intellimetry import paths
from intellimetry.checks import check_float

REPRODUCED, QUALITATIVE, NOT_REPRODUCED = "reproduced", "qualitative", "not reproduced"
VERDICTS = (REPRODUCED, QUALITATIVE, NOT_REPRODUCED)
# An item is covered by one of our figures, waits for a later issue, or is not a result at all.
COVERED, NOT_YET, NOT_A_RESULT = "covered", "not yet", "not a result"
STATUS_KEYS = {"figure": COVERED, "not_yet": NOT_YET, "not_a_result": NOT_A_RESULT}
ITEMS_FILE = "items.yaml"
# Bounds are inclusive: a value on the boundary in decimal (2.4 vs 2.5 ± 0.1) must not fail by rounding.
ROUNDING = 1e-9


class CriterionError(ValueError):
    """An item's criterion is malformed or names a value the figure did not record."""


def value_at(data, dotted: str):
    """data['a']['b'] for 'a.b' (list items by index); KeyError naming the key where it stopped."""
    for key in str(dotted).split("."):
        try:
            data = data[int(key)] if isinstance(data, list) else data[key]
        except (KeyError, IndexError, ValueError, TypeError):
            raise KeyError(f"no key {dotted!r} (stopped at {key!r})") from None
    return data


def _number(value, what: str) -> float:
    try:
        return check_float(what, value)
    except ValueError as err:
        raise CriterionError(str(err)) from None


def _fmt(x) -> str:
    return f"{x:.3g}" if isinstance(x, float) else str(x)


# Each test: (criterion, our statistic, the figure's values) -> (holds, the criterion in words).
def _within_factor(c, ours, values):
    ours, paper, factor = _number(ours, "ours"), _number(c["paper"], "paper"), _number(c["factor"], "factor")
    if factor < 1 or paper == 0:
        raise CriterionError("within_factor needs factor >= 1 and a non-zero paper value")
    ratio = ours / paper
    holds = ratio > 0 and abs(math.log(ratio)) <= math.log(factor) + ROUNDING
    return holds, f"within a factor {_fmt(factor)} of the paper's {_fmt(paper)}"


def _within(c, ours, values):
    ours, paper, tol = _number(ours, "ours"), _number(c["paper"], "paper"), _number(c["tolerance"], "tolerance")
    return abs(ours - paper) <= tol + ROUNDING * max(abs(paper), 1), f"within ±{_fmt(tol)} of the paper's {_fmt(paper)}"


def _between(c, ours, values):
    ours = _number(ours, "ours")
    low, high = c.get("low"), c.get("high")
    if low is None and high is None:
        raise CriterionError("between needs low, high or both")
    holds = (low is None or ours >= _number(low, "low")) and (high is None or ours <= _number(high, "high"))
    if low is not None and high is not None:
        return holds, f"between {_fmt(low)} and {_fmt(high)}"
    return holds, f">= {_fmt(low)}" if high is None else f"<= {_fmt(high)}"


def _above(c, ours, values):
    return _number(ours, "ours") > _number(c["threshold"], "threshold"), f"> {_fmt(c['threshold'])}"


def _below(c, ours, values):
    return _number(ours, "ours") < _number(c["threshold"], "threshold"), f"< {_fmt(c['threshold'])}"


def _equals(c, ours, values):
    return ours == c["paper"], f"equal to the paper's {_fmt(c['paper'])}"


def _is_true(c, ours, values):
    if not isinstance(ours, bool):
        raise CriterionError(f"is_true needs a yes/no value, got {ours!r}")
    return ours, "holds (yes)"


def _same_order(c, ours, values):
    """ours: {name: number}; `order` lists the names from the smallest to the largest in the paper."""
    order = list(c["order"])
    missing = [name for name in order if name not in ours]
    if missing:
        raise CriterionError(f"same_order: no value for {missing}; recorded: {sorted(ours)}")
    numbers = {name: _number(ours[name], f"ours[{name!r}]") for name in order}
    holds = all(numbers[a] < numbers[b] for a, b in zip(order, order[1:]))
    return holds, "the paper's order, smallest first: " + " < ".join(order)


def _trend(c, ours, values):
    """ours: a correlation or slope; `p`: the dotted key of its p-value in the values (alpha 0.05 unless given)."""
    sign = c.get("sign")
    if sign not in ("positive", "negative"):
        raise CriterionError(f"trend needs sign: positive or negative, got {sign!r}")
    alpha = _number(c.get("alpha", 0.05), "alpha")
    statistic, p = _number(ours, "ours"), _number(_lookup(values, c["p"]), "p")
    holds = (statistic > 0 if sign == "positive" else statistic < 0) and p < alpha
    return holds, f"{sign} with p < {_fmt(alpha)} (p = {_fmt(p)})"


TESTS: dict[str, Callable] = {
    "within_factor": _within_factor, "within": _within, "between": _between, "above": _above,
    "below": _below, "equals": _equals, "is_true": _is_true, "same_order": _same_order, "trend": _trend,
}


def _lookup(values: Mapping, key: str):
    try:
        return value_at(values, key)
    except KeyError as err:
        raise CriterionError(f"{err.args[0]} in the figure's values; recorded: {sorted(values)}") from None


def judge(criterion: Mapping, values: Mapping) -> tuple[bool, object, str]:
    """(holds, our statistic, the criterion in words) for one criterion against a figure's values."""
    if "all" in criterion:
        parts = [judge(part, values) for part in criterion["all"]]
        return all(p[0] for p in parts), [p[1] for p in parts], " and ".join(p[2] for p in parts)
    test = criterion.get("test")
    if test not in TESTS:
        raise CriterionError(f"unknown test {test!r}; allowed: {', '.join(TESTS)}")
    if "ours" not in criterion:
        raise CriterionError(f"{test} needs `ours`, the key of our statistic in the figure's values")
    ours = _lookup(values, criterion["ours"])
    try:
        holds, words = TESTS[test](criterion, ours, values)
    except KeyError as err:
        raise CriterionError(f"{test} needs {err.args[0]!r}") from None
    return bool(holds), ours, f"{criterion['ours']} {words}"


def item_status(item: Mapping) -> str:
    """covered, not yet or not a result: exactly one of `figure`, `not_yet`, `not_a_result`."""
    present = [key for key in STATUS_KEYS if item.get(key)]
    if len(present) != 1:
        raise CriterionError(f"item {item.get('id')!r} needs exactly one of {', '.join(STATUS_KEYS)}; "
                             f"has {present or 'none'}")
    return STATUS_KEYS[present[0]]


def verdict(item: Mapping, values: Mapping) -> dict:
    """The verdict record of one covered item: verdict, our statistic, criteria in words."""
    if "criterion" not in item:
        raise CriterionError(f"item {item['id']!r} names figure {item['figure']!r} but has no criterion")
    holds, ours, words = judge(item["criterion"], values)
    record = {"label": item["label"], "verdict": REPRODUCED if holds else NOT_REPRODUCED,
              "ours": ours, "criterion": words}
    if not holds and "qualitative" in item:
        q_holds, q_ours, q_words = judge(item["qualitative"], values)
        record.update(qualitative_criterion=q_words, qualitative_ours=q_ours)
        if q_holds:
            record["verdict"] = QUALITATIVE
    return record


def load_items(paper: str) -> dict:
    """A paper's item registry (data/reference/<paper>/items.yaml), its items checked for a status."""
    registry = paths.load_reference(f"{paper}/{ITEMS_FILE}")
    for item in registry["items"]:
        item_status(item)
    return registry


def judge_figure(fig_id: str, values: Mapping, registry: Mapping | None = None) -> dict:
    """{item id: verdict record} for every item of the figure's paper that names this figure.

    A paper without an items.yaml has no items (e.g. a test project); a criterion that names a value
    the figure did not record is an error, so a notebook cannot silently drop a checked number.
    """
    if registry is None:
        paper = paths.paper_of(fig_id)
        if not paths.reference_exists(f"{paper}/{ITEMS_FILE}"):
            return {}
        registry = load_items(paper)
    records = {}
    for item in registry["items"]:
        if item.get("figure") == fig_id:
            try:
                records[item["id"]] = verdict(item, values)
            except CriterionError as err:
                raise CriterionError(f"{fig_id}, item {item['id']} ({item['label']}): {err}") from None
    return records
