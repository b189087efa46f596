"""The paper's agents: fully connected ReLU networks, many trained side by side (its Section 7).

Every agent has the paper's topology: the inputs (24, or 48 when 6-RPM is among the tests), four hidden
layers of 16 ReLU units, and 3 (or 6) linear outputs. A shorter input (CartPole's four observations, a
3-RPM problem in a 48-input network) is padded with zeros; extra outputs are ignored. On an N-RPM
problem the first N outputs are the generated answer (rounded); on CartPole the first two are the
scores of "push left" and "push right".

A handicap removes nodes from every hidden layer: ``removed = k`` leaves 16 - k units in each of the four
layers (k = 0 ... 15). :class:`Agents` holds a whole population, each agent with its own handicap and
seed, as batched weight tensors, so that one matrix product trains twenty agents, or 320 handicapped
ones, at once (plain float32 numpy with the gradients written out: for networks this small, a framework's
per-operation overhead costs more than the arithmetic). A removed unit is masked to zero and starts with
zero weights, so it never receives a gradient: a handicapped agent computes and learns exactly what a
network of 16 - k units per layer would. Weights start Glorot-uniform with the layer's true fan-in and
fan-out and biases at zero (the defaults of Keras, which the paper used), from the agent's own seed, so
an agent does not depend on which others it is trained with. :class:`Adam` is Keras's default optimiser.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from intellimetry.checks import check_float, check_int

HIDDEN_LAYERS = 4
HIDDEN_WIDTH = 16
CARTPOLE_INPUTS = 4
CARTPOLE_ACTIONS = 2


@dataclass(frozen=True)
class Topology:
    """Inputs, outputs and hidden layers of the agents' network."""

    inputs: int
    outputs: int
    width: int = HIDDEN_WIDTH
    layers: int = HIDDEN_LAYERS

    def __post_init__(self):
        check_int("inputs", self.inputs, CARTPOLE_INPUTS)
        check_int("outputs", self.outputs, CARTPOLE_ACTIONS)
        check_int("width", self.width, 1)
        check_int("layers", self.layers, 1)

    def to_dict(self) -> dict:
        return asdict(self)

    def hidden_widths(self, removed: int) -> tuple[int, ...]:
        """Units left in each hidden layer after removing ``removed`` from every one."""
        removed = check_int("removed (nodes per hidden layer)", removed, 0, self.width - 1)
        return (self.width - removed,) * self.layers

    def parameter_count(self, removed: int = 0) -> int:
        sizes = (self.inputs, *self.hidden_widths(removed), self.outputs)
        return sum(a * b + b for a, b in zip(sizes, sizes[1:]))


SMALL = Topology(24, 3)  # the tests without 6-RPM (Table 1)
LARGE = Topology(48, 6)  # 6-RPM among the tests (Table 2)


def _glorot(rng: np.random.Generator, fan_in: int, fan_out: int, shape: tuple[int, int]) -> np.ndarray:
    """Glorot-uniform weights for the first fan_in x fan_out block of a ``shape`` matrix; zeros elsewhere."""
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    block = np.zeros(shape, dtype=np.float32)
    block[:fan_in, :fan_out] = rng.uniform(-limit, limit, size=(fan_in, fan_out))
    return block


