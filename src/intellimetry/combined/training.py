"""One training method for every agent, and the paper's scores (its Sections 3, 5 and 7).

Every agent learns by gradient descent with Adam, one interaction at a time through the same network:

* an **RPM problem**: the squared error between the generated answer (the first N outputs) and the
  true one; problems come in minibatches, an epoch is one pass over the training problems;
* a **CartPole episode** (one interaction in the paper's sense): REINFORCE, the policy-gradient rule. The
  agent samples "push left / right" from the softmax of its first two outputs, and after the episode
  each step's log-probability is weighted by the discounted return that followed it, normalised over
  the episode (a baseline). An epoch is one episode;
* the **mixed agent**: per epoch one CartPole episode, then one problem of each RPM test in the mix, in
  that order, each followed by its own Adam step (the paper's "one interaction in CartPole, 3-RPM and
  6-RPM, in that order").

Scores (Eq. 2, the mean over interactions): on N-RPM the share of characteristics answered correctly,
averaged over the test problems; on CartPole the steps the pole stays up in an episode with the greedy
action (the larger of the two outputs), divided by the 200-step cap. The random agent answers and acts
uniformly at random.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from intellimetry.cartpole import CARTPOLE_MAX_STEPS, RESET_BOUND, BatchCartPole
from intellimetry.checks import check_int
from intellimetry.combined.agents import CARTPOLE_ACTIONS, Adam, Agents
from intellimetry.combined.rpm import score_answers

GAMMA = 0.99  # discount of the REINFORCE returns
RPM_TESTS = {"3-RPM": 3, "6-RPM": 6}
CARTPOLE = "CartPole"
TESTS = ("3-RPM", "6-RPM", CARTPOLE)


def make_optimiser(agents: Agents, learning_rate: float) -> Adam:
    """Adam over every agent's weights (each agent's loss depends only on its own weights)."""
    return Adam(agents.parameters(), learning_rate)


def agent_rngs(agents: Agents, purpose: str) -> list[np.random.Generator]:
    """One generator per agent, from its seed and what it is for (shuffling, actions, ...)."""
    tag = sum(purpose.encode())
    return [np.random.default_rng([seed, tag, len(purpose)]) for seed in agents.seeds]


# ----------------------------------------------------------------------------- RPM

def rpm_step(agents: Agents, optimiser: Adam, x: np.ndarray, y: np.ndarray) -> None:
    """One Adam step on a minibatch per agent, x (A, B, 8N), y (A, B, N): each agent's loss is the mean
    squared error of its first N outputs."""
    outputs, kept = agents.forward(x, keep=True)
    grad = np.zeros_like(outputs)
    n = y.shape[-1]
    grad[..., :n] = 2 * (outputs[..., :n] - y) / (y.shape[1] * n)
    optimiser.step(agents.backward(kept, grad))


def epoch_order(rng: np.random.Generator, problems: int, length: int | None = None) -> np.ndarray:
    """The problems an epoch visits: a random order of all ``problems``, or, with ``length``, that many
    from random orders one after another (a set smaller than ``length`` is passed more than once)."""
    length = problems if length is None else check_int("epoch length", length, 1)
    passes = -(-length // problems)
    return np.concatenate([rng.permutation(problems) for _ in range(passes)])[:length]


def rpm_epoch(agents: Agents, optimiser, x: np.ndarray, y: np.ndarray, batch_size: int,
              rngs: Sequence[np.random.Generator], epoch_problems: int | None = None) -> None:
    """One epoch over the training problems x (M, 8N), y (M, N), each agent in its own random order: one
    pass, or ``epoch_problems`` problems (so that sets of different sizes get the same number of steps)."""
    batch_size = check_int("batch_size", batch_size, 1)
    order = np.stack([epoch_order(rng, len(y), epoch_problems) for rng in rngs])
    for start in range(0, order.shape[1], batch_size):
        chosen = order[:, start:start + batch_size]
        rpm_step(agents, optimiser, x[chosen], y[chosen])


def rpm_scores(agents: Agents, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each agent's mean score over problems x (M, 8N), y (M, N): (A,)."""
    outputs = agents.forward(x)[..., : y.shape[-1]]
    return score_answers(outputs, np.broadcast_to(y, outputs.shape)).mean(axis=1)


