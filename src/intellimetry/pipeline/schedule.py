"""How a build uses the machine: how many notebooks at once, in which order, with how many threads each,
and the summary a finished build prints.

Two cores run two notebooks at once, longest first, so the longest figure never starts last and
leaves one core idle at the end. A kernel's numerical libraries would each start a thread per core;
with two kernels that is four busy threads on two cores, so each kernel gets its share of the cores.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from intellimetry import paths
from intellimetry.pipeline.project import read_sidecar

# Run-time records of whole profiles (written by `python -m intellimetry.book record`, committed).
RUNS_DIR = paths.DATA_DIR / "runs"
# A figure never timed anywhere is scheduled as if it took this long.
UNKNOWN_SECONDS = 30.0
# The thread pools a kernel may start: BLAS/OpenMP (numpy, scipy, torch's intra-op pool) and numba.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS")


def runs_path(profile: str, runs_dir: Path = RUNS_DIR) -> Path:
    return Path(runs_dir) / f"{profile}.json"


def available_cores() -> int:
    """The cores this process may run on (a container or `taskset` may allow fewer than the machine has)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def threads_per_kernel(jobs: int, cores: int | None = None) -> int:
    return max(1, (cores or available_cores()) // max(1, jobs))


def thread_environment(jobs: int, environ: dict | None = None, cores: int | None = None) -> dict[str, str]:
    """Thread limits for each kernel of a run with `jobs` at once; a limit the user set is kept."""
    environ = os.environ if environ is None else environ
    share = str(threads_per_kernel(jobs, cores))
    return {name: share for name in THREAD_VARIABLES if not environ.get(name)}


def recorded_seconds(profile: str, runs_dir: Path = RUNS_DIR) -> dict[str, float]:
    """Each figure's run time in a committed profile record (none if the record does not exist)."""
    try:
        record = json.loads(runs_path(profile, runs_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {fig_id: entry["wall_time_s"] for fig_id, entry in record.get("figures", {}).items()
            if isinstance(entry.get("wall_time_s"), int | float)}


def expected_seconds(sidecar: Path, fig_id: str, records: list[dict[str, float]]) -> float:
    """The figure's last run time: its own sidecar first, then the records in order, else UNKNOWN_SECONDS."""
    seconds = (read_sidecar(sidecar) or {}).get("wall_time_s")
    if isinstance(seconds, int | float):
        return float(seconds)
    for record in records:
        if fig_id in record:
            return float(record[fig_id])
    return UNKNOWN_SECONDS


def longest_chains_first(items: list, seconds: dict[str, float], key, chain) -> list:
    """`items` in chains: those whose `chain(item)` is the same (figures sharing a YAML fragment, and
    with it trained models) one after the other in the order of their keys (the paper's figure
    numbers: the figure that measures the shared models runs first and trains them), the chains by
    their total expected time, longest first (ties keep their order); an item whose chain is None is a
    chain of its own."""
    chains: dict = {}
    for item in items:
        name = chain(item)
        chains.setdefault(key(item) if name is None else name, []).append(item)
    ordered = sorted(chains.values(), key=lambda members: -sum(seconds[key(item)] for item in members))
    return [item for members in ordered for item in sorted(members, key=key)]


def summary(run_seconds: float, built: list[dict], fresh: int, jobs: int, failed: int = 0) -> str:
    """What a finished build prints: total, failures, slowest five, cache hits (figures and trained models)."""
    cpu = sum(sidecar.get("cpu_time_s") or 0 for sidecar in built)
    lines = [f"summary: {len(built)} figure(s) run in {run_seconds:.0f} s with {jobs} at once "
             f"({cpu:.0f} CPU s in their kernels); {fresh} up to date (not run)"
             + (f"; {failed} failed" if failed else "")]
    slowest = sorted(built, key=lambda sidecar: -(sidecar.get("wall_time_s") or 0))[:5]
    if slowest:
        lines.append("  slowest: " + ", ".join(f"{s['figure_id']} {s.get('wall_time_s') or 0:.0f} s" for s in slowest))
        hits = sum((s.get("model_cache") or {}).get("hits", 0) for s in built)
        misses = sum((s.get("model_cache") or {}).get("misses", 0) for s in built)
        lines.append(f"  model cache: {hits} trained item(s) reused, {misses} trained")
    return "\n".join(lines)
