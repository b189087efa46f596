"""The model protocol of AGITB and the testbed's wrapper around a model.

A model under test is a plain Python class; a fresh model is `ModelClass()`. It needs:

    model(x) -> int        feed one 10-bit input x (0..1023), update the model, return its
                           prediction of the next input (0..1023)
    model == other         the model's author decides what "same configuration" means
    model.copy()           a deep, independent copy (cheap: the tests copy models constantly)

and, optionally:

    model.state_key()      a hashable value that is equal whenever two models are equal (and
                           should differ when they differ). The trace test (test 3) keeps every
                           state it has seen; with a key it checks membership in a set, without
                           one it keeps a copy of every state and compares the model with each
                           earlier copy. That is SimulatedInfinity² comparisons per repetition
                           over SimulatedInfinity repetitions, so test 3 grows roughly with SI³:
                           a pure-Python order-7 lookup without a key took 431 s on test 3 at
                           SI = 500 alone. Provide it for any run at the paper's SI = 5000.
    model.feed_many(xs)    feed a non-empty int64 array of inputs in order and return the last
                           prediction, leaving the model exactly as feeding them one at a time
                           would. The testbed's warm-ups feed hundreds of millions of inputs at
                           SimulatedInfinity = 5000; a compiled loop makes them cheap.

`protocol_problems` checks a model class against this on a few fresh instances before any test
(the command line refuses a model that fails it, instead of dying in the middle of the suite).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from intellimetry.agitb.inputs import ALL_ONES


@runtime_checkable
class Model(Protocol):
    def __call__(self, x: int) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def copy(self) -> "Model": ...


REQUIRED = "model(x) -> int in 0..1023, model == other, model.copy(); optional state_key(), feed_many(xs)"


def protocol_problems(factory: Callable[[], object]) -> list[str]:
    """What the class `factory` lacks of the model protocol, found on fresh instances (one fed a
    single input); an empty list when nothing is missing. It runs no test."""
    name = getattr(factory, "__name__", repr(factory))
    try:
        model, other = factory(), factory()
    except Exception as error:
        return [f"{name}() failed ({type(error).__name__}: {error}): a fresh model is {name}() with no arguments"]
    problems = []
    if not callable(model):
        problems.append("model(x) is missing: feeding an input and returning the next prediction needs __call__")
    if type(model).__eq__ is object.__eq__:
        problems.append("model == other is missing: without __eq__ two fresh models are never equal (test 1)")
    for method in ("copy", "state_key", "feed_many"):
        if hasattr(model, method) and not callable(getattr(model, method)):
            problems.append(f"{method} is not a method")
    if not hasattr(model, "copy"):
        problems.append("copy() is missing: the tests copy models constantly (tests 3, 4, 6 and 12 need it)")
    if problems:
        return problems
    return _probe(model, other)


def _probe(model, other) -> list[str]:
    """Call what the tests call, once each, and report what breaks or returns the wrong kind."""
    problems = []
    if hasattr(model, "state_key"):
        try:
            hash(model.state_key())
        except Exception as error:
            problems.append(f"state_key() must return a hashable value; it raised {type(error).__name__}: {error}")
    try:
        duplicate = model.copy()
        if duplicate is model or duplicate != model:
            problems.append("copy() must return a new model equal to the original")
    except Exception as error:
        problems.append(f"copy() raised {type(error).__name__}: {error}")
    try:
        prediction = other(1)
        if not (isinstance(prediction, (int, np.integer)) and 0 <= prediction <= ALL_ONES):
            problems.append(f"model(x) returned {prediction!r}; a prediction is an int in 0..{ALL_ONES}")
    except Exception as error:
        problems.append(f"model(x) raised {type(error).__name__}: {error}")
    return problems


class Subject:
    """A model with its cached current prediction (all zeros before the first input)."""

    __slots__ = ("model", "prediction")

    def __init__(self, model: Model, prediction: int = 0):
        self.model = model
        self.prediction = prediction

    @classmethod
    def fresh(cls, factory: Callable[[], Model]) -> "Subject":
        return cls(factory())

    def feed(self, x: int) -> int:
        prediction = int(self.model(x))
        if not 0 <= prediction <= ALL_ONES:
            raise ValueError(f"{type(self.model).__name__} predicted {prediction}; "
                             f"predictions must lie in 0..{ALL_ONES}")
        self.prediction = prediction
        return prediction

    def feed_all(self, inputs: Sequence[int] | np.ndarray) -> None:
        """Feed many inputs; only the last prediction is kept (and checked), so the loop is tight."""
        if len(inputs) == 0:
            return
        model = self.model
        feed_many = getattr(model, "feed_many", None)
        if feed_many is not None:
            prediction = int(feed_many(np.asarray(inputs, dtype=np.int64)))
        else:
            for x in inputs.tolist() if isinstance(inputs, np.ndarray) else inputs:
                prediction = model(x)
        self.prediction = prediction
        if not 0 <= prediction <= ALL_ONES:
            raise ValueError(f"{type(model).__name__} predicted {prediction}; predictions must lie in 0..{ALL_ONES}")

    def process(self, sequence: Sequence[int]) -> list[int]:
        """The prediction made before each element, feeding the elements in turn."""
        predictions = []
        for x in sequence:
            predictions.append(self.prediction)
            self.feed(x)
        return predictions

    def time_to_learn(self, sequence: Sequence[int], budget: int) -> int:
        """Time steps of repeated passes until one pass is predicted exactly; `budget` if never."""
        steps = 0
        target = list(sequence)
        while steps < budget:
            if self.process(target) == target:
                return steps
            steps += len(target)
        return budget

    def learns(self, sequence: Sequence[int], budget: int) -> bool:
        return self.time_to_learn(sequence, budget) < budget

    def generate(self, k: int) -> list[int]:
        """Run autoregressively: output the current prediction and feed it back, k times."""
        outputs = []
        for _ in range(k):
            outputs.append(self.prediction)
            self.feed(self.prediction)
        return outputs

    def copy(self) -> "Subject":
        return Subject(self.model.copy(), self.prediction)

    def key(self) -> Hashable | None:
        state_key = getattr(self.model, "state_key", None)
        return None if state_key is None else (state_key(), self.prediction)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Subject) and self.prediction == other.prediction and self.model == other.model

    __hash__ = None  # mutable
