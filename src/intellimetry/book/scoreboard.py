"""The reproduction scoreboard: every paper item, the paper's claim, our statistic and the verdict.

Built from data/reference/<chapter>/items.yaml and the verdicts that each figure's run wrote into its
sidecar (see intellimetry.verdicts); nothing on it is typed by hand. A paper's items go under its
`paper:` name; a study's (a chapter that is not a paper, intellimetry.STUDIES) under its `title:`, its
findings counted apart from every paper's claims and never in 'all papers' or as reproductions.

    ```{scoreboard}```           one table per paper; ```{scoreboard} <chapter>```: that chapter's
    ```{scoreboard-slice} <chapter>```   a chapter's items, verdicts and figures in one short table
    ```{scoreboard-summary}```   one line per paper with the totals (the intro's status table)
    ```{scoreboard-disagreements} <chapter>```   the chapter's items whose verdict differs between this
                                 build's profile and the full record, with both statistics and the parameters
                                 that differ
    python -m intellimetry.book scoreboard [--profile quick]   the same totals as JSON, from figures/<profile>/
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from intellimetry import CHAPTERS, STUDIES, paths, verdicts
from intellimetry.book import records
from intellimetry.book.figblock import cli_value
from intellimetry.book.roles import LookupFailed, format_value, load_file, profile_record, recorded_status, sidecar_path
from intellimetry.pipeline.project import Project, read_sidecar
from intellimetry.pipeline.schedule import runs_path

logger = logging.getLogger(__name__)

NOT_RUN = "not run"  # a covered item whose figure has no verdict for it (not built, or built before the item)
NOT_RUN_FULL = "not run at full"  # ... and whose figure the full record does not hold
NOT_JUDGED_FULL = "not judged at full (recorded before this item)"
CLAIM_COLUMNS = (*verdicts.VERDICTS, verdicts.NOT_YET, verdicts.NOT_A_RESULT)
CHECK_COLUMNS = (*verdicts.CHECK_VERDICTS, verdicts.NOT_YET, verdicts.NOT_A_RESULT)
FINDING_COLUMNS = (*verdicts.FINDING_VERDICTS, verdicts.NOT_YET, verdicts.NOT_A_RESULT)
CHECKS = "checks"  # the key under which totals() counts a paper's implementation checks
FINDINGS = "findings"  # ... and a study's findings (present only where there are any)
ALL_PAPERS = "all papers"  # the headline: the paper chapters' claims and checks, never a study's
FINDINGS_HEADING = "Findings of this book (not reproductions)"


@dataclass
class Row:
    paper: str  # the group the row is counted under: the paper's name, or a study's title
    chapter: str
    id: str
    label: str
    claim: str
    status: str  # a verdict for covered items, else `not yet` / `not a result`, or NOT_RUN
    kind: str = verdicts.CLAIM
    figure: str | None = None
    ours: str = ""
    criterion: str = ""  # the criterion in words (items.yaml's in_words)
    control: str = ""  # the null subject, its statistic and its outcome; or why there is none
    reason: str = ""  # why inconclusive, and what would make it conclusive
    full: str = ""  # the full profile's verdict and statistic as shown, or NOT_RUN_FULL
    full_verdict: str = ""  # the full record's verdict itself ("" where none is recorded)
    full_ours: str = ""  # ... and the statistic it judged, in words
    full_note: str = ""  # why the full verdict is not current (records.marker, short), or ""
    note: str = ""  # why not yet / not a result


StatusFor = Callable[[str], records.Status]


def collect(sidecar_for: Callable[[str], dict | None], full_record: dict | None = None,
            full_status: StatusFor | None = None) -> list[Row]:
    """Every item of every chapter with an items.yaml, in the book's order; sidecar_for(id) -> sidecar or None;
    full_record: data/runs/full.json, for the full profile's verdicts; full_status(id): whether a figure's
    entry there is current (records.Status; without it no entry is marked)."""
    rows = []
    for chapter in CHAPTERS:
        if not paths.reference_exists(f"{chapter}/{verdicts.ITEMS_FILE}"):
            continue
        registry = verdicts.load_items(chapter)
        name = group_name(chapter, registry)
        for item in registry["items"]:
            rows.append(_row(name, chapter, item, sidecar_for, full_record or {}, full_status))
    return rows


def recorded_rows(record: dict) -> list[Row]:
    """The scoreboard's rows, with each figure's verdicts as the committed record holds them."""
    figures = record.get("figures") or {}

    def sidecar_for(fig_id):
        entry = figures.get(fig_id)
        if entry is None:
            return None
        statistics = entry.get("statistics") or {}
        return {"verdicts": {item: {"verdict": verdict, "ours": statistics.get(item), "criterion": ""}
                             for item, verdict in entry["verdicts"].items()}}
    return collect(sidecar_for)


def group_name(chapter: str, registry: dict) -> str:
    """The name a chapter's items are counted and shown under: a paper's `paper:`, a study's `title:`
    (a study re-implements no paper: it has no `paper:` and no `citation:`)."""
    key = "title" if chapter in STUDIES else "paper"
    if not registry.get(key):
        raise verdicts.CriterionError(f"data/reference/{chapter}/{verdicts.ITEMS_FILE} needs `{key}:`, the name "
                                      f"its items go under on the scoreboard")
    return " ".join(str(registry[key]).split())


def is_study(row: Row) -> bool:
    return row.chapter in STUDIES


def _row(paper: str, chapter: str, item: dict, sidecar_for, full_record: dict, full_status) -> Row:
    row = Row(paper, chapter, item["id"], item["label"], " ".join(str(item["claim"]).split()), "",
              kind=verdicts.item_kind(item))
    status = verdicts.item_status(item)
    if status == verdicts.NOT_YET:
        row.status, row.note = status, item["not_yet"]
    elif status == verdicts.NOT_A_RESULT:
        row.status, row.note = status, item["not_a_result"]
    else:
        row.figure = item["figure"]
        row.criterion = " ".join(str(item.get("in_words", "")).split())
        _fill_full(row, (full_record.get("figures") or {}).get(row.figure), full_status)
        record = ((sidecar_for(row.figure) or {}).get("verdicts") or {}).get(item["id"])
        if record is None:
            row.status = NOT_RUN
        else:
            _fill(row, record)
    return row


def _fill(row: Row, record: dict) -> None:
    row.status, row.ours = record["verdict"], _describe(record["ours"])
    row.criterion = row.criterion or record.get("in_words") or record["criterion"]
    if "control" in record:
        control = record["control"]
        outcome = "passes" if control["outcome"] == verdicts.HOLDS else "fails"
        if control["outcome"] == verdicts.UNDECIDED:
            outcome = "fails (undecided)"
        row.control = f"{control['subject']}: {_describe(control['ours'])}; the criterion {outcome}"
    elif "no_control" in record:
        row.control = f"none: {record['no_control']}"
    if record.get("reason"):
        row.reason = record["reason"] + (f". Conclusive with: {record['conclusive_with']}"
                                         if record.get("conclusive_with") else "")
    elif record.get("qualitative_note"):
        row.reason = record["qualitative_note"]


def _fill_full(row: Row, entry: dict | None, full_status: StatusFor | None) -> None:
    """The full record's verdict of the row's item and its statistic, marked where the entry is not current."""
    if entry is None:
        row.full = NOT_RUN_FULL
        return
    if row.id not in entry.get("verdicts", {}):
        row.full = NOT_JUDGED_FULL
        return
    row.full_verdict = entry["verdicts"][row.id]
    statistics = entry.get("statistics") or {}
    row.full_ours = _describe(statistics[row.id]) if row.id in statistics else ""
    if full_status is not None:
        row.full_note = records.marker(entry, full_status(row.figure), short=True)
    older = "" if row.id in entry.get("kinds", {}) else "(recorded before controls and inconclusive existed)"
    row.full = " ".join(part for part in (row.full_verdict + (f", ours: {row.full_ours}" if row.full_ours else ""),
                                          older, row.full_note) if part)


def _describe(value) -> str:
    """A statistic in words: mappings as 'key = value', lists joined, nan / None as 'not measured'."""
    if isinstance(value, dict):
        return ", ".join(f"{key} = {_describe(v)}" for key, v in value.items())
    if isinstance(value, list):
        return "; ".join(_describe(v) for v in value)
    try:
        return format_value(value)
    except LookupFailed:
        return "not measured"


def totals(rows: list[Row]) -> dict[str, dict[str, int]]:
    """{group: {status: count of claims, 'items': n claims, 'checks': {status: count, 'items': n}}}, a group
    with findings also 'findings': {status: count, 'items': n}; plus an 'all papers' entry over the paper
    chapters only: the headline counts claims only, and a study's rows are counted under its title alone."""
    result: dict[str, dict] = {}
    for row in rows:
        for key in (row.paper,) if is_study(row) else (row.paper, ALL_PAPERS):
            counts = result.setdefault(key, {"items": 0, CHECKS: {"items": 0}})
            target = (counts if row.kind == verdicts.CLAIM else
                      counts.setdefault(FINDINGS, {"items": 0}) if row.kind == verdicts.FINDING else counts[CHECKS])
            target[row.status] = target.get(row.status, 0) + 1
            target["items"] += 1
    return result


