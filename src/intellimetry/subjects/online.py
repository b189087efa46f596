"""The subjects as online predictors of 10-bit inputs, for AGITB's model protocol (`model(x) -> int`,
`model == other`, `model.copy()`, `state_key()`, `feed_many(xs)`; see intellimetry.agitb.protocol).

A network reads an input's ten bits and predicts the next input's bits with ten sigmoid outputs
(kernels.SIGMOID), learning from every input. Every subject's prediction is masked by the current
input (AGITB's refractory constraint: the next input shares no bit with this one), the same prior
AGITB's own online candidate has. The baselines: `lookup` remembers what followed each pair of
inputs (else each input, else predicts nothing), `constant` always predicts one input, `random`
predicts a pseudo-random input drawn from its seed and everything it has read. AGITB has its own
learning budget (SimulatedInfinity), so a subject's training budget plays no part here.

`online_factory(spec)` returns the no-argument factory AGITB calls for a fresh model. A fresh model
is always the same model: its weights come from the spec's seed alone.
"""
from __future__ import annotations

import hashlib
from functools import partial

import numpy as np

from intellimetry.subjects import kernels
from intellimetry.subjects.learners import FAMILIES, KINDS, Network, Spec

BITS = 10
ALL_ONES = 2 ** BITS - 1
BIT_TABLE = ((np.arange(ALL_ONES + 1)[:, None] >> np.arange(BITS)) & 1).astype(float)


def feed_one_by_one(model, inputs: np.ndarray) -> int:
    """`feed_many` of a model without a compiled loop: each input in turn, the last prediction."""
    prediction = 0
    for x in inputs.tolist():
        prediction = model(x)
    return prediction


class NetworkModel:
    """A network of the spec's family and capacity, online on bits."""

    def __init__(self, spec: Spec):
        rng = np.random.default_rng([spec.seed, 1, KINDS.index(spec.kind), spec.capacity])
        self.net = Network(spec.kind, spec.capacity, BIT_TABLE, BIT_TABLE, kernels.SIGMOID, rng)

    def __call__(self, x: int) -> int:
        return self.net.step(x) & ~int(x) & ALL_ONES

    def feed_many(self, inputs: np.ndarray) -> int:
        return self.net.feed(inputs) & ~int(inputs[-1]) & ALL_ONES

    def copy(self) -> "NetworkModel":
        clone = object.__new__(NetworkModel)
        clone.net = self.net.copy()
        return clone

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NetworkModel) and self.net.same(other.net)

    __hash__ = None

    def state_key(self) -> int:
        return self.net.key()


class LookupModel:
    """What followed each pair of inputs, else each single input (the latest seen), else nothing."""

    def __init__(self):
        self.after_pair: dict = {}
        self.after_one: dict = {}
        self.last = (-1, -1)

    def __call__(self, x: int) -> int:
        x = int(x)
        a, b = self.last
        if b >= 0:
            self.after_one[b] = x
            if a >= 0:
                self.after_pair[(a, b)] = x
        self.last = (b, x)
        guess = self.after_pair.get(self.last, self.after_one.get(x, 0))
        return guess & ~x & ALL_ONES

    def feed_many(self, inputs: np.ndarray) -> int:
        return feed_one_by_one(self, inputs)

    def copy(self) -> "LookupModel":
        clone = LookupModel()
        clone.after_pair, clone.after_one, clone.last = dict(self.after_pair), dict(self.after_one), self.last
        return clone

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, LookupModel) and self.last == other.last
                and self.after_one == other.after_one and self.after_pair == other.after_pair)

    __hash__ = None

    def state_key(self) -> tuple:
        return self.last, frozenset(self.after_one.items()), frozenset(self.after_pair.items())


class ConstantModel:
    """Predicts the same input whatever it reads (masked by the current input, like every subject)."""

    def __init__(self, seed: int):
        self.guess = int(np.random.default_rng([seed, 2]).integers(0, ALL_ONES + 1))
        self.clock = 0

    def __call__(self, x: int) -> int:
        self.clock += 1
        return self.guess & ~int(x) & ALL_ONES

    def feed_many(self, inputs: np.ndarray) -> int:
        self.clock += len(inputs)
        return self.guess & ~int(inputs[-1]) & ALL_ONES

    def copy(self) -> "ConstantModel":
        clone = object.__new__(ConstantModel)
        clone.guess, clone.clock = self.guess, self.clock
        return clone

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConstantModel) and (self.guess, self.clock) == (other.guess, other.clock)

    __hash__ = None

    def state_key(self) -> tuple:
        return self.guess, self.clock


class RandomModel:
    """A pseudo-random input from a running hash of its seed and every input read: deterministic, as
    AGITB requires of any model, and unrelated to what comes next."""

    def __init__(self, seed: int):
        self.digest = hashlib.sha256(f"random subject {seed}".encode()).digest()

    def __call__(self, x: int) -> int:
        self.digest = hashlib.sha256(self.digest + int(x).to_bytes(2, "little")).digest()
        return int.from_bytes(self.digest[:2], "little") & ~int(x) & ALL_ONES

    def feed_many(self, inputs: np.ndarray) -> int:
        return feed_one_by_one(self, inputs)

    def copy(self) -> "RandomModel":
        clone = object.__new__(RandomModel)
        clone.digest = self.digest
        return clone

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RandomModel) and self.digest == other.digest

    __hash__ = None

    def state_key(self) -> bytes:
        return self.digest


def _fresh(spec: Spec):
    if spec.kind in FAMILIES:
        return NetworkModel(spec)
    if spec.kind == "lookup":
        return LookupModel()
    return ConstantModel(spec.seed) if spec.kind == "constant" else RandomModel(spec.seed)


def online_factory(spec: Spec):
    """AGITB's factory for `spec`: a no-argument callable returning a fresh model (picklable)."""
    return partial(_fresh, spec)
