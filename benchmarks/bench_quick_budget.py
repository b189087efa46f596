"""A chapter's quick profile from an empty model cache on one core, against the budgets its issues set:

* survival: Figs. 1, 2 and 6-13 (levels, digits, language models) < 5 minutes, and Figs. 3-5 (vision,
  search, recommendation) < 4 minutes;
* combined: the paper's figures and tables of the combined-tests chapter < 4 minutes (our readings figure,
  added by issue 34, is counted only in the chapter's first-build share);
* aiq: the figures issue 17 added (CartPole3D Figs. 22-29 and Table 1, and our noise-floor figure)
  < 5 minutes (the chapter's other figures are not run).

    .venv/bin/python benchmarks/bench_quick_budget.py [--paper survival|combined|aiq] [--cores 1]

Runs every figure of the chapter on the quick profile into a temporary figures folder with a
temporary, empty model cache (INTELLIMETRY_MODEL_CACHE), so every model is trained and every failure
count is scored as in a first build; the offline model and corpora come from `make language-data`,
as in a build. The runner and its notebook kernels are pinned to the first `--cores` CPUs; each
figure runs in a runner of its own, in the chapter's order, so that its CPU seconds (user + system
of the runner and its kernel) can be told apart. Prints each figure's wall and CPU seconds and each
budget's totals. The budget is wall time on an otherwise idle core; where other work shares the
core, wall time overstates it and the CPU seconds are the better estimate (both are printed, and a
run is judged on the wall time only when the core was idle: CPU >= 90 % of wall).
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from intellimetry import paths
from intellimetry.cache import MODEL_CACHE_ENV
from intellimetry.pipeline.project import Project, read_sidecar

# the figures issue 17 added to the AIQ chapter, by the number part of their ids
AIQ_NEW = {"fig00", "fig22", "fig23", "fig24", "fig25", "fig28", "fig29", "tab01"}

# Issue 19: a fresh clone's `make book` < 10 minutes on 2 cores, install included, leaves about 700 s
# of notebooks on one core for the whole book; its share per chapter, and no figure over a minute
FIRST_BUILD = {"survival": 230.0, "aiq": 270.0, "gindex": 70.0, "combined": 90.0, "soc": 45.0, "agitb": 25.0}
FIGURE_LIMIT_S = 60.0


def _every(fig_id: str) -> bool:
    return True


# per chapter, {budget: (ids it covers, target seconds)}: the budgets of issues 15, 16, 17 and 18, and
# issue 19's share of the first build (every figure)
BUDGETS = {
    "survival": {"Figs. 1, 2, 6-13": (lambda fig_id: _number(fig_id) not in (3, 4, 5), 300.0),
                 "Figs. 3-5": (lambda fig_id: _number(fig_id) in (3, 4, 5), 240.0)},
    # the readings figure (combined-fig00, issue 34) came after this budget: it counts in the first-build share
    "combined": {"Figs. 1-6, Tables 1-2": (lambda fig_id: not fig_id.startswith("combined-fig00"), 240.0)},
    "aiq": {"CartPole3D Figs. 22-29, Table 1, noise floor": (lambda fig_id: fig_id.split("-")[1] in AIQ_NEW, 300.0)},
}
for _paper, _target_s in FIRST_BUILD.items():
    BUDGETS.setdefault(_paper, {})["every figure (issue 19's first build)"] = (_every, _target_s)


def _number(fig_id: str) -> int:
    """The paper's figure number in an id such as survival-fig03-vision."""
    return int(fig_id.split("-")[1][3:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--paper", choices=sorted(BUDGETS), default="survival", help="the chapter to time")
    parser.add_argument("--cores", type=int, default=1, help="CPUs to pin the run to (the target is for 1)")
    args = parser.parse_args()
    project = Project.at()
    ids = [fig_id for fig_id in project.figures() if paths.paper_of(fig_id) == args.paper
           and any(covers(fig_id) for covers, _ in BUDGETS[args.paper].values())]
    with tempfile.TemporaryDirectory(prefix=f"bench-{args.paper}-") as tmp:
        figures_dir, cache_dir = Path(tmp) / "figures", Path(tmp) / "models"
        environment = {**os.environ, MODEL_CACHE_ENV: str(cache_dir)}
        cores = sorted(os.sched_getaffinity(0))[:args.cores]
        seconds, cpu = {}, {}
        for fig_id in ids:
            command = [sys.executable, "-m", "intellimetry.pipeline", "--figures-dir", str(figures_dir),
                       "run", fig_id, "--profile", "quick"]
            before = _children_cpu()
            # children (the notebook kernels) inherit the affinity
            done = subprocess.run(command, env=environment, preexec_fn=lambda: os.sched_setaffinity(0, cores))
            if done.returncode != 0:
                print(f"{fig_id} failed", file=sys.stderr)
                return 1
            cpu[fig_id] = _children_cpu() - before
            timed = Project.at(figures_dir=figures_dir)
            seconds[fig_id] = read_sidecar(timed.sidecar("quick", timed.figures()[fig_id]))["wall_time_s"]
            print(f"  {fig_id:36s} {seconds[fig_id]:7.1f} s wall {cpu[fig_id]:7.1f} s CPU")
    total_s, total_cpu = sum(seconds.values()), sum(cpu.values())
    idle = total_cpu >= 0.9 * total_s
    print(f"{args.paper} chapter, quick profile, empty model cache, {len(cores)} core(s): {total_s:.0f} s of "
          f"notebooks, {total_cpu:.0f} CPU seconds (runners included), for {len(ids)} figures"
          + ("" if idle else "; the core was shared, so the CPU seconds are judged"))
    missed = []
    for name, (covers, target_s) in BUDGETS[args.paper].items():
        wall = sum(s for fig_id, s in seconds.items() if covers(fig_id))
        used = sum(s for fig_id, s in cpu.items() if covers(fig_id))
        spent = wall if idle else used
        print(f"  {name}: {wall:.0f} s of notebooks, {used:.0f} CPU seconds; target < {target_s:.0f} s on one core")
        missed += [name] if spent >= target_s else []
    over = [f"{fig_id} {cpu[fig_id] if not idle else seconds[fig_id]:.0f} s" for fig_id in ids
            if (seconds[fig_id] if idle else cpu[fig_id]) >= FIGURE_LIMIT_S]
    print(f"  figures over {FIGURE_LIMIT_S:.0f} s: {', '.join(over) or 'none'}")
    return 1 if missed or over or len(cores) != 1 else 0


def _children_cpu() -> float:
    """User + system seconds of every finished child process so far (runners and their kernels)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    sys.exit(main())
