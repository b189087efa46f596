"""A trained CartPole agent: the "trained agent" whose observation -> action pairs become a domain.

Pereyda & Holder build their CartPole classification domains from the decisions of an agent trained on the
task.  Here that agent is a small tanh network (4 -> hidden -> 2, action = argmax) trained by the
cross-entropy method (CEM), a derivative-free search that needs no gradients, no torch and no replay buffer.
CEM scores hundreds of whole episodes per iteration, so the episodes run in
:class:`intellimetry.cartpole.BatchCartPole` (shared with the combined-tests chapter), a vectorised numpy
copy of gymnasium's CartPole-v1 physics (same equations, float64, same thresholds): a
full training takes well under a second.  The result, a :class:`Teacher`, is a plain ``policy(observation)
-> 0|1`` callable for :func:`intellimetry.aiq.domains.cartpole_classification`, which replays it in
gymnasium itself.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from intellimetry.cartpole import RESET_BOUND, BatchCartPole, check_cartpole_physics
from intellimetry.checks import check_int

TEACHER_DEFAULTS: dict = {"hidden": 8, "population": 64, "elite_fraction": 0.2, "iterations": 100,
                          "episodes": 8, "initial_std": 1.0}
STD_FLOOR = 0.02  # added to the elite std each iteration, so the search never collapses to a point
FINAL_EPISODES = 20  # fresh episodes that measure the final mean parameters


def _n_parameters(hidden: int) -> int:
    return 4 * hidden + hidden + 2 * hidden + 2


def _unpack(flat: np.ndarray, hidden: int) -> tuple[np.ndarray, ...]:
    """Split flat parameter vectors (..., P) into w1 (..., 4, h), b1 (..., h), w2 (..., h, 2), b2 (..., 2)."""
    lead, h = flat.shape[:-1], hidden
    cuts = np.cumsum([4 * h, h, 2 * h])
    w1, b1, w2, b2 = np.split(flat, cuts, axis=-1)
    return w1.reshape(*lead, 4, h), b1, w2.reshape(*lead, h, 2), b2


@dataclass(frozen=True, eq=False)
class Teacher:
    """A trained CartPole policy: ``argmax(tanh(o @ w1 + b1) @ w2 + b2)`` (ties -> 0, push left).

    Call it on one observation (``teacher(obs) -> 0|1``, as ``cartpole_classification`` does) or use
    :meth:`act_batch` on many.  ``mean_length`` is the mean steps survived by these weights over
    20 fresh :class:`BatchCartPole` episodes right after training; ``iterations`` the CEM iterations run.
    """

    force_mag: float
    gravity: float
    hidden: int
    weights: tuple
    seed: int
    iterations: int
    mean_length: float

    def __post_init__(self):
        h = check_int("hidden", self.hidden, 1)
        shapes = ((4, h), (h,), (h, 2), (2,))
        if len(self.weights) != 4:
            raise ValueError("weights must be (w1, b1, w2, b2)")
        frozen = []
        for w, shape in zip(self.weights, shapes):
            w = np.array(w, dtype=np.float64)
            if w.shape != shape:
                raise ValueError(f"weights must have shapes {shapes}, got {w.shape} for {shape}")
            w.setflags(write=False)
            frozen.append(w)
        object.__setattr__(self, "weights", tuple(frozen))

    def act_batch(self, observations) -> np.ndarray:
        """Actions (n,) int64 for observations (n, 4)."""
        w1, b1, w2, b2 = self.weights
        logits = np.tanh(np.asarray(observations, dtype=np.float64) @ w1 + b1) @ w2 + b2
        return np.argmax(logits, axis=-1).astype(np.int64)

    def __call__(self, observation) -> int:
        return int(self.act_batch(np.asarray(observation, dtype=np.float64).reshape(1, 4))[0])

    def describe(self) -> str:
        return (f"CEM teacher (4-{self.hidden}-2 tanh, {self.iterations} iterations, "
                f"mean {self.mean_length:.1f} steps)")

    def __repr__(self) -> str:  # cartpole_classification names its policy by repr
        return self.describe()


def check_cem_settings(elite_fraction, initial_std) -> None:
    """The cross-entropy method's elite share (strictly between 0 and 1) and initial std (> 0), or a clear error."""
    if not 0 < float(elite_fraction) < 1:
        raise ValueError(f"elite_fraction must lie strictly between 0 and 1, got {elite_fraction}")
    if not (math.isfinite(float(initial_std)) and float(initial_std) > 0):
        raise ValueError(f"initial_std must be a positive finite number, got {initial_std}")


