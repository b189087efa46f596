"""What makes a profile record (data/runs/<profile>.json) trustworthy, and whether an entry is still current.

A record entry is only worth quoting if it can be traced to committed code: its run was made at a clean
commit, the files its hash covers have no uncommitted changes when it is recorded, and its hash is still
the working tree's (or it is marked `current: false`). Each entry keeps its hash total and parts and the
files its run read; the per-file hashes go once per commit into the record's top-level `files_at`
({commit: {path: sha256}}), so sixty figures do not each repeat a hundred library hashes, and the book can
say, file by file, what changed since an entry was recorded (entry_status).

Nothing here writes a file or knows about Sphinx: intellimetry.book.runs writes the record, and the
roles and the scoreboard mark what is not current.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from intellimetry.pipeline.gitstate import DIRTY, changed_paths
from intellimetry.pipeline.hashing import (
    PACKAGE,
    REQUIREMENTS,
    digest_of,
    excluded_subpackages,
    figure_hashes,
    recorded_inputs,
    reference_inputs,
    stale_reasons,
)
from intellimetry.pipeline.project import Project
from intellimetry.pipeline.registry import Figure
from intellimetry.pipeline.runner import RunError

UNKNOWN_COMMITS = ("", "unknown", None)
# An entry recorded before the record kept hashes: nothing can say whether it is current.
NOT_KNOWN = "not known to be current (recorded before the record kept its hashes)"
FILES_SHOWN = 5  # changed files named per part in a marker; the rest are counted


@dataclass
class Status:
    current: bool
    changes: list[str]  # stale_reasons' wording: "library changed: src/intellimetry/x.py"
    covered: list[str] = field(default_factory=list)  # the files the entry's hash covers (relative to the root)


# ---- refusals ------------------------------------------------------------------------------------

def untrusted_commit(commit) -> bool:
    """A run made from uncommitted changes (`-dirty`), or outside git: no commit reproduces it."""
    return commit in UNKNOWN_COMMITS or str(commit).endswith(DIRTY)


def uncommitted_paths(root: Path) -> set[str]:
    """Paths (relative to root) that `git status` shows: modified, staged, deleted or untracked (not ignored)."""
    try:
        return changed_paths(root)
    except (OSError, subprocess.SubprocessError) as err:
        raise RunError(f"cannot tell which files have uncommitted changes in {root} (git status: {err})") from None


def figure_files(figure: Figure, root: Path) -> list[str]:
    """The figure's own files, relative to root: notebook, YAML and its `extends:` fragment."""
    own = [figure.notebook, figure.spec_path]
    if figure.extends:
        own.append(figure.spec_path.parent / figure.extends)
    return [relative(path, root) for path in own]


def relative(path: Path, root: Path) -> str:
    """A path as git and the hashes name it: relative to the root (absolute if outside it)."""
    path = Path(path)
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def covered_files(figure: Figure, root: Path, *hashes: dict) -> list[str]:
    """Every file a figure's hash covers, in any of the given hash sets (the recorded one and the current one:
    a file deleted since is covered by the first), plus its own files and the requirements."""
    covered = set(figure_files(figure, root)) | set(REQUIREMENTS)
    for found in hashes:
        covered |= set(found.get("library_files") or ()) | set(found.get("input_files") or ())
    return sorted(covered)


def resolved_parameters(figure: Figure, profile: str, fallback: dict) -> dict:
    """The parameters the runner would use now for `profile` (its YAML as it is), as the runner decides
    staleness; a profile the YAML can no longer resolve keeps the recorded ones (then its hash part says so)."""
    try:
        return figure.resolve(profile)
    except (ValueError, KeyError):
        return fallback


def current_hashes(figure: Figure, profile: str, recorded: dict, parameters: dict, root: Path) -> dict:
    """The figure's hashes in the working tree, over the files the recorded run read."""
    return figure_hashes(figure, resolved_parameters(figure, profile, parameters), root, **recorded_inputs(recorded))