# ----------------------------------------------------------------------------- CartPole

def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def _rollout(agents: Agents, rngs: Sequence[np.random.Generator], max_steps: int):
    """One episode per agent with sampled actions: states (T, A, 4), actions (T, A), alive (T, A), lengths."""
    count = agents.count
    env = BatchCartPole(count, max_steps=max_steps)
    # per agent: its start state and one uniform number per step, from its own generator
    draws = [rng.uniform(-RESET_BOUND, RESET_BOUND, 4 + max_steps) for rng in rngs]
    state = np.stack([d[:4] for d in draws])
    uniforms = (np.stack([d[4:] for d in draws]) + RESET_BOUND) / (2 * RESET_BOUND)
    env.state = state.copy()
    alive = np.ones(count, dtype=bool)
    states, actions, alives = [], [], []
    for step in range(max_steps):
        logits = agents.forward(state[:, None, :])[:, 0]
        p_right = 1 / (1 + np.exp(logits[:, 0] - logits[:, 1]))  # the softmax of two logits
        action = (uniforms[:, step] < p_right).astype(np.int64)
        states.append(state)
        actions.append(action)
        alives.append(alive.copy())
        before = env.state
        state, terminated = env.step(action)
        env.state = np.where(alive[:, None], env.state, before)
        state = env.state.copy()
        alive &= ~terminated
        if not alive.any():
            break
    alive_steps = np.array(alives)
    return np.array(states), np.array(actions), alive_steps, alive_steps.sum(axis=0)


def _normalised_returns(alive: np.ndarray) -> np.ndarray:
    """Discounted returns-to-go of a reward of 1 per step alive, standardised per episode: (T, A)."""
    returns = np.zeros(alive.shape)
    running = np.zeros(alive.shape[1])
    for t in range(len(alive) - 1, -1, -1):
        running = alive[t] * (1.0 + GAMMA * running)
        returns[t] = running
    counts = alive.sum(axis=0)
    mean = (returns * alive).sum(axis=0) / counts
    std = np.sqrt((((returns - mean) * alive) ** 2).sum(axis=0) / counts)
    return np.where(alive, (returns - mean) / (std + 1e-8), 0.0)


def cartpole_episode(agents: Agents, optimiser, rngs: Sequence[np.random.Generator],
                     max_steps: int = CARTPOLE_MAX_STEPS) -> np.ndarray:
    """One REINFORCE episode per agent, then one Adam step; returns the episode lengths (A,)."""
    states, actions, alive, lengths = _rollout(agents, rngs, max_steps)
    weights = (_normalised_returns(alive).T / lengths[:, None]).astype(np.float32)  # (A, T); 0 once ended
    outputs, kept = agents.forward(np.ascontiguousarray(states.transpose(1, 0, 2)), keep=True)  # (A, T, out)
    taken = np.eye(CARTPOLE_ACTIONS)[actions.T]  # (A, T, 2)
    grad = np.zeros_like(outputs)
    # the gradient of -sum_t w_t log softmax(logits_t)[a_t] with respect to the logits
    grad[..., :CARTPOLE_ACTIONS] = -weights[..., None] * (taken - _softmax(outputs[..., :CARTPOLE_ACTIONS]))
    optimiser.step(agents.backward(kept, grad))
    return lengths


