"""Compiled (numba) steps of the learner families: one online step reads an input, first learns from
it (it is the target of the prediction made one step earlier) and then predicts the next input.

Three families share one kernel, told apart by `family`:

    MLP (0)   a window of the last WINDOW inputs' features -> tanh hidden layer -> output
    RNN (1)   an Elman network: hidden_t = tanh(W x_t + H hidden_{t-1} + b) -> output; the gradient
              is truncated to the current step (hidden_{t-1} is taken as given)
    ESN (2)   an echo-state network: the same recurrence with W and H fixed at random (H scaled to
              spectral radius 0.9), only the read-out learns (the delta rule)

The output is a softmax over symbols (`mode` 0: the next symbol of a world) or independent sigmoids
(`mode` 1: the next input's bits, AGITB). Both losses have the gradient p - y at the output, so one
backward pass serves both. Learning is plain stochastic gradient descent, one step per input.

A network is two flat float64 arrays (few arguments keep a compiled call from Python cheap: AGITB
calls a model once per input) and its sizes `dims` = (inputs, hidden, outputs):

    params  w_in (inputs x hidden), w_rec (hidden x hidden; unused by the MLP), b (hidden),
            w_out (hidden x outputs), c (outputs)
    state   feat (the MLP's window, or a recurrent net's current input), prev (the previous hidden
            state), hid, probs (the last prediction), and a last slot that is 1 while a prediction
            is pending
"""
from __future__ import annotations

import numba
import numpy as np

MLP, RNN, ESN = 0, 1, 2
SOFTMAX, SIGMOID = 0, 1
WINDOW = 3  # inputs an MLP sees at once


@numba.njit(cache=True)
def _learn(family, w_in, w_rec, b, w_out, c, feat, prev, hid, probs, target, lr):  # pragma: no cover
    n_hid, n_out = w_out.shape
    delta_hid = np.zeros(n_hid)
    for j in range(n_out):
        delta = probs[j] - target[j]
        c[j] -= lr * delta
        for i in range(n_hid):
            delta_hid[i] += w_out[i, j] * delta
            w_out[i, j] -= lr * hid[i] * delta
    if family == ESN:
        return
    for i in range(n_hid):
        delta_hid[i] *= 1.0 - hid[i] * hid[i]
        b[i] -= lr * delta_hid[i]
    for k in range(feat.size):
        if feat[k] != 0.0:
            for i in range(n_hid):
                w_in[k, i] -= lr * feat[k] * delta_hid[i]
    if family == RNN:
        for k in range(n_hid):
            for i in range(n_hid):
                w_rec[k, i] -= lr * prev[k] * delta_hid[i]


@numba.njit(cache=True)
def _predict(family, w_in, w_rec, b, w_out, c, feat, prev, hid, probs, mode):  # pragma: no cover
    n_hid, n_out = w_out.shape
    for i in range(n_hid):
        total = b[i]
        for k in range(feat.size):
            if feat[k] != 0.0:
                total += feat[k] * w_in[k, i]
        if family != MLP:
            for k in range(n_hid):
                total += prev[k] * w_rec[k, i]
        hid[i] = np.tanh(total)
    top = -1e300
    for j in range(n_out):
        total = c[j]
        for i in range(n_hid):
            total += hid[i] * w_out[i, j]
        probs[j] = total
        top = max(top, total)
    if mode == SOFTMAX:
        norm = 0.0
        for j in range(n_out):
            probs[j] = np.exp(probs[j] - top)
            norm += probs[j]
        for j in range(n_out):
            probs[j] /= norm
    else:
        for j in range(n_out):
            probs[j] = 1.0 / (1.0 + np.exp(-probs[j]))


