"""Content hashes that decide whether a figure is stale (never timestamps).

A figure's hash covers: its notebook text, its resolved parameters, the library source it may
import, its inputs, and the pinned requirements. Each part is kept separately in the sidecar, with a
hash per file, so the runner can say *why* a figure is stale, down to the file.

The library part is derived from the folders, not from a hand-kept list: every file under
src/intellimetry/ except the tooling (pipeline/, book/: they decide how figures run and are shown,
not what they compute) and the other chapters' subpackages, papers' and studies' (unless the YAML
lists them under `depends`). A new shared module is covered automatically.
The inputs part is the YAML's declared `inputs` plus the reference files the figure's last run
read (recorded by intellimetry.paths.reference_file, listed in the sidecar as `reads`) and the other
repository files it read (intellimetry.paths.project_file: a notebook's YAML fragment, a corpus
manifest; listed as `files`), so editing any of them re-runs exactly the figures that read it.
Library code reaches notebooks/ and data/ only through those two functions (tests/test_reads_hashed.py).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from intellimetry import CHAPTERS, STUDIES, STUDY_LIBRARIES, paths
from intellimetry.digests import sha256_file
from intellimetry.pipeline.registry import Figure

PACKAGE = "src/intellimetry"
TOOLING = ("pipeline", "book")
REQUIREMENTS = ("requirements.txt", "requirements-lock.txt")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _is_source(path: Path) -> bool:
    return path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo")


def _files_under(root: Path, relative: str) -> list[Path]:
    path = root / relative
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if _is_source(p))
    return []


def file_hashes(root: Path, relatives: list[str], required: bool = False) -> dict[str, str]:
    """{path relative to root: sha256} for every file in the given files or folders."""
    hashes = {}
    for relative in relatives:
        files = _files_under(root, relative)
        if required and not files:
            raise FileNotFoundError(f"declared input {relative!r} does not exist under {root}")
        for path in files:
            hashes[path.relative_to(root).as_posix()] = sha256_file(path)
    return hashes


def excluded_subpackages(figure: Figure) -> set[str]:
    """Top-level folders of the package a figure's hash leaves out: tooling and the other chapters'
    subpackages (papers and studies) that it does not list under `depends`, and for a paper's figure
    the studies' own library (STUDY_LIBRARIES: no paper imports it)."""
    used = {figure.paper, *figure.depends}
    study_only = set() if figure.paper in STUDIES else set(STUDY_LIBRARIES)
    return set(TOOLING) | study_only | {chapter for chapter in CHAPTERS if chapter not in used}


def library_sources(figure: Figure, root: Path) -> list[str]:
    """Every library file and folder the figure may import, relative to root."""
    package = root / PACKAGE
    excluded = excluded_subpackages(figure)
    return sorted(f"{PACKAGE}/{entry.name}" for entry in package.iterdir()
                  if entry.name not in excluded and entry.name != "__pycache__"
                  and (entry.is_dir() or _is_source(entry)))


def reference_inputs(reads: list[str]) -> list[str]:
    """Reference names as recorded by paths.reference_file -> paths relative to the root."""
    return [f"{paths.REFERENCE_FOLDER}/{name}" for name in reads]


def digest_of(mapping: dict) -> str:
    return sha256_bytes(json.dumps(mapping, sort_keys=True).encode())


def recorded_inputs(recorded: dict | None) -> dict:
    """The files a recorded run read, as figure_hashes' keyword arguments (none before its first run)."""
    recorded = recorded or {}
    return {"reads": recorded.get("reads", ()), "files": recorded.get("files", ())}


def figure_hashes(figure: Figure, params: dict, root: Path, reads: list[str] | tuple = (),
                  files: list[str] | tuple = ()) -> dict:
    """The hash parts of one figure run, the per-file library and input hashes, and the total.

    `reads`: the reference files the run read, `files` the other repository files (recorded ones may
    since have gone: then they are simply missing from the hash, which makes the figure stale).
    """
    library_files = file_hashes(root, library_sources(figure, root))
    input_files = {**file_hashes(root, reference_inputs(list(reads))),
                   **file_hashes(root, list(files)),
                   **file_hashes(root, list(figure.inputs), required=True)}
    parts = {
        "notebook": sha256_file(figure.notebook),
        "parameters": digest_of(params),
        "library": digest_of(library_files),
        "inputs": digest_of(input_files),
        "requirements": digest_of(file_hashes(root, list(REQUIREMENTS))),
    }
    return {"parts": parts, "library_files": library_files, "input_files": input_files,
            "reads": sorted(reads), **({"files": sorted(files)} if files else {}), "total": digest_of(parts)}


def changed_files(old: dict, new: dict) -> list[str]:
    return sorted(f for f in set(old) | set(new) if old.get(f) != new.get(f))


def stale_reasons(current: dict, recorded: dict | None) -> list[str]:
    """Why a figure must re-run; an empty list means it is up to date."""
    if not recorded:
        return ["never built"]
    if recorded.get("total") == current["total"]:
        return []
    old_parts = recorded.get("parts", {})
    per_file = {"library": "library_files", "inputs": "input_files"}
    reasons = []
    for name, value in current["parts"].items():
        if old_parts.get(name) == value:
            continue
        files_key = per_file.get(name)
        changed = changed_files(recorded.get(files_key) or {}, current[files_key]) if files_key else []
        reasons.append(f"{name} changed" + (": " + ", ".join(changed) if changed else ""))
    return reasons or ["hash changed"]
