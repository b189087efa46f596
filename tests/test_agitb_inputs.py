"""AGITB inputs, search-space counts and the liveness test's Wilcoxon statistic."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from intellimetry.agitb.inputs import (
    ALL_ONES,
    BITS,
    SEQUENCE_LENGTH,
    all_admissible_pairs,
    circular_random,
    invert,
    is_admissible,
    is_cyclic_admissible,
    match,
    match_sequences,
    random_input,
    random_sequence,
    structured_pattern,
    trivial,
)
from intellimetry.agitb.search_space import (
    count_all,
    count_cyclic_refractory,
    count_refractory,
    enumerate_counts,
    fibonacci,
    lucas,
    search_space_table,
)
from intellimetry.agitb.wilcoxon import consistently_slower, signed_rank_z

seeds = st.integers(0, 2**32 - 1)
inputs = st.integers(0, ALL_ONES)


def pattern_list(pattern_id, length):
    return structured_pattern(pattern_id, length).tolist()


def test_constants():
    assert (BITS, ALL_ONES, SEQUENCE_LENGTH) == (10, 1023, 7)


@given(seed=seeds, length=st.integers(1, 50))
def test_random_sequence_is_admissible(seed, length):
    sequence = random_sequence(np.random.default_rng(seed), length)
    assert len(sequence) == length
    assert is_admissible(sequence)
    assert all(0 <= x <= ALL_ONES for x in sequence)


@given(seed=seeds, length=st.integers(1, 20), start=inputs)
def test_random_sequence_keeps_start(seed, length, start):
    sequence = random_sequence(np.random.default_rng(seed), length, start=start)
    assert sequence[0] == start and is_admissible(sequence)


@given(seed=seeds, length=st.integers(2, 50))
def test_circular_random_is_cyclic_admissible(seed, length):
    sequence = circular_random(np.random.default_rng(seed), length)
    assert len(sequence) == length
    assert is_cyclic_admissible(sequence)
    assert all(0 <= x <= ALL_ONES for x in sequence)


def test_circular_random_needs_two():
    with pytest.raises(ValueError):
        circular_random(np.random.default_rng(0), 1)


@given(seed=seeds, masks=st.lists(inputs, max_size=4))
def test_random_input_respects_masks(seed, masks):
    x = random_input(np.random.default_rng(seed), *masks)
    assert 0 <= x <= ALL_ONES
    for mask in masks:
        assert x & mask == 0


def test_random_input_bits_are_fair():
    rng = np.random.default_rng(1)
    draws = np.array([random_input(rng) for _ in range(4000)])
    shares = [np.mean((draws >> bit) & 1) for bit in range(BITS)]
    assert all(abs(share - 0.5) < 0.05 for share in shares)  # ~6 sigma
    assert all(random_input(rng, ALL_ONES) == 0 for _ in range(10))


def test_match():
    assert match(0, 0) == 10
    assert match(0, ALL_ONES) == 0
    assert match(0b101, 0b100) == 9
    assert match(ALL_ONES, ALL_ONES) == 10
    assert match_sequences([0, 1, ALL_ONES], [0, 0, 0]) == 10 + 9 + 0
    assert match_sequences([], []) == 0
    with pytest.raises(ValueError):
        match_sequences([0], [0, 0])


@given(a=inputs, b=inputs)
def test_match_is_symmetric_and_complements(a, b):
    assert match(a, b) == match(b, a)
    assert match(a, b) + match(a, invert(b)) == BITS


def test_trivial_and_invert():
    assert trivial(7) == [0, 0, 0, 0, 0, 0, 1023]
    assert trivial(1) == [1023]
    assert invert(0) == 1023 and invert(1023) == 0 and invert(0b1010101010) == 0b0101010101
    assert is_admissible([5, invert(5)]) and is_cyclic_admissible([5, invert(5)])


def test_admissibility_predicates():
    assert is_admissible([]) and is_admissible([7])
    assert is_admissible([1, 2, 1]) and not is_admissible([1, 3])
    assert is_cyclic_admissible([0]) and not is_cyclic_admissible([1])
    assert is_cyclic_admissible([1, 2]) and not is_cyclic_admissible([1, 2, 1])


def test_all_admissible_pairs():
    pairs = all_admissible_pairs()
    assert pairs.shape == (3**10, 2) == (59049, 2)
    assert np.all((pairs[:, 0] & pairs[:, 1]) == 0)
    assert pairs.min() >= 0 and pairs.max() <= ALL_ONES
    assert len(np.unique(pairs[:, 0] * 1024 + pairs[:, 1])) == 59049
    assert np.array_equal(pairs, all_admissible_pairs())  # deterministic order
    assert pairs[0].tolist() == [0, 0] and pairs[-1].tolist() == [1023, 0]


@pytest.mark.parametrize("length", [1, 2, 7, 8, 21, 100])
@pytest.mark.parametrize("pattern_id", range(16))
def test_structured_patterns_are_admissible(pattern_id, length):
    pattern = pattern_list(pattern_id, length)
    assert len(pattern) == length
    assert is_admissible(pattern)
    assert all(0 <= x <= ALL_ONES for x in pattern)
    assert pattern == pattern_list(pattern_id % 8, length)


def test_structured_patterns_values():
    assert pattern_list(0, 4) == [0, 0, 0, 0]
    assert pattern_list(1, 4) == [1023, 0, 1023, 0]
    assert pattern_list(2, 4) == [1, 0, 1, 0]
    assert pattern_list(3, 4) == [2, 0, 2, 0]
    walking = pattern_list(4, 24)
    assert walking[1::2] == [0] * 12
    assert walking[0::2] == [1 << (k % 10) for k in range(12)]
    pairs = pattern_list(5, 24)
    assert pairs[1::2] == [0] * 12
    assert pairs[0::2][:3] == [0b11, 0b110, 0b1100]
    assert pairs[0::2][9] == 0b1000000001  # wraps within 10 bits
    assert pairs[0::2][10] == 0b11
    assert pattern_list(6, 4) == [0b0000011111, 0, 0b0000011111, 0]
    assert pattern_list(7, 4) == [0b0000011111, 0b1111100000] * 2


def test_fibonacci_and_lucas():
    assert [fibonacci(n) for n in range(10)] == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]
    assert [lucas(n) for n in range(8)] == [2, 1, 3, 4, 7, 11, 18, 29]


@pytest.mark.parametrize("bits", [1, 2, 3])
@pytest.mark.parametrize("n_steps", [1, 2, 3, 4, 5])
def test_search_space_formulas_match_enumeration(n_steps, bits):
    counts = enumerate_counts(n_steps, bits)
    assert counts["all"] == count_all(n_steps, bits)
    assert counts["refractory"] == count_refractory(n_steps, bits)
    assert counts["cyclic_refractory"] == count_cyclic_refractory(n_steps, bits)


def test_enumeration_refuses_large_cases():
    with pytest.raises(ValueError):
        enumerate_counts(7, 3)


def test_search_space_table():
    table = search_space_table()
    assert table["all"] == 2**70
    assert table["refractory"] == 34**10
    assert table["cyclic_refractory"] == 29**10
    assert table["log2_all"] == 70
    assert math.isclose(table["log2_refractory"], 10 * math.log2(34))  # ~50.9
    assert math.isclose(table["log2_cyclic_refractory"], 10 * math.log2(29))  # ~48.6
    assert round(table["log2_refractory"], 1) == 50.9 and round(table["log2_cyclic_refractory"], 1) == 48.6


def _scipy_z(first, second) -> float:
    """scipy's one-sided, continuity-corrected normal-approximation z."""
    result = scipy.stats.wilcoxon(first, second, alternative="greater", correction=True,
                                  method="approx", zero_method="wilcox")
    if hasattr(result, "zstatistic"):
        return float(result.zstatistic)
    return float(scipy.stats.norm.isf(result.pvalue))


