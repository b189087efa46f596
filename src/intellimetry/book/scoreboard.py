"""The reproduction scoreboard: every paper item, the paper's claim, our statistic and the verdict.

Built from data/reference/<paper>/items.yaml and the verdicts that each figure's run wrote into its
sidecar (see intellimetry.verdicts); nothing on it is typed by hand.

    ```{scoreboard}```           one table per paper (book/scoreboard.md)
    ```{scoreboard-summary}```   one line per paper with the totals (the intro's status table)
    python -m intellimetry.book scoreboard [--profile quick]   the same totals as JSON, from figures/<profile>/
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from intellimetry import PAPERS, paths, verdicts
from intellimetry.book.roles import LookupFailed, format_value, load_file, sidecar_path
from intellimetry.pipeline.project import Project, read_sidecar

logger = logging.getLogger(__name__)

NOT_RUN = "not run"  # a covered item whose figure has no verdict for it (not built, or built before the item)
COLUMNS = (*verdicts.VERDICTS, verdicts.NOT_YET, verdicts.NOT_A_RESULT)


@dataclass
class Row:
    paper: str
    chapter: str
    id: str
    label: str
    claim: str
    status: str  # a verdict for covered items, else `not yet` / `not a result`, or NOT_RUN
    figure: str | None = None
    ours: str = ""
    criterion: str = ""
    note: str = ""  # why not yet / not a result


def collect(sidecar_for: Callable[[str], dict | None]) -> list[Row]:
    """Every item of every chapter with an items.yaml, in the book's order; sidecar_for(id) -> sidecar or None."""
    rows = []
    for chapter in PAPERS:
        if not paths.reference_exists(f"{chapter}/{verdicts.ITEMS_FILE}"):
            continue
        registry = verdicts.load_items(chapter)
        for item in registry["items"]:
            rows.append(_row(registry["paper"], chapter, item, sidecar_for))
    return rows


def _row(paper: str, chapter: str, item: dict, sidecar_for) -> Row:
    row = Row(paper, chapter, item["id"], item["label"], " ".join(str(item["claim"]).split()), "")
    status = verdicts.item_status(item)
    if status == verdicts.NOT_YET:
        row.status, row.note = status, item["not_yet"]
    elif status == verdicts.NOT_A_RESULT:
        row.status, row.note = status, item["not_a_result"]
    else:
        row.figure = item["figure"]
        record = ((sidecar_for(row.figure) or {}).get("verdicts") or {}).get(item["id"])
        if record is None:
            row.status = NOT_RUN
        else:
            row.status, row.ours = record["verdict"], _describe(record["ours"])
            row.criterion = record["criterion"]
            if "qualitative_criterion" in record:
                row.criterion += f"; qualitative if {record['qualitative_criterion']}"
    return row


