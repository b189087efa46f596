"""AGITB inputs: 10-bit integers, refractory-constrained sequences, match scores and structured patterns."""
from __future__ import annotations

import numpy as np

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
    if length < 1:
        raise ValueError(f"length must be at least 1, got {length}")
    # one vectorised draw, then the (sequential) masking in plain ints: about 15 times faster
    # than a generator call per element, which dominated the warm-ups of the heavier tests
    raw = rng.integers(0, ALL_ONES + 1, size=length).tolist()
    previous = raw[0] if start is None else start
    sequence = [previous]
    for value in raw[1:]:
        previous = value & ~previous & ALL_ONES
        sequence.append(previous)
    return sequence


def circular_random(rng: np.random.Generator, length: int) -> list[int]:
    """A random admissible sequence whose last element is also masked by the first."""
    if length < 2:
        raise ValueError(f"a circular sequence needs length >= 2, got {length}")
    sequence = random_sequence(rng, length - 1)
    sequence.append(random_input(rng, sequence[-1], sequence[0]))
    return sequence


def trivial(length: int) -> list[int]:
    """length - 1 zero inputs, then one all-ones input."""
    if length < 1:
        raise ValueError(f"length must be at least 1, got {length}")
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


def _rotate_left(x: int, k: int) -> int:
    """Rotate a 10-bit value left by k positions."""
    k %= BITS
    return ((x << k) | (x >> (BITS - k))) & ALL_ONES


def _pattern_value(pattern: int, i: int) -> int:
    """Element i of structured pattern `pattern` (0..7)."""
    step = i // 2  # how many times the even-position value has appeared before
    even = i % 2 == 0
    if pattern == 0:
        return 0
    if pattern == 7:
        return 0b0000011111 if even else 0b1111100000
    if not even:
        return 0  # patterns 1..6 alternate their value with 0
    return {
        1: ALL_ONES,
        2: 1,
        3: 2,
        4: _rotate_left(1, step),
        5: _rotate_left(0b11, step),
        6: 0b0000011111,
    }[pattern]


def structured_pattern(pattern_id: int, length: int) -> list[int]:
    """The liveness test's structured batch number pattern_id (taken mod 8), `length` inputs long."""
    pattern = pattern_id % 8
    return [_pattern_value(pattern, i) for i in range(length)]
