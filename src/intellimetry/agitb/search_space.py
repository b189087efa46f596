"""Sizes of AGITB's sequence search spaces: closed forms (Fibonacci, Lucas) and brute-force counts."""
from __future__ import annotations

import math

import numpy as np

from intellimetry.checks import check_int

# Closed forms count each bit column separately: a sequence is refractory iff every
# one of its `bits` binary columns has no two adjacent 1s (cyclically, for the cyclic
# count), and the columns are independent, so the per-column count is raised to `bits`.
# Binary strings of length n with no adjacent 1s: F_{n+2}; cyclically (last and first
# adjacent): L_n, with L_1 = 1 because a length-1 sequence [x] wraps onto itself and
# is cyclic-admissible only for x == 0. Verified against enumerate_counts in the tests.

MAX_ENUMERATED = 2**20


def fibonacci(n: int) -> int:
    """F_n with F_0 = 0, F_1 = F_2 = 1."""
    return _additive_sequence(0, 1, n)


def lucas(n: int) -> int:
    """L_n with L_0 = 2, L_1 = 1, L_2 = 3."""
    return _additive_sequence(2, 1, n)


def _additive_sequence(first: int, second: int, n: int) -> int:
    """Term n of the sequence a_{i+2} = a_{i+1} + a_i starting from (first, second)."""
    check_int("n", n, 0)
    a, b = first, second
    for _ in range(n):
        a, b = b, a + b
    return a


def count_all(n_steps: int, bits: int) -> int:
    """Number of sequences of n_steps `bits`-bit inputs."""
    return 2 ** (n_steps * bits)


def count_refractory(n_steps: int, bits: int) -> int:
    """Number of admissible sequences (consecutive inputs share no bit): F_{n+2}^bits."""
    check_int("n_steps", n_steps, 1)
    return fibonacci(n_steps + 2) ** bits


def count_cyclic_refractory(n_steps: int, bits: int) -> int:
    """Number of cyclic-admissible sequences (also last & first == 0): L_n^bits, n >= 1."""
    check_int("n_steps", n_steps, 1)
    return lucas(n_steps) ** bits


def enumerate_counts(n_steps: int, bits: int) -> dict:
    """Brute-force counts of all, refractory and cyclic-refractory sequences (small cases only)."""
    check_int("n_steps", n_steps, 1)
    check_int("bits", bits, 1)
    total = count_all(n_steps, bits)
    if total > MAX_ENUMERATED:
        raise ValueError(f"2**{n_steps * bits} sequences is too many to enumerate (limit 2**20)")
    # Each code is one sequence; its base-2**bits digits are the inputs.
    codes = np.arange(total, dtype=np.int64)
    shifts = bits * np.arange(n_steps, dtype=np.int64)
    steps = (codes[:, None] >> shifts[None, :]) & (2**bits - 1)
    refractory = np.all((steps[:, :-1] & steps[:, 1:]) == 0, axis=1)
    cyclic = refractory & ((steps[:, -1] & steps[:, 0]) == 0)
    return {"all": total, "refractory": int(refractory.sum()), "cyclic_refractory": int(cyclic.sum())}


def search_space_table(n_steps: int = 7, bits: int = 10) -> dict:
    """The three closed-form counts and their log2 (2^70, 34^10 ~ 2^50.9, 29^10 ~ 2^48.6 by default)."""
    counts = {
        "all": count_all(n_steps, bits),
        "refractory": count_refractory(n_steps, bits),
        "cyclic_refractory": count_cyclic_refractory(n_steps, bits),
    }
    table = {"n_steps": n_steps, "bits": bits, **counts}
    table.update({f"log2_{name}": math.log2(count) for name, count in counts.items()})
    return table
