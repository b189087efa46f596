"""Argument checks shared by the library's entry points: one wording for every error."""
from __future__ import annotations

import numpy as np


def check_int(name: str, value, minimum: int) -> int:
    """`value` as an int, or a ValueError naming the parameter (bools are not integers here)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)
