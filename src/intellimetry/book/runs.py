"""Records of profiles too long for a default build, so a quick-profile book can still say what they take.

    python -m intellimetry.book record --profile full [ID ...]

reads the sidecars that a run of that profile left in figures/<profile>/ and merges, per figure, its
wall time, model-cache reuse, parameters, verdicts (with the statistics they judged), commit, date and machine into
data/runs/<profile>.json (a figure left out keeps its earlier entry). The file is written by this
command only, never by hand, and is committed: pages quote it with the {recorded} role and the {profile-runs} directive.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from intellimetry import paths
from intellimetry.atomic import write_json
from intellimetry.pipeline.hashing import figure_hashes, recorded_inputs
from intellimetry.pipeline.project import Project, read_sidecar
from intellimetry.pipeline.registry import DECLARABLE_PROFILES
from intellimetry.pipeline.runner import RunError
from intellimetry.pipeline.schedule import RUNS_DIR, runs_path
from intellimetry.provenance import machine_summary


def figure_entry(project: Project, profile: str, fig_id: str) -> dict:
    """What the record keeps of one figure's run on `profile` (its sidecar must exist)."""
    figure = project.figures()[fig_id]
    sidecar = read_sidecar(project.sidecar(profile, figure))
    if sidecar is None:
        raise RunError(f"{fig_id} has no run on the {profile} profile: run "
                       f"`python -m intellimetry.pipeline run {fig_id} --profile {profile}` first")
    recorded = sidecar["hashes"]
    current = figure_hashes(figure, sidecar["parameters"], project.root, **recorded_inputs(recorded))["total"]
    return {
        "wall_time_s": sidecar.get("wall_time_s"), "cpu_time_s": sidecar.get("cpu_time_s"),
        # trained items the run found in the model cache: a run that reused them took less than a first one
        "model_cache": sidecar.get("model_cache"),
        "parameters": sidecar["parameters"],
        "verdicts": {item: row["verdict"] for item, row in sidecar.get("verdicts", {}).items()},
        # claim or check, the control's outcome and why a verdict is inconclusive (verdicts since issue 32)
        "kinds": {item: row["kind"] for item, row in sidecar.get("verdicts", {}).items() if "kind" in row},
        "controls": {item: row["control"]["outcome"] for item, row in sidecar.get("verdicts", {}).items()
                     if "control" in row},
        "reasons": {item: row["reason"] for item, row in sidecar.get("verdicts", {}).items() if row.get("reason")},
        # the statistic each verdict judged, so a page can quote the profile's number beside its verdict
        "statistics": {item: row.get("ours") for item, row in sidecar.get("verdicts", {}).items()},
        "commit": sidecar["commit"], "saved_at": sidecar.get("saved_at"),
        # runs before the runner stored the machine were recorded on the machine that ran them
        "machine": sidecar.get("machine") or machine_summary(),
        "up_to_date_when_recorded": current == recorded["total"],
    }


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


def record_runs(project: Project, profile: str, fig_ids=None, runs_dir: Path = RUNS_DIR) -> dict:
    """Merge the named figures' runs (default: every figure with a sidecar on `profile`) into the record."""
    if profile not in DECLARABLE_PROFILES:
        raise RunError(f"unknown profile {profile!r}; allowed: {', '.join(DECLARABLE_PROFILES)}")
    figures = project.figures()
    unknown = [fig_id for fig_id in fig_ids or () if fig_id not in figures]
    if unknown:
        raise RunError(f"unknown figure id(s): {', '.join(unknown)} (see `python -m intellimetry.pipeline list`)")
    chosen = list(fig_ids) if fig_ids else [fig_id for fig_id, figure in figures.items()
                                            if project.sidecar(profile, figure).exists()]
    path = runs_path(profile, runs_dir)
    record = read_sidecar(path) or {"profile": profile, "figures": {}}
    for fig_id in chosen:
        record["figures"][fig_id] = figure_entry(project, profile, fig_id)
    record["figures"] = dict(sorted(record["figures"].items()))
    record["chapters"] = chapter_totals(record["figures"])
    write_json(path, record)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m intellimetry.book record", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("figures", nargs="*", help="figure ids (default: every figure run on the profile)")
    parser.add_argument("--profile", default="full", help=f"one of {', '.join(DECLARABLE_PROFILES)}")
    args = parser.parse_args(argv)
    try:
        record = record_runs(Project.at(), args.profile, args.figures)
    except RunError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for paper, row in record["chapters"].items():
        print(f"{paper}: {row['figures']} figures, {row['minutes']} min")
    print(f"wrote {runs_path(args.profile)}")
    return 0
