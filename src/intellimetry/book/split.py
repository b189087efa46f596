"""Split a chapter page into an overview and a page per figure (issue 36), kept so the split can be redone.

    python -m intellimetry.book.split <paper> ...     rewrites book/<paper>/ and prints its toc entries

The overview keeps the chapter's text that is about no one figure (the method, run times, what differs)
and lists the figure pages where the first figure section stood. A `##` section with one figure
becomes a page under its own heading; a section with several becomes a short page of its own text
and, below it, a page per figure, cut before each figure's opening paragraphs (those that quote only
that figure, or name its number). Roles are first given their figure id explicitly, so text that
moves to another page keeps quoting the right figure; each new page then sets its own figure
(intellimetry.book.migrate.set_page_figure).
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from intellimetry import paths
from intellimetry.book.migrate import (
    FIGURE_ROLE,
    PROVENANCE,
    is_figure,
    outside_fences,
    set_page_figure,
    split_sections,
)
from intellimetry.pipeline.registry import load_figure

FIGURE_VALUES = re.compile(r"^```\{figure-values\}\s+(\S+)\s*$")
FIGURE_START = re.compile(r"^:{3,}\{figure\}")
FIGURES_HEADING = "## The figures"
SECTION = re.compile(r"^## ")


@dataclass
class Page:
    name: str
    lines: list[str]
    children: list[Page] = field(default_factory=list)


def explicit_ids(text: str) -> str:
    """Every role names its figure again, and the {figure-values} directives go."""
    out, current, lines, i = [], None, text.split("\n"), 0
    while i < len(lines):
        match = FIGURE_VALUES.match(lines[i])
        if match:
            current = match[1]
            i += 2 if i + 1 < len(lines) and lines[i + 1].strip() == "```" else 1
            if out and not out[-1].strip() and i < len(lines) and not lines[i].strip():
                i += 1  # the blank line the directive added
            continue
        out.append(FIGURE_ROLE.sub(lambda m, fig=current: _with_id(m[1], m[2], fig), lines[i]))
        i += 1
    return "\n".join(out)


def _with_id(role: str, text: str, fig_id: str | None) -> str:
    body = text.partition("%")[0]
    if ":" in body and not (role == "param" and body.startswith("@")):
        return f"{{{role}}}`{text}`"
    if fig_id is None:
        raise ValueError(f"{{{role}}}`{text}` has no figure above it")
    return f"{{{role}}}`{fig_id}{text}`" if text.startswith("@") else f"{{{role}}}`{fig_id}:{text}`"


def provenance_lines(lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if PROVENANCE.match(line)]


def slug(heading: str) -> str:
    words = re.sub(r"[^a-z0-9]+", "-", heading.lstrip("#").strip().lower()).strip("-")
    return "-".join(words.split("-")[:6])


def figure_title(fig_id: str) -> str:
    """'Figure 6: MCCP complexity against the number of classes', from the figure's YAML."""
    kind, number = re.match(r"^\w+-(fig|tab)(\d+)-", fig_id).groups()
    title = load_figure(paths.figure_dir(paths.NOTEBOOKS_DIR, fig_id) / f"{fig_id}.yaml").title
    title = re.sub(r"\s*\((the paper's|reference simulation of|our own|ours)[^)]*\)\s*$", "", title)
    label = ("Figure" if kind == "fig" else "Table") + f" {int(number)}" if int(number) else \
        ("Our figure" if kind == "fig" else "Our table")
    return f"{label}: {title}"


def paragraphs_back(lines: list[str], start: int, stop: int, fig_id: str) -> int:
    """Move a figure's page start back over its opening paragraphs (not past `stop`)."""
    number = int(re.search(r"-(?:fig|tab)(\d+)-", fig_id)[1])
    while start > stop:
        end = start
        while end > stop and not lines[end - 1].strip():
            end -= 1
        begin = end
        while begin > stop and lines[begin - 1].strip():
            begin -= 1
        paragraph = "\n".join(lines[begin:end])
        ids = {text.partition(":")[0] for _, text in FIGURE_ROLE.findall(paragraph)}
        names_it = re.search(rf"\bFig(?:ure|s\.|\.|ures)?\s+{number}\b", paragraph)
        if begin == end or PROVENANCE.match(lines[begin]) or not (ids == {fig_id} or (not ids and names_it)):
            return start
        start = begin
    return start


