"""Shared fixtures: a miniature project for runner tests, and one smoke run of every real figure."""
from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from intellimetry import paths
from intellimetry.paths import paper_of
from intellimetry.pipeline.project import Project
from intellimetry.pipeline.runner import run

NOTEBOOK = """\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# {fig_id}

```{{code-cell}} ipython3
:tags: [parameters]

n = 3
fail = False
reads = ""
```

```{{code-cell}} ipython3
import matplotlib.pyplot as plt
from intellimetry.paths import reference_file
from intellimetry.plotting import save_figure

if reads:
    reference_file(reads)
if fail:
    raise RuntimeError("asked to fail")
fig, ax = plt.subplots()
ax.plot(range(n))
save_figure(fig, "{fig_id}", values={{"n": n, "total": sum(range(n))}})
```
"""

SPEC = """\
title: a tiny test figure
timeout: 60
parameters:
  n: {type: int, min: 1, max: 100}
  fail: {type: bool}
  reads: {type: str, help: a reference file to read}
profiles:
  quick: {n: 3, fail: false, reads: ""}
  full: {n: 50}
"""


def write_figure(root: Path, fig_id: str) -> None:
    paper = paper_of(fig_id)
    folder = root / "notebooks" / paper
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{fig_id}.md").write_text(NOTEBOOK.format(fig_id=fig_id))
    (folder / f"{fig_id}.yaml").write_text(SPEC)


@pytest.fixture
def mini_project(tmp_path) -> Project:
    return make_mini_project(tmp_path)


def make_mini_project(tmp_path: Path) -> Project:
    """A throw-away repository: two figures (survival, soc) and a little library source to hash."""
    root = tmp_path / "repo"
    lib = root / "src" / "intellimetry"
    for relative, text in {
        "__init__.py": "", "paths.py": "X = 1\n", "stats/__init__.py": "def fit(): return 1\n",
        "plotting/__init__.py": "", "survival/__init__.py": "def levels(): return 3\n",
        "soc/__init__.py": "def sandpile(): return 4\n", "pipeline/runner.py": "# tooling\n",
    }.items():
        (lib / relative).parent.mkdir(parents=True, exist_ok=True)
        (lib / relative).write_text(text)
    (root / "requirements.txt").write_text("numpy==1\n")
    write_figure(root, "survival-fig01-tiny")
    write_figure(root, "soc-fig02-tiny")
    return Project.at(root)


SMOKE_PROFILE = "smoke"
# the session fixtures that execute every notebook and build the book: minutes, so once per test run
BOOK_FIXTURES = {"smoke_figures", "built_book"}
BOOK_TESTS = "tests/test_notebooks_and_book.py"


def pytest_collection_modifyitems(config, items):
    """The tests that share the smoke run and the book build live in one module, collected first:
    under `-n 2 --dist loadfile` one worker starts the smoke run at once (its notebooks two at a
    time) while the other works through every other module, and no second worker repeats the smoke
    run (pytest-xdist 3.8's `loadgroup` does not group under pytest 9)."""
    book = [item for item in items if BOOK_FIXTURES & set(item.fixturenames)]
    elsewhere = sorted({item.nodeid.split("::")[0] for item in book} - {BOOK_TESTS})
    if elsewhere:
        raise pytest.UsageError(f"{', '.join(elsewhere)} use(s) {' or '.join(sorted(BOOK_FIXTURES))}: such tests "
                                f"belong in {BOOK_TESTS}, so that one xdist worker runs the smoke run once")
    items[:] = book + [item for item in items if item not in book]


@pytest.fixture(scope="session")
def smoke_figures(tmp_path_factory) -> Project:
    """Every real notebook executed once on its smoke profile (quick where it has none)."""
    project = Project.at(paths.REPO_ROOT, tmp_path_factory.mktemp("figures"))
    run(project, [], profile=SMOKE_PROFILE, jobs=2)
    return project


@pytest.fixture(scope="session")
def built_book(smoke_figures, tmp_path_factory) -> Path:
    """The real book sources, assembled from the smoke run and rendered in a temporary folder."""
    from intellimetry.book.build import assemble, render

    book = tmp_path_factory.mktemp("book") / "book"
    shutil.copytree(paths.BOOK_DIR, book, ignore=shutil.ignore_patterns("_build", "generated"))
    assemble(smoke_figures, book, SMOKE_PROFILE)
    render(book)
    return book / "_build" / "html"


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip()


@pytest.fixture(scope="module")
def one_torch_thread():
    """Torch on one thread for a test module (results are deterministic per thread count, and another
    process may share the CPU); the previous count is restored afterwards."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