def cross_entropy_method(n_parameters: int, score, rng: np.random.Generator, *, iterations: int, population: int,
                         elite_fraction: float, initial_std: float, target: float, desc: str = "CEM",
                         progress: bool = False) -> tuple[np.ndarray, int]:
    """The search loop shared by the teacher and the RL pools: (final mean vector, iterations run).

    Each iteration draws ``population`` vectors from N(mean, std^2) (mean 0 and std ``initial_std`` at
    first), scores them with ``score(candidates (population, n)) -> (population,)`` (which may draw its
    episodes from the same ``rng``, after the candidates), and refits mean and std to the best
    ``elite_fraction`` (std plus :data:`STD_FLOOR`). It stops early once the elite mean has reached
    ``target`` in two consecutive iterations (the task is solved; more search only adds noise)."""
    from tqdm import tqdm

    n_elite = max(1, round(float(elite_fraction) * population))
    mean, std = np.zeros(n_parameters), np.full(n_parameters, float(initial_std))
    solved, done = 0, 0
    bar = tqdm(range(iterations), desc=desc, disable=not progress)
    for _ in bar:
        candidates = mean + std * rng.standard_normal((population, n_parameters))
        scores = np.asarray(score(candidates), dtype=np.float64)
        elite = np.argsort(-scores, kind="stable")[:n_elite]
        mean, std = candidates[elite].mean(axis=0), candidates[elite].std(axis=0) + STD_FLOOR
        done += 1
        solved = solved + 1 if scores[elite].mean() >= target else 0
        bar.set_postfix(elite=f"{scores[elite].mean():.1f}")
        if solved >= 2:
            break
    bar.close()
    return mean, done


def train_teacher(force_mag: float = 10.0, gravity: float = 9.8, seed: int = 0, hidden: int = 8,
                  population: int = 64, elite_fraction: float = 0.2, iterations: int = 100, episodes: int = 8,
                  initial_std: float = 1.0, max_steps: int = 200, progress: bool = False) -> Teacher:
    """Train a :class:`Teacher` on CartPole with this force and gravity by the cross-entropy method.

    Each iteration draws ``population`` parameter vectors from N(mean, std^2), scores each by its mean
    episode length over ``episodes`` episodes (all candidates share the same initial states, so they are
    compared on equal terms, and all episodes run in one :class:`BatchCartPole`), and refits mean and std
    to the best ``elite_fraction`` (std plus a 0.02 floor).  It stops early once the elite mean has reached
    ``max_steps`` in two consecutive iterations.  The teacher is the final mean vector.  Deterministic given
    ``seed``.
    """
    force_mag, gravity = check_cartpole_physics(force_mag, gravity)
    seed = check_int("seed", seed, 0)
    hidden, population = check_int("hidden", hidden, 1), check_int("population", population, 1)
    iterations, episodes = check_int("iterations", iterations, 1), check_int("episodes", episodes, 1)
    max_steps = check_int("max_steps", max_steps, 1)
    check_cem_settings(elite_fraction, initial_std)

    rng = np.random.default_rng(seed)
    env = BatchCartPole(population * episodes, force_mag, gravity, max_steps)

    def score(candidates: np.ndarray) -> np.ndarray:
        """Mean episode length of each candidate; candidate p drives copies p*episodes .. (p+1)*episodes - 1."""
        w1, b1, w2, b2 = _unpack(candidates, hidden)

        def policy(states):
            o = states.reshape(population, episodes, 4)
            hid = np.tanh(np.einsum("pei,pih->peh", o, w1) + b1[:, None])
            logits = np.einsum("peh,pha->pea", hid, w2) + b2[:, None]
            return (logits[..., 1] > logits[..., 0]).reshape(-1).astype(np.int64)

        initial = np.tile(rng.uniform(-RESET_BOUND, RESET_BOUND, (episodes, 4)), (population, 1))
        return env.episode_lengths(policy, initial=initial).reshape(population, episodes).mean(axis=1)

    mean, done = cross_entropy_method(_n_parameters(hidden), score, rng, iterations=iterations,
                                      population=population, elite_fraction=elite_fraction,
                                      initial_std=initial_std, target=max_steps,
                                      desc=f"CEM teacher f={force_mag:g} g={gravity:g}", progress=progress)
    weights = tuple(w[0] for w in _unpack(mean[None], hidden))
    teacher = Teacher(force_mag, gravity, hidden, weights, seed, done, 0.0)
    final = BatchCartPole(FINAL_EPISODES, force_mag, gravity, max_steps)
    mean_length = float(final.episode_lengths(teacher.act_batch, rng).mean())
    return Teacher(force_mag, gravity, hidden, weights, seed, done, mean_length)
