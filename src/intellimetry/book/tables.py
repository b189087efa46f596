"""A table written once as a row template and a list of the values each row takes.

    ```{value-table}
    | Model | Accuracy | α [interval] |
    | <1> | {result}`<key>.accuracy%.3f` | {result}`<key>.alpha%.2f` [{result}`<key>.ci_low%.2f`, …] |
    - digits.linear | Linear
    - digits.cnn | CNN
    | Popularity | none | {result}`rates.popularity.alpha%.2f` [ … ] |
    ```

The first line is the header, the second the template; each `- key | label | …` row fills the template's
`<key>` with its key and `<1>`, `<2>`, … with its labels; a `| … |` line is a row as written. The
directive expands to the Markdown table this stands for and parses it as the page would, so the
rendered table is the one the long form gave (`intellimetry.book.migrate` converts tables this way).
"""
from __future__ import annotations

import re

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

KEY = "<key>"
ROLE_TEXT = re.compile(r"\{[\w-]+\}`([^`]*)`")
# a key inside role text: a whole dotted segment run, after ` : or . and before . % or `
KEY_SPAN = r"(?<=[`:.]){}(?=[.%`])"


class TableError(ValueError):
    pass


def cells(row: str) -> list[str]:
    """'| a | b |' -> ['a', 'b'] (role texts never hold a pipe: they use % for the format)."""
    row = row.strip()
    if not (row.startswith("|") and row.endswith("|")):
        raise TableError(f"{row[:60]!r} is not a table row (| cell | cell |)")
    return [cell.strip() for cell in row[1:-1].split("|")]


def fill(template: str, key: str, labels: list[str]) -> str:
    row = template.replace(KEY, key)
    for number, label in enumerate(labels, start=1):
        row = row.replace(f"<{number}>", label)
    if re.search(r"<\d+>", row):
        raise TableError(f"row {key!r} gives {len(labels)} label(s), and the template needs more: {row[:80]!r}")
    return row


def expand(lines: list[str]) -> list[str]:
    """The value-table's lines -> the Markdown table they stand for."""
    lines = [line for line in lines if line.strip()]
    if len(lines) < 2:
        raise TableError("a value-table needs a header line and a template line")
    header, template, rows = lines[0], lines[1], lines[2:]
    width = len(cells(header))
    out = [header, "|" + "---|" * width]
    for line in rows:
        if line.lstrip().startswith("- "):
            key, *labels = (part.strip() for part in line.lstrip()[2:].split("|"))
            out.append(fill(template, key, labels))
        else:
            out.append(line)
        if len(cells(out[-1])) != width:
            raise TableError(f"{out[-1][:80]!r} has {len(cells(out[-1]))} cells, the header {width}")
    return out


class ValueTableDirective(SphinxDirective):
    has_content = True

    def run(self):
        try:
            lines = expand(list(self.content))
        except TableError as err:
            logger.warning(f"value-table: {err}", location=self.get_location())
            return []
        container = nodes.container()
        self.state.nested_parse(StringList(lines, self.content.source(0)), self.content_offset, container)
        return container.children


# --- converting a long table (intellimetry.book.migrate) -------------------------------------------

def _variable_part(texts: list[str]) -> list[str]:
    """What differs between role texts that share a prefix and a suffix, widened to whole key segments
    (cnn-w4 / cnn-w16 differ in `4` / `16`, and the key is the segment `cnn-w4`)."""
    start = len(_common_prefix(texts))
    end = len(_common_prefix([text[start:][::-1] for text in texts]))
    while start > 0 and texts[0][start - 1] not in ":.":
        start -= 1
    while end > 0 and texts[0][len(texts[0]) - end] not in ".%":
        end -= 1
    return [text[start:len(text) - end] for text in texts]


def _common_prefix(texts: list[str]) -> str:
    first = min(texts, key=len)
    for i, char in enumerate(first):
        if any(text[i] != char for text in texts):
            return first[:i]
    return first


def template_of(row: list[str], key: str) -> list[str]:
    pattern = re.compile(KEY_SPAN.format(re.escape(key)))
    return [pattern.sub(KEY, cell) for cell in row]


def compress(table: list[str]) -> list[str] | None:
    """A long table -> the value-table lines, or None when its rows do not share one template."""
    header, body = table[0], [cells(line) for line in table[2:]]
    if len(body) < 2 or any(len(row) != len(cells(header)) for row in body):
        return None
    role_columns = [j for j in range(len(body[0])) if all(ROLE_TEXT.search(row[j]) for row in body)]
    varying = [j for j in role_columns if len({row[j] for row in body}) > 1]
    if not varying:
        return None
    keys = _variable_part([ROLE_TEXT.search(row[varying[0]])[1] for row in body])
    if len(set(keys)) < len(keys) or not all(re.fullmatch(r"[\w.-]+", key) for key in keys):
        return None
    templates = [template_of(row, key) for row, key in zip(body, keys, strict=True)]
    label_columns = [j for j in range(len(body[0])) if len({t[j] for t in templates}) > 1]
    template = list(templates[0])
    for number, j in enumerate(label_columns, start=1):
        template[j] = f"<{number}>"
    lines = [header, "| " + " | ".join(template) + " |"]
    for row, key in zip(body, keys, strict=True):
        lines.append(" | ".join([f"- {key}", *(row[j] for j in label_columns)]))
    if len("\n".join(lines)) > 0.8 * len("\n".join(table)):
        return None  # not worth a template: most of each row is its own
    return lines if expand(lines) == [header, "|" + "---|" * len(cells(header))] + _rows(table) else None


def _rows(table: list[str]) -> list[str]:
    return ["| " + " | ".join(cells(line)) + " |" for line in table[2:]]


# --- a table the run wrote whole --------------------------------------------------------------------

def table_lines(table) -> list[str]:
    """{"header": [...], "rows": [[...], ...]} (every cell text) -> the Markdown table's lines."""
    if not (isinstance(table, dict) and isinstance(table.get("header"), list) and isinstance(table.get("rows"), list)):
        raise TableError("a values-table reads a mapping with a 'header' list and a 'rows' list of lists")
    width = len(table["header"])
    lines = ["| " + " | ".join(map(str, table["header"])) + " |", "|" + "---|" * width]
    for row in table["rows"]:
        if not isinstance(row, list) or len(row) != width:
            raise TableError(f"row {row!r} has not the header's {width} cells")
        lines.append("| " + " | ".join(str(cell).replace("|", "/") for cell in row) + " |")
    return lines


class ValuesTableDirective(SphinxDirective):
    """```{values-table} <key>```: the table a run stored under `key` of the page figure's values, for
    tables whose rows depend on the run (a profile's subjects): each cell is text the library formatted."""
    required_arguments = 1

    def run(self):
        from pathlib import Path

        from intellimetry.book.roles import LookupFailed, dig, load_file, sidecar_path, split_figure_reference

        try:
            fig_id, key, _ = split_figure_reference(self.env, self.arguments[0])
            values = load_file(sidecar_path(Path(self.env.srcdir), fig_id), self.env)["values"]
            lines = table_lines(dig(values, key))
        except (LookupFailed, TableError) as err:
            logger.warning(f"values-table: {err}", location=self.get_location())
            return []
        container = nodes.container()
        self.state.nested_parse(StringList(lines, self.get_source_info()[0]), self.content_offset, container)
        return container.children


def setup(app):
    app.add_directive("value-table", ValueTableDirective)
    app.add_directive("values-table", ValuesTableDirective)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
