"""SAIL-ON trials on CartPole3D and the paper's APTI score (Section 3.4.2).

A trial is ``pre_episodes`` episodes without novelty, then ``post_episodes`` episodes with one novelty
(id, level) switched on at an environment reset, the agent not told. Its performance P is the mean of
ticks / max_steps over the trial's final ``final_episodes`` episodes. The Asymptotic Performance Task
Improvement compares an agent with the non-novelty-aware baseline run through the same trial seeds:

    APTI = P_agent / (P_agent + P_baseline)

so 0.5 is the baseline's level, 1 means the baseline scored 0, 0 means the agent scored 0.

Every trial starts from a fresh copy of the agent's pre-trained state, so trials are independent; the
episode seeds of trial t come from (seed, t) alone, so the pre-novelty episodes are the same for every
novelty and every agent (common random numbers). Trials run through the shared parallel map; the results
do not depend on the number of workers.
"""
from __future__ import annotations

import copy
import math
import time
from dataclasses import asdict, dataclass
from typing import Mapping, Sequence

import numpy as np

from intellimetry.aiq.cartpole3d import LEVELS, NOVELTIES
from intellimetry.aiq.cartpole3d.agents import Agent, RandomAgent, TrainedDQN, evaluate_agent, state_env
from intellimetry.aiq.pools import stable_seed
from intellimetry.checks import check_choice, check_float, check_int
from intellimetry.parallel import parallel_map
from intellimetry.stats import mean_interval

BASELINE = "baseline"


def apti(p_agent: float, p_baseline: float) -> float:
    """P_agent / (P_agent + P_baseline); 0.5 when both are 0 (a tie)."""
    p_agent = check_float("p_agent", p_agent, 0, 1)
    p_baseline = check_float("p_baseline", p_baseline, 0, 1)
    total = p_agent + p_baseline
    return 0.5 if total == 0 else p_agent / total


@dataclass(frozen=True)
class TrialSettings:
    pre_episodes: int = 5
    post_episodes: int = 10
    final_episodes: int = 5
    max_steps: int = 200

    def __post_init__(self):
        check_int("pre_episodes", self.pre_episodes, 0)
        check_int("post_episodes", self.post_episodes, 1)
        check_int("final_episodes", self.final_episodes, 1, self.post_episodes)
        check_int("max_steps", self.max_steps, 1)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class TrialResult:
    performances: tuple[float, ...]  # ticks / max_steps of every episode, pre-novelty ones first
    performance: float               # P: mean over the final episodes
    detected_episode: int | None     # trial episode (from 0) in which the agent first reported novelty
    detected_tick: int | None        # tick of that episode
    seconds: float


def baseline_check(trained: TrainedDQN, seed: int, level: str = "easy") -> dict:
    """Did the baseline learn? Its performance beside random actions' over as many episodes without
    novelty: APTI divides by the baseline, so one that never beat random play leaves nothing to measure."""
    random_performance = evaluate_agent(RandomAgent(), trained.settings.eval_episodes, seed, level=level)
    return {"performance": trained.performance, "random_performance": random_performance,
            "above_random": trained.performance - random_performance}


def trial_seed(seed: int, trial: int) -> int:
    """The seed of trial `trial`: its episodes' seeds and the agent's own seed derive from it."""
    return stable_seed("aiq-cartpole3d-trial", int(seed), int(trial))


