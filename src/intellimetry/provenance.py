"""Run context handed from the runner to a notebook's kernel, and the git commit of the checkout."""
from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path

from intellimetry import paths

RUN_CONTEXT_ENV = "INTELLIMETRY_RUN"
INTERACTIVE = "interactive"


def git_commit(root: Path = paths.REPO_ROOT) -> str:
    """Short commit id of the checkout, with '-dirty' if tracked files differ; 'unknown' outside git."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              check=True, timeout=30).stdout.strip()
    try:
        commit = git("rev-parse", "--short=12", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return commit + ("-dirty" if dirty else "")


def run_context() -> dict:
    """What the runner told this kernel (figure id, profile, parameters, hash, output folder).

    A notebook opened by hand in Jupyter has no runner: its outputs go to figures/interactive/.
    """
    raw = os.environ.get(RUN_CONTEXT_ENV)
    if raw:
        return json.loads(raw)
    return {"figure_id": None, "profile": INTERACTIVE, "parameters": None, "hash": None,
            "output_dir": None, "commit": None}


def machine_summary() -> dict:
    """The machine a run used, as a timing needs it: CPU cores this process may use, memory, platform."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        memory = None
    return {"cores": cores, "memory_gib": None if memory is None else round(memory, 1),
            "platform": f"{platform.system()} {platform.machine()}", "python": platform.python_version()}