def changes_between(current: dict, recorded: dict, parameters: dict, now: dict) -> list[str]:
    """stale_reasons, with the parameters that changed named (stale_reasons names only files)."""
    changed = differing_parameters(parameters, now)
    return [f"parameters changed: {', '.join(changed)}" if reason == "parameters changed" and changed else reason
            for reason in stale_reasons(current, recorded)]


def refusals(project: Project, profile: str, figure: Figure, sidecar: dict, uncommitted: set[str],
             allow_stale: bool = False) -> tuple[list[str], bool]:
    """Why a run's sidecar must not be recorded (empty if it may), and whether it is current.

    Refused: a run made from uncommitted changes or outside git; uncommitted changes (in `uncommitted`,
    from uncommitted_paths) to a file its hash covers; a hash that is no longer the working tree's,
    unless allow_stale (it is then recorded as not current).
    """
    sidecar_file = relative(project.sidecar(profile, figure), project.root)
    commit = sidecar.get("commit")
    if untrusted_commit(commit):
        return [f"its run ({sidecar_file}) was made at commit {commit or 'unknown'}, from uncommitted changes or "
                f"outside git: commit them and run it again"], False
    recorded = sidecar["hashes"]
    current = current_hashes(figure, profile, recorded, sidecar["parameters"], project.root)
    problems = []
    touched = sorted(set(covered_files(figure, project.root, recorded, current)) & uncommitted)
    if touched:
        problems.append(f"uncommitted changes to files its hash covers: {', '.join(touched)} "
                        f"(commit or undo them first)")
    now = resolved_parameters(figure, profile, sidecar["parameters"])
    stale = changes_between(current, recorded, sidecar["parameters"], now)
    if stale and not allow_stale:
        problems.append(f"its run ({sidecar_file}, commit {commit}) is not current: {'; '.join(stale)} "
                        f"(run it again, or record it as not current with --allow-stale)")
    return problems, not stale


# ---- entries and the files_at table --------------------------------------------------------------

def entry_hashes(hashes: dict) -> dict:
    """What an entry keeps of its run's hashes: total, parts and the files it read (not the per-file maps)."""
    return {"total": hashes["total"], "parts": hashes["parts"], "reads": list(hashes.get("reads") or ()),
            "files": list(hashes.get("files") or ())}


def file_map(hashes: dict) -> dict[str, str]:
    """The run's per-file hashes (library and inputs), for the record's files_at under its commit."""
    return {**(hashes.get("library_files") or {}), **(hashes.get("input_files") or {})}


def add_files(record: dict, commit: str, files: dict[str, str]) -> None:
    record.setdefault("files_at", {}).setdefault(commit, {}).update(files)


def prune_files_at(record: dict) -> None:
    """Keep the commits some entry still refers to (an entry replaced or dropped leaves its commit's map)."""
    used = {entry.get("commit") for entry in record.get("figures", {}).values() if entry.get("hashes")}
    record["files_at"] = {commit: dict(sorted(files.items()))
                          for commit, files in sorted((record.get("files_at") or {}).items()) if commit in used}


def drop_untrusted(record: dict) -> list[str]:
    """Remove the entries made from uncommitted changes or outside git; 'id (commit)' of each removed."""
    figures = record.get("figures") or {}
    dropped = [fig_id for fig_id, entry in figures.items() if untrusted_commit(entry.get("commit"))]
    described = [f"{fig_id} ({figures[fig_id].get('commit') or 'no commit'})" for fig_id in dropped]
    for fig_id in dropped:
        del figures[fig_id]
    return described


# ---- is an entry current? --------------------------------------------------------------------------

