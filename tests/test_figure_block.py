"""The block under every figure (intellimetry.book.figblock): the reproduce command read back through
make and the runner's own parser, the Binder and source URLs, the parameter rows and the nodes."""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess

import pytest
from docutils import nodes
from sphinx import addnodes

from intellimetry import paths
from intellimetry.book.build import REPOSITORY_ENV, repository_settings
from intellimetry.book.figblock import (
    binder_url,
    block_nodes,
    git_ref,
    parameter_rows,
    reproduce_command,
    source_url,
)
from intellimetry.pipeline.registry import load_figure
from intellimetry.pipeline.runner import split_targets

FIG_ID = "survival-fig99-block"
SPEC = """\
title: a figure with every kind of parameter
parameters:
  sizes: {type: "list[int]", min: 1, help: model sizes}
  model: {type: str, help: a model id or folder}
  rate: {type: float, min: 0, max: 1}
  plot: {type: bool}
  names: {type: "list[str]", choices: [a, b, c], help: "%s"}
profiles:
  quick: {sizes: [1, 2], model: tiny, rate: 0.5, plot: true, names: [a]}
  full: {sizes: [1, 2, 4, 8]}
"""
LONG_HELP = "which of the three domains to run, each one separately, " * 6


@pytest.fixture
def figure(tmp_path):
    folder = tmp_path / "notebooks" / "survival"
    folder.mkdir(parents=True)
    (folder / f"{FIG_ID}.md").write_text("# a notebook\n")
    (folder / f"{FIG_ID}.yaml").write_text(SPEC % LONG_HELP.strip())
    return load_figure(folder / f"{FIG_ID}.yaml")


def test_quick_full_and_smoke_figures_are_reproduced_by_their_profile(figure):
    assert reproduce_command(figure, "quick", figure.resolve("quick")) == f"make fig ID={FIG_ID}"
    assert reproduce_command(figure, "full", figure.resolve("full")) == f"make fig ID={FIG_ID} PROFILE=full"
    assert reproduce_command(figure, "smoke", figure.resolve("quick")) == f"make fig ID={FIG_ID} PROFILE=smoke"


def test_a_custom_figure_gets_exactly_the_overrides_that_differ_from_quick(figure):
    custom = {**figure.resolve("quick"), "sizes": [1, 5, 20], "model": "/data/my models/gpt2"}
    assert reproduce_command(figure, "custom", custom) == (
        f"make fig ID={FIG_ID} PARAMS=\"sizes=1,5,20 'model=/data/my models/gpt2'\"")
    assert reproduce_command(figure, "custom", figure.resolve("quick")) == f"make fig ID={FIG_ID}"


def make_reads_back(command: str, figure) -> dict:
    """Run the command through make -n (the real Makefile's `fig` recipe, printed, not run) and parse
    the runner's words with the runner's own parser, as the recipe's shell would pass them."""
    words = shlex.split(command)  # the user's shell
    assert words[:2] == ["make", "fig"]
    printed = subprocess.run(["make", "-n", "-C", str(paths.REPO_ROOT), *words[1:]], capture_output=True,
                             text=True, check=True).stdout
    recipe = next(line for line in printed.splitlines() if "intellimetry.pipeline run" in line)
    argv = shlex.split(recipe)  # the recipe's shell
    targets = argv[argv.index("run") + 1:argv.index("--profile")]
    ids, overrides = split_targets(targets)
    assert ids == [figure.id]
    return figure.resolve(argv[argv.index("--profile") + 1], overrides)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("changes", [
    {"sizes": [1, 5, 20], "model": "/data/my models/gpt2"},  # a list and a string with a space
    {"model": "it's $HOME and \"quoted\"", "names": ["c", "a"], "rate": 0.1 + 0.2, "plot": False},
])
def test_the_reproduce_command_reads_back_to_the_same_values(figure, changes):
    custom = {**figure.resolve("quick"), **changes}
    assert make_reads_back(reproduce_command(figure, "custom", custom), figure) == custom
    assert make_reads_back(reproduce_command(figure, "full", figure.resolve("full")), figure) \
        == figure.resolve("full")


def test_a_broken_command_would_not_read_back(figure):
    """The round trip can fail: without shell quoting the string with a space splits into two words."""
    with pytest.raises(ValueError, match="must look like name=value"):
        split_targets(shlex.split("sizes=1,5,20 model=/data/my models/gpt2"))


def test_binder_and_source_urls():
    url = "https://github.com/someone/intellimetry"
    assert binder_url(url, "abc123", "survival-fig02-mnist-decay") == (
        "https://mybinder.org/v2/gh/someone/intellimetry/abc123"
        "?urlpath=lab/tree/notebooks/survival/survival-fig02-mnist-decay.md")
    assert source_url(url, "abc123", "soc-fig01-cascade") == (
        "https://github.com/someone/intellimetry/blob/abc123/notebooks/soc/soc-fig01-cascade.md")
    assert binder_url("https://gitlab.com/someone/intellimetry", "abc123", "soc-fig01-cascade") is None
    assert binder_url("https://github.com/someone", "abc123", "soc-fig01-cascade") is None
    assert git_ref("abc123-dirty", "main") == "abc123"
    assert git_ref("unknown", "main") == "main"


