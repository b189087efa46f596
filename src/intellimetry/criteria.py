"""Criterion tests: does a statistic of a figure's values meet a condition fixed in advance?

A criterion is a mapping with a `test` (one of TESTS) and `ours`, the dotted key of the statistic in
the figure's `values`; `all: [criterion, ...]` requires every one. Each test answers one of three ways:

    HOLDS       the condition holds
    FAILS       it does not
    UNDECIDED   the statistic's interval includes no difference (an ordering, trend or comparison
                whose uncertainty straddles the line): the run could not tell

Tests that compare an estimate take the interval it carries, so "greater than" means "greater than
by more than its uncertainty":

    above / below   `interval`: the dotted key of [low, high]; holds when the whole interval is past the
                    threshold, fails when the whole interval is on the wrong side, else undecided
    same_order      `intervals`: the dotted key of {name: [low, high]}; holds when each consecutive pair's
                    intervals are apart in the paper's order, fails when a pair is apart the other way
    trend           `p`: the dotted key of the statistic's p-value; holds when significant with the
                    paper's sign, fails when significant with the other sign, else undecided

Example:  {test: within_factor, ours: alpha_fit, paper: 2.5, factor: 1.2}
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from intellimetry.checks import check_float

HOLDS, FAILS, UNDECIDED = "holds", "fails", "undecided"
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


def lookup(values: Mapping, key: str):
    try:
        return value_at(values, key)
    except KeyError as err:
        raise CriterionError(f"{err.args[0]} in the figure's values; recorded: {sorted(values)}") from None


def number(value, what: str) -> float:
    try:
        return check_float(what, value)
    except ValueError as err:
        raise CriterionError(str(err)) from None


def fmt(x) -> str:
    return f"{x:.3g}" if isinstance(x, float) else str(x)


def _state(holds: bool) -> str:
    return HOLDS if holds else FAILS


def _interval(values: Mapping, key: str, what: str) -> tuple[float, float]:
    pair = lookup(values, key)
    if not isinstance(pair, list | tuple) or len(pair) != 2:
        raise CriterionError(f"{what} {key!r} must be [low, high], got {pair!r}")
    low, high = number(pair[0], f"{what} low"), number(pair[1], f"{what} high")
    if low > high:
        raise CriterionError(f"{what} {key!r} has low {low} above high {high}")
    return low, high


# Each test: (criterion, our statistic, the figure's values) -> (HOLDS/FAILS/UNDECIDED, the test in words).
def _within_factor(c, ours, values):
    ours, paper, factor = number(ours, "ours"), number(c["paper"], "paper"), number(c["factor"], "factor")
    if factor < 1 or paper == 0:
        raise CriterionError("within_factor needs factor >= 1 and a non-zero paper value")
    ratio = ours / paper
    holds = ratio > 0 and abs(math.log(ratio)) <= math.log(factor) + ROUNDING
    return _state(holds), f"within a factor {fmt(factor)} of the paper's {fmt(paper)}"


def _within(c, ours, values):
    ours, paper, tol = number(ours, "ours"), number(c["paper"], "paper"), number(c["tolerance"], "tolerance")
    holds = abs(ours - paper) <= tol + ROUNDING * max(abs(paper), 1)
    return _state(holds), f"within ±{fmt(tol)} of the paper's {fmt(paper)}"


def _between(c, ours, values):
    ours = number(ours, "ours")
    low, high = c.get("low"), c.get("high")
    if low is None and high is None:
        raise CriterionError("between needs low, high or both")
    holds = (low is None or ours >= number(low, "low")) and (high is None or ours <= number(high, "high"))
    if low is not None and high is not None:
        return _state(holds), f"between {fmt(low)} and {fmt(high)}"
    return _state(holds), f">= {fmt(low)}" if high is None else f"<= {fmt(high)}"


def _past(c, ours, values, sign: int):
    """above (sign 1) or below (sign -1) a threshold, by the whole interval where one is named."""
    ours, threshold = number(ours, "ours"), number(c["threshold"], "threshold")
    words = f"{'>' if sign > 0 else '<'} {fmt(c['threshold'])}"
    if "interval" not in c:
        return _state(sign * (ours - threshold) > 0), words
    low, high = _interval(values, c["interval"], "interval")
    near, far = (low, high) if sign > 0 else (high, low)
    words += f", its interval [{fmt(low)}, {fmt(high)}] included"
    if sign * (near - threshold) > 0:
        return HOLDS, words
    return (FAILS if sign * (far - threshold) <= 0 else UNDECIDED), words


def _above(c, ours, values):
    return _past(c, ours, values, 1)


def _below(c, ours, values):
    return _past(c, ours, values, -1)


def _equals(c, ours, values):
    return _state(ours == c["paper"]), f"equal to the paper's {fmt(c['paper'])}"


def _is_true(c, ours, values):
    if not isinstance(ours, bool):
        raise CriterionError(f"is_true needs a yes/no value, got {ours!r}")
    return _state(ours), "holds (yes)"


def _is_false(c, ours, values):
    if not isinstance(ours, bool):
        raise CriterionError(f"is_false needs a yes/no value, got {ours!r}")
    return _state(not ours), "does not hold (no)"


def _same_order(c, ours, values):
    """ours: {name: number}; `order` lists the names from the smallest to the largest in the paper."""
    order = list(c["order"])
    missing = [name for name in order if name not in ours]
    if missing:
        raise CriterionError(f"same_order: no value for {missing}; recorded: {sorted(ours)}")
    numbers = {name: number(ours[name], f"ours[{name!r}]") for name in order}
    words = "the paper's order, smallest first: " + " < ".join(order)
    pairs = list(zip(order, order[1:]))
    if "intervals" not in c:
        return _state(all(numbers[a] < numbers[b] for a, b in pairs)), words
    bounds = {name: _interval(values, f"{c['intervals']}.{name}", "interval") for name in order}
    if any(bounds[b][1] < bounds[a][0] for a, b in pairs):
        return FAILS, words + ", each gap outside the intervals"
    apart = all(bounds[a][1] < bounds[b][0] for a, b in pairs)
    return (HOLDS if apart else UNDECIDED), words + ", each gap outside the intervals"


def _trend(c, ours, values):
    """ours: a correlation or slope; `p`: the dotted key of its p-value in the values (alpha 0.05 unless given)."""
    sign = c.get("sign")
    if sign not in ("positive", "negative"):
        raise CriterionError(f"trend needs sign: positive or negative, got {sign!r}")
    alpha = number(c.get("alpha", 0.05), "alpha")
    if ours is None and lookup(values, c["p"]) is None:  # no line was fitted (e.g. a rate <= 0 on log axes)
        return UNDECIDED, f"{sign} with p < {fmt(alpha)} (no line fitted)"
    statistic, p = number(ours, "ours"), number(lookup(values, c["p"]), "p")
    words = f"{sign} with p < {fmt(alpha)} (p = {fmt(p)})"
    if p >= alpha:
        return UNDECIDED, words
    return _state(statistic > 0 if sign == "positive" else statistic < 0), words


def _distinct(c, ours, values):
    """ours: a list or mapping of values that must not all be identical (a degenerate output)."""
    items = list(ours.values()) if isinstance(ours, Mapping) else ours
    if not isinstance(items, list) or not items:
        raise CriterionError(f"distinct needs a non-empty list or mapping, got {ours!r}")
    return _state(len({repr(v) for v in items}) > 1), "not all identical"


TESTS: dict[str, Callable] = {
    "within_factor": _within_factor, "within": _within, "between": _between, "above": _above,
    "below": _below, "equals": _equals, "is_true": _is_true, "is_false": _is_false,
    "same_order": _same_order, "trend": _trend, "distinct": _distinct,
}


def judge(criterion: Mapping, values: Mapping) -> tuple[str, object, str]:
    """(HOLDS/FAILS/UNDECIDED, our statistic, the criterion in words) for one criterion."""
    if "all" in criterion:
        parts = [judge(part, values) for part in criterion["all"]]
        states = [p[0] for p in parts]
        state = FAILS if FAILS in states else UNDECIDED if UNDECIDED in states else HOLDS
        return state, [p[1] for p in parts], " and ".join(p[2] for p in parts)
    test = criterion.get("test")
    if test not in TESTS:
        raise CriterionError(f"unknown test {test!r}; allowed: {', '.join(TESTS)}")
    if "ours" not in criterion:
        raise CriterionError(f"{test} needs `ours`, the key of our statistic in the figure's values")
    ours = lookup(values, criterion["ours"])
    try:
        state, words = TESTS[test](criterion, ours, values)
    except KeyError as err:
        raise CriterionError(f"{test} needs {err.args[0]!r}") from None
    return state, ours, f"{criterion['ours']} {words}"


def keys_read(criterion: Mapping) -> list[str]:
    """Every dotted key of the values that a criterion reads (ours, p, interval, intervals)."""
    if "all" in criterion:
        return [key for part in criterion["all"] for key in keys_read(part)]
    return [criterion[k] for k in ("ours", "p", "interval", "intervals") if k in criterion]
