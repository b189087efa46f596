"""CartPole: gymnasium's CartPole-v1 with changed physics, a balancing controller, and its data as a domain."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from intellimetry.aiq.domains.domain import Domain, _check_fraction

# The environment itself is shared with the combined-tests chapter (intellimetry.cartpole); these names
# stay importable from here and from intellimetry.aiq.domains.
from intellimetry.cartpole import (  # noqa: F401
    CARTPOLE_ID,
    CARTPOLE_MAX_STEPS,
    cartpole_episode_return,
    check_cartpole_physics,
    make_cartpole,
)


def heuristic_policy(observation) -> int:
    """A deterministic balancing controller, the stand-in for the paper's trained agent.

    Push right (1) when ``theta + 0.5 theta_dot + 0.01 x + 0.1 x_dot > 0``, else left (0): the pole angle
    and its rate dominate; the small cart terms keep the cart from drifting off the track.
    """
    x, x_dot, theta, theta_dot = (float(v) for v in observation)
    return int(theta + 0.5 * theta_dot + 0.01 * x + 0.1 * x_dot > 0)


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