def test_the_repository_url_comes_from_the_environment_else_the_config(tmp_path):
    (tmp_path / "_config.yml").write_text("repository:\n  url: https://github.com/a/b.git/\n  branch: dev\n")
    assert repository_settings(tmp_path, {}) == {"repository_url": "https://github.com/a/b", "repository_branch": "dev"}
    fork = repository_settings(tmp_path, {REPOSITORY_ENV: "https://github.com/fork/b"})
    assert fork["repository_url"] == "https://github.com/fork/b"
    (tmp_path / "_config.yml").write_text("title: x\n")
    assert repository_settings(tmp_path, {}) == {"repository_url": "", "repository_branch": "main"}
    assert repository_settings(paths.BOOK_DIR, {})["repository_url"].startswith("https://github.com/")


def test_parameter_rows_in_the_yaml_order_with_allowed_values_and_short_help(figure):
    rows = parameter_rows(figure, {**figure.resolve("quick"), "sizes": [3, 4], "model": "", "retired": 7})
    assert [row[0] for row in rows] == ["sizes", "model", "rate", "plot", "names", "retired"]
    assert rows[0] == ("sizes", "3,4", "a value of type list[int] with every item >= 1", "model sizes")
    assert rows[1][1] == '""' and rows[2][1:3] == ("0.5", "a value of type float >= 0 and <= 1")
    assert rows[3][1] == "true" and rows[4][2] == "one of a, b, c"
    assert rows[4][3].startswith("which of the three domains") and rows[4][3].endswith(" …")
    assert len(rows[4][3]) <= 202 < len(LONG_HELP)
    assert rows[5] == ("retired", "7", "no longer declared in the YAML", "")


def sidecar(figure, **changes):
    return {"profile": "quick", "parameters": figure.resolve("quick"), "commit": "0123456789ab-dirty",
            "wall_time_s": 12.3, "executed_notebook": f"{FIG_ID}.ipynb", **changes}


def test_the_block_holds_command_links_and_table(figure):
    [block] = block_nodes(figure, sidecar(figure), "https://github.com/a/b", "main")
    urls = [ref.get("refuri") for ref in block.findall(nodes.reference)]
    assert f"https://mybinder.org/v2/gh/a/b/0123456789ab?urlpath=lab/tree/notebooks/survival/{FIG_ID}.md" in urls
    assert f"https://github.com/a/b/blob/0123456789ab/notebooks/survival/{FIG_ID}.md" in urls
    [download] = block.findall(addnodes.download_reference)
    assert download["reftarget"] == f"/generated/survival/{FIG_ID}.ipynb"
    [command] = block.findall(nodes.literal_block)
    assert command.astext() == f"make fig ID={FIG_ID}"
    rows = list(block.findall(nodes.row))
    assert len(rows) == 1 + len(figure.params)  # the header and one per parameter


def test_off_github_the_block_says_why_there_is_no_binder_button(figure):
    [block] = block_nodes(figure, sidecar(figure), "https://gitlab.com/a/b", "main")
    assert not [ref for ref in block.findall(nodes.reference) if "mybinder" in ref.get("refuri", "")]
    assert "no Binder button" in block.astext() and "https://gitlab.com/a/b" in block.astext()


FIGURE_DIRECTIVE = re.compile(r"^(?::{3,}|`{3,})\{figure\}[^\n]*\n(?P<options>(?:[ \t]*:[\w-]+:[^\n]*\n)*)", re.M)


def figures_that_do_not_open_full_size(text: str) -> list[str]:
    """Figure directives without a size option: Sphinx links a figure's image to its full-size file
    only when the figure is resized (html_scaled_image_link), so these would not open on click."""
    return [match.group(0).splitlines()[0] for match in FIGURE_DIRECTIVE.finditer(text)
            if not re.search(r"^\s*:(?:width|height|scale|target):", match.group("options"), re.M)]


def test_every_figure_of_the_book_opens_full_size_on_click():
    pages = [page for page in paths.BOOK_DIR.rglob("*.md") if "_build" not in page.parts]
    found = {page.name: figures_that_do_not_open_full_size(page.read_text()) for page in pages}
    assert {name: missing for name, missing in found.items() if missing} == {}
    assert sum(page.read_text().count("{figure}") for page in pages) > 50
    unsized = ":::{figure} /generated/soc/soc-fig01-cascade.svg\n:name: soc-fig01-cascade\n\nCaption.\n:::\n"
    assert figures_that_do_not_open_full_size(unsized) == [":::{figure} /generated/soc/soc-fig01-cascade.svg"]
    assert figures_that_do_not_open_full_size(unsized.replace(":name:", ":width: 100%\n:name:")) == []