def _cell(text: str) -> str:
    """Table-safe Markdown for a value: no pipes or newlines; a literal `$` must not open dollarmath."""
    return " ".join(str(text).split()).replace("|", "\\|").replace("$", "\\$")


# MyST inline maths in items.yaml's text: `$...$` (a `\$` is a dollar sign, not a delimiter).
MATH_SPAN = re.compile(r"(?<!\\)\$([^$]+?)(?<!\\)\$")


def _text_cell(text: str) -> str:
    """Table-safe Markdown for items.yaml's prose (claim, criterion, reason), whose `$...$` is MyST maths
    the table typesets: pipes escaped outside it and written `\\vert` inside (a table would split a cell
    at one), and a `$` that pairs with none escaped, so it shows as a dollar sign."""
    text, parts, end = " ".join(str(text).split()), [], 0
    for m in MATH_SPAN.finditer(text):
        parts += [_plain(text[end:m.start()]), "$" + m.group(1).replace("|", "\\vert ") + "$"]
        end = m.end()
    return "".join(parts + [_plain(text[end:])])


def _plain(text: str) -> str:
    return re.sub(r"(?<!\\)\$", r"\\$", text.replace("|", "\\|"))


def _item_cell(row: Row) -> str:
    return f"{row.label}<br>{{ref}}`ours <{row.figure}>`" if row.figure else row.label