@pytest.mark.parametrize("seed", range(30))
def test_signed_rank_z_agrees_with_scipy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 120))
    # Small integers make ties and zero differences common; a shift varies the sign balance.
    second = rng.integers(0, 6, n).astype(float)
    first = second + rng.integers(-3, 4, n) + rng.integers(0, 2) * (rng.random(n) < 0.3)
    if np.all(first == second):
        first[0] += 1
    z, pairs = signed_rank_z(first, second)
    assert pairs == np.count_nonzero(first != second)
    assert math.isclose(z, _scipy_z(first, second), rel_tol=1e-9, abs_tol=1e-9)


def test_signed_rank_z_hand_cases():
    # d = 1, 2, 3, 4: ranks 1..4 all positive, W+ = 10, mean 5, var 7.5.
    z, n = signed_rank_z([1, 2, 3, 4], [0, 0, 0, 0])
    assert n == 4 and math.isclose(z, (10 - 5 - 0.5) / math.sqrt(7.5))
    # d = 1, -1, 2, 0: zero dropped, |d| ranks 1.5, 1.5, 3, W+ = 4.5, var 3.5 - (2^3 - 2)/48.
    z, n = signed_rank_z([1, 0, 2, 5], [0, 1, 0, 5])
    assert n == 3 and math.isclose(z, (4.5 - 3 - 0.5) / math.sqrt(3.5 - 6 / 48))
    assert signed_rank_z([1, 2], [1, 2]) == (0.0, 0)
    with pytest.raises(ValueError):
        signed_rank_z([1, 2], [1])


def test_consistently_slower():
    blank = np.ones(100)
    assert consistently_slower(blank + 0.5, blank)["slower"]
    assert not consistently_slower(blank, blank + 0.5)["slower"]
    assert consistently_slower(blank, blank) == {"z": 0.0, "pairs": 0, "slower": False}
    # 19 all-positive pairs give z ~ 3.8 but too few pairs to declare "slower".
    few = np.r_[np.full(19, 2.0), np.ones(81)]
    result = consistently_slower(few, blank)
    assert result["pairs"] == 19 and result["z"] > 3.09 and not result["slower"]
    rng = np.random.default_rng(3)
    noise = rng.normal(1.0, 0.1, 100)
    assert not consistently_slower(noise, rng.permutation(noise))["slower"]


def test_repeated_false_alarm():
    from intellimetry.agitb.wilcoxon import repeated_false_alarm
    assert repeated_false_alarm(3.090, 0) == 0.0
    single = repeated_false_alarm(3.090, 1)
    assert single == pytest.approx(scipy.stats.norm.sf(3.090))
    assert repeated_false_alarm(3.090, 5000) == pytest.approx(1 - (1 - single) ** 5000)
    assert repeated_false_alarm(3.090, 5000) > 0.99
    with pytest.raises(ValueError):
        repeated_false_alarm(3.090, -1)
