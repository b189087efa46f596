"""Content hashes that decide whether a figure is stale (never timestamps).

A figure's hash covers: its notebook text, its resolved parameters, the library source it depends
on (shared code + its paper's subpackage + declared `depends`), its declared inputs, and the pinned
requirements. Each part is kept separately in the sidecar so the runner can say *why* a figure is stale.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from intellimetry.registry import Figure

# Library code every figure depends on. Tooling (runner, registry, book assembly) is left out on
# purpose: it decides how figures run, not what they compute.
SHARED_LIBRARY = ("__init__.py", "paths.py", "atomic.py", "checks.py", "stats", "plotting")
REQUIREMENTS = ("requirements.txt", "requirements-lock.txt")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _files_under(root: Path, relative: str) -> list[Path]:
    path = root / relative
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                      and p.suffix not in (".pyc", ".pyo"))
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


def library_sources(figure: Figure) -> list[str]:
    package = "src/intellimetry"
    papers = dict.fromkeys((figure.paper, *figure.depends))
    return [f"{package}/{name}" for name in (*SHARED_LIBRARY, *papers)]


def digest_of(mapping: dict) -> str:
    return sha256_bytes(json.dumps(mapping, sort_keys=True).encode())


def figure_hashes(figure: Figure, params: dict, root: Path) -> dict:
    """The hash parts of one figure run, plus the per-file library hashes and the total."""
    library_files = file_hashes(root, library_sources(figure))
    parts = {
        "notebook": sha256_file(figure.notebook),
        "parameters": digest_of(params),
        "library": digest_of(library_files),
        "inputs": digest_of(file_hashes(root, list(figure.inputs), required=True)),
        "requirements": digest_of(file_hashes(root, list(REQUIREMENTS))),
    }
    return {"parts": parts, "library_files": library_files, "total": digest_of(parts)}


def stale_reasons(current: dict, recorded: dict | None) -> list[str]:
    """Why a figure must re-run; an empty list means it is up to date."""
    if not recorded:
        return ["never built"]
    if recorded.get("total") == current["total"]:
        return []
    old_parts = recorded.get("parts", {})
    reasons = []
    for name, value in current["parts"].items():
        if old_parts.get(name) == value:
            continue
        if name == "library":
            old_files = recorded.get("library_files", {})
            changed = sorted(f for f in set(old_files) | set(current["library_files"])
                             if old_files.get(f) != current["library_files"].get(f))
            reasons.append("library changed: " + ", ".join(changed))
        else:
            reasons.append(f"{name} changed")
    return reasons or ["hash changed"]