def tables_markdown(rows: list[Row], headings: bool = True) -> list[str]:
    lines: list[str] = []
    for paper in dict.fromkeys(row.paper for row in rows):
        paper_rows = [row for row in rows if row.paper == paper]
        counts = totals(paper_rows)[paper]
        lines += [f"## {paper}", ""] if headings else []
        lines += [_counts_sentence(counts), ""]
        claims = [row for row in paper_rows if row.kind == verdicts.CLAIM]
        if claims:
            lines += ["| Item and verdict | The paper's claim | The criterion | Ours, the control, the full profile |",
                      "|---|---|---|---|"]
            lines += [_claim_line(row) for row in claims] + [""]
        findings = [row for row in paper_rows if row.kind == verdicts.FINDING]
        if findings:
            lines += [f"**{FINDINGS_HEADING}**: claims of our own, judged as a paper's claim is (beside a null "
                      "control, in the same run), never counted as reproductions", "",
                      "| Item and verdict | The finding | The criterion | Ours, the control, the full profile |",
                      "|---|---|---|---|"]
            lines += [_claim_line(row) for row in findings] + [""]
        checks = [row for row in paper_rows if row.kind == verdicts.CHECK]
        if checks:
            lines += ["**Implementation checks** (definitions, identities and properties of our own "
                      "construction: computed and shown, never counted as reproductions)", "",
                      "| Item | Result | What the figure shows | What is checked | Ours | The full profile |",
                      "|---|---|---|---|---|---|"]
            lines += [f"| {_item_cell(row)} | **{row.status}** | {_text_cell(row.claim)} | "
                      f"{_text_cell(row.criterion or row.note)} | {_cell(row.ours)} | {_cell(row.full)} |"
                      for row in checks] + [""]
    return lines


