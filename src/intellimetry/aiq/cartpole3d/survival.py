"""How long the pole stays up without a learned agent, at novelty 0 and at every novelty.

Three policies that learn nothing: doing nothing, uniformly random actions and the hand-written PD
controller (:func:`intellimetry.aiq.cartpole3d.heuristic_policy`). Each runs the same seeded episodes on
every novelty (the same cart, pole and block draws where a novelty does not change them), so a
novelty's effect is a paired difference from novelty 0, with a 95 % percentile bootstrap interval over
the episodes. A novelty makes the task *easier* for a policy when that interval lies above zero.
"""
from __future__ import annotations

import numpy as np

from intellimetry.aiq.cartpole3d.env import CartPole3DEnv
from intellimetry.aiq.cartpole3d.heuristic import POLICIES, episode_ticks
from intellimetry.aiq.cartpole3d.novelties import LEVELS, NOVELTIES
from intellimetry.checks import check_choice, check_int
from intellimetry.parallel import parallel_map


def _interval(samples, resamples: int, seed: int) -> dict:
    """The mean with its 95 % percentile bootstrap interval (the resamples drawn at once: the episodes are
    many and the statistic a mean, so one array operation replaces a loop of resamples)."""
    samples = np.asarray(samples, dtype=float)
    rng = np.random.default_rng(seed)
    means = samples[rng.integers(0, samples.size, (resamples, samples.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return {"estimate": float(samples.mean()), "low": float(low), "high": float(high)}


def _ticks(settings: tuple, novelty: int) -> dict:
    """{policy: ticks per episode} at one novelty, every policy in one environment."""
    level, episodes, seed, policies = settings
    env = CartPole3DEnv(novelty, level, observed_blocks=0)
    try:
        return {policy: episode_ticks(novelty, level, policy, episodes, seed, env=env).tolist() for policy in policies}
    finally:
        env.close()


def survival_table(novelties=tuple(range(1, 17)), level: str = "easy", episodes: int = 100, seed: int = 0,
                   policies=POLICIES, resamples: int = 2000, workers: int = 1, progress: bool = False) -> dict:
    """Ticks survived by each policy at novelty 0 and at each of `novelties` (at `level`), over `episodes`
    seeded episodes each: per policy and novelty the ticks, their mean with its interval, and for every
    novelty the paired difference of means from novelty 0 with its interval; ``easier`` / ``harder``
    list, per policy, the novelties whose difference interval lies above / below zero."""
    check_choice("level", level, LEVELS)
    check_int("episodes", episodes, 2)
    novelties = [int(n) for n in novelties]
    if any(n not in NOVELTIES or n == 0 for n in novelties):
        raise ValueError(f"novelties must be ids 1..16, got {novelties}")
    for policy in policies:
        check_choice("policy", policy, POLICIES)
    jobs = [0, *novelties]
    results = parallel_map(_ticks, jobs, workers=workers, shared=(level, episodes, seed, tuple(policies)),
                           desc="survival", progress=progress)
    ticks = {policy: {str(n): row[policy] for n, row in zip(jobs, results)} for policy in policies}
    out = {"level": level, "episodes": episodes, "seed": seed, "policies": list(policies),
           "novelties": [0, *novelties], "ticks": ticks, "mean": {}, "versus_baseline": {}, "easier": {},
           "harder": {}}
    for policy in policies:
        base = np.array(ticks[policy]["0"], dtype=float)
        out["mean"][policy] = {key: _interval(row, resamples, seed) for key, row in ticks[policy].items()}
        out["versus_baseline"][policy] = {
            str(n): _interval(np.array(ticks[policy][str(n)], dtype=float) - base, resamples, seed) for n in novelties}
        out["easier"][policy] = [n for n in novelties if out["versus_baseline"][policy][str(n)]["low"] > 0]
        out["harder"][policy] = [n for n in novelties if out["versus_baseline"][policy][str(n)]["high"] < 0]
    return out


def survival_text(table: dict, policy: str, novelty: int) -> str:
    """'mean [low, high]' ticks of `policy` at `novelty`, for a table cell."""
    cell = table["mean"][policy][str(novelty)]
    return f"{cell['estimate']:.0f} [{cell['low']:.0f}, {cell['high']:.0f}]"
