"""Cron schedules: random five-field cron expressions and the English descriptions the specifications use."""
from __future__ import annotations

import random

from intellimetry.gindex.domains.vocabulary import _DAYS, _MONTHS, _listing


def _cron_field(rng: random.Random, form: str, lo: int, hi: int, steps) -> str:
    """One cron field of the given form ('any', 'one', 'list', 'range', 'step') over lo..hi."""
    if form == "any":
        return "*"
    if form == "one":
        return str(rng.randint(lo, hi))
    if form == "list":
        return ",".join(map(str, sorted(rng.sample(range(lo, hi + 1), rng.randint(2, 4)))))
    if form == "range":
        first, last = sorted(rng.sample(range(lo, hi + 1), 2))
        return f"{first}-{last}"
    step = rng.choice(steps)
    return f"{'*' if rng.random() < 0.5 else rng.randint(lo, min(hi, lo + 2 * step))}/{step}"


def _pick(rng: random.Random, weights: dict) -> str:
    """A key of weights, drawn with those weights."""
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def random_cron(rng: random.Random) -> str:
    """A five-field cron expression (minute hour day-of-month month day-of-week); at most one day field set."""
    minute = _pick(rng, {"one": 5, "any": 1, "step": 2, "range": 2, "list": 2})
    if minute == "one":
        hour = _pick(rng, {"one": 5, "any": 1, "range": 2, "step": 1})
    else:
        hour = _pick(rng, {"any": 3, "one": 1, "range": 3})
    day = _pick(rng, {"none": 3, "dom": 3, "dow": 4})  # cron ORs the two day fields, so set only one
    dom = _pick(rng, {"one": 2, "list": 2, "range": 2, "step": 1}) if day == "dom" else "any"
    dow = _pick(rng, {"one": 3, "list": 2, "range": 2}) if day == "dow" else "any"
    month = _pick(rng, {"any": 5, "one": 2, "list": 1, "range": 2, "step": 1})
    return " ".join([
        _cron_field(rng, minute, 0, 59, (5, 10, 15, 20, 30)), _cron_field(rng, hour, 0, 23, (2, 3, 4, 6, 8)),
        _cron_field(rng, dom, 1, 31, (2, 3, 5, 7, 10)), _cron_field(rng, month, 1, 12, (2, 3, 4, 6)),
        _cron_field(rng, dow, 0, 6, (2, 3)),
    ])


def _parse_field(text: str, lo: int, hi: int) -> tuple:
    """A cron field as (form, values): any (), one (v,), list (v, ...), range (a, b), step (a or None, s)."""
    try:
        if text == "*":
            return "any", ()
        if "/" in text:
            start, step = text.split("/")
            form, values = "step", (None if start == "*" else int(start), int(step))
            checked = [] if start == "*" else [values[0]]
            if values[1] < 1:
                raise ValueError
        elif "-" in text:
            form, values = "range", tuple(int(v) for v in text.split("-"))
            checked = values
            if len(values) != 2 or values[0] > values[1]:
                raise ValueError
        else:
            values = tuple(int(v) for v in text.split(","))
            form, checked = ("list" if len(values) > 1 else "one"), values
    except ValueError:
        raise ValueError(f"unsupported cron field {text!r}") from None
    if any(not lo <= v <= hi for v in checked):
        raise ValueError(f"cron field {text!r} is outside {lo}-{hi}")
    return form, values


def _clock(hour: int, minute: int) -> str:
    """12-hour clock time: (8, 30) -> '08:30 AM', (0, 5) -> '12:05 AM', (17, 0) -> '05:00 PM'."""
    return f"{(hour % 12) or 12:02d}:{minute:02d} {'AM' if hour < 12 else 'PM'}"


def _describe_minute(form: str, values: tuple) -> str:
    """English for the minute field."""
    if form == "any":
        return "every minute"
    if form in ("one", "list"):
        return "at the top of the hour" if values == (0,) else f"at {_listing(values)} minutes past the hour"
    if form == "range":
        return f"minutes {values[0]} through {values[1]} past the hour"
    start, step = values
    return f"every {step} minutes" + ("" if start is None else f", starting at {start} minutes past the hour")


def _describe_hour(form: str, values: tuple) -> str:
    """English for the hour field (when it is not folded into a clock time)."""
    if form == "one":
        return f"between {_clock(values[0], 0)} and {_clock(values[0], 59)}"
    if form == "range":
        return f"between {_clock(values[0], 0)} and {_clock(values[1], 59)}"
    if form == "list":
        return "during the hours starting at " + _listing(_clock(h, 0) for h in values)
    start, step = values
    return f"every {step} hours" + ("" if start is None else f", starting at {_clock(start, 0)}")


def _describe_day(form: str, values: tuple) -> str:
    """English for the day-of-month field."""
    if form in ("one", "list"):
        return f"on day {_listing(values)} of the month"
    if form == "range":
        return f"between day {values[0]} and {values[1]} of the month"
    start, step = values
    return f"every {step} days" + ("" if start is None else f", starting on day {start} of the month")


def _describe_named(form: str, values: tuple, names: tuple, unit: str, single: str) -> str:
    """English for the month or day-of-week field (values are indices into names)."""
    if form in ("one", "list"):
        return f"{single} {_listing(names[v] for v in values)}"
    if form == "range":
        return f"{names[values[0]]} through {names[values[1]]}"
    start, step = values
    return f"every {step} {unit}" + ("" if start is None else f", starting {single.split()[-1]} {names[start]}")


def describe_cron(expression: str) -> str:
    """The English description of a five-field cron expression that the specifications use."""
    fields = expression.split()
    if len(fields) != 5:
        raise ValueError(f"need a five-field cron expression, got {expression!r}")
    bounds = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 6))
    minute, hour, dom, month, dow = (_parse_field(f, lo, hi) for f, (lo, hi) in zip(fields, bounds))
    if minute[0] == "one" and hour[0] == "one":
        parts = [f"at {_clock(hour[1][0], minute[1][0])}"]
    else:
        parts = [_describe_minute(*minute)] + ([] if hour[0] == "any" else [_describe_hour(*hour)])
    if dom[0] != "any":
        parts.append(_describe_day(*dom))
    if dow[0] != "any":
        parts.append(_describe_named(*dow, _DAYS, "days of the week", "only on"))
    if month[0] != "any":
        parts.append(_describe_named(*month, _MONTHS, "months", "only in"))
    return ", ".join(parts)