def _claim_line(row: Row) -> str:
    if not row.figure:
        return f"| {row.label}<br>**{row.status}** | {_text_cell(row.claim)} | {_text_cell(row.note)} | |"
    status = f"{_item_cell(row)}<br>**{row.status}**" + (f"<br>{_text_cell(row.reason)}" if row.reason else "")
    results = (f"**Ours:** {_cell(row.ours)}<br>**Control:** {_cell(row.control) or 'none'}"
               f"<br>**Full profile:** {_cell(row.full)}")
    return f"| {status} | {_text_cell(row.claim)} | {_text_cell(row.criterion)} | {results} |"


def _counts_sentence(counts: dict) -> str:
    """'N claims: ... .' (left out for a group with findings and no claims), then the findings and the checks."""
    def listed(group: dict, columns: tuple) -> str:
        return ", ".join(f"{group[status]} {status}" for status in (*columns, NOT_RUN) if group.get(status))

    findings, checks = counts.get(FINDINGS, {"items": 0}), counts[CHECKS]
    parts = []
    if counts["items"] or not findings["items"]:
        parts.append(f"{counts['items']} claims: " + (listed(counts, CLAIM_COLUMNS) or "none") + ".")
    if findings["items"]:
        parts.append(f"{findings['items']} findings of this book: " + listed(findings, FINDING_COLUMNS) + ".")
    if checks["items"]:
        parts.append(f"{checks['items']} implementation checks: " + listed(checks, CHECK_COLUMNS) + ".")
    return " ".join(parts)


def slice_markdown(rows: list[Row]) -> list[str]:
    """A chapter's items in one short table: item, kind, verdict and the figure that judged it."""
    lines = [_counts_sentence(totals(rows)[rows[0].paper]), "",
             "| Item | Kind | Verdict | Judged by |", "|---|---|---|---|"]
    for row in rows:
        where = f"{{doc}}`/{row.chapter}/{row.figure}`" if row.figure else _text_cell(row.note)  # its page
        lines.append(f"| {row.label} | {row.kind} | **{row.status}** | {where} |")
    return lines


def disagreements(rows: list[Row]) -> list[Row]:
    """The items judged by both this build's run and the full record whose verdicts differ."""
    return [row for row in rows if row.full_verdict and row.status != NOT_RUN and row.status != row.full_verdict]


def parameter_changes(ours: dict | None, full: dict | None, profile: str) -> str:
    """'name: ours → full' for every parameter that differs between the two runs (the scale, data or model)."""
    def shown(values: dict | None, name: str) -> str:
        return cli_value(values[name]) if name in (values or {}) else "(none)"
    names = records.differing_parameters(ours, full)
    # names are identifiers: in code, so the browser check does not take k_max for maths
    return "<br>".join(f"`{name}`: " + _cell(f"{shown(ours, name)} → {shown(full, name)}") for name in names) or \
        f"none (the same parameters as {profile})"


def disagreements_markdown(rows: list[Row], parameters_for: Callable[[str], dict | None], other_record: dict,
                           profile: str, other: str = "full") -> list[str]:
    """A chapter's items whose verdict on this build's profile differs from the other profile's record
    (rows collected against it: their full_* fields hold that record's verdicts): both verdicts and
    statistics, and the parameters that differ between the two runs (parameters_for(id): this build's)."""
    both = [row for row in rows if row.full_verdict and row.status != NOT_RUN]
    differ = disagreements(rows)
    missing = sum(not row.full_verdict and bool(row.figure) for row in rows)
    unrecorded = f" {missing} items have no {other} verdict recorded yet." if missing else ""
    if not differ:
        agree = (f"The {profile} and {other} profiles give the same verdict on all {len(both)} items both have "
                 "judged." if both else "No item of this chapter has a verdict from both profiles yet.")
        return [agree + unrecorded]
    lines = [f"{len(differ)} of the {len(both)} items both profiles have judged get different verdicts.{unrecorded}",
             "", f"| Item | The {profile} profile (this build) | The {other} profile (recorded) | "
             f"Parameters that differ ({profile} → {other}) |", "|---|---|---|---|"]
    for row in differ:
        entry = other_record["figures"][row.figure]
        reason = (entry.get("reasons") or {}).get(row.id)  # why the other run is inconclusive, where it is
        full = f"**{row.full_verdict}**<br>ours: {_cell(row.full_ours) or 'not recorded'}" + \
            (f"<br>{_text_cell(reason)}" if reason else "") + (f"<br>{_cell(row.full_note)}" if row.full_note else "")
        ours = f"**{row.status}**<br>ours: {_cell(row.ours)}" + (f"<br>{_text_cell(row.reason)}" if row.reason else "")
        lines.append(f"| {_item_cell(row)} | {ours} | {full} | "
                     f"{parameter_changes(parameters_for(row.figure), entry.get('parameters'), profile)} |")
    return lines