def _within(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _in_library(path: str, figure: Figure) -> bool:
    """The rule of hashing.library_sources, applied to a recorded path (which may since have gone)."""
    parts = path.split("/")
    return path.startswith(PACKAGE + "/") and len(parts) > 2 and parts[2] not in excluded_subpackages(figure) \
        and "__pycache__" not in parts


def recorded_file_maps(record: dict, entry: dict, figure: Figure, current: dict) -> dict:
    """The entry's library_files and input_files, rebuilt from files_at. A map that does not rebuild to the
    recorded part (the figure's `depends` or inputs changed, or another run at that commit hashed a file
    differently) is replaced by the current one, so its part is reported as changed without naming files."""
    hashes = entry["hashes"]
    at = (record.get("files_at") or {}).get(entry.get("commit"), {})
    input_roots = [*reference_inputs(hashes.get("reads") or []), *(hashes.get("files") or []), *figure.inputs]
    rebuilt = {"library_files": {p: h for p, h in at.items() if _in_library(p, figure)},
               "input_files": {p: h for p, h in at.items() if _within(p, input_roots)}}
    maps = {}
    for key, part in (("library_files", "library"), ("input_files", "inputs")):
        exact = digest_of(rebuilt[key]) == hashes["parts"].get(part)
        maps[key] = rebuilt[key] if exact else current[key]
    return maps


def status_details(project: Project, record: dict, fig_id: str, figures: dict[str, Figure] | None = None) -> Status:
    """Whether a record's entry is current in the working tree, what changed, and the files that decide it."""
    entry = (record.get("figures") or {}).get(fig_id)
    if entry is None:
        return Status(False, ["not recorded"])
    figure = (project.figures() if figures is None else figures).get(fig_id)
    if figure is None:
        return Status(False, ["the figure no longer exists"])
    if not entry.get("hashes"):
        return Status(False, [NOT_KNOWN], figure_files(figure, project.root))
    profile = record.get("profile") or "full"
    hashes = entry["hashes"]
    current = current_hashes(figure, profile, hashes, entry.get("parameters") or {}, project.root)
    recorded = {**hashes, **recorded_file_maps(record, entry, figure, current)}
    now = resolved_parameters(figure, profile, entry.get("parameters") or {})
    changes = changes_between(current, recorded, entry.get("parameters") or {}, now)
    return Status(not changes, changes, covered_files(figure, project.root, current))


def entry_status(project: Project, profile_record: dict, fig_id: str) -> tuple[bool, list[str]]:
    """(current, changes) of one figure's entry in a profile record, against the working tree: current when
    its hash is the working tree's; changes in stale_reasons' words ("library changed: src/intellimetry/x.py").
    A missing entry, or one recorded before entries kept their hashes, is not known to be current."""
    status = status_details(project, profile_record, fig_id)
    return status.current, status.changes


# ---- how the book marks an entry -------------------------------------------------------------------

def _named(change: str) -> str:
    """A change with at most FILES_SHOWN files named."""
    head, sep, names = change.partition(": ")
    listed = names.split(", ")
    if not sep or len(listed) <= FILES_SHOWN:
        return change
    return f"{head}: {', '.join(listed[:FILES_SHOWN])} and {len(listed) - FILES_SHOWN} more"


def marker(entry: dict, status: Status, short: bool = False) -> str:
    """'' for a current entry; else '(recorded at <commit>, not current: <what changed>)', or with
    `short` just the parts that changed: '(not current: library changed)'."""
    if status.current:
        return ""
    if status.changes == [NOT_KNOWN]:
        return "(not known to be current)" if short else f"(recorded at {entry.get('commit')}, not known to be current)"
    if short:
        return f"(not current: {', '.join(dict.fromkeys(c.partition(':')[0] for c in status.changes))})"
    return f"(recorded at {entry.get('commit')}, not current: {'; '.join(map(_named, status.changes))})"


def differing_parameters(first: dict | None, second: dict | None) -> list[str]:
    """Names of the parameters whose values differ between two runs (or that only one has), in order."""
    first, second = first or {}, second or {}
    return [name for name in dict.fromkeys([*first, *second]) if first.get(name, ...) != second.get(name, ...)]
