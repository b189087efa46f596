"""The worlds every subject is measured in: sequence-prediction tasks over a small alphabet whose
generating process is known exactly, so each has an oracle (the Bayes-optimal predictor) and a
ceiling accuracy.

A world is an order-k Markov source given by its transition table: row `context` (the last k
symbols read as a base-A number) holds the probabilities of the next symbol. Data come in episodes:
each starts from k uniformly random symbols (its context) and runs on from there, so deterministic
worlds are met from many starting points instead of one cycle. Every position after the first k
of an episode is a scored event (the subject predicts it from what came before).

The six worlds (`WORLD_NAMES`) differ in order, determinism and how much a table must hold:

    cycle      order 1, deterministic: a random cycle through all A symbols
    markov     order 1, two successors per symbol, 0.75 / 0.25
    pairs      order 2, one likely successor per pair (0.9), else uniform
    echo3      order 3, the symbol three steps back again (0.85), else uniform
    sum        order 2, deterministic: (a + b) mod A
    table3     order 3, deterministic: a random successor for every triple
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from intellimetry.checks import check_choice, check_float, check_int

WORLD_NAMES = ("cycle", "markov", "pairs", "echo3", "sum", "table3")
ALPHABET = 16  # symbols: wide enough for a decay of failure counts over 0 .. 15, small enough to tabulate


@dataclass(frozen=True)
class World:
    name: str
    order: int
    table: np.ndarray  # (alphabet ** order, alphabet) next-symbol probabilities

    @property
    def alphabet(self) -> int:
        return self.table.shape[1]

    def contexts(self, episodes: np.ndarray) -> np.ndarray:
        """(episodes, events) context indices of the scored events."""
        episodes = np.asarray(episodes)
        events = episodes.shape[1] - self.order
        index = np.zeros((episodes.shape[0], events), dtype=np.int64)
        for lag in range(self.order):
            index = index * self.alphabet + episodes[:, lag:lag + events]
        return index

    def targets(self, episodes: np.ndarray) -> np.ndarray:
        """(episodes, events) the symbols that the scored events predict."""
        return np.asarray(episodes)[:, self.order:]

    def oracle_scores(self, episodes: np.ndarray) -> np.ndarray:
        """(episodes, events, alphabet) the Bayes-optimal scores: the true next-symbol probabilities."""
        return self.table[self.contexts(episodes)]

    def ceiling(self) -> float:
        """The oracle's expected accuracy: the mean over contexts (uniform in episode starts, the
        stationary mix thereafter is close for these worlds) of the most likely symbol's probability."""
        return float(self.table.max(axis=1).mean())

    def sample(self, n_episodes: int, length: int, rng: np.random.Generator) -> np.ndarray:
        """(n_episodes, length) int64 symbols; the first `order` of each are a uniform context."""
        check_int("n_episodes", n_episodes, 1)
        check_int("length", length, self.order + 1)
        out = np.empty((n_episodes, length), dtype=np.int64)
        out[:, :self.order] = rng.integers(0, self.alphabet, (n_episodes, self.order))
        cumulative = np.cumsum(self.table, axis=1)
        uniforms = rng.random((n_episodes, length))
        for t in range(self.order, length):
            context = np.zeros(n_episodes, dtype=np.int64)
            for lag in range(self.order, 0, -1):
                context = context * self.alphabet + out[:, t - lag]
            rows = cumulative[context]
            out[:, t] = np.minimum((rows < uniforms[:, t:t + 1]).sum(axis=1), self.alphabet - 1)
        return out


def make_world(name: str, seed: int, alphabet: int = ALPHABET) -> World:
    """The world `name` with its random parts (the cycle's order, successors, tables) drawn from `seed`."""
    check_choice("world", name, WORLD_NAMES)
    a = check_int("alphabet", alphabet, 4, 64)
    rng = np.random.default_rng([seed, WORLD_NAMES.index(name)])
    if name == "cycle":
        order = rng.permutation(a)
        return World(name, 1, _deterministic(np.roll(order, -1)[np.argsort(order)], a))
    if name == "markov":
        table = np.zeros((a, a))
        for row in table:
            first, second = rng.choice(a, 2, replace=False)
            row[first], row[second] = 0.75, 0.25
        return World(name, 1, table)
    if name == "pairs":
        return World(name, 2, _noisy(rng.integers(0, a, a * a), a, 0.9))
    if name == "echo3":
        contexts = np.arange(a ** 3)
        return World(name, 3, _noisy(contexts // (a * a), a, 0.85))  # the oldest of the three symbols
    if name == "sum":
        contexts = np.arange(a * a)
        return World(name, 2, _deterministic((contexts // a + contexts % a) % a, a))
    return World(name, 3, _deterministic(rng.integers(0, a, a ** 3), a))


def make_worlds(names=WORLD_NAMES, seed: int = 0, alphabet: int = ALPHABET) -> list[World]:
    return [make_world(name, seed, alphabet) for name in names]


def mixture_episodes(first: World, second: World, share: float, n_episodes: int, length: int,
                     rng: np.random.Generator) -> np.ndarray:
    """Episodes drawn from `first` with probability `share` and from `second` otherwise (AIQ's mixing
    of two domains, episode by episode)."""
    share = check_float("share", share, 0, 1)
    from_first = rng.random(n_episodes) < share
    out = np.empty((n_episodes, length), dtype=np.int64)
    for world, chosen in ((first, from_first), (second, ~from_first)):
        if chosen.any():
            out[chosen] = world.sample(int(chosen.sum()), length, rng)
    return out


def _deterministic(successor: np.ndarray, alphabet: int) -> np.ndarray:
    table = np.zeros((successor.size, alphabet))
    table[np.arange(successor.size), successor] = 1.0
    return table


def _noisy(successor: np.ndarray, alphabet: int, keep: float) -> np.ndarray:
    """The successor with probability `keep`, otherwise a uniform symbol (which may be it again)."""
    return keep * _deterministic(successor, alphabet) + (1 - keep) / alphabet
