"""The layering and conventions of the code base, checked rather than remembered.

* library code (shared modules and paper subpackages) never imports the tooling (pipeline/, book/);
* a paper's subpackage never imports another chapter's (another paper's or a study's); a study's
  subpackage (a chapter that is not a paper, intellimetry.STUDIES) may import the papers', never
  another study's; shared modules (stats/, subjects/, ...) import no chapter; a notebook imports only
  its own chapter's subpackage (and the papers its YAML lists under `depends`);
* data/reference is reached only through paths.reference_file, which records the read for hashing;
* ruff passes; the dependency list is one list.
"""
from __future__ import annotations

import ast
import subprocess
import sys
import tomllib

import jupytext
import pytest

from intellimetry import CHAPTERS, PAPERS, STUDIES, STUDY_LIBRARIES, paths
from intellimetry.pipeline.registry import discover

SRC = paths.PACKAGE_DIR
TOOLING = ("pipeline", "book")
LIBRARY_FILES = sorted(p for p in SRC.rglob("*.py") if p.relative_to(SRC).parts[0] not in TOOLING)


def intellimetry_imports(source: str) -> set[str]:
    """Top-level subpackages/modules of intellimetry imported by `source` (absolute imports)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
        for name in names:
            parts = name.split(".")
            if parts[0] == "intellimetry" and len(parts) > 1:
                found.add(parts[1])
            elif parts[0] == "intellimetry" and isinstance(node, ast.ImportFrom):
                found.update(a.name for a in node.names)  # from intellimetry import paths
    return found


def owner(path) -> str | None:
    """The chapter (paper or study) or study library whose subpackage holds `path`; None for shared
    library code."""
    first = path.relative_to(SRC).parts[0]
    return first if first in CHAPTERS or first in STUDY_LIBRARIES else None


def forbidden_chapters(chapter: str | None, imported: set[str]) -> set[str]:
    """The chapters' subpackages that code of `chapter` (None: shared code) may not import: every other
    chapter's, except that a study may import the papers'; and the studies' own library (subjects/) for
    anything but a study (a paper's figure hash leaves that library out)."""
    allowed = {chapter} | (set(PAPERS) | set(STUDY_LIBRARIES) if chapter in STUDIES else set())
    if chapter in STUDY_LIBRARIES:
        allowed |= set(STUDY_LIBRARIES)
    return {name for name in imported if name in CHAPTERS or name in STUDY_LIBRARIES} - allowed


def test_the_chapter_import_rule_on_known_cases():
    assert forbidden_chapters("aiq", {"stats", "aiq"}) == set()  # shared library: any chapter
    assert forbidden_chapters("aiq", {"subjects"}) == {"subjects"}  # the studies' library: studies only
    assert forbidden_chapters("aiq", {"gindex"}) == {"gindex"}  # papers never import each other
    assert forbidden_chapters("aiq", {"agreement"}) == {"agreement"}  # nor a study
    assert forbidden_chapters("agreement", {"survival", "aiq", "combined", "gindex", "agitb", "subjects"}) == set()
    assert forbidden_chapters(None, {"stats"}) == set()
    assert forbidden_chapters(None, {"subjects"}) == {"subjects"}
    assert forbidden_chapters("subjects", {"subjects", "stats"}) == set()
    assert forbidden_chapters("subjects", {"aiq"}) == {"aiq"}  # the subjects import no chapter
    assert forbidden_chapters(None, {"agreement"}) == {"agreement"}


def test_the_import_scanner_sees_what_it_should():
    assert intellimetry_imports("from intellimetry.pipeline.runner import run") == {"pipeline"}
    assert intellimetry_imports("import intellimetry.book.roles") == {"book"}
    assert intellimetry_imports("from intellimetry import paths, soc") == {"paths", "soc"}
    assert intellimetry_imports("from .x import y") == set()


@pytest.mark.parametrize("path", LIBRARY_FILES, ids=lambda p: p.relative_to(SRC).as_posix())
def test_library_code_imports_no_tooling_and_no_other_chapter(path):
    imported = intellimetry_imports(path.read_text(encoding="utf-8"))
    assert not imported & set(TOOLING), f"{path}: library code imports tooling {imported & set(TOOLING)}"
    others = forbidden_chapters(owner(path), imported)
    assert not others, f"{path}: imports other chapters' subpackages {others}"


def test_there_are_no_relative_imports_in_the_package():
    relative = [p for p in SRC.rglob("*.py")
                if any(isinstance(n, ast.ImportFrom) and n.level > 0 for n in ast.walk(ast.parse(p.read_text())))]
    assert not relative, f"relative imports in {relative}"


FIGURES = discover(paths.NOTEBOOKS_DIR)


@pytest.mark.parametrize("fig_id", FIGURES)
def test_a_notebook_imports_only_its_paper_and_declared_dependencies(fig_id):
    figure = FIGURES[fig_id]
    code = "\n".join(c.source for c in jupytext.read(figure.notebook).cells if c.cell_type == "code")
    imported = intellimetry_imports(code)
    assert not imported & set(TOOLING), f"{fig_id} imports tooling"
    others = {name for name in imported if name in CHAPTERS} - {figure.paper, *figure.depends}
    assert not others, f"{fig_id} imports {others} without listing them under depends"


def reaches_reference_directly(source: str) -> bool:
    """Code (not docstrings) naming data/reference or REFERENCE_DIR."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                and "data/reference" in node.value:
            return True
        if isinstance(node, ast.Name) and node.id == "REFERENCE_DIR" or \
                isinstance(node, ast.Attribute) and node.attr == "REFERENCE_DIR":
            return True
    return False


def test_the_reference_scanner_sees_what_it_should():
    assert reaches_reference_directly("open('data/reference/x.csv')")
    assert reaches_reference_directly("paths.REFERENCE_DIR / 'x'")
    assert not reaches_reference_directly('"""Reads data/reference/x."""\nreference_file("x")')


def test_reference_data_is_read_only_through_paths_reference_file():
    """Any other way would bypass the record of reads that makes editing a reference file re-run
    exactly the figures that read it."""
    offenders = [p for p in LIBRARY_FILES if p.name != "paths.py"
                 and reaches_reference_directly(p.read_text(encoding="utf-8"))]
    for figure in FIGURES.values():
        cells = [c.source for c in jupytext.read(figure.notebook).cells if c.cell_type == "code"]
        if reaches_reference_directly("\n".join(cells)):
            offenders.append(figure.notebook)
    assert not offenders, f"read data/reference through paths.reference_file / load_reference: {offenders}"


def test_ruff_passes():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "src", "tests", "benchmarks"],
                          cwd=paths.REPO_ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_one_dependency_list():
    """pyproject takes its dependencies from requirements.txt, and every pin is in the lock file."""
    project = tomllib.loads((paths.REPO_ROOT / "pyproject.toml").read_text())
    assert project["project"]["dynamic"] == ["dependencies"] and "dependencies" not in project["project"]
    assert project["tool"]["setuptools"]["dynamic"]["dependencies"]["file"] == ["requirements.txt"]
    pins = dict(line.split("==") for line in (paths.REPO_ROOT / "requirements.txt").read_text().splitlines()
                if line and not line.startswith("#"))
    lock = dict(line.split("==") for line in (paths.REPO_ROOT / "requirements-lock.txt").read_text().splitlines()
                if "==" in line and not line.startswith("#"))
    normal = {name.lower().replace("_", "-"): version for name, version in lock.items()}
    drift = {name: (version, normal.get(name.lower().replace("_", "-")))
             for name, version in pins.items() if normal.get(name.lower().replace("_", "-")) != version}
    assert not drift, f"requirements.txt and requirements-lock.txt disagree (pin, lock): {drift}"
    assert "-r requirements.txt" in (paths.REPO_ROOT / "environment.yml").read_text()
