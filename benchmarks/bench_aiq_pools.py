"""AIQ pool training speed: one MCCP pool of random networks on the digits, 1 worker vs 2.

The pool is the quick profile's (24 fully connected networks, 1-3 hidden layers of 1-32 units, 40
full-batch Adam epochs) on scikit-learn's digits, trained into a fresh temporary cache, once in
this process and once in 2 spawned worker processes (results must be identical). The spawn cost
(each worker imports torch) is part of the 2-worker time. Goal: the pool in < 10 s on one core, and
2 workers at least 1.3x faster than 1 for a 96-network pool on a 2-core machine.

    .venv/bin/python benchmarks/bench_aiq_pools.py [--agents 96] [--workers 2]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time

from intellimetry.aiq.domains import load_domain
from intellimetry.aiq.study import PoolSpec
from intellimetry.aiq.pools import run_pool

GOAL_POOL_SECONDS = 10.0
GOAL_SPEEDUP = 1.3


def timed_pool(data, spec: PoolSpec, workers: int):
    with tempfile.TemporaryDirectory() as cache:
        started = time.perf_counter()
        results = run_pool(data, spec.architectures(), spec.budget(), spec.pool_seed(0), cache, workers=workers,
                           progress=False)
        return time.perf_counter() - started, results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=96, help="networks in the pool timed for the speed-up")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    data = load_domain("digits")
    quick = PoolSpec(agents=24)
    one_pool, _ = timed_pool(data, quick, 1)
    print(f"quick pool (24 networks, 1 worker): {one_pool:.1f} s ({one_pool / 24 * 1000:.0f} ms per network); "
          f"goal < {GOAL_POOL_SECONDS:.0f} s")
    big = PoolSpec(agents=args.agents)
    serial, a = timed_pool(data, big, 1)
    parallel, b = timed_pool(data, big, args.workers)
    speedup = serial / parallel
    print(f"{args.agents} networks: 1 worker {serial:.1f} s, {args.workers} workers {parallel:.1f} s, "
          f"speed-up {speedup:.2f}x (goal >= {GOAL_SPEEDUP}x); identical results: {a == b}")
    return 0 if one_pool < GOAL_POOL_SECONDS and speedup >= GOAL_SPEEDUP and a == b else 1


if __name__ == "__main__":
    sys.exit(main())
