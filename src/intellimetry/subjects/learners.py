"""The subjects: three learner families with a capacity knob, and three baselines that anchor the scale.

    mlp, rnn, esn   online networks (subjects.kernels) with `capacity` hidden units, trained by one
                    SGD step per symbol; their training budget is the number of symbols they read
    lookup          an order-2 Markov learner: counts of what followed each pair of symbols, backing
                    off to single symbols and to symbol frequencies where a context is new
    constant        one fixed ranking of the symbols whatever it reads (its seed picks the ranking)
    random          fresh uniformly random scores at every event (its seed drives them)

A `Spec` names one subject; `make_learner(spec, alphabet)` builds it for a world. Every learner has
`fit(episodes)` (read them, learning), `scores(episodes, skip)` (score the next symbol at every
position from `skip` on, without learning) and `parameters()` (what it stores: its policy size).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from intellimetry.checks import check_choice, check_int
from intellimetry.subjects import kernels

FAMILIES = ("mlp", "rnn", "esn")
BASELINES = ("random", "constant", "lookup")
KINDS = FAMILIES + BASELINES
LEARNING_RATES = {"mlp": 0.1, "rnn": 0.05, "esn": 0.05}  # set once, before any measure was run
SPECTRAL_RADIUS = 0.9
LOOKUP_ORDER = 2
TIE_BREAK = 1e-9  # scale of the fixed jitter that orders exactly tied scores (ties must not count as wins)


@dataclass(frozen=True)
class Spec:
    """One subject: its kind, capacity (hidden units; 0 for a baseline), training budget (symbols read
    per world; 0 for a subject that does not learn) and seed."""
    kind: str
    capacity: int = 0
    budget: int = 0
    seed: int = 0

    def __post_init__(self):
        check_choice("kind", self.kind, KINDS)
        check_int("seed", self.seed, 0)
        if self.kind in FAMILIES:
            check_int("capacity", self.capacity, 1, 4096)
            check_int("budget", self.budget, 1)
        elif self.kind == "lookup":
            check_int("budget", self.budget, 1)

    @property
    def name(self) -> str:
        """The subject without its seed: 'mlp-16 / 2000', 'lookup / 2000', 'random'."""
        if self.kind in FAMILIES:
            return f"{self.kind}-{self.capacity} / {self.budget}"
        return f"lookup / {self.budget}" if self.kind == "lookup" else self.kind

    @property
    def learns(self) -> bool:
        return self.kind in FAMILIES or self.kind == "lookup"


def make_learner(spec: Spec, alphabet: int, stream: int = 0):
    """A fresh learner for `spec` over `alphabet` symbols; `stream` separates the draws of the same
    subject in different worlds."""
    rng = np.random.default_rng([spec.seed, stream, KINDS.index(spec.kind), spec.capacity])
    if spec.kind in FAMILIES:
        return Network(spec.kind, spec.capacity, np.eye(alphabet), np.eye(alphabet), kernels.SOFTMAX, rng)
    if spec.kind == "lookup":
        return Lookup(alphabet, rng)
    if spec.kind == "constant":
        return Constant(alphabet, rng)
    return Random(alphabet, rng)


class Network:
    """An online network of `family` with `hidden` units over the given input and output encodings;
    its weights and running state are two flat arrays (kernels.views names their parts)."""

    def __init__(self, family: str, hidden: int, enc_in: np.ndarray, enc_out: np.ndarray, mode: int,
                 rng: np.random.Generator):
        self.family = FAMILIES.index(family)
        self.lr = LEARNING_RATES[family]
        self.enc_in = np.ascontiguousarray(enc_in, dtype=float)
        self.enc_out = np.ascontiguousarray(enc_out, dtype=float)
        self.mode = mode
        width, outputs = self.enc_in.shape[1], self.enc_out.shape[1]
        inputs = width * kernels.WINDOW if self.family == kernels.MLP else width
        self.dims = np.array([inputs, hidden, outputs], dtype=np.int64)
        n_params, n_state = kernels.sizes(self.dims)
        self.params, self.state = np.zeros(n_params), np.zeros(n_state)
        w_in, w_rec, _, w_out, *_ = kernels.views(self.params, self.state, self.dims)
        w_in[:] = rng.normal(0, 1.0 if self.family == kernels.ESN else 1.0 / np.sqrt(inputs), w_in.shape)
        if self.family != kernels.MLP:
            w_rec[:] = rng.normal(0, 1.0 / np.sqrt(hidden), w_rec.shape)
        if self.family == kernels.ESN:
            w_rec *= SPECTRAL_RADIUS / np.abs(np.linalg.eigvals(w_rec)).max()
        w_out[:] = rng.normal(0, 0.1, w_out.shape)

    def _call(self) -> tuple:
        return self.family, self.params, self.state, self.dims

    def fit(self, episodes: np.ndarray) -> None:
        kernels.run_episodes(*self._call(), np.asarray(episodes, dtype=np.int64), 0, self.enc_in,
                             self.enc_out, self.mode, self.lr, True, np.zeros((0, 0, 0)))

    def scores(self, episodes: np.ndarray, skip: int) -> np.ndarray:
        episodes = np.asarray(episodes, dtype=np.int64)
        out = np.zeros((episodes.shape[0], episodes.shape[1] - skip, int(self.dims[2])))
        kernels.run_episodes(*self._call(), episodes, skip, self.enc_in, self.enc_out, self.mode,
                             self.lr, False, out)
        return out

    def parameters(self) -> int:
        """Trainable weights: the read-out for an echo-state network (its reservoir is drawn from a
        seed), every weight otherwise (an MLP has no recurrent weights)."""
        n_in, n_hid, n_out = (int(d) for d in self.dims)
        readout = (n_hid + 1) * n_out
        if self.family == kernels.ESN:
            return readout
        recurrent = n_hid * n_hid if self.family == kernels.RNN else 0
        return readout + (n_in + 1) * n_hid + recurrent

    def step(self, x: int, learn: bool = True) -> int:
        """Read one input (learning from it if `learn`); the predicted bits in sigmoid mode, else -1."""
        return kernels.step(*self._call(), int(x), self.enc_in, self.enc_out, self.mode, self.lr, learn)

    def feed(self, inputs: np.ndarray) -> int:
        return kernels.feed_sequence(*self._call(), np.asarray(inputs, dtype=np.int64), self.enc_in,
                                     self.enc_out, self.mode, self.lr)

    def copy(self) -> "Network":
        clone = object.__new__(Network)
        clone.__dict__.update(self.__dict__)
        clone.params, clone.state = self.params.copy(), self.state.copy()
        return clone

    def same(self, other: "Network") -> bool:
        return (self.params.tobytes() == other.params.tobytes()
                and self.state.tobytes() == other.state.tobytes())

    def key(self) -> int:
        return hash((self.params.tobytes(), self.state.tobytes()))


class Lookup:
    """Order-2 counts with back-off: the score of symbol s after (a, b) is n(a, b, s) + n(b, s)/A +
    n(s)/A², so the longest context seen decides and shorter ones only break its ties."""

    def __init__(self, alphabet: int, rng: np.random.Generator):
        self.alphabet = alphabet
        self.pairs = np.zeros((alphabet * alphabet, alphabet))
        self.singles = np.zeros((alphabet, alphabet))
        self.totals = np.zeros(alphabet)
        self.jitter = rng.random(alphabet) * TIE_BREAK

    def fit(self, episodes: np.ndarray) -> None:
        episodes = np.asarray(episodes, dtype=np.int64)
        a = self.alphabet
        np.add.at(self.totals, episodes.ravel(), 1)
        np.add.at(self.singles, (episodes[:, :-1].ravel(), episodes[:, 1:].ravel()), 1)
        pairs = episodes[:, :-2] * a + episodes[:, 1:-1]
        np.add.at(self.pairs, (pairs.ravel(), episodes[:, 2:].ravel()), 1)

    def scores(self, episodes: np.ndarray, skip: int) -> np.ndarray:
        """Scores of the symbols from position `skip` on (skip >= 2: every scored symbol has a pair before it)."""
        episodes = np.asarray(episodes, dtype=np.int64)
        check_int("skip", skip, 2)
        a = self.alphabet
        last, before = episodes[:, skip - 1:-1], episodes[:, skip - 2:-2]
        return self.pairs[before * a + last] + self.singles[last] / a + self.totals / a ** 2 + self.jitter

    def parameters(self) -> int:
        """Counts it stores: the non-zero entries of its tables."""
        return int(np.count_nonzero(self.pairs) + np.count_nonzero(self.singles) + np.count_nonzero(self.totals))


class Constant:
    """The same ranking of the symbols at every event."""

    def __init__(self, alphabet: int, rng: np.random.Generator):
        self.ranking = rng.permutation(alphabet).astype(float)

    def fit(self, episodes: np.ndarray) -> None:
        """Reads nothing."""

    def scores(self, episodes: np.ndarray, skip: int) -> np.ndarray:
        episodes = np.asarray(episodes)
        return np.broadcast_to(self.ranking, (episodes.shape[0], episodes.shape[1] - skip, self.ranking.size)).copy()

    def parameters(self) -> int:
        return 0


class Random:
    """Uniformly random scores, fresh at every event."""

    def __init__(self, alphabet: int, rng: np.random.Generator):
        self.alphabet, self.rng = alphabet, rng

    def fit(self, episodes: np.ndarray) -> None:
        """Reads nothing."""

    def scores(self, episodes: np.ndarray, skip: int) -> np.ndarray:
        episodes = np.asarray(episodes)
        return self.rng.random((episodes.shape[0], episodes.shape[1] - skip, self.alphabet))

    def parameters(self) -> int:
        return 0
