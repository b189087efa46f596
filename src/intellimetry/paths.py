"""Where things live, and what a figure id looks like: the one definition of the project's layout.

Every path the library, the runner, the book build and the Sphinx roles use is derived here, never
from the working directory. A figure's outputs live in `figures/<profile>/<paper>/<id>.*`; the book
copies them to `book/generated/<paper>/<id>.*`.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import yaml

from intellimetry import CHAPTERS

PACKAGE_DIR = Path(__file__).resolve().parent
# src/intellimetry/paths.py -> repository root (editable install keeps the source in the clone).
REPO_ROOT = PACKAGE_DIR.parents[1]

NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
DATA_DIR = REPO_ROOT / "data"
REFERENCE_DIR = DATA_DIR / "reference"
# The same folder relative to a checkout's root (the runner hashes files of other checkouts too).
REFERENCE_FOLDER = REFERENCE_DIR.relative_to(REPO_ROOT).as_posix()
FIGURES_DIR = REPO_ROOT / "figures"
# Re-usable intermediate results (trained models, the offline language data, ...): see intellimetry.cache;
# ignored by git. INTELLIMETRY_CACHE_DIR moves it (benchmarks/bench_book_fresh.py times a first build so).
CACHE_DIR = Path(os.environ.get("INTELLIMETRY_CACHE_DIR") or REPO_ROOT / ".cache")
BOOK_DIR = REPO_ROOT / "book"
# Inside the book sources: the figures and sidecars of the profile the book is built from.
GENERATED = "generated"

# <paper>-fig<NN>-<slug> (or -tab<NN>-), NN = the paper's own number; <paper> is any chapter
# (intellimetry.CHAPTERS), a study's figures numbered by the study.
FIGURE_ID = re.compile(r"^(?P<paper>[a-z]+)-(?P<kind>fig|tab)(?P<number>\d{2})-(?P<slug>[a-z0-9]+(?:-[a-z0-9]+)*)$")
FIGURE_ID_FORM = "<paper>-fig<NN>-<slug> or <paper>-tab<NN>-<slug>"


def is_figure_id(text: str) -> bool:
    match = FIGURE_ID.match(text)
    return bool(match) and match["paper"] in CHAPTERS


def paper_of(fig_id: str) -> str:
    """The chapter a figure id belongs to (a paper's or a study's): 'survival-fig01-levels' -> 'survival'."""
    match = FIGURE_ID.match(fig_id)
    if not match or match["paper"] not in CHAPTERS:
        raise ValueError(f"{fig_id!r} is not a figure id: expected {FIGURE_ID_FORM} "
                         f"with paper one of the chapters {', '.join(CHAPTERS)}")
    return match["paper"]


def paper_dir(root: Path, paper: str, profile: str | None = None) -> Path:
    """The folder of a paper's figure files: root/<profile>/<paper> (figures/), or root/<paper> (the book's copy)."""
    return (Path(root) / profile if profile else Path(root)) / paper


def figure_dir(root: Path, fig_id: str, profile: str | None = None) -> Path:
    """The folder of a figure's files (see paper_dir)."""
    return paper_dir(root, paper_of(fig_id), profile)


def sidecar_path(root: Path, fig_id: str, profile: str | None = None) -> Path:
    """A figure's JSON sidecar (its values, parameters, hashes) under `root`."""
    return figure_dir(root, fig_id, profile) / f"{fig_id}.json"


def failed_notebook_path(root: Path, fig_id: str, profile: str) -> Path:
    """The executed notebook kept after a failed run, for the reader to inspect."""
    return figure_dir(root, fig_id, profile) / f"{fig_id}.failed.ipynb"


# Reference files this process has asked for. save_figure records them in the sidecar, and the
# runner hashes exactly those, so editing a reference file re-runs exactly the figures that read it.
_references_read: set[str] = set()


def reference_file(name: str) -> Path:
    """A reference-data file shipped in data/reference (paper values with provenance).

    The one way to reach data/reference: the read is recorded (see references_read).
    """
    path = REFERENCE_DIR / name
    if not path.is_file():
        raise FileNotFoundError(f"reference data {name!r} not found in {REFERENCE_DIR}")
    _references_read.add(path.relative_to(REFERENCE_DIR).as_posix())
    return path


def reference_exists(name: str) -> bool:
    """Whether data/reference holds `name`; recorded as a read either way, so creating the file later
    makes the figures that looked for it stale."""
    _references_read.add(Path(name).as_posix())
    return (REFERENCE_DIR / name).is_file()


def references_read() -> list[str]:
    """Names (relative to data/reference) of the reference files read so far in this process."""
    return sorted(_references_read)


# Other repository files a result depends on (a notebook's YAML fragment read for the prose, a corpus
# manifest): recorded like reference files, relative to the repository root, and hashed as inputs.
_files_read: set[str] = set()


def project_file(relative: str) -> Path:
    """A file of the repository (outside data/reference) whose contents a figure's result depends on.

    The one way library code reads notebooks/ or data/: the read is recorded (see files_read), so the
    runner hashes the file with the figure and an edit to it makes the figure stale.
    """
    path = REPO_ROOT / relative
    if not path.is_file():
        raise FileNotFoundError(f"project file {relative!r} not found under {REPO_ROOT}")
    _files_read.add(Path(relative).as_posix())
    return path


def project_file_exists(relative: str) -> bool:
    """Whether the repository holds `relative`; recorded as a read either way (see reference_exists)."""
    _files_read.add(Path(relative).as_posix())
    return (REPO_ROOT / relative).is_file()


def files_read() -> list[str]:
    """Repository-relative paths of the project files read so far in this process (see project_file)."""
    return sorted(_files_read)


def load_reference(name: str):
    """The parsed contents of a YAML reference file, e.g. load_reference("aiq/paper.yaml")."""
    return yaml.safe_load(reference_file(name).read_text(encoding="utf-8"))