def run_trial(agent: Agent, novelty: int, level: str, seed: int, settings: TrialSettings = TrialSettings()
              ) -> TrialResult:
    """One trial of a fresh copy of `agent`: novelty 0, then `novelty` at `level` from episode
    `settings.pre_episodes` on."""
    check_choice("novelty", novelty, NOVELTIES)
    check_choice("level", level, LEVELS)
    started = time.perf_counter()
    agent = copy.deepcopy(agent)
    agent.start_trial(stable_seed("aiq-cartpole3d-agent", seed))
    rng = np.random.default_rng(seed)
    env = state_env(0, level, settings.max_steps)
    performances, detection = [], None
    for episode in range(settings.pre_episodes + settings.post_episodes):
        options = {"novelty": novelty if episode >= settings.pre_episodes else 0, "level": level}
        obs, _ = env.reset(seed=int(rng.integers(0, 2**31 - 1)), options=options)
        ticks, done = 0, False
        while not done:
            action = agent.act(obs)
            next_obs, _, terminated, truncated, _ = env.step(action)
            ticks += 1
            agent.observe(obs, action, next_obs, terminated)
            obs, done = next_obs, terminated or truncated
            if done:
                agent.end_episode(ticks)
            if detection is None and agent.detected:
                detection = (episode, ticks)
        performances.append(ticks / settings.max_steps)
    env.close()
    final = float(np.mean(performances[-settings.final_episodes:]))
    return TrialResult(tuple(performances), final, *(detection or (None, None)), time.perf_counter() - started)


@dataclass(frozen=True)
class APTIResult:
    """One agent on one novelty over all trials."""

    agent: str
    novelty: int
    level: str
    apti: tuple[float, ...]                # per trial
    mean: float
    low: float                             # 95 % t interval of the mean over trials (NaN with one trial)
    high: float
    performance: tuple[float, ...]         # P_agent per trial
    baseline_performance: tuple[float, ...]
    detected_episode: tuple[int | None, ...]
    detected_tick: tuple[int | None, ...]
    seconds: float                         # wall time of the agent's trials

    def to_dict(self) -> dict:
        return asdict(self)


def _interval(values: Sequence[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        return float(values[0]), math.nan, math.nan
    interval = mean_interval(values)
    return interval.estimate, interval.low, interval.high


def run_apti(agents: Mapping[str, Agent], baseline: Agent, novelties: Sequence[int], level: str = "easy",
             trials: int = 3, settings: TrialSettings = TrialSettings(), seed: int = 0, workers: int = 1,
             progress: bool = True) -> list[APTIResult]:
    """APTI of every agent (and of the baseline itself, 0.5 by construction) on every novelty at `level`.

    Results are ordered baseline first, then `agents` in their order, each over `novelties` in order.
    Trials run through :func:`intellimetry.parallel.parallel_map` (``workers`` spawned processes, or the
    Dask cluster in use; a script needs the ``if __name__ == "__main__":`` guard); results are identical
    to ``workers=1``."""
    if BASELINE in agents:
        raise ValueError(f"agent name {BASELINE!r} is reserved for the baseline; rename that agent")
    for n in novelties:
        check_choice("novelty", n, NOVELTIES)
    check_choice("level", level, LEVELS)
    trials = check_int("trials", trials, 1)
    workers = check_int("workers", workers, 1)
    seed = check_int("seed", seed, 0)
    everyone = {BASELINE: baseline, **agents}
    tasks = [(name, n, t) for name in everyone for n in novelties for t in range(trials)]
    jobs = [(name, n, level, trial_seed(seed, t), settings) for name, n, t in tasks]
    outcomes = dict(zip(tasks, parallel_map(_trial_task, jobs, workers=workers, shared=everyone,
                                            desc="CartPole3D trials", progress=progress)))

    results = []
    for name in everyone:
        for n in novelties:
            mine = [outcomes[(name, n, t)] for t in range(trials)]
            theirs = [outcomes[(BASELINE, n, t)] for t in range(trials)]
            scores = [apti(a.performance, b.performance) for a, b in zip(mine, theirs)]
            mean, low, high = _interval(scores)
            results.append(APTIResult(
                name, n, level, tuple(scores), mean, low, high, tuple(a.performance for a in mine),
                tuple(b.performance for b in theirs), tuple(a.detected_episode for a in mine),
                tuple(a.detected_tick for a in mine), sum(a.seconds for a in mine)))
    return results


def _trial_task(everyone: Mapping[str, Agent], task: tuple[str, int, str, int, TrialSettings]) -> TrialResult:
    """One trial of one agent, wherever parallel_map runs it."""
    name, novelty, level, seed, settings = task
    return run_trial(everyone[name], novelty, level, seed, settings)