class Agents:
    """A population of networks of one topology, agent ``a`` with ``removed[a]`` nodes taken from every
    hidden layer and initial weights from ``seeds[a]``. Weights are arrays with the agent first."""

    def __init__(self, topology: Topology, removed: Sequence[int], seeds: Sequence[int]):
        self.topology = topology
        self.removed = [int(r) for r in removed]
        kept = [topology.hidden_widths(r)[0] for r in self.removed]
        self.seeds = [check_int("seed", s, 0) for s in seeds]
        if len(self.removed) != len(self.seeds) or not self.seeds:
            raise ValueError(f"give one seed per agent: {len(self.removed)} handicaps, {len(self.seeds)} seeds")
        sizes = (topology.inputs, *(topology.width,) * topology.layers, topology.outputs)
        weights = [[] for _ in sizes[1:]]
        for agent, seed in enumerate(self.seeds):
            rng = np.random.default_rng(seed)
            true = (topology.inputs, *(kept[agent],) * topology.layers, topology.outputs)
            for layer, (rows, cols) in enumerate(zip(sizes, sizes[1:])):
                weights[layer].append(_glorot(rng, true[layer], true[layer + 1], (rows, cols)))
        self.weights = [np.stack(w) for w in weights]
        self.biases = [np.zeros((len(self.seeds), cols), dtype=np.float32) for cols in sizes[1:]]
        self.mask = (np.arange(topology.width)[None, :] < np.array(kept)[:, None]).astype(np.float32)

    @property
    def count(self) -> int:
        return len(self.seeds)

    def parameters(self) -> list[np.ndarray]:
        return [*self.weights, *self.biases]

    def _batched(self, x) -> np.ndarray:
        """Inputs as (A, B, d) float32, d <= inputs (missing inputs are zeros: they meet no weight)."""
        x = np.asarray(x, dtype=np.float32)
        if x.shape[-1] > self.topology.inputs:
            raise ValueError(f"an input of {x.shape[-1]} values does not fit a network of {self.topology.inputs} "
                             "inputs")
        return np.broadcast_to(x, (self.count, *x.shape)) if x.ndim == 2 else x

    def forward(self, x, keep: bool = False):
        """Outputs (A, B, outputs) for inputs (A, B, d), or (B, d) shown to every agent; d <= inputs, the rest
        padded with zeros (equivalently, only the first d rows of the first layer's weights are used).
        With ``keep``, also what :meth:`backward` needs."""
        h = self._batched(x)
        kept = []
        last = len(self.weights) - 1
        for layer, (w, b) in enumerate(zip(self.weights, self.biases)):
            if keep:
                kept.append(h)
            z = np.matmul(h, w if layer else w[:, : h.shape[-1]])
            z += b[:, None, :]
            if layer < last:
                np.maximum(z, 0, out=z)
                z *= self.mask[:, None, :]
            h = z
        return (h, kept) if keep else h

    def backward(self, kept: list[np.ndarray], grad_outputs: np.ndarray) -> list[np.ndarray]:
        """Gradients of a loss with respect to :meth:`parameters`, given its gradient with respect to the
        outputs of ``forward(x, keep=True)`` (A, B, outputs)."""
        grad = grad_outputs
        grads_w, grads_b = [None] * len(self.weights), [None] * len(self.biases)
        for layer in range(len(self.weights) - 1, -1, -1):
            inputs = kept[layer]
            found = np.matmul(inputs.transpose(0, 2, 1), grad)
            if layer == 0 and found.shape[1] < self.weights[0].shape[1]:  # padded inputs: zero gradient
                found = np.concatenate([found, np.zeros((self.count, self.weights[0].shape[1] - found.shape[1],
                                                         found.shape[2]), dtype=found.dtype)], axis=1)
            grads_w[layer] = found
            grads_b[layer] = grad.sum(axis=1)
            if layer:
                grad = np.matmul(grad, self.weights[layer].transpose(0, 2, 1)) * (inputs > 0)
        return [*grads_w, *grads_b]

    def flat(self) -> np.ndarray:
        """Every agent's parameters as one vector, (A, P) (a copy)."""
        return np.concatenate([p.reshape(self.count, -1) for p in self.parameters()], axis=1)

    def hidden_preactivations(self, x) -> list[np.ndarray]:
        """Each hidden layer's inputs to its ReLUs, (A, B, width) per layer, for inputs as in :meth:`forward`."""
        found, h = [], self._batched(x)
        for layer, (w, b) in enumerate(zip(self.weights[:-1], self.biases[:-1])):
            z = np.matmul(h, w if layer else w[:, : h.shape[-1]]) + b[:, None, :]
            found.append(z)
            h = np.maximum(z, 0) * self.mask[:, None, :]
        return found


class Adam:
    """Adam with Keras's defaults (beta 0.9 / 0.999, epsilon 1e-7), updating arrays in place. It works per
    weight, so a population trained together learns exactly as each agent would alone."""

    beta1, beta2, epsilon = 0.9, 0.999, 1e-7

    def __init__(self, parameters: list[np.ndarray], learning_rate: float):
        self.parameters = parameters
        self.learning_rate = check_float("learning_rate", learning_rate, 0, low_open=True)
        self.m = [np.zeros_like(p) for p in parameters]
        self.v = [np.zeros_like(p) for p in parameters]
        self.t = 0

    def step(self, grads: list[np.ndarray]) -> None:
        self.t += 1
        rate = self.learning_rate * np.sqrt(1 - self.beta2 ** self.t) / (1 - self.beta1 ** self.t)
        for p, g, m, v in zip(self.parameters, grads, self.m, self.v):
            m *= self.beta1
            m += (1 - self.beta1) * g
            v *= self.beta2
            v += (1 - self.beta2) * g * g
            p -= rate * m / (np.sqrt(v) + self.epsilon)
