"""The shared argument checks: what passes, what fails, and that the message names the parameter."""
from __future__ import annotations

import numpy as np
import pytest

from intellimetry.checks import check_choice, check_float, check_int


def test_check_int_accepts_numpy_ints_and_returns_plain_ints():
    assert check_int("n", np.int64(3), 1) == 3 and type(check_int("n", np.int64(3), 1)) is int
    assert check_int("n", 5, 1, 5) == 5


@pytest.mark.parametrize("value", [0, 6, True, 2.0, "3", None])
def test_check_int_refuses_with_the_name_and_range(value):
    with pytest.raises(ValueError, match=r"n must be an integer >= 1 and <= 5, got"):
        check_int("n", value, 1, 5)


def test_check_float_bounds_open_and_closed():
    assert check_float("p", 1, 0, 1) == 1.0
    assert check_float("p", 0.5, 0, 1, low_open=True, high_open=True) == 0.5
    with pytest.raises(ValueError, match=r"p must be a finite number in \(0, 1\], got 0"):
        check_float("p", 0, 0, 1, low_open=True)
    with pytest.raises(ValueError, match=r"level must be a finite number in \(0, 1\), got 1"):
        check_float("level", 1, 0, 1, low_open=True, high_open=True)
    for bad in (float("nan"), float("inf"), True, "0.5"):
        with pytest.raises(ValueError, match="finite number"):
            check_float("x", bad)
    with pytest.raises(ValueError, match="x must be a finite number > 1"):
        check_float("x", 1, low=1, low_open=True)


def test_check_choice_lists_the_allowed_values():
    assert check_choice("kernel", "numba", ("numba", "numpy")) == "numba"
    with pytest.raises(ValueError, match="unknown kernel 'cuda'; allowed: numba, numpy"):
        check_choice("kernel", "cuda", ("numba", "numpy"))
