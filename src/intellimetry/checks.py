"""Argument checks shared by the library's entry points: one wording for every error.

Each returns the checked value (converted to a plain Python type) or raises a ValueError that names
the parameter, the value given and what is allowed. The figure registry validates YAML parameters
itself (pipeline/registry.py); these guard the library's functions.
"""
from __future__ import annotations

import math
from collections.abc import Collection

import numpy as np


def check_int(name: str, value, minimum: int, maximum: int | None = None) -> int:
    """`value` as an int in [minimum, maximum] (bools are not integers here)."""
    allowed = f">= {minimum}" + (f" and <= {maximum}" if maximum is not None else "")
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum \
            or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be an integer {allowed}, got {value!r}")
    return int(value)


def check_float(name: str, value, low: float | None = None, high: float | None = None,
                low_open: bool = False, high_open: bool = False) -> float:
    """`value` as a finite float within the given bounds ('(' / ')' where a bound is open)."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool) \
        and math.isfinite(value)
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value < high if high_open else value <= high
    if not ok:
        raise ValueError(f"{name} must be a finite number{_interval(low, high, low_open, high_open)}, "
                         f"got {value!r}")
    return float(value)


def check_choice(name: str, value, allowed: Collection):
    """`value` if it is one of `allowed`."""
    if value not in allowed:
        raise ValueError(f"unknown {name} {value!r}; allowed: {', '.join(map(str, allowed))}")
    return value


def _interval(low, high, low_open, high_open) -> str:
    if low is None and high is None:
        return ""
    if high is None:
        return f" {'>' if low_open else '>='} {low}"
    if low is None:
        return f" {'<' if high_open else '<='} {high}"
    return f" in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