def figure_starts(lines: list[str]) -> list[tuple[int, str]]:
    """(first line, figure id) of each figure's part of a section, in order; the first part starts
    after the section's own opening text."""
    units, previous_end = [], 1
    for at in provenance_lines(lines):
        fig_id = PROVENANCE.match(lines[at])[1]
        figure = max((i for i in range(previous_end, at) if FIGURE_START.match(lines[i])), default=at)
        units.append((paragraphs_back(lines, figure, previous_end, fig_id), fig_id))
        previous_end = at + 2
    return units


def promote_headings(lines: list[str]) -> list[str]:
    """'## X' -> '# X', '### Y' -> '## Y', outside code blocks (where `##` is a comment)."""
    return [line[1:] if outside and re.match(r"^#{2,} ", line) else line
            for line, outside in outside_fences(lines)]


def section_pages(section: list[str]) -> list[Page]:
    """A `##` section with figures -> its page, or a page of its opening text with a page per figure."""
    lines = promote_headings(section)
    units = figure_starts(lines)
    if len(units) == 1:
        return [Page(units[0][1], lines)]
    heading = next(line for line in section if line.startswith("## "))
    group = Page(slug(heading), [*lines[:units[0][0]], "", "```{tableofcontents}", "```"])
    ends = [start for start, _ in units[1:]] + [len(lines)]
    for (start, fig_id), end in zip(units, ends, strict=True):
        title, part = _own_heading(lines[start:end], fig_id)
        tail = _closing_subsection(part)
        group.children.append(Page(fig_id, [title, "", *part[:tail]]))
        if tail < len(part):  # a subsection about all the group's figures, after the last one
            group.children.append(Page(slug(part[tail]), promote_headings(part[tail:])))
    return [group]


def _own_heading(part: list[str], fig_id: str) -> tuple[str, list[str]]:
    """A part that opens with its own subsection heading keeps it as the page title."""
    first = next((i for i, line in enumerate(part) if line.strip()), 0)
    if part and part[first].startswith("## "):
        return "#" + part[first][2:], part[:first] + part[first + 1:]
    return f"# {figure_title(fig_id)}", part


def _closing_subsection(part: list[str]) -> int:
    """Where a subsection without a figure starts after the part's figure (its length if none)."""
    last = max(provenance_lines(part), default=0)
    for i in range(last, len(part)):
        if part[i].startswith("## ") and not provenance_lines(part[i:]):
            return i
    return len(part)


def split_chapter(text: str) -> tuple[list[str], list[Page]]:
    """The overview's lines and the figure pages of a chapter page."""
    sections = split_sections(explicit_ids(text).split("\n"), heading=SECTION)
    overview, pages = list(sections[0]), []
    for section in sections[1:]:
        if not provenance_lines(section):
            overview += section
            continue
        if not pages:
            overview += [FIGURES_HEADING, "", "```{tableofcontents}", "```", ""]
        pages += section_pages(section)
    return overview, pages


def write_chapter(paper: str, book_dir: Path = paths.BOOK_DIR) -> list[Page]:
    chapter = book_dir / paper
    overview, pages = split_chapter((chapter / "index.md").read_text(encoding="utf-8"))
    (chapter / "index.md").write_text("\n".join(overview), encoding="utf-8")
    for page in _all(pages):
        fig_id = page.name if not page.children and is_figure(page.name) else None
        text = "\n".join(page.lines).rstrip() + "\n"
        (chapter / f"{page.name}.md").write_text(set_page_figure(text, fig_id) if fig_id else text,
                                                 encoding="utf-8")
    return pages


def _all(pages: list[Page]):
    for page in pages:
        yield page
        yield from _all(page.children)


def toc_entries(paper: str, pages: list[Page], indent: str = "          ") -> list[str]:
    lines = []
    for page in pages:
        lines.append(f"{indent}- file: {paper}/{page.name}")
        if page.children:
            lines.append(f"{indent}  sections:")
            lines += toc_entries(paper, page.children, indent + "    ")
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    for paper in argv:
        pages = write_chapter(paper)
        print("\n".join(toc_entries(paper, pages)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
