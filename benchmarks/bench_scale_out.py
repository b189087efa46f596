"""A chapter run one notebook at a time and on a local Dask cluster: the speed-up, and identical values.

    .venv/bin/python benchmarks/bench_scale_out.py                    # SOC on the full profile
    .venv/bin/python benchmarks/bench_scale_out.py --profile quick    # a short check that it works
    .venv/bin/python benchmarks/bench_scale_out.py --keep-figures     # and keep the sequential run's figures
    .venv/bin/python benchmarks/bench_scale_out.py --timings          # and each recorded run time, both ways
    .venv/bin/python benchmarks/bench_scale_out.py --rounds 3         # three pairs of runs, the median speed-up

--keep-figures copies the one-at-a-time run's figures into the project's figures/<profile>/ (the
runner's hashes with them, so they count as up to date there), from where
`python -m intellimetry.book record --profile full` can record them.

Target: `--scheduler local:2` at least 1.7x faster than `--jobs 1` on 2 cores, with every figure's
statistics and verdicts identical (as `python -m intellimetry.book record` keeps them; the sidecars'
other values are compared too and their differences listed: run times such as `total_seconds` differ).
Each run writes into its own temporary figures folder and model cache (INTELLIMETRY_CACHE_DIR), so both
start from nothing, and each is timed as a user meets it (the runner's start and, for the cluster,
starting the LocalCluster included).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from intellimetry import CHAPTERS, paths
from intellimetry.book.runs import figure_entry
from intellimetry.pipeline.project import Project
from intellimetry.pipeline.schedule import available_cores

TARGET_SPEED_UP = 1.7


def timed_run(folder: Path, profile: str, paper: str, how: list[str]) -> float:
    """Run the paper's figures into folder/figures with folder/cache as the model cache; the wall seconds."""
    env = {**os.environ, "INTELLIMETRY_CACHE_DIR": str(folder / "cache")}
    env.pop("INTELLIMETRY_MODEL_CACHE", None)
    command = [sys.executable, "-m", "intellimetry.pipeline", "--figures-dir", str(folder / "figures"), "run",
               "--profile", profile, "--paper", paper, *how]
    print("$ " + " ".join(command), flush=True)
    started = time.monotonic()
    if subprocess.run(command, env=env, cwd=paths.REPO_ROOT).returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}")
    return time.monotonic() - started


def results(folder: Path, profile: str, paper: str) -> dict[str, dict]:
    """{figure id: {"judged": its statistics and verdicts, "values": its sidecar's values}} of one run."""
    project = Project.at(figures_dir=folder / "figures")
    found = {}
    for sidecar in sorted(paths.paper_dir(project.figures_dir, paper, profile).glob("*.json")):
        fig_id = json.loads(sidecar.read_text(encoding="utf-8"))["figure_id"]
        entry = figure_entry(project, profile, fig_id)
        found[fig_id] = {"judged": {key: entry[key] for key in ("statistics", "verdicts")},
                         "values": json.loads(sidecar.read_text(encoding="utf-8")).get("values")}
    return found


def differing_keys(a, b, prefix: str = "") -> list[str]:
    """The dotted keys at which two nested values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [key for name in sorted(a.keys() | b.keys(), key=str)
                for key in differing_keys(a.get(name), b.get(name), f"{prefix}{name}.")]
    return [] if a == b else [prefix.rstrip(".") or "(all)"]


def value_at(values: dict, dotted: str):
    """The value at a dotted key of differing_keys."""
    for name in dotted.split("."):
        values = values[name]
    return values


def one_round(args, keep_figures: bool) -> dict:
    """Both runs, each from nothing in its own temporary folder: their seconds and results."""
    with tempfile.TemporaryDirectory(prefix="bench-scale-out-") as tmp:
        sequential, clustered = Path(tmp) / "sequential", Path(tmp) / "cluster"
        one_at_a_time = timed_run(sequential, args.profile, args.paper, ["--jobs", "1"])
        on_cluster = timed_run(clustered, args.profile, args.paper, ["--scheduler", f"local:{args.workers}"])
        if keep_figures:
            kept = Project.at().figures_dir / args.profile
            shutil.copytree(sequential / "figures" / args.profile, kept, dirs_exist_ok=True)
            print(f"kept the one-at-a-time run's figures in {kept}")
        return {"sequential": one_at_a_time, "cluster": on_cluster,
                "expected": results(sequential, args.profile, args.paper),
                "got": results(clustered, args.profile, args.paper)}


def report_values(expected: dict, got: dict, timings: bool) -> list[str]:
    """The figures whose statistics or verdicts differ between the runs (printing how the values differ)."""
    judged_differ = sorted(fig_id for fig_id in expected.keys() | got.keys()
                           if (expected.get(fig_id) or {}).get("judged") != (got.get(fig_id) or {}).get("judged"))
    print("  statistics and verdicts: " + (f"differ in {', '.join(judged_differ)}" if judged_differ else "identical"))
    for fig_id in sorted(expected.keys() & got.keys()):
        keys = differing_keys(expected[fig_id]["values"], got[fig_id]["values"])
        run_times = [key for key in keys if key.rsplit(".", 1)[-1].endswith(("seconds", "_s"))]
        others = [key for key in keys if key not in run_times]
        text = f"differ in {', '.join(others)}" if others else "identical"
        if run_times:
            text += f"{' and' if others else ' except'} {len(run_times)} run time(s) (e.g. {run_times[0]})"
        print(f"  {fig_id} values: {text}")
        if timings:
            for key in run_times:
                before, after = (value_at(run[fig_id]["values"], key) for run in (expected, got))
                print(f"    {key}: {before:.1f} s one at a time, {after:.1f} s on the cluster")
    return judged_differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", default="full", choices=("quick", "full", "smoke"))
    parser.add_argument("--paper", default="soc", choices=CHAPTERS)
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the LocalCluster (default 2)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="pairs of runs; the speed-up judged is their median (on a shared machine one pair's "
                             "ratio moved between 1.43x and 1.94x from one pair to the next)")
    parser.add_argument("--timings", action="store_true",
                        help="list every run time a sidecar records (each system's seconds), both runs side by side")
    parser.add_argument("--keep-figures", action="store_true",
                        help="copy the first one-at-a-time run's figures into the project's figures folder")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    rounds = []
    for number in range(1, args.rounds + 1):
        print(f"round {number} of {args.rounds}", flush=True)
        rounds.append(one_round(args, keep_figures=args.keep_figures and number == 1))
    print(f"\n{args.paper}, {args.profile} profile, {len(rounds[0]['expected'])} figure(s), "
          f"on {available_cores()} core(s):")
    for number, run in enumerate(rounds, 1):
        print(f"  round {number}: one at a time (--jobs 1) {run['sequential']:.0f} s, "
              f"--scheduler local:{args.workers} {run['cluster']:.0f} s: {run['sequential'] / run['cluster']:.2f}x")
    speed_up = statistics.median(run["sequential"] / run["cluster"] for run in rounds)
    print(f"  speed-up{' (median)' if len(rounds) > 1 else ''}: {speed_up:.2f}x (target >= {TARGET_SPEED_UP}x)")
    judged_differ = []
    for number, run in enumerate(rounds, 1):
        if len(rounds) > 1:
            print(f"  round {number}:")
        judged_differ += report_values(run["expected"], run["got"], args.timings)
    return 0 if speed_up >= TARGET_SPEED_UP and not judged_differ and rounds[0]["expected"] else 1


if __name__ == "__main__":
    sys.exit(main())
