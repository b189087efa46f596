"""Compiled (numba) inner loops of AGITB: the refractory masking of random sequences, and the
steps of the compiled candidate models.

The testbed feeds models hundreds of millions of inputs at SimulatedInfinity = 5000, almost all
of them in warm-ups ("a model fed a random sequence of length w"). A Python call per input costs
about half a microsecond; these loops cost a few nanoseconds per input. Each compiled model runs
its single steps and its batches through the same kernel, so the two cannot disagree.
"""
from __future__ import annotations

import numba
import numpy as np

ALL_ONES = 1023  # == inputs.ALL_ONES (kept here so the kernels import nothing from Python modules)


@numba.njit(cache=True)
def mask_chain(raw, start):  # pragma: no cover - compiled
    """In place: raw[0] = start (if start >= 0), then raw[i] = raw[i] & ~raw[i-1] within 10 bits."""
    if raw.size == 0:
        return raw
    if start >= 0:
        raw[0] = start
    for i in range(1, raw.size):
        raw[i] = raw[i] & ~raw[i - 1] & ALL_ONES
    return raw


@numba.njit(cache=True, inline="always")
def mix64(z):  # pragma: no cover - compiled
    """The splitmix64 finaliser on uint64: a bijection that scatters every input bit."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


# Each model has a step (one input, callable from Python) and a feed (a batch) that loops over the
# same step, so that single steps and batches cannot disagree.

# --- history-seeded pseudo-random predictor --------------------------------------------------------

@numba.njit(cache=True, inline="always")
def history_step(state, x):  # pragma: no cover - compiled
    """state = [hash, clock] (uint64); returns the hash's top ten bits."""
    h = mix64(state[0] * np.uint64(0x100000001B3) + np.uint64(x) + np.uint64(1))
    state[0] = h
    state[1] += np.uint64(1)
    return int(h >> np.uint64(54))


@numba.njit(cache=True)
def history_feed(state, inputs):  # pragma: no cover - compiled
    prediction = 0
    for x in inputs:
        prediction = history_step(state, x)
    return prediction


# --- order-1 lookup ------------------------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def _entry_hash(context, successor):  # pragma: no cover - compiled
    # successor is -1 for "absent"; +1 keeps it non-negative
    return mix64((np.uint64(context) << np.uint64(11)) | np.uint64(successor + 1))


@numba.njit(cache=True, inline="always")
def order1_step(table, state, x):  # pragma: no cover - compiled
    """table[c] = the latest successor of input c (-1: none yet); state = [context, clock, table
    hash] (uint64), the hash being the XOR over entries of h(c, s) ^ h(c, -1), kept up to date on
    every write in O(1). Returns the stored successor of x (0 if none)."""
    context = np.int64(state[0])
    old = table[context]
    if old != x:
        state[2] ^= _entry_hash(context, old) ^ _entry_hash(context, x)
        table[context] = x
    state[0] = np.uint64(x)
    state[1] += np.uint64(1)
    successor = table[x]
    return int(successor) if successor >= 0 else 0


@numba.njit(cache=True)
def order1_feed(table, state, inputs):  # pragma: no cover - compiled
    prediction = 0
    for x in inputs:
        prediction = order1_step(table, state, x)
    return prediction


# --- online logistic bit predictor -----------------------------------------------------------------

@numba.njit(cache=True, inline="always")
def online_bits_step(weights, features, probabilities, x, learning_rate):  # pragma: no cover - compiled
    """One delta-rule step of ten logistic units (see models.OnlineBitPredictor), in place.

    features: [bits of the latest input, ..., bits of the input lags-1 steps back, 1 (bias)].
    Dense loops on purpose: the cost of a step does not depend on how many bits are set.
    Returns the prediction masked by x.
    """
    n_features, n_bits = weights.shape
    for i in range(n_bits):  # no scratch arrays: an allocation per step would cost more than the maths
        error = learning_rate * (((x >> i) & 1) - probabilities[i])
        for f in range(n_features):
            weights[f, i] += features[f] * error
    for f in range(n_features - 2, n_bits - 1, -1):  # shift the older inputs back by one lag
        features[f] = features[f - n_bits]
    for i in range(n_bits):
        features[i] = (x >> i) & 1
    prediction = 0
    for i in range(n_bits):
        z = 0.0
        for f in range(n_features):
            z += features[f] * weights[f, i]
        probabilities[i] = 1.0 / (1.0 + np.exp(-z))  # the logistic function (exp overflows to inf: p = 0)
        if z > 0.0:
            prediction |= 1 << i
    return prediction & ~x & ALL_ONES


@numba.njit(cache=True)
def online_bits_feed(weights, features, probabilities, inputs, learning_rate):  # pragma: no cover - compiled
    prediction = 0
    for x in inputs:
        prediction = online_bits_step(weights, features, probabilities, x, learning_rate)
    return prediction
