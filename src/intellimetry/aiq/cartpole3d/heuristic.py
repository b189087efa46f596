"""Episodes of CartPole3D: running a policy, a hand-written balancing controller and a random agent.

`heuristic_policy` is a PD controller: it wants to push along x by the pole's pitch and its rate,
along y by minus its roll and its rate (a pole leaning toward -y has positive roll), plus small
terms on the cart's position and velocity that walk the cart back toward the arena's centre (the
same sign as the angle terms, as in the linear-quadratic regulator of the cart-pole: pushing the
cart away first tips the pole toward the centre, and catching it moves the cart there). One action
per tick, so it pushes along whichever axis wants it more. It ignores the blocks.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from intellimetry.aiq.cartpole3d.env import CartPole3DEnv
from intellimetry.checks import check_int

# gains (per radian, per rad/s, per metre, per m/s); tuned by hand on novelty 0
ANGLE_GAIN = 1.0
RATE_GAIN = 0.3
POSITION_GAIN = 0.02
VELOCITY_GAIN = 0.05
DEADBAND = 0.002


def heuristic_policy(obs) -> int:
    """The action (0-4) a PD controller on the pole's pitch / roll picks for observation `obs`."""
    x, y, vx, vy, roll, pitch, _, wx, wy, _ = obs[:10].tolist()  # Python floats: faster arithmetic
    push_x = ANGLE_GAIN * pitch + RATE_GAIN * wy + POSITION_GAIN * x + VELOCITY_GAIN * vx
    push_y = -(ANGLE_GAIN * roll + RATE_GAIN * wx) + POSITION_GAIN * y + VELOCITY_GAIN * vy
    if max(abs(push_x), abs(push_y)) < DEADBAND:
        return 0
    if abs(push_x) >= abs(push_y):
        return 1 if push_x > 0 else 2  # right (+x) or left (-x)
    return 3 if push_y > 0 else 4  # forward (+y) or backward (-y)


def random_policy(seed: int) -> Callable:
    """A policy that picks one of the five actions uniformly at random (its own seeded generator)."""
    rng = np.random.default_rng(seed)
    return lambda obs: int(rng.integers(5))


def run_episode(env: CartPole3DEnv, policy: Callable, seed: int | None = None, options: dict | None = None) -> int:
    """Ticks the pole stays up (1..max_steps) when `policy(obs) -> action` drives `env`."""
    obs, _ = env.reset(seed=seed, options=options)
    while True:
        obs, _, terminated, truncated, info = env.step(policy(obs))
        if terminated or truncated:
            return info["tick"]


POLICIES = ("nothing", "random", "heuristic")


def episode_seed(seed: int, episode: int) -> int:
    """The seed of episode `episode` of a run seeded `seed` (shared by every novelty and policy)."""
    return seed * 100_003 + episode


def episode_ticks(novelty: int, level: str, policy: str, episodes: int, seed: int, max_steps: int = 200,
                  env: CartPole3DEnv | None = None) -> np.ndarray:
    """Ticks the pole stays up in each of `episodes` seeded episodes of `policy`: "nothing" (action 0
    every tick), "random" (uniform actions, seeded per episode) or "heuristic" (the PD controller).
    Episode seeds are shared across novelties and policies, so every novelty and policy starts from the
    same cart, pole and block draws where it can (paired comparisons). ``env``: an environment to reuse
    (its episodes then run this novelty and level through reset options)."""
    check_int("episodes", episodes, 1)
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; allowed: {', '.join(POLICIES)}")
    own = env is None
    env = CartPole3DEnv(novelty, level, max_steps=max_steps, observed_blocks=0) if own else env
    try:
        ticks = []
        for episode in range(episodes):
            act = {"nothing": lambda obs: 0, "heuristic": heuristic_policy}.get(policy) \
                or random_policy(episode_seed(seed, episode))
            ticks.append(run_episode(env, act, seed=episode_seed(seed, episode),
                                     options={"novelty": novelty, "level": level}))
    finally:
        if own:
            env.close()
    return np.array(ticks)


def mean_performance(novelty: int, level: str, policy: str, episodes: int, seed: int,
                     max_steps: int = 200) -> float:
    """Mean ticks / max_steps of `policy` (see `episode_ticks`) over `episodes` seeded episodes."""
    return float(episode_ticks(novelty, level, policy, episodes, seed, max_steps).mean()) / max_steps
