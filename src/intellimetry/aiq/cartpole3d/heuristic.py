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
from intellimetry.aiq.cartpole3d.novelties import LEVELS, NOVELTIES
from intellimetry.checks import check_int

# gains (per radian, per rad/s, per metre, per m/s); tuned by hand on novelty 0
ANGLE_GAIN = 1.0
RATE_GAIN = 0.3
POSITION_GAIN = 0.02
VELOCITY_GAIN = 0.05
DEADBAND = 0.002


def heuristic_policy(obs) -> int:
    """The action (0-4) a PD controller on the pole's pitch / roll picks for observation `obs`."""
    x, y, vx, vy, roll, pitch, _, wx, wy, _ = (float(v) for v in obs[:10])
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


def mean_performance(novelty: int, level: str, policy: str, episodes: int, seed: int,
                     max_steps: int = 200) -> float:
    """Mean ticks / max_steps of `policy` ("heuristic" or "random") over `episodes` seeded episodes."""
    check_int("episodes", episodes, 1)
    env = CartPole3DEnv(novelty, level, max_steps=max_steps, observed_blocks=0)
    try:
        ticks = []
        for episode in range(episodes):
            act = heuristic_policy if policy == "heuristic" else random_policy(seed * 100_003 + episode)
            if policy not in ("heuristic", "random"):
                raise ValueError(f"unknown policy {policy!r}; allowed: heuristic, random")
            ticks.append(run_episode(env, act, seed=seed * 100_003 + episode))
    finally:
        env.close()
    return float(np.mean(ticks)) / max_steps


def performance_table(episodes: int, seed: int, policies=("heuristic", "random")) -> dict:
    """Mean performance of each policy on every novelty and level: {policy: {novelty: {level: p}}}.

    Novelty 0 (no change) is measured once, under "easy". Episode seeds are shared across
    novelties, so every novelty starts from the same cart, pole and block draws where it can.
    """
    table = {}
    for policy in policies:
        table[policy] = {novelty: {level: mean_performance(novelty, level, policy, episodes, seed)
                                   for level in (LEVELS[:1] if novelty == 0 else LEVELS)}
                         for novelty in NOVELTIES}
    return table
