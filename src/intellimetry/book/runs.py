"""Records of profiles too long for a default build, so a quick-profile book can still say what they take.

    python -m intellimetry.book record --profile full [--allow-stale] [ID ...]

reads the sidecars that a run of that profile left in figures/<profile>/ and merges, per figure, its
wall and CPU time, model-cache reuse, parameters, verdicts (with the statistics they judged, the control's
outcome and why a verdict is inconclusive), commit, date, machine and hashes into data/runs/<profile>.json
(a figure left out keeps its earlier entry). The file is written by this command (and record_built, which
`make paper` calls as each figure finishes) only, never by hand, and is committed: pages quote it with the
{recorded} role and the {profile-runs} directive.

Only what can be traced to committed code is recorded (intellimetry.book.records): a run made from
uncommitted changes, uncommitted changes to a file the figure's hash covers, or a run that is no longer
current (unless --allow-stale: then it is recorded with `current: false`) is refused, naming the figures
and files, and nothing is written. Entries made from uncommitted changes are dropped whenever the file is
rewritten. The record:

    {"profile": ..., "figures": {id: {"commit", "saved_at", "machine", "wall_time_s", "cpu_time_s",
                                      "model_cache", "parameters", "verdicts", "kinds", "controls", "reasons",
                                      "statistics", "current",
                                      "hashes": {"total", "parts": {notebook, parameters, library, inputs,
                                                                    requirements}, "reads", "files"}}},
     "chapters": {paper: {"figures", "seconds", "minutes"}},
     "files_at": {commit: {path: sha256}}}     the per-file hashes, once per commit the entries refer to
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from intellimetry import paths
from intellimetry.atomic import exclusive_lock, write_json
from intellimetry.book import records
from intellimetry.pipeline.project import Project, read_sidecar
from intellimetry.pipeline.registry import DECLARABLE_PROFILES
from intellimetry.pipeline.runner import RunError
from intellimetry.pipeline.schedule import RUNS_DIR, runs_path
from intellimetry.provenance import machine_summary


def _sidecar(project: Project, profile: str, fig_id: str) -> dict:
    sidecar = read_sidecar(project.sidecar(profile, project.figures()[fig_id]))
    if sidecar is None:
        raise RunError(f"{fig_id} has no run on the {profile} profile: run "
                       f"`python -m intellimetry.pipeline run {fig_id} --profile {profile}` first")
    return sidecar


def entry_of(sidecar: dict, current: bool) -> dict:
    """What the record keeps of one run (its per-file hashes go to the record's files_at)."""
    judged = sidecar.get("verdicts") or {}
    return {
        "wall_time_s": sidecar.get("wall_time_s"), "cpu_time_s": sidecar.get("cpu_time_s"),
        # trained items the run found in the model cache: a run that reused them took less than a first one
        "model_cache": sidecar.get("model_cache"),
        "parameters": sidecar["parameters"],
        "verdicts": {item: row["verdict"] for item, row in judged.items()},
        # claim or check, the control's outcome and why a verdict is inconclusive (verdicts since issue 32)
        "kinds": {item: row["kind"] for item, row in judged.items() if "kind" in row},
        "controls": {item: row["control"]["outcome"] for item, row in judged.items() if "control" in row},
        "reasons": {item: row["reason"] for item, row in judged.items() if row.get("reason")},
        # the statistic each verdict judged, so a page can quote the profile's number beside its verdict
        "statistics": {item: row.get("ours") for item, row in judged.items()},
        "commit": sidecar["commit"], "saved_at": sidecar.get("saved_at"),
        # runs before the runner stored the machine were recorded on the machine that ran them
        "machine": sidecar.get("machine") or machine_summary(),
        "hashes": records.entry_hashes(sidecar["hashes"]),
        "current": current,  # false only for a run recorded with --allow-stale
    }


def figure_entry(project: Project, profile: str, fig_id: str) -> dict:
    """The entry of one figure's run on `profile`, unchecked (its sidecar must exist): for comparing runs
    (benchmarks/bench_scale_out.py); the record itself takes only checked entries (checked_entries)."""
    sidecar = _sidecar(project, profile, fig_id)
    figure = project.figures()[fig_id]
    current = records.current_hashes(figure, profile, sidecar["hashes"], sidecar["parameters"], project.root)
    return entry_of(sidecar, current["total"] == sidecar["hashes"]["total"])


def checked_entries(project: Project, profile: str, sidecars: dict[str, dict],
                    allow_stale: bool = False) -> dict[str, tuple[dict, dict]]:
    """{id: (entry, its per-file hashes)} of the given runs, or a RunError naming every refused figure and why."""
    figures = project.figures()
    # git is asked only where a run was made at a commit: one made outside git is refused as such
    traced = any(not records.untrusted_commit(sidecar.get("commit")) for sidecar in sidecars.values())
    uncommitted = records.uncommitted_paths(project.root) if traced else set()
    found, refused = {}, []
    for fig_id, sidecar in sidecars.items():
        problems, current = records.refusals(project, profile, figures[fig_id], sidecar, uncommitted, allow_stale)
        refused += [f"{fig_id}: {problem}" for problem in problems]
        found[fig_id] = (entry_of(sidecar, current), records.file_map(sidecar["hashes"]))
    if refused:
        raise RunError(f"refusing to record on the {profile} profile (nothing written):\n  " + "\n  ".join(refused))
    return found


def chapter_totals(figures: dict) -> dict:
    """Per paper: figures recorded and their notebooks' wall time in seconds and minutes."""
    totals: dict[str, dict] = {}
    for fig_id, entry in figures.items():
        row = totals.setdefault(paths.paper_of(fig_id), {"figures": 0, "seconds": 0.0})
        row["figures"] += 1
        row["seconds"] += entry["wall_time_s"] or 0.0
    for row in totals.values():
        row["seconds"] = round(row["seconds"], 1)
        row["minutes"] = round(row["seconds"] / 60, 1)
    return dict(sorted(totals.items()))


def merge(project: Project, profile: str, entries: dict[str, tuple[dict, dict]], runs_dir: Path = RUNS_DIR,
          out=None) -> dict:
    """Merge checked entries into the profile's record under a lock (a figure finishing while another is
    recorded loses neither), dropping the entries made from uncommitted changes; written atomically."""
    path = runs_path(profile, runs_dir)
    with exclusive_lock(project.locks_dir / f"record-{profile}.lock"):
        record = read_sidecar(path) or {"profile": profile, "figures": {}}
        record.setdefault("profile", profile)
        dropped = records.drop_untrusted(record)
        for fig_id, (entry, files) in entries.items():
            record["figures"][fig_id] = entry
            records.add_files(record, entry["commit"], files)
        record["figures"] = dict(sorted(record["figures"].items()))
        record["chapters"] = chapter_totals(record["figures"])
        records.prune_files_at(record)
        write_json(path, record)
    if dropped:
        print(f"dropped from {path.name}, made from uncommitted changes (the book shows them as not run): "
              f"{', '.join(dropped)}", file=out or sys.stdout)
    return record


def _check_profile(profile: str) -> None:
    if profile not in DECLARABLE_PROFILES:
        raise RunError(f"unknown profile {profile!r}; allowed: {', '.join(DECLARABLE_PROFILES)}")


def record_runs(project: Project, profile: str, fig_ids=None, runs_dir: Path = RUNS_DIR,
                allow_stale: bool = False, out=None) -> dict:
    """Merge the named figures' runs (default: every figure with a sidecar on `profile`) into the record;
    all or nothing: one refused figure refuses the lot."""
    _check_profile(profile)
    figures = project.figures()
    unknown = [fig_id for fig_id in fig_ids or () if fig_id not in figures]
    if unknown:
        raise RunError(f"unknown figure id(s): {', '.join(unknown)} (see `python -m intellimetry.pipeline list`)")
    chosen = list(fig_ids) if fig_ids else [fig_id for fig_id, figure in figures.items()
                                            if project.sidecar(profile, figure).exists()]
    sidecars = {fig_id: _sidecar(project, profile, fig_id) for fig_id in chosen}
    return merge(project, profile, checked_entries(project, profile, sidecars, allow_stale), runs_dir, out)


def record_built(project: Project, profile: str, fig_id: str, sidecar: dict | None = None,
                 runs_dir: Path = RUNS_DIR, allow_stale: bool = False, out=None) -> dict:
    """Record one figure as its run finishes (the runner's on_built hook hands its sidecar), keeping every
    other entry; a run that cannot be trusted raises a RunError saying why, and nothing is written."""
    _check_profile(profile)
    if fig_id not in project.figures():
        raise RunError(f"unknown figure id {fig_id!r}")
    sidecar = sidecar if sidecar is not None else _sidecar(project, profile, fig_id)
    return merge(project, profile, checked_entries(project, profile, {fig_id: sidecar}, allow_stale), runs_dir, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m intellimetry.book record", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("figures", nargs="*", help="figure ids (default: every figure run on the profile)")
    parser.add_argument("--profile", default="full", help=f"one of {', '.join(DECLARABLE_PROFILES)}")
    parser.add_argument("--allow-stale", action="store_true",
                        help="record runs that are no longer current, marked `current: false` (the book says so)")
    args = parser.parse_args(argv)
    try:
        record = record_runs(Project.at(), args.profile, args.figures, allow_stale=args.allow_stale)
    except RunError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for paper, row in record["chapters"].items():
        print(f"{paper}: {row['figures']} figures, {row['minutes']} min")
    print(f"wrote {runs_path(args.profile)}")
    return 0
