"""The block under every figure: the command that reproduces it, run time, commit, links to its
notebook (source, executed .ipynb, Binder) and a collapsible table of the parameters it ran with.

The pure functions (command, URLs, rows) are kept apart from the docutils nodes, so they are tested
without building the book; roles.ProvenanceDirective puts the nodes together.
"""
from __future__ import annotations

import shlex
from urllib.parse import urlparse

from docutils import nodes
from sphinx import addnodes

from intellimetry import paths
from intellimetry.pipeline.registry import CUSTOM, Figure

NOTEBOOKS_FOLDER = paths.NOTEBOOKS_DIR.relative_to(paths.REPO_ROOT).as_posix()
BINDER = "https://mybinder.org/v2/gh"
HELP_CHARS = 200
# What a shell still expands inside double quotes; a command holding one is single-quoted instead.
DOUBLE_QUOTE_SPECIAL = set('"$`\\!')


def cli_value(value) -> str:
    """A parameter value as ParamSpec.parse reads it back from the command line."""
    if isinstance(value, list):
        return ",".join(cli_value(item) for item in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)  # repr round-trips a float exactly
    return str(value)


def overrides_from_quick(figure: Figure, parameters: dict) -> dict[str, str]:
    """name -> command-line text of every parameter whose value differs from the quick profile."""
    quick = figure.resolve("quick")
    return {name: cli_value(value) for name, value in parameters.items() if quick.get(name) != value}


def reproduce_command(figure: Figure, profile: str, parameters: dict) -> str:
    """The `make fig` command that produces this figure again with the same parameters."""
    command = f"make fig ID={figure.id}"
    if profile != CUSTOM:
        return command if profile == "quick" else f"{command} PROFILE={profile}"
    words = [shlex.quote(f"{name}={text}") for name, text in overrides_from_quick(figure, parameters).items()]
    if not words:
        return command
    value = " ".join(words).replace("$", "$$")  # make expands `$` in a variable's value
    if DOUBLE_QUOTE_SPECIAL & set(value):
        return f"{command} {shlex.quote('PARAMS=' + value)}"
    return f'{command} PARAMS="{value}"'


def notebook_path(fig_id: str) -> str:
    """The notebook's path in the repository: notebooks/<paper>/<id>.md."""
    return f"{NOTEBOOKS_FOLDER}/{paths.paper_of(fig_id)}/{fig_id}.md"


def git_ref(commit: str | None, branch: str) -> str:
    """What a link can name: the run's commit (a run with uncommitted edits: its base), else the branch."""
    ref = (commit or "").removesuffix("-dirty")
    return branch if ref in ("", "unknown") else ref


def source_url(repository_url: str, ref: str, fig_id: str) -> str:
    return f"{repository_url.rstrip('/')}/blob/{ref}/{notebook_path(fig_id)}"


def github_slug(repository_url: str) -> str | None:
    """'owner/repo' of https://github.com/owner/repo; None for any other host (Binder's gh provider)."""
    url = urlparse(repository_url)
    parts = [part for part in url.path.split("/") if part]
    if url.scheme in ("http", "https") and url.netloc.lower() in ("github.com", "www.github.com") \
            and len(parts) == 2:
        return f"{parts[0]}/{parts[1].removesuffix('.git')}"
    return None


def binder_url(repository_url: str, ref: str, fig_id: str) -> str | None:
    """mybinder.org opening the figure's notebook in JupyterLab, or None off GitHub."""
    slug = github_slug(repository_url)
    if slug is None:
        return None
    return f"{BINDER}/{slug}/{ref}?urlpath=lab/tree/{notebook_path(fig_id)}"


def run_time(seconds: float | None) -> str:
    if seconds is None:
        return "not recorded"
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:,.0f} s"


