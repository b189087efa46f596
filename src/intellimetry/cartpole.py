"""CartPole shared by the chapters (AIQ's control domains, the combined test's CartPole sub-test).

Two ways to run gymnasium's CartPole-v1 with settable physics: gymnasium itself
(:func:`make_cartpole`, :func:`cartpole_episode_return`), and :class:`BatchCartPole`, a vectorised
numpy copy of the same equations that steps many independent episodes at once, for training many
agents in lockstep. Both cap an episode at :data:`CARTPOLE_MAX_STEPS` by default (the papers score
t / 200); a test checks that the copy's steps equal gymnasium's.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from intellimetry.checks import check_int

CARTPOLE_ID = "CartPole-v1"
CARTPOLE_MAX_STEPS = 200  # the papers' performance is t / 200
RESET_BOUND = 0.05  # gymnasium's reset draws every state variable from U(-0.05, 0.05)


def check_cartpole_physics(force_mag, gravity) -> tuple[float, float]:
    """CartPole's force magnitude (N, > 0) and gravity (m/s^2, >= 0) as floats, or a clear error."""
    force_mag, gravity = float(force_mag), float(gravity)
    if not (math.isfinite(force_mag) and force_mag > 0):
        raise ValueError(f"force_mag must be a positive finite number (paper: 1-20, normal 10), got {force_mag}")
    if not (math.isfinite(gravity) and gravity >= 0):
        raise ValueError(f"gravity must be a non-negative finite number (normal 9.8), got {gravity}")
    return force_mag, gravity


def make_cartpole(force_mag: float = 10.0, gravity: float = 9.8, seed: int = 0,
                  max_steps: int = CARTPOLE_MAX_STEPS):
    """gymnasium's CartPole-v1 with the given force magnitude (N) and gravity (m/s^2), at most ``max_steps``
    steps per episode (the paper scores t / 200).  The environment is reset once with ``seed``."""
    import gymnasium

    force_mag, gravity = check_cartpole_physics(force_mag, gravity)
    if int(max_steps) != max_steps or max_steps < 1:
        raise ValueError(f"max_steps must be a positive integer, got {max_steps}")
    env = gymnasium.make(CARTPOLE_ID, max_episode_steps=int(max_steps))
    env.unwrapped.force_mag = force_mag
    env.unwrapped.gravity = gravity
    env.reset(seed=seed)
    env.action_space.seed(seed)
    return env


def cartpole_episode_return(env, policy: Callable, seed: int | None = None,
                            record: list | None = None) -> int:
    """Run one episode with ``policy(observation) -> action`` (0 left, 1 right); return the steps survived.

    The episode ends when the pole falls, the cart leaves the track, or the env's step limit is reached.
    If ``record`` is a list, (observation, action) pairs are appended to it.
    """
    limit = getattr(env.spec, "max_episode_steps", None) or 500
    observation, _ = env.reset(seed=seed)
    steps = 0
    while steps < limit:
        action = policy(observation)
        if action not in (0, 1):
            raise ValueError(f"the policy must return 0 or 1, got {action!r}")
        if record is not None:
            record.append((np.asarray(observation, dtype=np.float32), int(action)))
        observation, _, terminated, truncated, _ = env.step(int(action))
        steps += 1
        if terminated or truncated:
            break
    return steps


