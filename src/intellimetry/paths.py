"""Where things live. Every path the library uses is derived here, never from the working directory."""
from __future__ import annotations

from pathlib import Path

import yaml

PACKAGE_DIR = Path(__file__).resolve().parent
# src/intellimetry/paths.py -> repository root (editable install keeps the source in the clone).
REPO_ROOT = PACKAGE_DIR.parents[1]

NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
DATA_DIR = REPO_ROOT / "data"
REFERENCE_DIR = DATA_DIR / "reference"
FIGURES_DIR = REPO_ROOT / "figures"
# Re-usable intermediate results (trained networks of the AIQ pools, ...); ignored by git.
CACHE_DIR = REPO_ROOT / ".cache"
BOOK_DIR = REPO_ROOT / "book"


def paper_of(fig_id: str) -> str:
    """The paper a figure id belongs to: 'survival-fig01-levels' -> 'survival'."""
    return fig_id.split("-", 1)[0]


def reference_file(name: str) -> Path:
    """A reference-data file shipped in data/reference (paper values with provenance)."""
    path = REFERENCE_DIR / name
    if not path.exists():
        raise FileNotFoundError(f"reference data {name!r} not found in {REFERENCE_DIR}")
    return path


def load_reference(name: str):
    """The parsed contents of a YAML reference file, e.g. load_reference("aiq/paper.yaml")."""
    return yaml.safe_load(reference_file(name).read_text(encoding="utf-8"))