def _describe(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{key} = {_describe(v)}" for key, v in value.items())
    if isinstance(value, list):
        return "; ".join(_describe(v) for v in value)
    return format_value(value)


def totals(rows: list[Row]) -> dict[str, dict[str, int]]:
    """{paper: {status: count, 'items': n}} plus an 'all papers' entry."""
    result: dict[str, Counter] = {}
    for row in rows:
        for key in (row.paper, "all papers"):
            result.setdefault(key, Counter())[row.status] += 1
            result[key]["items"] += 1
    return {paper: dict(counts) for paper, counts in result.items()}


def _cell(text: str) -> str:
    """Table-safe Markdown: no pipes or newlines; a literal `$` must not open dollarmath."""
    return " ".join(str(text).split()).replace("|", "\\|").replace("$", "\\$")


def tables_markdown(rows: list[Row]) -> list[str]:
    lines: list[str] = []
    for paper in dict.fromkeys(row.paper for row in rows):
        paper_rows = [row for row in rows if row.paper == paper]
        counts = totals(paper_rows)[paper]
        lines += [f"## {paper}", "", _counts_sentence(counts), "",
                  "| Item | Verdict | The paper's claim | Ours, and the criterion |", "|---|---|---|---|"]
        for row in paper_rows:
            item = f"{row.label}<br>{{ref}}`ours <{row.figure}>`" if row.figure else row.label
            ours = f"{_cell(row.ours)}<br>*criterion:* {_cell(row.criterion)}" if row.figure else _cell(row.note)
            lines.append(f"| {item} | **{row.status}** | {_cell(row.claim)} | {ours} |")
        lines.append("")
    return lines


def _counts_sentence(counts: dict[str, int]) -> str:
    parts = [f"{counts[status]} {status}" for status in (*COLUMNS, NOT_RUN) if counts.get(status)]
    return f"{counts['items']} items: " + ", ".join(parts) + "."


def summary_markdown(rows: list[Row]) -> list[str]:
    """One row per paper (linked to its first chapter) and one for all papers: the counts per status."""
    counts = totals(rows)
    first_chapter = {}
    for row in rows:
        first_chapter.setdefault(row.paper, row.chapter)
    lines = ["| Paper | Items | " + " | ".join(c.capitalize() for c in COLUMNS) + " |",
             "|---|---" + "|---" * len(COLUMNS) + "|"]
    for paper in [*first_chapter, "all papers"]:
        name = f"{{doc}}`{paper} </{first_chapter[paper]}/index>`" if paper in first_chapter else f"**{paper}**"
        cells = " | ".join(str(counts[paper].get(status, 0)) for status in COLUMNS)
        lines.append(f"| {name} | {counts[paper]['items']} | {cells} |")
    not_run = counts.get("all papers", {}).get(NOT_RUN, 0)
    if not_run:
        lines += ["", f"{not_run} covered items have no verdict yet (their figures were not re-run)."]
    return lines


class _ScoreboardDirective(SphinxDirective):
    def rows(self) -> list[Row]:
        srcdir = Path(self.env.srcdir)

        def sidecar_for(fig_id):
            try:
                return load_file(sidecar_path(srcdir, fig_id), self.env)
            except LookupFailed:
                return None
        for chapter in PAPERS:
            self.env.note_dependency(str(paths.REFERENCE_DIR / chapter / verdicts.ITEMS_FILE))
        rows = collect(sidecar_for)
        for row in rows:
            if row.status == NOT_RUN:
                logger.warning(f"scoreboard: {row.paper} {row.label} names {row.figure}, whose sidecar has no "
                               f"verdict for {row.id!r} (re-run the figure: make fig ID={row.figure})",
                               location=self.get_location())
        return rows

    def parse(self, lines: list[str]) -> list[nodes.Node]:
        container = nodes.container(classes=["intellimetry-scoreboard"])
        self.state.nested_parse(StringList(lines, source=self.env.docname), self.content_offset, container)
        return [container]


class ScoreboardDirective(_ScoreboardDirective):
    def run(self):
        return self.parse(tables_markdown(self.rows()))


class ScoreboardSummaryDirective(_ScoreboardDirective):
    def run(self):
        return self.parse(summary_markdown(self.rows()))


def setup(app):
    app.add_directive("scoreboard", ScoreboardDirective)
    app.add_directive("scoreboard-summary", ScoreboardSummaryDirective)


def main(argv: list[str] | None = None) -> int:
    """Print the totals over items.yaml and one profile's sidecars (figures/<profile>/) as JSON."""
    parser = argparse.ArgumentParser(prog="python -m intellimetry.book scoreboard", description=main.__doc__)
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--figures-dir", type=Path, help="output root (default: <repo>/figures)")
    args = parser.parse_args(argv)
    project = Project.at(figures_dir=args.figures_dir)
    figures = project.figures()

    def sidecar_for(fig_id):
        return read_sidecar(project.sidecar(args.profile, figures[fig_id])) if fig_id in figures else None
    try:
        rows = collect(sidecar_for)
    except verdicts.CriterionError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(json.dumps(totals(rows), indent=1, sort_keys=True))
    return 0
