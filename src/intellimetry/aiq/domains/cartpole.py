"""CartPole: gymnasium's CartPole-v1 with changed physics, a balancing controller, and its data as a domain."""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from intellimetry.aiq.domains.domain import Domain, _check_fraction

CARTPOLE_ID = "CartPole-v1"
CARTPOLE_MAX_STEPS = 200  # the paper's performance is t / 200


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


def heuristic_policy(observation) -> int:
    """A deterministic balancing controller, the stand-in for the paper's trained agent.

    Push right (1) when ``theta + 0.5 theta_dot + 0.01 x + 0.1 x_dot > 0``, else left (0): the pole angle
    and its rate dominate; the small cart terms keep the cart from drifting off the track.
    """
    x, x_dot, theta, theta_dot = (float(v) for v in observation)
    return int(theta + 0.5 * theta_dot + 0.01 * x + 0.1 * x_dot > 0)


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


def cartpole_classification(force_mag: float = 10.0, gravity: float = 9.8, policy: Callable = heuristic_policy,
                            episodes: int = 20, seed: int = 0, test_fraction: float = 0.25,
                            max_steps: int = CARTPOLE_MAX_STEPS) -> Domain:
    """CartPole as classification: the (observation -> action) pairs of ``policy`` over ``episodes`` episodes.

    Episode i is reset with seed ``seed * 100003 + i``.  Inputs are the 4-float observations (x, x_dot,
    theta, theta_dot), labels the actions (2 classes).  The split is by episode (consecutive states are
    near-duplicates): round(test_fraction * episodes) seeded-chosen episodes, at least one, form the test set.
    """
    test_fraction = _check_fraction(test_fraction)
    if int(episodes) != episodes or episodes < 2:
        raise ValueError(f"episodes must be an integer >= 2 (train and test episodes), got {episodes}")
    episodes = int(episodes)
    env = make_cartpole(force_mag, gravity, seed=seed, max_steps=max_steps)
    records, lengths = [], []
    try:
        for i in range(episodes):
            rec: list = []
            lengths.append(cartpole_episode_return(env, policy, seed=seed * 100003 + i, record=rec))
            records.append(rec)
    finally:
        env.close()
    n_test = min(episodes - 1, max(1, round(test_fraction * episodes)))
    test_ids = set(np.random.default_rng(seed).permutation(episodes)[:n_test].tolist())
    parts = []
    for ids in ([i for i in range(episodes) if i not in test_ids], sorted(test_ids)):
        pairs = [pair for i in ids for pair in records[i]]
        parts += [np.array([o for o, _ in pairs], dtype=np.float32).reshape(-1, 4),
                  np.array([a for _, a in pairs], dtype=np.int64)]
    who = getattr(policy, "__qualname__", None) or repr(policy)
    return Domain(f"cartpole(force={force_mag:g},gravity={gravity:g})", parts[0], parts[1], parts[2], parts[3], 2,
                  f"generated: observation -> action pairs of {who} on gymnasium {CARTPOLE_ID} with force_mag "
                  f"{force_mag:g}, gravity {gravity:g}, {episodes} episodes of at most {max_steps} steps "
                  f"(mean length {np.mean(lengths):.1f}); stand-in for the paper's trained-agent data; seed {seed}")
