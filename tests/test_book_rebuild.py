"""Incremental book builds across profiles (issue 36, item 5): after a custom build, a quick build
shows quick's figure pages, although quick's outputs are older on disk than the last build."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from intellimetry.book.build import assemble
from intellimetry.pipeline.hashing import figure_hashes
from intellimetry.pipeline.project import Project
from tests.conftest import make_mini_project

FIGURE = "survival-fig01-tiny"
DAY_S = 86_400
# The figure's page: an executed notebook in the real book, a reStructuredText page here. Sphinx decides
# what to re-read from the files' mtimes alike for both, and myst-nb would take 5 s to start per build.
PAGE = f"{FIGURE}.rst"
CONF = "exclude_patterns = ['_build']\n"
INDEX = "Book\n====\n\n.. toctree::\n   :glob:\n\n   generated/*/*\n"


def page(fig_id: str, text: str) -> str:
    return f"{fig_id}\n{'=' * len(fig_id)}\n\n{text}\n"


def write_outputs(project: Project, profile: str, fig_id: str, text: str, age_s: float) -> None:
    """A finished run's files (image, executed notebook, sidecar), all `age_s` seconds old on disk."""
    figure = project.figures()[fig_id]
    parameters = {"n": 3, "note": text}
    folder = project.output_dir(profile, figure)
    folder.mkdir(parents=True, exist_ok=True)
    files = {f"{fig_id}.svg": "<svg/>", f"{fig_id}.rst": page(fig_id, text)}
    hashes = {**figure_hashes(figure, parameters, project.root, []), "reads": []}
    sidecar = {"files": [f"{fig_id}.svg"], "executed_notebook": f"{fig_id}.rst", "parameters": parameters,
               "hashes": hashes, "commit": "abc", "wall_time_s": 1.0, "values": {}}
    files[f"{fig_id}.json"] = json.dumps(sidecar)
    stamp = time.time() - age_s
    for name, content in files.items():
        (folder / name).write_text(content)
        os.utime(folder / name, (stamp, stamp))


@pytest.fixture
def two_profiles(tmp_path) -> tuple[Project, Path]:
    """A mini project whose quick outputs are a day old and whose custom run (one figure) an hour old."""
    project = make_mini_project(tmp_path)
    for fig_id in project.figures():
        write_outputs(project, "quick", fig_id, "alpha_limited = 1.5", DAY_S)
    write_outputs(project, "custom", FIGURE, "alpha_limited = 1.2", DAY_S / 24)
    book = tmp_path / "book"
    book.mkdir()
    (book / "_config.yml").write_text("repository: {url: https://example.org/repo}\n")
    (book / "conf.py").write_text(CONF)
    (book / "index.rst").write_text(INDEX)
    return project, book


def sphinx(book: Path) -> str:
    """An incremental Sphinx build of `book` into book/_build; the figure page's HTML."""
    out = book / "_build"
    done = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(book), str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return (out / "generated" / "survival" / f"{FIGURE}.html").read_text(encoding="utf-8")


def test_a_changed_file_is_stamped_now_and_an_unchanged_one_keeps_its_time(two_profiles):
    project, book = two_profiles
    generated = book / "generated" / "survival"
    assemble(project, book, "custom")
    image_mtime = (generated / f"{FIGURE}.svg").stat().st_mtime_ns  # the same image in both profiles
    other_mtime = (book / "generated" / "soc" / "soc-fig02-tiny.rst").stat().st_mtime  # custom falls back to quick
    started = time.time()
    record = assemble(project, book, "quick")
    copied = generated / PAGE
    assert "alpha_limited = 1.5" in copied.read_text()
    assert copied.stat().st_mtime >= started - 1  # not the source's, a day old
    assert (generated / f"{FIGURE}.svg").stat().st_mtime_ns == image_mtime
    assert (book / "generated" / "soc" / "soc-fig02-tiny.rst").stat().st_mtime == other_mtime
    assert record["profile"] == "quick" and record["figures"][FIGURE]["profile"] == "quick"
    assert json.loads((book / "generated" / "build.json").read_text())["figures"][FIGURE]["parameters"]["note"] \
        == "alpha_limited = 1.5"


def test_switching_profiles_rebuilds_the_figure_page(two_profiles):
    project, book = two_profiles
    assemble(project, book, "custom")
    assert "alpha_limited = 1.2" in sphinx(book)
    assemble(project, book, "quick")
    html = sphinx(book)
    assert "alpha_limited = 1.5" in html and "alpha_limited = 1.2" not in html