def first_chapters(rows: list[Row], studies: bool = False) -> dict[str, str]:
    """{group: its first chapter} of the papers' rows, in the book's order (of the studies' with studies=True)."""
    first: dict[str, str] = {}
    for row in rows:
        if is_study(row) == studies:
            first.setdefault(row.paper, row.chapter)
    return first


def count_cells(counts: dict, group: str, kind: str = verdicts.CLAIM) -> list[str]:
    """A summary line's cells: the group's claims (or findings) in all and per column, then 'H of N' checks."""
    target = counts[group] if kind == verdicts.CLAIM else counts[group].get(FINDINGS, {"items": 0})
    columns = CLAIM_COLUMNS if kind == verdicts.CLAIM else FINDING_COLUMNS
    checks = counts[group][CHECKS]
    return [str(target["items"]), *(str(target.get(status, 0)) for status in columns),
            f"{checks.get(verdicts.HOLDS, 0)} of {checks['items']}"]


def summary_markdown(rows: list[Row]) -> list[str]:
    """One row per paper (linked to its first chapter) and one for all papers: the claims per verdict,
    then the implementation checks that hold out of all checks; below it, where a study has items, a row
    per study with its findings per verdict (never counted with the papers)."""
    counts = totals(rows)
    papers, studies = first_chapters(rows), first_chapters(rows, studies=True)
    lines = ["| Paper | Claims | " + " | ".join(c.capitalize() for c in CLAIM_COLUMNS) + " | Checks holding |",
             "|---|---" + "|---" * len(CLAIM_COLUMNS) + "|---|"]
    for paper in [*papers, ALL_PAPERS] if papers else []:
        name = f"{{doc}}`{paper} </{papers[paper]}/index>`" if paper in papers else f"**{paper}**"
        lines.append(f"| {name} | " + " | ".join(count_cells(counts, paper)) + " |")
    if studies:
        lines += ["", f"| {FINDINGS_HEADING} | Findings | " + " | ".join(c.capitalize() for c in FINDING_COLUMNS)
                  + " | Checks holding |", "|---|---" + "|---" * len(FINDING_COLUMNS) + "|---|"]
        lines += [f"| {{doc}}`{study} </{chapter}/index>` | " + " | ".join(count_cells(counts, study, verdicts.FINDING))
                  + " |" for study, chapter in studies.items()]
    not_run = sum(row.status == NOT_RUN for row in rows)
    if not_run:
        lines += ["", f"{not_run} covered items have no verdict yet (their figures were not re-run)."]
    return lines


class _ScoreboardDirective(SphinxDirective):
    def sidecar_for(self, fig_id: str) -> dict | None:
        try:
            return load_file(sidecar_path(Path(self.env.srcdir), fig_id), self.env)
        except LookupFailed:
            return None

    def rows(self) -> list[Row]:
        for chapter in CHAPTERS:
            path = paths.REFERENCE_DIR / chapter / verdicts.ITEMS_FILE
            if path.is_file():  # a missing dependency would make Sphinx re-read the page on every build
                self.env.note_dependency(str(path))
        rows = collect(self.sidecar_for, profile_record(self.env, "full"),
                       lambda fig_id: recorded_status(self.env, "full", fig_id))
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
    """Every item with its claim, criterion, statistic and control; with a chapter, that chapter's only."""
    optional_arguments = 1

    def run(self):
        rows = self.chapter_rows()
        return self.parse(tables_markdown(rows, headings=not self.arguments)) if rows else []

    def chapter_rows(self) -> list[Row]:
        rows = self.rows()
        if not self.arguments:
            return rows
        chapter_rows = [row for row in rows if row.chapter == self.arguments[0]]
        if not chapter_rows:
            logger.warning(f"{self.name}: no items for chapter {self.arguments[0]!r}; chapters: "
                           f"{', '.join(dict.fromkeys(row.chapter for row in rows))}", location=self.get_location())
        return chapter_rows


