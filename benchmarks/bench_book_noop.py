"""A second `make book` with nothing changed: no notebook runs, and the whole build takes < 30 s.

    .venv/bin/python benchmarks/bench_book_noop.py [--profile quick] [--repeats 3]
"""
from __future__ import annotations

import argparse
import io
import statistics
import sys
import time

from intellimetry import paths
from intellimetry.book.build import assemble, render
from intellimetry.pipeline.project import Project
from intellimetry.pipeline.runner import run

TARGET_S = 30.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    project = Project.at()
    run(project, [], profile=args.profile, out=io.StringIO())  # make sure everything is built once
    timings, executed = [], []
    for _ in range(args.repeats):
        started = time.monotonic()
        executed += run(project, [], profile=args.profile, out=io.StringIO())
        planned = time.monotonic()
        assemble(project, paths.BOOK_DIR, args.profile)
        render(paths.BOOK_DIR)
        timings.append((planned - started, time.monotonic() - started))
    plan_s = statistics.median(t[0] for t in timings)
    total_s = statistics.median(t[1] for t in timings)
    print(f"no-op book build ({args.profile}, {len(project.figures())} figures): "
          f"median {total_s:.2f} s (hashing and planning {plan_s:.2f} s), "
          f"notebooks executed: {len(executed)}; target < {TARGET_S:.0f} s with none executed")
    return 0 if total_s < TARGET_S and not executed else 1


if __name__ == "__main__":
    sys.exit(main())
