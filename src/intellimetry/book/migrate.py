"""The one-time rewrite of the chapter sources for issue 36, kept so the change can be checked and redone.

    python -m intellimetry.book.migrate book/<paper>/index.md ...     rewrite in place

Each section (a `##` or `###` heading) gets ```{figure-values} <id>``` for the figure it is about (its
{provenance} block, else the figure its roles quote most), and the roles of that figure drop the id.
A {result} that quotes a value the notebook only copied from a parameter (same name, same value in
every profile's sidecar on disk) becomes a {param} of the run. The check is the rendered text:
`python -m intellimetry.book.pagetext OLD NEW` must report no page changed.
"""
from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

from intellimetry import paths
from intellimetry.book import tables

FIGURE_ROLE = re.compile(r"\{(result|direction|verdict|param)\}`([^`]*)`")
PROVENANCE = re.compile(r"^```\{provenance\}\s+(\S+)")
HEADING = re.compile(r"^#{2,3} ")
PROFILES = ("quick", "full", "smoke")
TARGET = re.compile(r"^\([\w-]+\)=\s*$")
TABLE_RULE = re.compile(r"^\|(-{3,}\|)+$")


def outside_fences(lines: list[str]):
    """(line, True when it opens no block and sits in none): a `## ` in a code block is a comment."""
    fence = None
    for line in lines:
        yield line, fence is None
        marker = re.match(r"^(`{3,}|:{3,})", line)
        if fence is None and marker:
            fence = marker[1]
        elif fence is not None and line.strip() == fence:
            fence = None


def split_sections(lines: list[str], heading: re.Pattern = HEADING) -> list[list[str]]:
    """Lines grouped by `##`/`###` heading (the first group is what comes before the first heading)."""
    sections = [[]]
    for line, outside in outside_fences(lines):
        if outside and heading.match(line):
            label = [sections[-1].pop()] if sections[-1] and TARGET.match(sections[-1][-1]) else []
            sections.append(label)  # a `(name)=` target belongs to the heading under it
        sections[-1].append(line)
    return sections


def section_figure(section: list[str]) -> str | None:
    """The figure a section is about: the one it already set (a second run), its {provenance} block,
    else the figure its roles name most."""
    for line in section:
        if line.startswith("```{figure-values}"):
            return line.split()[-1]
    for line in section:
        match = PROVENANCE.match(line)
        if match:
            return match[1]
    counts = Counter(fig_id for _, text in FIGURE_ROLE.findall("\n".join(section))
                     if (fig_id := text.partition("%")[0].partition(":")[0]) and ":" in text.partition("%")[0])
    return counts.most_common(1)[0][0] if counts else None


def copied_parameters(fig_id: str, figures_dir: Path) -> set[str]:
    """Values the notebook copied from its parameters: same name and value in every sidecar on disk."""
    names = None
    for profile in PROFILES:
        path = paths.sidecar_path(figures_dir / profile, fig_id)
        if not path.exists():
            continue
        sidecar = json.loads(path.read_text(encoding="utf-8"))
        values, parameters = sidecar.get("values") or {}, sidecar.get("parameters") or {}
        same = {name for name in parameters if name in values and values[name] == parameters[name]}
        names = same if names is None else names & same
    return names or set()


def rewrite_role(role: str, text: str, current: str | None, copied: dict[str, set[str]]) -> str:
    body, percent, spec = text.partition("%")
    fig_id, colon, key = body.partition(":")
    if not colon:
        return f"{{{role}}}`{text}`"
    if role == "result" and key in copied.setdefault(fig_id, set()):
        role = "param"
    prefix = "" if fig_id == current else f"{fig_id}:"
    return f"{{{role}}}`{prefix}{key}{percent}{spec}`"


def migrate_page(text: str, figures_dir: Path) -> str:
    lines = text.split("\n")
    copied: dict[str, set[str]] = {}
    out: list[str] = []
    for section in split_sections(lines):
        current = section_figure(section) if section and HEADING.match(section[0]) else None
        for fig_id in {t.partition("%")[0].partition(":")[0] for _, t in FIGURE_ROLE.findall("\n".join(section))}:
            if fig_id and fig_id not in copied and is_figure(fig_id):
                copied[fig_id] = copied_parameters(fig_id, figures_dir)
        body = "\n".join(section)
        body = FIGURE_ROLE.sub(lambda m, fig=current: rewrite_role(m[1], m[2], fig, copied), body)
        if current and "```{figure-values}" not in body:  # idempotent: a second run adds none
            heading, _, rest = body.partition("\n")
            body = f"{heading}\n\n```{{figure-values}} {current}\n```\n{rest}"
        out.append(body)
    return "\n".join(out)


def set_page_figure(text: str, fig_id: str) -> str:
    """A page about one figure: ```{figure-values}``` under its title, and that figure's roles without id."""
    lines = FIGURE_ROLE.sub(lambda m: rewrite_role(m[1], m[2], fig_id, {}), text).split("\n")
    title = next(i for i, line in enumerate(lines) if line.startswith("# "))
    return "\n".join([*lines[:title + 1], "", f"```{{figure-values}} {fig_id}", "```", *lines[title + 1:]])


def compress_tables(text: str) -> str:
    """Every Markdown table whose rows share one template becomes a {value-table} (book.tables)."""
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        j = i
        while j < len(lines) and lines[j].startswith("|"):
            j += 1
        table = lines[i:j]
        short = tables.compress(table) if len(table) > 3 and TABLE_RULE.match(table[1]) else None
        if short:
            out += ["```{value-table}", *short, "```"]
        else:
            out += table or [lines[i]]
        i = max(j, i + 1)
    return "\n".join(out)


def is_figure(fig_id: str) -> bool:
    try:
        paths.paper_of(fig_id)
    except ValueError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m intellimetry.book.migrate book/<paper>/index.md ...", file=sys.stderr)
        return 2
    for name in argv:
        path = Path(name)
        before = path.read_text(encoding="utf-8")
        after = compress_tables(migrate_page(before, paths.FIGURES_DIR))
        path.write_text(after, encoding="utf-8")
        print(f"{path}: {len(before):,} -> {len(after):,} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
