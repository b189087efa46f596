"""Does each chapter's full profile fit the publish workflow's job? From the committed record alone.

    .venv/bin/python benchmarks/bench_paper_scale.py

`.github/workflows/publish.yml` runs one job per chapter on GitHub's 4-core runner, with 330 minutes
for `make figures PROFILE=full` (six hours less the setup and cache saving). data/runs/full.json holds
each figure's wall time as recorded on the machine that ran it (2 cores here, two figures at once).

Per chapter this prints the figures recorded (and how many are current), the sum of their wall times,
the longest figure, and the estimated time of the publish job: the sum divided by the figures the
recording machine ran at once (2 on 2 cores; a 4-core runner is taken to be no slower), or the longest
figure if that is longer. Target: every chapter's estimate and longest figure under 330 minutes, and
every figure of the chapter recorded and current (otherwise the chapter is reported as not measured).
A figure that reused trained models from the model cache (its entry's `model_cache` hits) did not
time its training: the chapter's sum is then a lower bound, which can show that a chapter does not fit
but not that it does, and the line names those figures. Hits inside `intellimetry.parallel` worker
processes are not counted, so a figure whose workers read the cache can pass for one timed from scratch.
"""
from __future__ import annotations

import json
import sys

from intellimetry import paths
from intellimetry.book.records import entry_status
from intellimetry.pipeline.project import Project
from intellimetry.pipeline.schedule import runs_path

PUBLISH_MINUTES = 330  # the figures step's timeout-minutes in publish.yml
AT_ONCE = 2  # figures the recording machine (2 cores) ran side by side


def chapter_rows(record: dict, figures: dict, is_current) -> list[dict]:
    """Per chapter: figures, recorded, current (``is_current(fig_id)``: against the working tree), the
    sum of wall times, the longest figure, the figures timed with cached models, and the estimate."""
    rows = {}
    for fig_id in figures:
        paper = paths.paper_of(fig_id)
        row = rows.setdefault(paper, {"chapter": paper, "figures": 0, "recorded": 0, "current": 0,
                                      "seconds": 0.0, "longest": ("", 0.0), "cached": []})
        row["figures"] += 1
        entry = record.get("figures", {}).get(fig_id)
        if not entry:
            continue
        seconds = entry.get("wall_time_s") or 0.0
        row["recorded"] += 1
        row["current"] += bool(is_current(fig_id))
        row["seconds"] += seconds
        row["longest"] = max(row["longest"], (fig_id, seconds), key=lambda pair: pair[1])
        if (entry.get("model_cache") or {}).get("hits"):
            row["cached"].append(fig_id)
    for row in rows.values():
        row["estimate_min"] = max(row["seconds"] / AT_ONCE, row["longest"][1]) / 60
    return list(rows.values())


def publish_verdict(row: dict) -> str:
    """Whether the chapter's publish job fits. A sum with reused trained models is a lower bound: it can
    show that a chapter does not fit, never that it does."""
    if row["current"] < row["figures"]:  # an old entry times older code
        return "not measured (figures missing or not current)"
    if row["estimate_min"] > PUBLISH_MINUTES:
        return "does NOT fit"
    return "not measured from scratch (a lower bound)" if row["cached"] else "fits"


def main() -> int:
    record = json.loads(runs_path("full").read_text(encoding="utf-8"))
    project = Project.at()
    rows = chapter_rows(record, project.figures(), lambda fig_id: entry_status(project, record, fig_id)[0])
    ok = True
    for row in rows:
        verdict = publish_verdict(row)
        ok &= verdict == "fits"
        print(f"{row['chapter']:10} {row['recorded']:2}/{row['figures']:2} recorded ({row['current']} current), "
              f"sum {row['seconds'] / 60:6.1f} min on 2 cores, longest {row['longest'][0] or '-'} "
              f"{row['longest'][1] / 60:.1f} min, publish job about {row['estimate_min']:.0f} of "
              f"{PUBLISH_MINUTES} min: {verdict}")
        if row["cached"]:
            print(f"{'':10} a lower bound: {', '.join(row['cached'])} reused trained models from the cache")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