class ScoreboardSliceDirective(ScoreboardDirective):
    """A chapter's items in one short table (its overview page), linking each to its figure."""
    required_arguments, optional_arguments = 1, 0

    def run(self):
        rows = self.chapter_rows()
        return self.parse(slice_markdown(rows)) if rows else []


class ScoreboardSummaryDirective(_ScoreboardDirective):
    def run(self):
        return self.parse(summary_markdown(self.rows()))


class ScoreboardDisagreementsDirective(ScoreboardDirective):
    """A chapter's items whose verdict on this build's profile differs from the full record's."""
    required_arguments, optional_arguments = 1, 0

    def run(self):
        rows = self.chapter_rows()
        if not rows:
            return []
        try:
            profile = load_file(Path(self.env.srcdir) / paths.GENERATED / "build.json", self.env)["profile"]
        except LookupFailed as err:
            logger.warning(f"{self.name}: {err}", location=self.get_location())
            return []
        # a full build compares with the quick record (comparing it with the full record would compare it
        # with itself); any other build with the full record
        other = "quick" if profile == "full" else "full"
        if other != "full":
            rows = [row for row in collect(self.sidecar_for, profile_record(self.env, other),
                                           lambda fig_id: recorded_status(self.env, other, fig_id))
                    if row.chapter == self.arguments[0]]
        return self.parse(disagreements_markdown(rows, lambda fig_id: (self.sidecar_for(fig_id) or {}).get(
            "parameters"), profile_record(self.env, other), profile, other))


def setup(app):
    app.add_directive("scoreboard", ScoreboardDirective)
    app.add_directive("scoreboard-summary", ScoreboardSummaryDirective)
    app.add_directive("scoreboard-slice", ScoreboardSliceDirective)
    app.add_directive("scoreboard-disagreements", ScoreboardDisagreementsDirective)


def built_sidecars(profile: str, figures_dir: Path | None) -> Callable[[str], dict | None]:
    """sidecar_for over figures/<profile>/: a figure's sidecar, or None where it has not been built."""
    project = Project.at(figures_dir=figures_dir)
    figures = project.figures()

    def sidecar_for(fig_id):
        return read_sidecar(project.sidecar(profile, figures[fig_id])) if fig_id in figures else None
    return sidecar_for


def load_record(profile: str, path: Path | bool) -> dict:
    """The profile's committed record, or the one at `path`; a missing or unreadable file is a ValueError
    naming it."""
    path = runs_path(profile) if path is True else Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ValueError(f"cannot read the record {path}: {err}") from None


def main(argv: list[str] | None = None) -> int:
    """Print the totals over items.yaml and one profile's sidecars (figures/<profile>/), or its record, as JSON."""
    parser = argparse.ArgumentParser(prog="python -m intellimetry.book scoreboard", description=main.__doc__)
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--figures-dir", type=Path, help="output root (default: <repo>/figures)")
    parser.add_argument("--from-record", nargs="?", const=True, metavar="PATH",
                        help="count the verdicts of the profile's record (data/runs/<profile>.json, or PATH) "
                             "instead of its figures: the full profile's scoreboard without its figures")
    args = parser.parse_args(argv)
    try:
        rows = recorded_rows(load_record(args.profile, args.from_record)) if args.from_record \
            else collect(built_sidecars(args.profile, args.figures_dir))
    except ValueError as err:  # a malformed criterion (verdicts.CriterionError) or an unreadable record
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(json.dumps(totals(rows), indent=1, sort_keys=True))
    return 0
