"""The Intelligence Test chapter's quick profile from an empty model cache on one core, against the
budgets the issues set: Figs. 1, 2 and 6-13 (levels, digits, language models) < 5 minutes, and
Figs. 3-5 (vision, search, recommendation) < 4 minutes.

    .venv/bin/python benchmarks/bench_survival_quick.py [--cores 1]

Runs every survival figure on the quick profile into a temporary figures folder with a temporary,
empty model cache (INTELLIMETRY_MODEL_CACHE), so the GPT-2 family is trained and every failure
count is scored as in a first build; the offline model and corpora come from `make language-data`,
as in a build. The runner and its notebook kernels are pinned to the first `--cores` CPUs.
Prints each figure's time and each budget's total.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from intellimetry import paths
from intellimetry.cache import MODEL_CACHE_ENV
from intellimetry.pipeline.project import Project, read_sidecar

PAPER = "survival"
# (figures by their paper number, target seconds): the budgets of issues 15 and 16
BUDGETS = {"Figs. 1, 2, 6-13": ((1, 2, *range(6, 14)), 300.0), "Figs. 3-5": ((3, 4, 5), 240.0)}


def figure_number(fig_id: str) -> int:
    return int(fig_id.split("-")[1][3:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cores", type=int, default=1, help="CPUs to pin the run to (the target is for 1)")
    args = parser.parse_args()
    project = Project.at()
    ids = [fig_id for fig_id in project.figures() if paths.paper_of(fig_id) == PAPER]
    with tempfile.TemporaryDirectory(prefix="bench-survival-") as tmp:
        figures_dir, cache_dir = Path(tmp) / "figures", Path(tmp) / "models"
        environment = {**os.environ, MODEL_CACHE_ENV: str(cache_dir)}
        cores = sorted(os.sched_getaffinity(0))[:args.cores]
        command = [sys.executable, "-m", "intellimetry.pipeline", "--figures-dir", str(figures_dir),
                   "run", *ids, "--profile", "quick"]
        started = time.monotonic()
        # children (the notebook kernels) inherit the affinity
        done = subprocess.run(command, env=environment, preexec_fn=lambda: os.sched_setaffinity(0, cores))
        total_s = time.monotonic() - started
        if done.returncode != 0:
            print("the run failed", file=sys.stderr)
            return 1
        timed = Project.at(figures_dir=figures_dir)
        seconds = {}
        for fig_id in ids:
            seconds[fig_id] = read_sidecar(timed.sidecar("quick", timed.figures()[fig_id]))["wall_time_s"]
            print(f"  {fig_id:36s} {seconds[fig_id]:7.1f} s")
    print(f"survival chapter, quick profile, empty model cache, {len(cores)} core(s): {total_s:.0f} s "
          f"for {len(ids)} figures (runner included)")
    missed = []
    for name, (numbers, target_s) in BUDGETS.items():
        spent = sum(s for fig_id, s in seconds.items() if figure_number(fig_id) in numbers)
        print(f"  {name}: {spent:.0f} s of notebooks; target < {target_s:.0f} s on one core")
        missed += [name] if spent >= target_s else []
    return 1 if missed or len(cores) != 1 else 0


if __name__ == "__main__":
    sys.exit(main())
