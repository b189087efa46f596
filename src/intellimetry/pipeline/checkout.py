"""One checkout, one environment: the command-line tools refuse to run with another checkout's.

The package is installed editable, so a `.venv` copied with its checkout still imports the original's
source, and its kernel spec still names the original's Python: `make fig` in the copy would read the
original's notebooks and publish into the original's figures/. The check refuses, naming both paths,
only where it can tell: the working directory inside a checkout of this project other than the one
the package is imported from (paths.REPO_ROOT); a virtual environment inside another checkout; a
notebook kernel whose Python lives in another checkout's environment (or no longer exists). Anywhere
else (a temporary folder with --figures-dir, a conda or Binder environment) it has no opinion.
"""
from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from intellimetry import paths

PROJECT_NAME = "intellimetry"
# jupyter_client starts these kernel commands with its own interpreter (sys.executable)
RUNNER_PYTHON = {"python", f"python{sys.version_info[0]}", "python{}.{}".format(*sys.version_info[:2])}


@dataclass(frozen=True)
class Kernel:
    """The kernel papermill would start: its spec's folder and the Python its command runs."""
    spec_dir: Path
    python: str


def checkout_of(path: Path) -> Path | None:
    """The nearest folder at or above `path` whose pyproject.toml names the project intellimetry."""
    path = Path(path).resolve()
    for folder in (path, *path.parents):
        if _project_name(folder / "pyproject.toml") == PROJECT_NAME:
            return folder
    return None


def _project_name(pyproject: Path) -> str | None:
    if not pyproject.is_file():
        return None
    try:
        return tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("name")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None


def venv_of(python: str | Path) -> Path | None:
    """The virtual environment an interpreter path belongs to (<venv>/bin/python beside pyvenv.cfg).

    The interpreter itself is not resolved: a venv's python is a link to the base Python.
    """
    folder = Path(python).absolute().parent.parent
    return folder.resolve() if (folder / "pyvenv.cfg").is_file() else None


def _fix(checkout: Path) -> str:
    return (f"give it its own environment: cd {checkout} && rm -rf .venv && make env "
            f"(a .venv copied from another checkout keeps pointing there), then run through make")


def working_dir_problem(repo_root: Path, cwd: Path) -> str | None:
    here = checkout_of(cwd)
    if here is None or here == repo_root:
        return None
    return (f"this command runs in the checkout {here}, but the intellimetry package it imports is the one "
            f"in {repo_root}, so it would read and write that checkout instead (its figures/, its book/). "
            f"To work in {here}, {_fix(here)}.")


def venv_problem(repo_root: Path, prefix: str, base_prefix: str) -> str | None:
    if Path(prefix).resolve() == Path(base_prefix).resolve():
        return None  # not a virtual environment: no checkout owns it
    owner = checkout_of(Path(prefix))
    if owner is None or owner == repo_root:
        return None
    return (f"the Python environment {Path(prefix).resolve()} belongs to the checkout {owner}, but the "
            f"intellimetry package it imports is the one in {repo_root}: the environment was copied or "
            f"installed from there. To work in {owner}, {_fix(owner)}.")


def kernel_problem(repo_root: Path, kernel: Kernel | None) -> str | None:
    if kernel is None or kernel.python in RUNNER_PYTHON:
        return None
    if Path(kernel.python).is_absolute() and not Path(kernel.python).exists():
        return (f"the notebook kernel {kernel.spec_dir} runs {kernel.python}, which does not exist "
                f"(the kernel spec was copied from another environment). In {repo_root}, {_fix(repo_root)}.")
    venv = venv_of(kernel.python)
    owner = checkout_of(venv) if venv else None
    if owner is None or owner == repo_root:
        return None
    return (f"the notebook kernel {kernel.spec_dir} runs {kernel.python}, the environment of the checkout "
            f"{owner}, not of {repo_root}, where this runner's package lives: the notebooks would import "
            f"intellimetry from {owner}. In {repo_root}, {_fix(repo_root)}.")


def environment_problem(repo_root: Path, cwd: Path, prefix: str, base_prefix: str,
                        kernel: Kernel | None = None) -> str | None:
    """Why this process must not run here (the first problem found), or None."""
    repo_root = Path(repo_root).resolve()
    return (working_dir_problem(repo_root, cwd) or venv_problem(repo_root, prefix, base_prefix)
            or kernel_problem(repo_root, kernel))


def notebook_kernel(name: str) -> Kernel | None:
    """The kernel spec jupyter_client (and so papermill) finds for `name`; None if there is none."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec(name)
    except NoSuchKernel:
        return None  # papermill reports a missing kernel itself
    return Kernel(Path(spec.resource_dir), spec.argv[0]) if spec.argv else None


def refuse_other_checkout(kernel_name: str | None = None) -> int | None:
    """For a command-line entry point: print why and return exit code 2 if this process would use
    another checkout's package, environment or (with kernel_name) notebook kernel; else None."""
    kernel = notebook_kernel(kernel_name) if kernel_name else None
    problem = environment_problem(paths.REPO_ROOT, Path.cwd(), sys.prefix, sys.base_prefix, kernel)
    if problem is None:
        return None
    print(f"error: {problem}", file=sys.stderr)
    return 2
