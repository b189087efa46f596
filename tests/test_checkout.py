"""One checkout, one environment (issue 36, item 6): the command-line tools refuse another checkout's
package, virtual environment or notebook kernel, naming both checkouts; elsewhere they have no opinion."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from intellimetry import paths
from intellimetry.pipeline.checkout import (
    Kernel,
    checkout_of,
    environment_problem,
    notebook_kernel,
    venv_of,
)
from intellimetry.pipeline.runner import KERNEL

PYPROJECT = '[project]\nname = "{}"\nversion = "0.1.0"\n'
BASE = "/usr"  # sys.base_prefix of the fake virtual environments


def fake_checkout(root: Path, name: str = "intellimetry") -> Path:
    """A folder that looks like a checkout of `name`, with a .venv (pyvenv.cfg and bin/python)."""
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT.format(name))
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / ".venv" / "bin" / "python").write_text("")
    (root / "book").mkdir()
    return root.resolve()


@pytest.fixture
def two(tmp_path) -> tuple[Path, Path]:
    """The checkout the package lives in (a) and a copy of it (b)."""
    return fake_checkout(tmp_path / "a"), fake_checkout(tmp_path / "b")


def test_the_enclosing_checkout_is_the_nearest_intellimetry_project(tmp_path, two):
    a, _ = two
    other = fake_checkout(tmp_path / "a" / "vendored" / "other", name="something-else")
    assert checkout_of(a / "book") == a and checkout_of(a) == a
    assert checkout_of(other) == a  # a pyproject of another project is not a checkout of this one
    assert checkout_of(tmp_path) is None
    assert venv_of(a / ".venv" / "bin" / "python") == a / ".venv" and venv_of(a / "book" / "x") is None


def test_the_same_checkout_passes(two):
    a, _ = two
    kernel = Kernel(a / ".venv/share/jupyter/kernels/python3", str(a / ".venv/bin/python"))
    assert environment_problem(a, a / "book", str(a / ".venv"), BASE, kernel) is None


def test_running_in_another_checkout_is_refused_naming_both(two):
    a, b = two
    problem = environment_problem(a, b / "book", str(a / ".venv"), BASE)
    assert problem is not None
    assert f"runs in the checkout {b}" in problem and f"the one in {a}" in problem
    assert f"cd {b} && rm -rf .venv && make env" in problem


def test_another_checkouts_environment_is_refused_naming_both(two):
    a, b = two
    # a .venv copied into b whose editable install still imports a's package
    problem = environment_problem(a, a, str(b / ".venv"), BASE)
    assert problem is not None
    assert f"environment {b / '.venv'} belongs to the checkout {b}" in problem and f"the one in {a}" in problem
    assert f"cd {b} && rm -rf .venv && make env" in problem


def test_another_checkouts_kernel_is_refused_naming_both(two):
    a, b = two
    kernel = Kernel(a / ".venv/share/jupyter/kernels/python3", str(b / ".venv/bin/python"))
    problem = environment_problem(a, a, str(a / ".venv"), BASE, kernel)
    assert problem is not None
    assert f"runs {b / '.venv/bin/python'}, the environment of the checkout {b}, not of {a}" in problem


def test_a_kernel_whose_python_is_gone_is_refused(two):
    a, _ = two
    kernel = Kernel(a / ".venv/share/jupyter/kernels/python3", "/nowhere/.venv/bin/python")
    assert "/nowhere/.venv/bin/python, which does not exist" in environment_problem(a, a, BASE, BASE, kernel)


@pytest.mark.parametrize("where", ["outside", "conda", "bare python"])
def test_where_it_cannot_tell_it_has_no_opinion(tmp_path, two, where):
    a, _ = two
    elsewhere = tmp_path / "mini-project"
    elsewhere.mkdir()
    conda = tmp_path / "conda" / "envs" / "x"  # an environment, not a venv: no pyvenv.cfg
    (conda / "bin").mkdir(parents=True)
    (conda / "bin" / "python").write_text("")
    cwd, prefix, kernel = {
        "outside": (elsewhere, str(a / ".venv"), None),  # a test's temporary project, --figures-dir
        "conda": (a, str(conda), Kernel(conda / "share/jupyter/kernels/python3", str(conda / "bin/python"))),
        "bare python": (a, BASE, Kernel(Path("/usr/share/jupyter/kernels/python3"), "python")),
    }[where]
    base = prefix if where == "conda" else BASE
    assert environment_problem(a, cwd, prefix, base, kernel) is None


def test_the_kernel_is_the_one_jupyter_finds(tmp_path, monkeypatch, two):
    _, b = two
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [str(b / ".venv/bin/python"), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "Python 3", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))  # searched before every other folder
    assert notebook_kernel("python3") == Kernel(spec, argv[0])


def test_this_checkouts_own_environment_passes():
    """The test suite runs as CI does: in the checkout, with its .venv and kernel."""
    kernel = notebook_kernel(KERNEL)
    assert environment_problem(paths.REPO_ROOT, paths.REPO_ROOT, sys.prefix, sys.base_prefix, kernel) is None


@pytest.mark.parametrize("command", [["intellimetry.pipeline", "list"], ["intellimetry.book", "assemble"]])
def test_the_command_line_tools_refuse_in_another_checkout(two, command):
    _, b = two
    done = subprocess.run([sys.executable, "-m", *command], cwd=b / "book", capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert f"runs in the checkout {b}, but" in done.stderr and f"the one in {paths.REPO_ROOT}" in done.stderr
    assert done.stdout == ""
