"""The Intelligence Test chapter's quick profile from an empty model cache on one core: < 5 minutes.

    .venv/bin/python benchmarks/bench_survival_quick.py [--cores 1]

Runs every survival figure on the quick profile into a temporary figures folder with a temporary,
empty model cache (INTELLIMETRY_MODEL_CACHE), so the GPT-2 family is trained and every failure
count is scored as in a first build; the offline model and corpora come from `make language-data`,
as in a build. The runner and its notebook kernels are pinned to the first `--cores` CPUs.
Prints each figure's time and the total.
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

TARGET_S = 300.0
PAPER = "survival"


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
        for fig_id in ids:
            sidecar = read_sidecar(timed.sidecar("quick", timed.figures()[fig_id]))
            print(f"  {fig_id:36s} {sidecar['wall_time_s']:7.1f} s")
    print(f"survival chapter, quick profile, empty model cache, {len(cores)} core(s): {total_s:.0f} s "
          f"for {len(ids)} figures; target < {TARGET_S:.0f} s on one core")
    return 0 if total_s < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
