"""AGITB at paper scale: run time per test at SimulatedInfinity = 5000.

Goal: the order-1 lookup model's whole suite ("run every test" mode) in under 5 minutes on one
core. Also times a learning model. Prints each test's verdict and time, and the total.

    .venv/bin/python benchmarks/bench_agitb.py [--models order-1,online-bits] [--simulated-infinity 5000]
"""
from __future__ import annotations

import argparse
import time

from intellimetry.agitb.axioms import Settings, run_suite
from intellimetry.agitb.models import load_model

GOAL_S = 300.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--models", default="order-1,online-bits")
    parser.add_argument("--simulated-infinity", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    settings = Settings(simulated_infinity=args.simulated_infinity)
    totals = {}
    for name in args.models.split(","):
        started = time.monotonic()
        print(f"{name}, SimulatedInfinity = {settings.simulated_infinity}:", flush=True)
        run_suite(load_model(name), settings, args.seed, progress=lambda r: print(
            f"  {r.number:>2}. {r.name:<28} {r.verdict:<12} {r.seconds:8.1f} s  ({r.repetitions_run} repetitions)",
            flush=True))
        totals[name] = time.monotonic() - started
        print(f"  total {totals[name]:.0f} s", flush=True)
    order1 = totals.get("order-1")
    if order1 is not None:
        print(f"order-1 whole suite: {order1:.0f} s; goal < {GOAL_S:.0f} s")
        return 0 if order1 < GOAL_S else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
