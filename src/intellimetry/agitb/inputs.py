"""AGITB inputs: 10-bit integers, refractory-constrained sequences, match scores and structured patterns."""
from __future__ import annotations

import functools

import numpy as np

from intellimetry.agitb.kernels import mask_chain
from intellimetry.checks import check_int

BITS = 10
ALL_ONES = (1 << BITS) - 1  # 1023
SEQUENCE_LENGTH = 7


def random_input(rng: np.random.Generator, *masks: int) -> int:
    """A random input with every bit set in any of `masks` forced to 0."""
    blocked = 0
    for mask in masks:
        blocked |= mask
    # A uniform draw over 0..1023 is the same as ten independent fair bits.
    return int(rng.integers(0, ALL_ONES + 1)) & ~blocked & ALL_ONES


def random_sequence(rng: np.random.Generator, length: int, start: int | None = None) -> list[int]:
    """[start, r1, r2, ...], each element masked by its predecessor (admissible, not cyclic)."""
    return admissible_array(rng, length, start).tolist()


def admissible_array(rng: np.random.Generator, length: int, start: int | None = None) -> np.ndarray:
    """`random_sequence` as an int64 array, for feeding a model in one batch."""
    check_int("length", length, 1)
    if start is not None:
        check_int("start", start, 0, ALL_ONES)
    # one vectorised draw, then the sequential masking compiled: the warm-ups of the heavier
    # tests draw hundreds of millions of inputs
    return mask_chain(rng.integers(0, ALL_ONES + 1, size=length), -1 if start is None else start)


def circular_random(rng: np.random.Generator, length: int) -> list[int]:
    """A random admissible sequence whose last element is also masked by the first."""
    check_int("length of a circular sequence", length, 2)
    sequence = random_sequence(rng, length - 1)
    sequence.append(random_input(rng, sequence[-1], sequence[0]))
    return sequence


def trivial(length: int) -> list[int]:
    """length - 1 zero inputs, then one all-ones input."""
    check_int("length", length, 1)
    return [0] * (length - 1) + [ALL_ONES]


def invert(x: int) -> int:
    """The bitwise complement within 10 bits."""
    return ~x & ALL_ONES


def match(a: int, b: int) -> int:
    """Number of equal bits of two inputs (0..10)."""
    return BITS - ((a ^ b) & ALL_ONES).bit_count()


def match_sequences(a: list[int], b: list[int]) -> int:
    """Sum of position-wise match scores of two equally long sequences."""
    if len(a) != len(b):
        raise ValueError(f"sequences differ in length: {len(a)} vs {len(b)}")
    return sum(match(x, y) for x, y in zip(a, b))


def is_admissible(sequence: list[int]) -> bool:
    """True when consecutive elements share no set bit."""
    return all(x & y == 0 for x, y in zip(sequence, sequence[1:]))


def is_cyclic_admissible(sequence: list[int]) -> bool:
    """Admissible and the last element shares no set bit with the first."""
    # For [x] the wrap-around pair is (x, x), so only x == 0 qualifies.
    return is_admissible(sequence) and (not sequence or sequence[-1] & sequence[0] == 0)


def all_admissible_pairs() -> np.ndarray:
    """Every ordered pair (x1, x2) with x1 & x2 == 0, shape (3**10, 2), sorted by x1 then x2."""
    values = np.arange(ALL_ONES + 1)
    first, second = np.nonzero((values[:, None] & values[None, :]) == 0)
    return np.column_stack([first, second])


def _rotate_left(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Rotate 10-bit values left by k positions."""
    k = k % BITS
    return ((x << k) | (x >> (BITS - k))) & ALL_ONES


@functools.lru_cache(maxsize=64)
def _pattern(pattern: int, length: int) -> np.ndarray:
    i = np.arange(length)
    step = i // 2  # how many times the even-position value has appeared before
    even = i % 2 == 0
    if pattern == 7:
        return np.where(even, 0b0000011111, 0b1111100000).astype(np.int64)
    value = {
        0: np.zeros(length, dtype=np.int64),
        1: np.full(length, ALL_ONES),
        2: np.ones(length, dtype=np.int64),
        3: np.full(length, 2),
        4: _rotate_left(np.ones(length, dtype=np.int64), step),
        5: _rotate_left(np.full(length, 0b11), step),
        6: np.full(length, 0b0000011111),
    }[pattern]
    return np.where(even, value, 0).astype(np.int64)  # patterns 0..6 alternate their value with 0


def structured_pattern(pattern_id: int, length: int) -> np.ndarray:
    """The liveness test's structured batch number pattern_id (taken mod 8), `length` inputs long,
    as int64 (a copy of a cached array: the liveness test asks for the same few again and again)."""
    return _pattern(pattern_id % 8, length).copy()
