"""A checkout as the runner and the book build see it: its figures and where their outputs go.

The layout itself (figures/<profile>/<paper>/<id>.*, the id grammar) is defined in
intellimetry.paths, shared with save_figure and the Sphinx roles; this object only binds it to one
root and one output folder (tests use throw-away ones).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from intellimetry import paths
from intellimetry.pipeline.registry import Figure, discover


@dataclass(frozen=True)
class Project:
    root: Path
    figures_dir: Path

    @classmethod
    def at(cls, root: Path | None = None, figures_dir: Path | None = None) -> "Project":
        root = Path(root or paths.REPO_ROOT).resolve()
        return cls(root=root, figures_dir=Path(figures_dir or root / paths.FIGURES_DIR.name).resolve())

    @property
    def notebooks_dir(self) -> Path:
        return self.root / paths.NOTEBOOKS_DIR.name

    @property
    def book_dir(self) -> Path:
        return self.root / paths.BOOK_DIR.name

    @property
    def staging_dir(self) -> Path:
        """Where a running notebook writes; published from here only after a clean run."""
        return self.figures_dir / ".staging"

    @property
    def locks_dir(self) -> Path:
        return self.figures_dir / ".locks"

    def figures(self, errors: list[str] | None = None) -> dict[str, Figure]:
        return discover(self.notebooks_dir, errors)

    def output_dir(self, profile: str, paper_or_figure: str | Figure) -> Path:
        paper = paper_or_figure.paper if isinstance(paper_or_figure, Figure) else paper_or_figure
        return paths.paper_dir(self.figures_dir, paper, profile)

    def sidecar(self, profile: str, figure: Figure) -> Path:
        return paths.sidecar_path(self.figures_dir, figure.id, profile)

    def failed_notebook(self, profile: str, figure: Figure) -> Path:
        return paths.failed_notebook_path(self.figures_dir, figure.id, profile)

    def book_pages(self, figure: Figure) -> list[Path]:
        """The book pages that show the figure (its `:name:` label)."""
        label = f":name: {figure.id}"
        pages = sorted(p for p in self.book_dir.rglob("*.md")
                       if not {"_build", paths.GENERATED, "_vendor"} & set(p.relative_to(self.book_dir).parts))
        return [p for p in pages if any(line.strip() == label for line in p.read_text(encoding="utf-8").splitlines())]


def read_sidecar(path: Path) -> dict | None:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