def short_help(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= HELP_CHARS else text[:HELP_CHARS].rsplit(" ", 1)[0] + " …"


def parameter_rows(figure: Figure, parameters: dict) -> list[tuple[str, str, str, str]]:
    """(name, value used, allowed values, help) per parameter of the run, in the YAML's order."""
    names = [name for name in figure.params if name in parameters]
    names += [name for name in parameters if name not in figure.params]
    rows = []
    for name in names:
        spec = figure.params.get(name)
        allowed = spec.allowed() if spec else "no longer declared in the YAML"
        value = cli_value(parameters[name]) or '""'  # an empty string shows as such, not as a blank cell
        rows.append((name, value, allowed, short_help(spec.help) if spec else ""))
    return rows


# --- docutils nodes -------------------------------------------------------------------------------

class details(nodes.General, nodes.Element):
    """HTML <details>: the parameter table stays folded until the reader opens it."""


class summary(nodes.General, nodes.TextElement):
    """HTML <summary>: the line a reader clicks to unfold a <details>."""


def _visit(tag: str):
    def visit(self, node):
        self.body.append(self.starttag(node, tag))
    return visit


def _depart(tag: str):
    def depart(self, node):
        self.body.append(f"</{tag}>\n")
    return depart


def add_nodes(app) -> None:
    app.add_node(details, html=(_visit("details"), _depart("details")))
    app.add_node(summary, html=(_visit("summary"), _depart("summary")))


def _cell(text: str, literal: bool = False) -> nodes.entry:
    inner = nodes.literal(text, text) if literal and text else nodes.Text(text)
    return nodes.entry("", nodes.paragraph("", "", inner))


def parameter_table(rows: list[tuple[str, str, str, str]]) -> nodes.table:
    table = nodes.table(classes=["intellimetry-parameters"])
    group = nodes.tgroup(cols=4)
    table += group
    group += [nodes.colspec(colwidth=width) for width in (2, 2, 3, 4)]
    head = nodes.row()
    head += [_cell(title) for title in ("parameter", "value used", "allowed", "meaning")]
    group += nodes.thead("", head)
    body = nodes.tbody()
    for name, value, allowed, help_text in rows:
        row = nodes.row()
        row += [_cell(name, literal=True), _cell(value, literal=True), _cell(allowed), _cell(help_text)]
        body += row
    group += body
    return table


def _link(text: str, url: str, classes: list[str]) -> nodes.reference:
    return nodes.reference(text, text, refuri=url, classes=classes)


def block_nodes(figure: Figure, sidecar: dict, repository_url: str, branch: str) -> list[nodes.Node]:
    """The figure block: reproduce command, a line of provenance and links, the parameter table."""
    fig_id, profile = figure.id, sidecar["profile"]
    parameters = sidecar.get("parameters") or {}
    ref = git_ref(sidecar.get("commit"), branch)
    command = reproduce_command(figure, profile, parameters)
    line = nodes.paragraph(classes=["intellimetry-provenance"])
    line += nodes.Text(f"{profile} profile, run time {run_time(sidecar.get('wall_time_s'))}, commit ")
    line += nodes.literal(sidecar.get("commit", "?"), sidecar.get("commit", "?"))
    line += nodes.Text(" · ")
    line += _link("notebook source", source_url(repository_url, ref, fig_id), ["intellimetry-source"])
    line += nodes.Text(" · ")
    executed = sidecar.get("executed_notebook") or f"{fig_id}.ipynb"
    download = addnodes.download_reference(
        "", "", reftarget=f"/{paths.GENERATED}/{figure.paper}/{executed}", refexplicit=True,
        classes=["intellimetry-download"])
    download += nodes.Text("executed notebook (.ipynb)")
    line += download
    line += nodes.Text(" · ")
    binder = binder_url(repository_url, ref, fig_id)
    if binder:
        line += _link("launch on Binder", binder, ["intellimetry-binder"])
    else:
        line += nodes.Text(f"no Binder button: Binder launches GitHub repositories, and this book's "
                           f"repository is {repository_url or 'not set'}")
    rows = parameter_rows(figure, parameters)
    folded = details(classes=["intellimetry-parameters-details"])
    folded += summary("", f"Parameters of this run ({len(rows)})")
    folded += parameter_table(rows)
    block = nodes.container(classes=["intellimetry-figure-block"])
    block += nodes.literal_block(command, command, language="bash", classes=["intellimetry-reproduce"])
    block += line
    block += folded if rows else nodes.paragraph(text="This figure has no parameters.")
    return [block]
