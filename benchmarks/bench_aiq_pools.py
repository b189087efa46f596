"""AIQ pool training speed: the quick profile's pool on one core, and a full-profile pool, 1 worker vs 2.

Quick: 24 fully connected networks (1-3 hidden layers of 1-32 units, 40 full-batch Adam epochs) on
scikit-learn's digits. Full: the full profile's convolutional pool on the 10-class shapes (the
CIFAR-10 stand-in), trained once in this process and once in spawned worker processes (results
must be identical; the spawn cost, each worker importing torch, counts). Every pool trains into a
fresh temporary cache. Goals: the quick pool in < 10 s on one core; 2 workers at least 1.3x faster
than 1 on a 2-core machine.

    .venv/bin/python benchmarks/bench_aiq_pools.py [--agents 96] [--workers 2]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time

from intellimetry.aiq.domains import load_domain
from intellimetry.aiq.pools import run_pool
from intellimetry.aiq.study import PoolSpec

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
    shapes = load_domain("shapes10")
    full = PoolSpec(agents=args.agents, kind="conv")
    serial, a = timed_pool(shapes, full, 1)
    parallel, b = timed_pool(shapes, full, args.workers)
    speedup = serial / parallel
    print(f"{args.agents} conv networks on shapes10: 1 worker {serial:.1f} s, {args.workers} workers {parallel:.1f} s, "
          f"speed-up {speedup:.2f}x (goal >= {GOAL_SPEEDUP}x); identical results: {a == b}")
    return 0 if one_pool < GOAL_POOL_SECONDS and speedup >= GOAL_SPEEDUP and a == b else 1


if __name__ == "__main__":
    sys.exit(main())
