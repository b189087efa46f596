"""AIQ RL pool speed: CartPole pools whose networks learn the task by the cross-entropy method.

2-D: one quick-profile pool of Fig. 7 (15 random networks, 1-3 hidden layers of 1-32 units, CEM 10
iterations x 16 candidates x 4 episodes, scored over 20 fresh episodes) at force 10, into a fresh
temporary cache; goal < 5 s of CPU on one core (so Figs. 7-8 stay near a minute from an empty cache).
3-D: one CartPole3D pool member (4-8-5 network seeing the 10 state numbers, novelty 3, easy) with
population 16, 1 episode per candidate, 6 iterations and 4 scoring episodes (at most 100 PyBullet
episodes); goal < 10 s. CPU seconds are judged (the wall seconds are printed too: a shared core
inflates them).

    taskset -c 0 .venv/bin/python benchmarks/bench_aiq_rl_pools.py
"""
from __future__ import annotations

import sys
import tempfile
import time

from intellimetry.aiq.policy_search import CartPole2DTask, CEMBudget, GymTask, rl_pool, train_policy
from intellimetry.aiq.pools import Architecture
from intellimetry.aiq.study import PoolSpec

GOAL_POOL_CPU = 5.0
GOAL_MEMBER_3D_CPU = 10.0


def timed(work):
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def main() -> int:
    spec = PoolSpec(agents=15)
    with tempfile.TemporaryDirectory() as cache:
        wall, cpu, pool = timed(lambda: rl_pool(CartPole2DTask(), spec.architectures(), CEMBudget(10, 16, 4),
                                                spec.pool_seed(0), cache, progress=False))
    mean = sum(a.control for a in pool) / len(pool)
    print(f"2-D pool (15 networks): {cpu:.1f} s CPU ({wall:.1f} s wall), mean t/200 {mean:.2f}; "
          f"goal < {GOAL_POOL_CPU:.0f} s CPU")
    task = GymTask("intellimetry/CartPole3D-v0", {"novelty": 3, "level": "easy"}, inputs=10)
    budget = CEMBudget(6, 16, 1, final_episodes=4)
    wall3, cpu3, (result, _) = timed(lambda: train_policy(task, Architecture("mlp", 1, 8), budget, seed=0))
    print(f"CartPole3D member ({budget.iterations * budget.population * budget.episodes + budget.final_episodes} "
          f"episodes at most): {cpu3:.1f} s CPU ({wall3:.1f} s wall), t/200 {result.control:.2f}; "
          f"goal < {GOAL_MEMBER_3D_CPU:.0f} s CPU")
    return 0 if cpu < GOAL_POOL_CPU and cpu3 < GOAL_MEMBER_3D_CPU else 1


if __name__ == "__main__":
    sys.exit(main())
