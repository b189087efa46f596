"""CartPole3D agents' speed: seconds per episode of each agent in a trial and the DQN baseline's training
steps per second, on one core.

Times the quick profile's DQN training (15k steps, fresh temporary cache), then one trial per agent
(novelty 14, easy: 3 episodes without novelty, 5 with) and prints seconds per episode and per tick. Goals: DQN
training at least 300 steps/s on a shared core (the quick baseline in under a minute); every agent's episode
under 1 s (the retraining DQN's include its online updates).

    taskset -c 0 .venv/bin/python benchmarks/bench_cartpole3d_agents.py [--steps 15000] [--novelty 14]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time

from intellimetry.aiq.cartpole3d.agents import (
    DQNAgent,
    DQNSettings,
    HeuristicAgent,
    RandomAgent,
    RetrainingAgent,
    RetrainSettings,
    baseline_dqn,
    fit_planner,
)
from intellimetry.aiq.cartpole3d.apti import TrialSettings, run_trial

GOAL_STEPS_PER_SECOND = 300.0
GOAL_EPISODE_SECONDS = 1.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=15_000, help="DQN training steps timed")
    parser.add_argument("--novelty", type=int, default=14, help="novelty of the timed trials (easy)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as cache:
        trained = baseline_dqn(DQNSettings(steps=args.steps), seed=0, cache_dir=cache, progress=False)
    rate = args.steps / trained.seconds
    print(f"DQN baseline: {args.steps} steps in {trained.seconds:.1f} s = {rate:.0f} steps/s "
          f"(incl. 20 evaluation episodes; goal >= {GOAL_STEPS_PER_SECOND:.0f}); novelty-0 performance "
          f"{trained.performance:.2f}")
    started = time.perf_counter()
    planner = fit_planner(seed=0)
    print(f"planner fit (30 novelty-0 episodes): {time.perf_counter() - started:.1f} s")
    agents = {"DQN baseline": DQNAgent(trained.network), "retraining DQN": RetrainingAgent(trained, RetrainSettings()),
              "model-based planner": planner, "heuristic": HeuristicAgent(), "random": RandomAgent()}
    settings = TrialSettings(pre_episodes=3, post_episodes=5, final_episodes=3)
    episodes = settings.pre_episodes + settings.post_episodes
    print(f"{'agent':<22}{'s / episode':>12}{'ms / tick':>11}{'mean P':>8}")
    ok = rate >= GOAL_STEPS_PER_SECOND
    for name, agent in agents.items():
        result = run_trial(agent, args.novelty, "easy", seed=1, settings=settings)
        ticks = sum(result.performances) * settings.max_steps
        per_episode = result.seconds / episodes
        print(f"{name:<22}{per_episode:>12.3f}{result.seconds / ticks * 1000:>11.2f}{result.performance:>8.2f}")
        ok = ok and per_episode < GOAL_EPISODE_SECONDS
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
