"""Every file a figure's library code reads is in the figure's hash (issue 35, "every read is hashed").

Declared: library code reaches notebooks/ and data/ only through intellimetry.paths (reference_file,
project_file), which record the read so the runner hashes the file. Enforced: a scan of the library
for any other way there, and runs of the readers that the hash now covers.
"""
from __future__ import annotations

import ast
from pathlib import Path

from intellimetry import paths
from intellimetry.pipeline.hashing import TOOLING, figure_hashes, recorded_inputs
from intellimetry.pipeline.project import Project

LIBRARY = paths.PACKAGE_DIR
# Layout constants that lead into notebooks/ or data/ (or to the root above them).
LEADING_OUT = {"REPO_ROOT", "NOTEBOOKS_DIR", "DATA_DIR", "REFERENCE_DIR"}
# Uses that are not reads of a result's inputs, each with the reason it needs no hash.
DECLARED = {
    ("survival/language/corpora.py", "DATA_DIR"):
        "GENERATED_DIR is a cache of extracted corpora keyed by their sources' sha256, and MANIFEST_DIR is "
        "where `corpora manifest --write` writes; the manifests are read through paths.project_file",
    ("survival/language/corpora.py", "REPO_ROOT"):
        "turns a manifest's path into the repository-relative name paths.project_file reads",
    ("provenance.py", "REPO_ROOT"): "asks git for the commit of the checkout; reads no file",
}


def library_modules() -> list[Path]:
    """The library's modules that compute results (tooling decides how figures run, not what they say)."""
    return sorted(path for path in LIBRARY.rglob("*.py")
                  if path.relative_to(LIBRARY).parts[0] not in TOOLING and path.name != "paths.py")


def ways_out(path: Path) -> set[str]:
    """The layout constants a module uses, and any path built from its own file (Path(__file__).parents)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in LEADING_OUT:
            found.add(node.attr)
        elif isinstance(node, ast.ImportFrom) and node.module == "intellimetry.paths":
            found.update(alias.name for alias in node.names if alias.name in LEADING_OUT)
        elif isinstance(node, ast.Name) and node.id == "__file__":
            found.add("__file__")
    return found


def test_library_code_reaches_notebooks_and_data_only_through_recorded_reads():
    undeclared = []
    for path in library_modules():
        module = path.relative_to(LIBRARY).as_posix()
        undeclared += [f"{module}: {name}" for name in sorted(ways_out(path)) if (module, name) not in DECLARED]
    assert not undeclared, ("library code that reads the repository without recording the read (use "
                            "paths.reference_file or paths.project_file, or declare why no hash is needed): "
                            + "; ".join(undeclared))


def test_the_scan_finds_an_unrecorded_read(tmp_path):
    module = tmp_path / "sneaky.py"
    module.write_text("from intellimetry import paths\n"
                      "text = (paths.NOTEBOOKS_DIR / 'survival' / '_language.yaml').read_text()\n")
    assert ways_out(module) == {"NOTEBOOKS_DIR"}


def test_every_declared_exception_is_still_used():
    used = {(path.relative_to(LIBRARY).as_posix(), name) for path in library_modules() for name in ways_out(path)}
    assert set(DECLARED) <= used, f"declared but no longer used: {sorted(set(DECLARED) - used)}"


def files_read_by(monkeypatch, call) -> list[str]:
    """paths.files_read() after `call()`, starting from an empty record (it is kept per process)."""
    monkeypatch.setattr(paths, "_files_read", set())
    call()
    return paths.files_read()


def test_the_fragments_the_prose_quotes_are_recorded_reads(monkeypatch):
    from intellimetry.combined.study import training_profiles
    from intellimetry.survival.language.study import language_profiles

    assert files_read_by(monkeypatch, language_profiles) == ["notebooks/survival/_language.yaml"]
    assert files_read_by(monkeypatch, training_profiles) == ["notebooks/combined/_training.yaml"]


def test_corpus_manifests_and_the_law_list_are_recorded_reads(monkeypatch):
    from intellimetry.survival.language import corpora

    read = files_read_by(monkeypatch, lambda: (corpora.expected_manifest("law"), corpora.law_distributions()))
    assert read == ["data/corpora/law-distributions.txt", "data/corpora/law.manifest.json"]


def test_a_recorded_project_file_is_in_the_hash_and_an_edit_makes_the_figure_stale(mini_project: Project):
    figure = next(iter(mini_project.figures().values()))
    fragment = mini_project.root / "notebooks" / figure.paper / "_shared.yaml"
    fragment.write_text("profiles: {full: {n: 5}}\n")
    recorded = {"reads": [], "files": [fragment.relative_to(mini_project.root).as_posix()]}
    before = figure_hashes(figure, {"n": 3}, mini_project.root, **recorded_inputs(recorded))
    assert before["files"] == recorded["files"]
    assert fragment.relative_to(mini_project.root).as_posix() in before["input_files"]
    fragment.write_text("profiles: {full: {n: 6}}\n")
    after = figure_hashes(figure, {"n": 3}, mini_project.root, **recorded_inputs(recorded))
    assert after["total"] != before["total"]
    # without the recorded read the fragment would not count: that was the hole
    unread = figure_hashes(figure, {"n": 3}, mini_project.root, **recorded_inputs({"reads": []}))
    assert unread["input_files"] == {} and "files" not in unread