def cartpole_scores(agents: Agents, episodes: int, seed: int, max_steps: int = CARTPOLE_MAX_STEPS) -> np.ndarray:
    """Each agent's mean greedy episode length / max_steps over ``episodes`` episodes: (A,). Every agent
    meets the same start states (from ``seed``)."""
    episodes = check_int("episodes", episodes, 1)
    env = BatchCartPole(agents.count * episodes, max_steps=max_steps)
    starts = np.random.default_rng(seed).uniform(-RESET_BOUND, RESET_BOUND, size=(episodes, 4))

    def policy(states: np.ndarray) -> np.ndarray:
        logits = agents.forward(states.reshape(agents.count, episodes, 4))[..., :CARTPOLE_ACTIONS]
        return logits.argmax(axis=2).reshape(-1)

    lengths = env.episode_lengths(policy, initial=np.tile(starts, (agents.count, 1)))
    return lengths.reshape(agents.count, episodes).mean(axis=1) / max_steps


# ----------------------------------------------------------------------------- the random agent

def random_rpm_scores(n: int, y: np.ndarray, agents: int, seed: int) -> np.ndarray:
    """Scores of ``agents`` random agents answering every problem with uniformly random values: (agents,)."""
    rng = np.random.default_rng(seed)
    guesses = rng.integers(0, n, size=(agents, *y.shape))
    return score_answers(guesses, np.broadcast_to(y, guesses.shape)).mean(axis=1)


def random_cartpole_scores(agents: int, episodes: int, seed: int, max_steps: int = CARTPOLE_MAX_STEPS) -> np.ndarray:
    """Scores of ``agents`` random agents pushing left or right with probability one half: (agents,)."""
    rng = np.random.default_rng(seed)
    env = BatchCartPole(agents * episodes, max_steps=max_steps)
    lengths = env.episode_lengths(lambda states: rng.integers(0, 2, size=len(states)), rng)
    return lengths.reshape(agents, episodes).mean(axis=1) / max_steps


# ----------------------------------------------------------------------------- a training run

def weight_change(before: np.ndarray, agents: Agents) -> np.ndarray:
    """The Euclidean length of each agent's weight change since ``before`` (A, P): (A,)."""
    return np.linalg.norm(agents.flat() - before, axis=1)


def train(agents: Agents, task: str, epochs: int, learning_rate: float, batch_size: int,
          data: dict[str, tuple[np.ndarray, np.ndarray]], on_epoch: Callable | None = None,
          progress: bool = False, epoch_problems: int | None = None) -> None:
    """Train ``agents`` on ``task`` ("3-RPM", "6-RPM", "CartPole" or "Mixed") for ``epochs`` epochs.

    ``data`` maps each RPM test the task uses to its training problems (x, y); the mixed agent uses
    every RPM test in ``data``. After every epoch ``on_epoch(epoch, lengths)`` is called (``lengths``: the
    CartPole episode lengths of that epoch, or None). ``epoch_problems``: an RPM specialist's problems per
    epoch (default one pass over its training problems; see :func:`rpm_epoch`)."""
    epochs = check_int("epochs", epochs, 0)
    optimiser = make_optimiser(agents, learning_rate)
    shuffles, actions = agent_rngs(agents, "shuffle"), agent_rngs(agents, "actions")
    from tqdm import tqdm

    for epoch in tqdm(range(1, epochs + 1), desc=f"{task} x {agents.count}", disable=not progress, leave=False):
        lengths = None
        if task in RPM_TESTS:
            rpm_epoch(agents, optimiser, *data[task], batch_size, shuffles, epoch_problems)
        elif task in (CARTPOLE, "Mixed"):
            lengths = cartpole_episode(agents, optimiser, actions)
            if task == "Mixed":
                for test in data:
                    rpm_epoch_of_one(agents, optimiser, *data[test], shuffles)
        else:
            raise ValueError(f"unknown task {task!r}; allowed: 3-RPM, 6-RPM, CartPole, Mixed")
        if on_epoch is not None:
            on_epoch(epoch, lengths)


def rpm_epoch_of_one(agents: Agents, optimiser, x: np.ndarray, y: np.ndarray,
                     rngs: Sequence[np.random.Generator]) -> None:
    """One Adam step on one problem per agent, drawn at random from x (M, 8N), y (M, N)."""
    chosen = np.array([[rng.integers(len(y))] for rng in rngs])
    rpm_step(agents, optimiser, x[chosen], y[chosen])