class BatchCartPole:
    """``n`` independent copies of gymnasium's CartPole-v1, stepped together (numpy float64).

    The equations are gymnasium's ``CartPoleEnv.step`` verbatim (Euler integration, tau 0.02, cart mass 1.0,
    pole mass 0.1, pole half-length 0.5; the episode ends when |x| > 2.4 or |theta| > 12 degrees), with
    ``force_mag`` and ``gravity`` settable as in :func:`make_cartpole`: one number for every copy, or an
    array of ``n`` numbers, one per copy (a mixture of settings run in one batch).
    """

    tau, masscart, masspole, length = 0.02, 1.0, 0.1, 0.5
    x_threshold, theta_threshold = 2.4, 12 * 2 * math.pi / 360

    def __init__(self, n: int, force_mag: float = 10.0, gravity: float = 9.8, max_steps: int = 200):
        self.n = check_int("n", n, 1)
        if np.ndim(force_mag) == 0 and np.ndim(gravity) == 0:
            self.force_mag, self.gravity = check_cartpole_physics(force_mag, gravity)
        else:
            self.force_mag, self.gravity = self._per_copy(force_mag, gravity)
        self.max_steps = check_int("max_steps", max_steps, 1)
        self.total_mass = self.masspole + self.masscart
        self.polemass_length = self.masspole * self.length
        self.state = np.zeros((self.n, 4))

    def _per_copy(self, force_mag, gravity) -> tuple[np.ndarray, np.ndarray]:
        """Force and gravity as (n,) float arrays (a number is repeated), each value checked."""
        arrays = []
        for name, value in (("force_mag", force_mag), ("gravity", gravity)):
            array = np.broadcast_to(np.asarray(value, dtype=np.float64), (self.n,)) if np.ndim(value) == 0 \
                else np.asarray(value, dtype=np.float64)
            if array.shape != (self.n,):
                raise ValueError(f"{name} must be a number or an array of one value per copy ({self.n},), "
                                 f"got shape {array.shape}")
            arrays.append(array.copy())
        for f, g in zip(*arrays):
            check_cartpole_physics(f, g)
        return arrays[0], arrays[1]

    def reset(self, rng: np.random.Generator) -> np.ndarray:
        """New states, each variable uniform in (-0.05, 0.05) as gymnasium's reset; returns a copy."""
        self.state = rng.uniform(-RESET_BOUND, RESET_BOUND, size=(self.n, 4))
        return self.state.copy()

    def step(self, actions) -> tuple[np.ndarray, np.ndarray]:
        """Apply actions (0 left, 1 right) to all copies: (next states (n, 4), terminated (n,) bool)."""
        actions = np.asarray(actions)
        if actions.shape != (self.n,):
            raise ValueError(f"actions must have shape ({self.n},), got {actions.shape}")
        x, x_dot, theta, theta_dot = self.state.T
        force = np.where(actions == 1, self.force_mag, -self.force_mag)
        costheta, sintheta = np.cos(theta), np.sin(theta)
        temp = (force + self.polemass_length * np.square(theta_dot) * sintheta) / self.total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * np.square(costheta) / self.total_mass))
        xacc = temp - self.polemass_length * thetaacc * costheta / self.total_mass
        self.state = np.stack([x + self.tau * x_dot, x_dot + self.tau * xacc,
                               theta + self.tau * theta_dot, theta_dot + self.tau * thetaacc], axis=1)
        x, theta = self.state[:, 0], self.state[:, 2]
        terminated = ((x < -self.x_threshold) | (x > self.x_threshold)
                      | (theta < -self.theta_threshold) | (theta > self.theta_threshold))
        return self.state.copy(), terminated

    def episode_lengths(self, policy_batch: Callable, rng: np.random.Generator | None = None,
                        initial: np.ndarray | None = None) -> np.ndarray:
        """Run all n episodes with ``policy_batch(states (n, 4)) -> actions (n,)``; steps survived per copy.

        Starts from ``reset(rng)``, or from the given ``initial`` states (n, 4).  Counted like gymnasium's
        return: the terminating step counts, so each length lies in 1..max_steps.  Finished copies are frozen
        (so their states stay finite) and the run stops once all have finished.
        """
        if initial is None:
            if rng is None:
                raise ValueError("episode_lengths needs an rng or initial states")
            self.reset(rng)
        else:
            initial = np.array(initial, dtype=np.float64)
            if initial.shape != (self.n, 4):
                raise ValueError(f"initial states must have shape ({self.n}, 4), got {initial.shape}")
            self.state = initial
        lengths = np.zeros(self.n, dtype=np.int64)
        alive = np.ones(self.n, dtype=bool)
        for _ in range(self.max_steps):
            before = self.state
            _, terminated = self.step(np.asarray(policy_batch(before.copy())))
            lengths += alive
            self.state = np.where(alive[:, None], self.state, before)
            alive &= ~terminated
            if not alive.any():
                break
        return lengths
