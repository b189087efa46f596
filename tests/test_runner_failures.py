"""A failed figure: the others still run, the failures are listed at the end, and no process of a failed,
timed-out or stopped figure outlives it."""
from __future__ import annotations

import io
import time
from pathlib import Path

import pytest

from intellimetry.pipeline import runner
from intellimetry.pipeline.project import Project
from intellimetry.pipeline.runner import RunError, plan, run
from tests.test_runner import edit, make_it_fail, stale_ids

SLEEPERS = """\
import os, pathlib, time

def sleep_here(folder):
    pathlib.Path(folder, str(os.getpid())).write_text("")
    time.sleep(60)
"""


def first_and_second(project: Project) -> tuple[str, str]:
    """The figure ids in the order a one-at-a-time run takes them."""
    first, second = (task.figure.id for task in plan(project, []))
    return first, second


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_failed_figure_leaves_the_others_to_run_and_is_listed_at_the_end(mini_project, jobs):
    failing, other = first_and_second(mini_project)
    make_it_fail(mini_project, failing)
    hooked = []
    report = io.StringIO()
    with pytest.raises(RunError) as error:
        run(mini_project, [], jobs=jobs, out=report,
            on_built=lambda task, sidecar: hooked.append((task.figure.id, sidecar["figure_id"])))
    failed = mini_project.failed_notebook("quick", plan(mini_project, [failing])[0].figure)
    message = str(error.value)
    assert message.startswith(f"1 of 2 figure(s) failed:\n  {failing} failed (quick): RuntimeError: asked to fail")
    assert str(failed) in message and failed.exists()
    text = report.getvalue()
    assert text.count(f"{failing} failed (quick): RuntimeError: asked to fail") == 1  # printed as it happened
    assert "summary: 1 figure(s) run in" in text and "; 1 failed" in text
    assert hooked == [(other, other)]
    assert stale_ids(mini_project) == {failing: ["never built"]}


def test_at_the_first_failure_a_run_told_to_stops_there(mini_project):
    failing, other = first_and_second(mini_project)
    make_it_fail(mini_project, failing)
    report = io.StringIO()
    with pytest.raises(RunError, match=rf"^{failing} failed \(quick\): RuntimeError: asked to fail"):
        run(mini_project, [], jobs=1, out=report, stop_at_first_failure=True,
            on_built=lambda task, sidecar: pytest.fail("nothing was built"))
    assert set(stale_ids(mini_project)) == {failing, other}  # the second figure never ran
    assert "summary:" not in report.getvalue()


def test_an_exception_of_the_on_built_hook_stops_the_run(mini_project):
    first, second = first_and_second(mini_project)

    def refuse(task, sidecar):
        raise ValueError(f"cannot record {task.figure.id}")

    with pytest.raises(ValueError, match=f"cannot record {first}"):
        run(mini_project, [], jobs=1, out=io.StringIO(), on_built=refuse)
    assert stale_ids(mini_project) == {second: ["never built"]}  # published before the hook, then stopped


def test_the_command_line_offers_to_stop_at_the_first_failure(capsys):
    with pytest.raises(SystemExit):
        runner.main(["run", "--help"])
    assert "--stop-at-first-failure" in capsys.readouterr().out


# ----------------------------------------------------------------- no process outlives its figure

def sweep_that_sleeps(project: Project, fig_id: str, folder: Path, timeout: int) -> None:
    """Make the figure's notebook start a two-worker parallel_map whose workers write their pids into
    `folder` and sleep 60 s (the kernel writes its own pid there as kernel.pid); its cells time out
    after `timeout` s."""
    (folder / "code").mkdir(parents=True)
    (folder / "code" / "sleepers.py").write_text(SLEEPERS)
    edit(project, fig_id, ".yaml", "timeout: 60", f"timeout: {timeout}")
    edit(project, fig_id, ".md", "import matplotlib.pyplot as plt", "\n".join([
        "import os, sys",
        f"open({str(folder / 'kernel.pid')!r}, 'w').write(str(os.getpid()))",
        f"sys.path.insert(0, {str(folder / 'code')!r})  # spawned workers get this sys.path too",
        "from sleepers import sleep_here",
        "from intellimetry.parallel import parallel_map",
        f"parallel_map(sleep_here, [{str(folder)!r}] * 2, workers=2, progress=False)",
        "import matplotlib.pyplot as plt"]))


def sleeper_pids(folder: Path) -> list[int]:
    """The kernel's pid and its sweep workers' (there must be both workers)."""
    workers = [int(path.name) for path in folder.iterdir() if path.name.isdigit()]
    assert len(workers) == 2, f"the sweep's workers did not both start: {workers}"
    return [int((folder / "kernel.pid").read_text()), *workers]


def running(pid: int) -> bool:
    """Whether the process exists and has not exited: a killed kernel's processes, reparented, stay as
    zombies until init reaps them (seconds, in a container)."""
    if not Path("/proc").is_dir():  # not Linux: a zombie counts as running
        return runner._alive(pid)
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def assert_all_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + 5
    while any(map(running, pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in pids if running(pid)] == []


def test_a_timed_out_sweep_leaves_no_process_behind(mini_project, tmp_path):
    folder = tmp_path / "sweep"
    sweep_that_sleeps(mini_project, "soc-fig02-tiny", folder, timeout=10)
    with pytest.raises(RunError, match="the per-cell timeout is 10 s"):
        run(mini_project, ["soc-fig02-tiny"], out=io.StringIO())
    assert_all_gone(sleeper_pids(folder))


def test_a_pool_stopped_at_a_failure_leaves_no_process_of_the_figure_in_flight(mini_project, tmp_path):
    folder = tmp_path / "sweep"
    sweep_that_sleeps(mini_project, "soc-fig02-tiny", folder, timeout=60)
    # the other figure fails once the sweep's workers are asleep, which stops the pool
    make_it_fail(mini_project, "survival-fig01-tiny")
    edit(mini_project, "survival-fig01-tiny", ".md", "if fail:", "\n".join([
        "import pathlib, time",
        "deadline = time.monotonic() + 40",
        f"while len(list(pathlib.Path({str(folder)!r}).glob('[0-9]*'))) < 2 and time.monotonic() < deadline:",
        "    time.sleep(0.2)",
        "if fail:"]))
    started = time.monotonic()
    with pytest.raises(RunError, match="survival-fig01-tiny failed"):
        run(mini_project, [], jobs=2, out=io.StringIO(), stop_at_first_failure=True)
    assert time.monotonic() - started < 50  # stopped, not waited for
    assert_all_gone(sleeper_pids(folder))