@numba.njit(cache=True)
def views(params, state, dims):  # pragma: no cover - compiled
    """(w_in, w_rec, b, w_out, c, feat, prev, hid, probs, pending) as views of the flat arrays."""
    n_in, n_hid, n_out = dims[0], dims[1], dims[2]
    at = 0
    w_in = params[at:at + n_in * n_hid].reshape((n_in, n_hid))
    at += n_in * n_hid
    w_rec = params[at:at + n_hid * n_hid].reshape((n_hid, n_hid))
    at += n_hid * n_hid
    b = params[at:at + n_hid]
    at += n_hid
    w_out = params[at:at + n_hid * n_out].reshape((n_hid, n_out))
    at += n_hid * n_out
    c = params[at:at + n_out]
    feat = state[:n_in]
    prev = state[n_in:n_in + n_hid]
    hid = state[n_in + n_hid:n_in + 2 * n_hid]
    probs = state[n_in + 2 * n_hid:n_in + 2 * n_hid + n_out]
    pending = state[n_in + 2 * n_hid + n_out:]
    return w_in, w_rec, b, w_out, c, feat, prev, hid, probs, pending


def sizes(dims) -> tuple[int, int]:
    """Lengths of the flat params and state arrays for dims = (inputs, hidden, outputs)."""
    n_in, n_hid, n_out = (int(d) for d in dims)
    return n_in * n_hid + n_hid * n_hid + n_hid + n_hid * n_out + n_out, n_in + 2 * n_hid + n_out + 1


@numba.njit(cache=True)
def step(family, params, state, dims, x, enc_in, enc_out, mode, lr, learn):  # pragma: no cover
    """Read input `x`: learn from it if a prediction is pending and `learn`, then predict (probs).
    Returns the predicted bits as an int (sigmoid outputs above 0.5) in SIGMOID mode, else -1."""
    w_in, w_rec, b, w_out, c, feat, prev, hid, probs, pending = views(params, state, dims)
    if learn and pending[0] == 1.0:
        _learn(family, w_in, w_rec, b, w_out, c, feat, prev, hid, probs, enc_out[x], lr)
    width = enc_in.shape[1]
    if family == MLP:
        for k in range(feat.size - width):
            feat[k] = feat[k + width]
        for k in range(width):
            feat[feat.size - width + k] = enc_in[x, k]
    else:
        for i in range(hid.size):
            prev[i] = hid[i]
        for k in range(width):
            feat[k] = enc_in[x, k]
    _predict(family, w_in, w_rec, b, w_out, c, feat, prev, hid, probs, mode)
    pending[0] = 1.0
    if mode == SOFTMAX:
        return -1
    code = 0
    for j in range(probs.size):
        if probs[j] > 0.5:
            code |= 1 << j
    return code


@numba.njit(cache=True)
def run_episodes(family, params, state, dims, episodes, skip, enc_in, enc_out, mode, lr, learn,
                 scores):  # pragma: no cover - compiled
    """Feed each episode from a reset state (empty window, zero hidden state, nothing pending).
    `scores` (episodes, length - skip, outputs) receives the prediction of every symbol from
    position `skip` on (made after reading the one before it); pass a (0, 0, 0) array to keep none."""
    keep = scores.shape[0] > 0
    n_out = dims[2]
    for e in range(episodes.shape[0]):
        state[:] = 0.0
        for t in range(episodes.shape[1]):
            step(family, params, state, dims, episodes[e, t], enc_in, enc_out, mode, lr, learn)
            if keep and t + 1 >= skip and t + 1 < episodes.shape[1]:
                probs = views(params, state, dims)[8]
                for j in range(n_out):
                    scores[e, t + 1 - skip, j] = probs[j]


@numba.njit(cache=True)
def feed_sequence(family, params, state, dims, inputs, enc_in, enc_out, mode, lr):  # pragma: no cover
    """Feed `inputs` in order, learning, without a reset (AGITB's warm-ups); the last step's return."""
    code = -1
    for t in range(inputs.size):
        code = step(family, params, state, dims, inputs[t], enc_in, enc_out, mode, lr, True)
    return code
