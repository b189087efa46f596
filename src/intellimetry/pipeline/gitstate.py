"""What git says about a checkout: which paths have uncommitted changes, and the commit a run is made at."""
from __future__ import annotations

import subprocess
from pathlib import Path

from intellimetry import paths
from intellimetry.pipeline.schedule import RUNS_DIR
from intellimetry.provenance import git_commit

DIRTY = "-dirty"
# The profile records, relative to a checkout's root: `run --record` writes them itself and no figure reads them.
RECORDS_FOLDER = RUNS_DIR.relative_to(paths.REPO_ROOT).as_posix()


def changed_paths(root: Path, untracked: bool = True) -> set[str]:
    """Paths (relative to root) that `git status` shows: modified, staged, deleted and, with `untracked`,
    untracked files that are not ignored. Raises OSError or SubprocessError when git cannot tell."""
    out = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "-z",
                          f"--untracked-files={'all' if untracked else 'no'}"],
                         capture_output=True, check=True, timeout=60).stdout.decode("utf-8", "surrogateescape")
    found, fields = set(), out.split("\0")
    index = 0
    while index < len(fields):
        entry = fields[index]
        index += 1
        if len(entry) < 4:
            continue
        found.add(entry[3:])
        if entry[0] in "RC":  # a rename or copy: the next field is the path it came from
            found.add(fields[index])
            index += 1
    return found


def run_commit(root: Path) -> str:
    """The commit a run's outputs are stamped with: `provenance.git_commit`, except that uncommitted
    changes to the profile records alone do not make it dirty. `make paper` records each figure as it
    finishes, so a resumed run starts with the records it made uncommitted; its figures are still built
    from the commit's code."""
    commit = git_commit(root)
    if not commit.endswith(DIRTY):
        return commit
    try:
        changed = changed_paths(root, untracked=False)
    except (OSError, subprocess.SubprocessError):
        return commit
    only_records = changed and all(path.startswith(f"{RECORDS_FOLDER}/") for path in changed)
    return commit.removesuffix(DIRTY) if only_records else commit
