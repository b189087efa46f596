"""The agreement chapter's budgets (issue 37):

* quick: the chapter's two figures together under 90 s on 2 cores from an empty model cache and an
  empty numba cache (a fresh clone's first build), run by the pipeline as `make book` runs them;
* the sweep at least 1.7x faster on two local worker processes than on one (the same records);
* full: under 4 hours on 2 cores, read from the recorded full run (data/runs/full.json) when there is
  one, else measured by running the full profile (--run-full).

    .venv/bin/python benchmarks/bench_agreement.py                  # quick budget and the speed-up
    .venv/bin/python benchmarks/bench_agreement.py --speed-up-profile full --run-full

The speed-up is measured on the sweep alone (`study.sweep_records`, the part `intellimetry.parallel`
spreads), on the design of `--speed-up-profile` (quick by default: about two minutes one at a time).
Exit status 1 when a target is missed.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from intellimetry import paths
from intellimetry.cache import MODEL_CACHE_ENV
from intellimetry.pipeline.registry import load_figure

QUICK_BUDGET_S = 90
FULL_BUDGET_S = 4 * 3600
TARGET_SPEED_UP = 1.7
FIGURES = ("agreement-fig01-matrix", "agreement-fig02-agreement")


def design_of(profile: str):
    # imported here, not at the top: the sweep's worker processes ("spawn") re-import this script, and
    # the study's imports (the AIQ chapter, torch) would add seconds to each worker's start
    from intellimetry.agreement.study import Design

    figure = load_figure(paths.NOTEBOOKS_DIR / "agreement" / f"{FIGURES[0]}.yaml")
    params = figure.resolve(profile)
    return Design(**{name: tuple(params[name]) if isinstance(params[name], list) else params[name]
                     for name in Design.__dataclass_fields__})


def chapter_seconds(profile: str) -> float:
    """Wall seconds of the pipeline running the chapter into empty figure, model and numba caches."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, MODEL_CACHE_ENV: f"{tmp}/models", "NUMBA_CACHE_DIR": f"{tmp}/numba"}
        command = [sys.executable, "-m", "intellimetry.pipeline", "--figures-dir", f"{tmp}/figures", "run",
                   *FIGURES, "--profile", profile]
        started = time.monotonic()
        if subprocess.run(command, env=env, cwd=paths.REPO_ROOT).returncode != 0:
            raise SystemExit(f"failed: {' '.join(command)}")
        return time.monotonic() - started


def sweep_seconds(design, workers: int) -> tuple[float, list]:
    from intellimetry.agreement.study import sweep_records

    started = time.monotonic()
    _, _, records = sweep_records(design, workers=workers, progress=False)
    return time.monotonic() - started, records


def recorded_full_seconds() -> float | None:
    """The recorded full run's notebook seconds, one figure after the other (an upper bound: the two
    figures ran side by side, the second reading the first's sweep from the model cache)."""
    record = paths.REPO_ROOT / "data" / "runs" / "full.json"
    if not record.exists():
        return None
    figures = json.loads(record.read_text(encoding="utf-8")).get("figures", {})
    times = [figures[f]["wall_time_s"] for f in FIGURES if f in figures and figures[f].get("wall_time_s")]
    return sum(times) if len(times) == len(FIGURES) else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed-up-profile", default="quick", choices=("smoke", "quick", "full"))
    parser.add_argument("--run-full", action="store_true",
                        help="measure the full profile instead of reading its record")
    args = parser.parse_args()
    missed = []

    quick = chapter_seconds("quick")
    print(f"quick, empty caches, 2 cores: {quick:.0f} s (budget {QUICK_BUDGET_S} s)")
    missed += [] if quick < QUICK_BUDGET_S else ["quick budget"]

    design = design_of(args.speed_up_profile)
    one, first = sweep_seconds(design, 1)
    two, second = sweep_seconds(design, 2)
    print(f"sweep ({args.speed_up_profile}): one worker {one:.0f} s, two workers {two:.0f} s, "
          f"speed-up {one / two:.2f}x (target {TARGET_SPEED_UP}x); records identical: {first == second}")
    missed += [] if one / two >= TARGET_SPEED_UP and first == second else ["speed-up"]

    full = chapter_seconds("full") if args.run_full else recorded_full_seconds()
    if full is None:
        print("full: no recorded run of both figures in data/runs/full.json (use --run-full)")
        missed.append("full (not measured)")
    else:
        print(f"full, 2 cores: {full:.0f} s (budget {FULL_BUDGET_S} s; a recorded run: its two figures' "
              "notebook times added)")
        missed += [] if full < FULL_BUDGET_S else ["full budget"]
    print("missed: " + ", ".join(missed) if missed else "every target met")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
