"""The runner: hashing, staleness, no needless re-runs, atomic outputs, validation before execution."""
from __future__ import annotations

import io
import json
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from intellimetry.paths import paper_of
from intellimetry.pipeline import prepare, runner
from intellimetry.pipeline.project import Project
from intellimetry.pipeline.registry import Figure, ParameterError, RegistryError
from intellimetry.pipeline.runner import RunError, Task, next_figure, plan, run, select
from tests.conftest import make_mini_project


def outputs(project: Project, profile: str, fig_id: str) -> dict[str, bytes]:
    folder = project.output_dir(profile, paper_of(fig_id))
    return {p.name: p.read_bytes() for p in sorted(folder.glob(f"{fig_id}*"))}


def edit(project: Project, fig_id: str, suffix: str, old: str, new: str) -> None:
    """Replace text in a mini-project figure's notebook (.md) or parameter file (.yaml)."""
    path = project.root / "notebooks" / paper_of(fig_id) / f"{fig_id}{suffix}"
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new))


def make_it_fail(project: Project, fig_id: str) -> None:
    edit(project, fig_id, ".md", "fail = False", "fail = True")
    edit(project, fig_id, ".yaml", "quick: {n: 3, fail: false", "quick: {n: 3, fail: true")


def stale_ids(project: Project, **kwargs) -> dict[str, list[str]]:
    return {t.figure.id: t.reasons for t in plan(project, [], **kwargs) if t.reasons}


def test_first_run_builds_everything_and_second_run_nothing(mini_project):
    assert set(stale_ids(mini_project)) == {"survival-fig01-tiny", "soc-fig02-tiny"}
    executed = run(mini_project, [], out=io.StringIO())
    assert len(executed) == 2
    sidecar = json.loads((mini_project.output_dir("quick", "survival") / "survival-fig01-tiny.json").read_text())
    assert sidecar["values"] == {"n": 3, "total": 3}
    assert sidecar["profile"] == "quick" and sidecar["parameters"] == {"n": 3, "fail": False, "reads": ""}
    assert sidecar["hashes"]["total"] and sidecar["wall_time_s"] > 0
    assert set(outputs(mini_project, "quick", "survival-fig01-tiny")) == {
        "survival-fig01-tiny.ipynb", "survival-fig01-tiny.json", "survival-fig01-tiny.png", "survival-fig01-tiny.svg"}
    assert stale_ids(mini_project) == {}
    assert run(mini_project, [], out=io.StringIO()) == []


@pytest.fixture(scope="module")
def built_once(tmp_path_factory):
    """The mini project run once per module (two kernels, seconds), copied for each test below."""
    project = make_mini_project(tmp_path_factory.mktemp("built"))
    run(project, [], out=io.StringIO())
    return project


@pytest.fixture
def built(built_once, tmp_path):
    """A fresh copy of the built mini project: every file, its figures and their times as they were."""
    shutil.copytree(built_once.root, tmp_path / "repo", symlinks=True)
    project = Project.at(tmp_path / "repo")
    assert not stale_ids(project), "a copied build must be up to date, or the tests below prove nothing"
    return project


def test_editing_a_paper_subpackage_marks_exactly_its_figures(built):
    lib = built.root / "src/intellimetry/survival/__init__.py"
    lib.write_text(lib.read_text() + "def more(): return 5\n")
    stale = stale_ids(built)
    assert list(stale) == ["survival-fig01-tiny"]
    assert stale["survival-fig01-tiny"] == ["library changed: src/intellimetry/survival/__init__.py"]


def test_editing_shared_code_marks_every_figure_and_tooling_none(built):
    (built.root / "src/intellimetry/pipeline/runner.py").write_text("# tooling changed\n")
    assert stale_ids(built) == {}
    (built.root / "src/intellimetry/stats/new.py").write_text("Y = 2\n")
    assert set(stale_ids(built)) == {"survival-fig01-tiny", "soc-fig02-tiny"}


def test_editing_the_notebook_or_requirements_marks_it_stale(built):
    notebook = built.root / "notebooks/soc/soc-fig02-tiny.md"
    notebook.write_text(notebook.read_text() + "\nA new paragraph.\n")
    assert stale_ids(built) == {"soc-fig02-tiny": ["notebook changed"]}
    (built.root / "requirements.txt").write_text("numpy==2\n")
    assert set(stale_ids(built)) == {"survival-fig01-tiny", "soc-fig02-tiny"}


def test_a_parameter_change_reruns_only_that_figure_under_custom(built):
    stale = run(built, ["soc-fig02-tiny"], overrides={"n": "5"}, out=io.StringIO())
    assert [t.profile for t in stale] == ["custom"]
    sidecar = json.loads(built.sidecar("custom", stale[0].figure).read_text())
    assert sidecar["values"]["total"] == 10 and sidecar["profile"] == "custom"
    assert stale_ids(built) == {}  # quick outputs untouched and still fresh
    assert run(built, ["soc-fig02-tiny"], overrides={"n": "5"}, out=io.StringIO()) == []
    assert stale_ids(built, profile="full") == {"survival-fig01-tiny": ["never built"],
                                                "soc-fig02-tiny": ["never built"]}


def test_declared_inputs_are_hashed_and_must_exist(built):
    spec = built.root / "notebooks/survival/survival-fig01-tiny.yaml"
    spec.write_text(spec.read_text() + "inputs: [data/table.csv]\n")
    with pytest.raises(FileNotFoundError, match="data/table.csv"):
        plan(built, [])
    (built.root / "data").mkdir()
    (built.root / "data/table.csv").write_text("a,b\n")
    assert stale_ids(built) == {"survival-fig01-tiny": ["inputs changed: data/table.csv"]}
    run(built, [], out=io.StringIO())
    (built.root / "data/table.csv").write_text("a,b\n1,2\n")
    assert stale_ids(built) == {"survival-fig01-tiny": ["inputs changed: data/table.csv"]}


def test_a_failing_notebook_stops_with_its_error_and_keeps_old_outputs(built):
    before = outputs(built, "quick", "survival-fig01-tiny")
    make_it_fail(built, "survival-fig01-tiny")
    with pytest.raises(RunError) as error:
        run(built, [], out=io.StringIO())
    message = str(error.value)
    assert "RuntimeError: asked to fail" in message
    failed = built.output_dir("quick", "survival") / "survival-fig01-tiny.failed.ipynb"
    assert str(failed) in message and failed.exists()
    after = outputs(built, "quick", "survival-fig01-tiny")
    after.pop(failed.name)
    assert after == before
    assert not list((built.figures_dir / ".staging").iterdir())


def test_a_crash_while_publishing_leaves_whole_files_and_a_stale_figure(built, monkeypatch):
    before = outputs(built, "quick", "survival-fig01-tiny")
    out_dir = built.output_dir("quick", "survival")
    real_replace = runner.os.replace
    published = []

    def crash_after_first_publish(src, dst):
        if Path(dst).parent == out_dir:
            if published:
                raise KeyboardInterrupt  # as if Ctrl-C arrived between two renames
            published.append(Path(dst).name)
        real_replace(src, dst)

    monkeypatch.setattr(runner.os, "replace", crash_after_first_publish)
    notebook = built.root / "notebooks/survival/survival-fig01-tiny.md"
    notebook.write_text(notebook.read_text().replace("ax.plot(range(n))", "ax.plot(range(n), 'o')"))
    with pytest.raises(KeyboardInterrupt):
        run(built, ["survival-fig01-tiny"], out=io.StringIO())
    monkeypatch.setattr(runner.os, "replace", real_replace)
    after = outputs(built, "quick", "survival-fig01-tiny")
    assert published == ["survival-fig01-tiny.ipynb"]  # one file was replaced whole ...
    assert set(after) == set(before)  # ... and no temporary or half-written file is left
    assert after["survival-fig01-tiny.json"] == before["survival-fig01-tiny.json"]
    assert stale_ids(built) == {"survival-fig01-tiny": ["notebook changed"]}  # so it re-runs next time
    assert not list((built.figures_dir / ".staging").iterdir())


def test_interrupt_during_execution_changes_nothing(built, monkeypatch):
    import papermill

    before = outputs(built, "quick", "soc-fig02-tiny")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(papermill, "execute_notebook", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(built, ["soc-fig02-tiny"], force=True, out=io.StringIO())
    assert outputs(built, "quick", "soc-fig02-tiny") == before
    assert not list((built.figures_dir / ".staging").iterdir())


def test_dry_run_reports_reasons_and_executes_nothing(built):
    (built.root / "src/intellimetry/soc/__init__.py").write_text("def sandpile(): return 5\n")
    report = io.StringIO()
    stale = run(built, [], dry_run=True, out=report)
    assert [t.figure.id for t in stale] == ["soc-fig02-tiny"]
    assert "library changed: src/intellimetry/soc/__init__.py" in report.getvalue()
    assert "1 of 2 figure(s) stale" in report.getvalue()
    assert stale_ids(built) == {"soc-fig02-tiny": ["library changed: src/intellimetry/soc/__init__.py"]}


@pytest.mark.parametrize("override, words", [
    ({"n": "abc"}, ["'n'", "'abc'", "int"]),
    ({"n": "0"}, ["'n'", ">= 1"]),
    ({"n": "1000"}, ["'n'", "<= 100"]),
    ({"fail": "maybe"}, ["'fail'", "true or false"]),
    ({"m": "1"}, ["unknown parameter 'm'", "known: fail, n, reads"]),
])
def test_bad_overrides_fail_before_anything_runs(mini_project, monkeypatch, override, words):
    monkeypatch.setattr(runner, "execute", lambda *a, **k: pytest.fail("executed despite a bad parameter"))
    with pytest.raises(ParameterError) as error:
        run(mini_project, ["soc-fig02-tiny"], overrides=override, out=io.StringIO())
    for word in words:
        assert word in str(error.value)


def test_overrides_need_exactly_one_figure_and_ids_must_exist(mini_project):
    with pytest.raises(ParameterError, match="exactly one figure"):
        plan(mini_project, [], overrides={"n": "4"})
    with pytest.raises(RunError, match="did you mean soc-fig02-tiny"):
        plan(mini_project, ["soc-fig02-tinny"])


def test_command_line_rejects_a_bad_value_naming_the_parameter(monkeypatch, capsys):
    monkeypatch.setattr(runner, "execute", lambda *a, **k: pytest.fail("executed despite a bad parameter"))
    code = runner.main(["run", "survival-fig01-levels", "alpha_limited=abc"])
    err = capsys.readouterr().err
    assert code == 2
    assert "alpha_limited" in err and "'abc'" in err and "float" in err
    assert runner.main(["run", "--profile", "huge"]) == 2
    assert "unknown profile 'huge'" in capsys.readouterr().err


def test_parallel_jobs_give_the_same_outputs_as_one_by_one(mini_project, tmp_path):
    one_by_one = Project.at(mini_project.root, tmp_path / "sequential")
    run(one_by_one, [], out=io.StringIO())
    report = io.StringIO()
    executed = run(mini_project, [], jobs=2, out=report)
    assert len(executed) == 2 and "in 2 processes" in report.getvalue()
    for fig_id in ("survival-fig01-tiny", "soc-fig02-tiny"):
        a, b = outputs(mini_project, "quick", fig_id), outputs(one_by_one, "quick", fig_id)
        assert a[f"{fig_id}.svg"] == b[f"{fig_id}.svg"]
        assert json.loads(a[f"{fig_id}.json"])["values"] == json.loads(b[f"{fig_id}.json"])["values"]
    assert stale_ids(mini_project) == {}


def test_a_finished_parallel_run_lets_its_workers_exit_before_the_pool_is_terminated(monkeypatch, mini_project):
    """Terminating idle workers could hang the run under load: Pool.terminate holds the task queue's read
    lock while it joins them. After the last figure the workers must already be gone."""
    import multiprocessing.pool

    alive_at_terminate = []
    terminate = multiprocessing.pool.Pool.terminate

    def noting_terminate(pool):
        alive_at_terminate.extend(worker.pid for worker in pool._pool if worker.is_alive())
        terminate(pool)
    monkeypatch.setattr(multiprocessing.pool.Pool, "terminate", noting_terminate)
    assert len(run(mini_project, [], jobs=2, out=io.StringIO())) == 2
    assert alive_at_terminate == []


def test_a_failure_in_a_parallel_run_stops_the_build(mini_project):
    # only when told to: by default the other figures still run (tests/test_runner_failures.py)
    make_it_fail(mini_project, "soc-fig02-tiny")
    report = io.StringIO()
    with pytest.raises(RunError, match=r"^soc-fig02-tiny failed \(quick\): RuntimeError: asked to fail"):
        run(mini_project, [], jobs=2, out=report, stop_at_first_failure=True)
    assert "summary:" not in report.getvalue()


def test_the_yaml_timeout_stops_a_cell_that_runs_too_long(mini_project):
    edit(mini_project, "soc-fig02-tiny", ".yaml", "timeout: 60", "timeout: 2")
    edit(mini_project, "soc-fig02-tiny", ".md", "if fail:", "import time\ntime.sleep(30)\nif fail:")
    with pytest.raises(RunError, match="the per-cell timeout is 2 s, set in soc-fig02-tiny.yaml"):
        run(mini_project, ["soc-fig02-tiny"], out=io.StringIO())


# ----------------------------------------------------------------- reference reads, enforced inputs

def use_reference(project: Project, fig_id: str, name: str) -> Path:
    """Make the figure read reference file `name`; the mini project gets its own copy to hash."""
    edit(project, fig_id, ".yaml", 'reads: ""}', f'reads: "{name}"}}')
    copy = project.root / "data/reference" / name
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text("value: 1\n")
    return copy


def test_editing_a_reference_file_reruns_exactly_the_figures_that_read_it(mini_project):
    copy = use_reference(mini_project, "survival-fig01-tiny", "survival/levels.yaml")
    run(mini_project, [], out=io.StringIO())
    sidecar = json.loads(mini_project.sidecar("quick", plan(mini_project, ["survival-fig01-tiny"])[0].figure)
                         .read_text())
    # save_figure also reads the paper's item registry, to judge the items that name the figure
    assert sidecar["hashes"]["reads"] == ["survival/items.yaml", "survival/levels.yaml"]
    assert "reference_files" not in sidecar
    assert stale_ids(mini_project) == {}
    copy.write_text("value: 2\n")
    report = io.StringIO()
    run(mini_project, [], dry_run=True, out=report)
    assert stale_ids(mini_project) == {"survival-fig01-tiny": ["inputs changed: data/reference/survival/levels.yaml"]}
    assert "1 of 2 figure(s) stale" in report.getvalue()


def test_the_yaml_may_not_declare_reference_data_or_its_own_paper(mini_project):
    spec = mini_project.root / "notebooks/soc/soc-fig02-tiny.yaml"
    original = spec.read_text()
    spec.write_text(original + "inputs: [data/reference/soc/x.yaml]\n")
    with pytest.raises(RegistryError, match="need not be declared"):
        plan(mini_project, ["soc-fig02-tiny"])
    spec.write_text(original + "depends: [soc]\n")
    with pytest.raises(RegistryError, match="own paper 'soc'"):
        plan(mini_project, ["soc-fig02-tiny"])


# ----------------------------------------------------------------- the runner as a new user meets it

def test_a_broken_yaml_is_named_with_its_line_and_the_other_figures_still_run(mini_project, capsys):
    spec = mini_project.root / "notebooks/soc/soc-fig02-tiny.yaml"
    spec.write_text(spec.read_text().replace("timeout: 60", "timeout: [60"))
    report = io.StringIO()
    with pytest.raises(RegistryError, match=r"soc-fig02-tiny.yaml, line \d+, column \d+: not valid YAML"):
        run(mini_project, [], out=report)
    assert "survival-fig01-tiny done" in report.getvalue()
    assert mini_project.sidecar("quick", plan(mini_project, ["survival-fig01-tiny"], broken=[])[0].figure).exists()
    with pytest.raises(RegistryError, match="soc-fig02-tiny.yaml, line"):  # named, it is not "unknown"
        plan(mini_project, ["soc-fig02-tiny"], broken=[])


@pytest.mark.parametrize("words, message", [
    (["alpha_limited", "1.2"], "'alpha_limited' must look like name=value"),
    (["n=3", "n=4"], "'n' is given twice"),
    (["=3"], "must look like name=value"),
])
def test_override_words_are_checked(words, message):
    with pytest.raises(ParameterError, match=message):
        runner.split_targets(words)


def test_figure_ids_and_overrides_are_told_apart():
    assert runner.split_targets(["soc-fig02-tiny", "n=4"]) == (["soc-fig02-tiny"], {"n": "4"})


def test_overrides_after_the_options_are_read_as_targets(monkeypatch, capsys):
    monkeypatch.setattr(runner, "execute", lambda *a, **k: pytest.fail("executed despite a bad parameter"))
    assert runner.main(["run", "survival-fig01-levels", "--profile", "full", "alpha_limited=abc"]) == 2
    assert "alpha_limited" in capsys.readouterr().err  # the override was read, and checked
    with pytest.raises(SystemExit):
        runner.main(["run", "survival-fig01-levels", "--no-such-option"])
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err


def test_the_command_line_says_name_equals_value(capsys):
    assert runner.main(["run", "survival-fig01-levels", "alpha_limited", "1.2"]) == 2
    assert "must look like name=value" in capsys.readouterr().err


def test_orphaned_staging_and_a_stale_failed_notebook_are_cleaned_up(built):
    orphan = built.staging_dir / "soc-fig02-tiny.999999999.abcd"  # no such process
    orphan.mkdir(parents=True)
    (orphan / "half.svg").write_text("<svg")
    live = built.staging_dir / f"soc-fig02-tiny.{os.getpid()}.efgh"
    live.mkdir()
    figure = plan(built, ["soc-fig02-tiny"])[0].figure
    failed = built.failed_notebook("quick", figure)
    failed.write_text("{}")
    report = io.StringIO()
    run(built, ["soc-fig02-tiny"], force=True, out=report)
    assert not orphan.exists() and live.exists()
    assert "removed soc-fig02-tiny.999999999.abcd" in report.getvalue()
    failed.write_text("{}")  # left from an earlier attempt; the figure is good now
    run(built, ["soc-fig02-tiny"], dry_run=True, out=io.StringIO())
    assert failed.exists()  # a dry run changes nothing
    assert run(built, ["soc-fig02-tiny"], out=io.StringIO()) == []
    assert not failed.exists()


def test_a_second_runner_waits_for_the_lock_and_skips_a_figure_built_meanwhile(mini_project):
    from intellimetry.atomic import exclusive_lock

    task = plan(mini_project, ["soc-fig02-tiny"])[0]
    lock = mini_project.locks_dir / f"quick--{task.figure.id}.lock"
    holding, release = threading.Event(), threading.Event()

    def other_runner():
        with exclusive_lock(lock):
            holding.set()
            runner.execute(mini_project, task, "test")  # builds the figure while holding the lock
            release.wait(10)

    thread = threading.Thread(target=other_runner)
    thread.start()
    holding.wait(10)
    report = io.StringIO()
    threading.Timer(0.5, release.set).start()
    assert runner.execute_locked(mini_project, task, "test", out=report) is None
    thread.join()
    assert "is being run by pid" in report.getvalue()
    assert "built by the other runner meanwhile" in report.getvalue()


def test_heartbeat_reports_elapsed_time_until_the_block_ends():
    from intellimetry.pipeline.execution import heartbeat

    out = io.StringIO()
    with heartbeat("fig", 0.05, out):
        time.sleep(0.18)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 2 and all(line.startswith("  fig still running, ") for line in lines)
    time.sleep(0.1)
    assert out.getvalue().splitlines() == lines  # silent after the block


def test_the_kernel_talks_over_ipc_and_writes_its_own_output_to_a_log(tmp_path, capfd):
    import nbformat
    import papermill

    from intellimetry.pipeline.execution import kernel_options

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import sys\nprint('kernel chatter', file=sys.__stderr__, flush=True)")])
    notebook.metadata["kernelspec"] = {"name": runner.KERNEL, "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, tmp_path / "in.ipynb")
    log = tmp_path / "kernel.log"
    with kernel_options(log) as options:
        assert options["config"]["KernelManager"]["transport"] == "ipc"
        papermill.execute_notebook(str(tmp_path / "in.ipynb"), str(tmp_path / "out.ipynb"),
                                   kernel_name=runner.KERNEL, progress_bar=False, **options)
    assert "kernel chatter" in log.read_text()
    captured = capfd.readouterr()
    assert "kernel chatter" not in captured.err and "without encryption" not in captured.err


def test_a_profile_record_refuses_a_figure_that_never_ran_on_it(built, tmp_path):
    from intellimetry.book.runs import record_runs

    with pytest.raises(RunError, match=r"soc-fig02-tiny has no run on the full profile"):
        record_runs(built, "full", ["soc-fig02-tiny"], runs_dir=tmp_path)
    with pytest.raises(RunError, match=r"unknown figure id\(s\): survival-fig99-none"):
        record_runs(built, "quick", ["survival-fig99-none"], runs_dir=tmp_path)
    assert not (tmp_path / "full.json").exists()


def test_a_library_edit_made_while_a_notebook_runs_leaves_the_figure_stale(built, monkeypatch):
    import papermill

    real_execute = papermill.execute_notebook
    lib = built.root / "src/intellimetry/survival/__init__.py"

    def edit_during_the_run(*args, **kwargs):
        result = real_execute(*args, **kwargs)
        lib.write_text(lib.read_text() + "def edited_meanwhile(): return 1\n")
        return result

    monkeypatch.setattr(papermill, "execute_notebook", edit_during_the_run)
    run(built, ["survival-fig01-tiny"], force=True, out=io.StringIO())
    monkeypatch.setattr(papermill, "execute_notebook", real_execute)
    assert stale_ids(built) == {"survival-fig01-tiny": ["library changed: src/intellimetry/survival/__init__.py"]}


# ----------------------------------------------------------------- preparation steps (YAML `requires`)

def needs_fake_step(monkeypatch, project: Project, tmp_path: Path, wait_for: Path | None = None,
                    fail: bool = False) -> prepare.Preparation:
    """Register a step 'fake-data' that writes a file (after `wait_for` exists, if given, or fails), and
    make survival-fig01-tiny require it and read the file."""
    data = tmp_path / "prepared" / "fetched.txt"
    code = "\n".join([
        "import pathlib, sys, time",
        "deadline = time.monotonic() + 120",
        f"wait = {str(wait_for) if wait_for else ''!r}",
        "while wait and not pathlib.Path(wait).exists() and time.monotonic() < deadline: time.sleep(0.2)",
        "sys.exit(3) if wait and not pathlib.Path(wait).exists() else None",
        f"sys.exit(4) if {fail} else pathlib.Path({str(data)!r}).write_text('fetched')",
    ])
    step = prepare.Preparation("fake-data", ("-c", code), tmp_path / "prepared" / "fake.stamp", "test data")
    data.parent.mkdir(parents=True, exist_ok=True)
    monkeypatch.setitem(prepare.PREPARATIONS, "fake-data", step)
    edit(project, "survival-fig01-tiny", ".yaml", "timeout: 60", "timeout: 60\nrequires: [fake-data]")
    edit(project, "survival-fig01-tiny", ".md", "if fail:", f"assert open({str(data)!r}).read() == 'fetched'\nif fail:")
    return step


def test_a_missing_preparation_runs_beside_the_figures_that_do_not_need_it(monkeypatch, mini_project, tmp_path):
    # the step finishes only once soc-fig02-tiny is published: it fails unless that figure ran meanwhile
    soc_sidecar = mini_project.sidecar("quick", mini_project.figures()["soc-fig02-tiny"])
    step = needs_fake_step(monkeypatch, mini_project, tmp_path, wait_for=soc_sidecar)
    report = io.StringIO()
    assert len(run(mini_project, [], jobs=2, out=report)) == 2
    lines = report.getvalue()
    assert step.done and "preparing fake-data (test data)" in lines
    assert lines.index("soc-fig02-tiny (quick) done") < lines.index("prepared fake-data") \
        < lines.index("survival-fig01-tiny (quick) done")
    assert stale_ids(mini_project) == {}
    report = io.StringIO()
    run(mini_project, ["survival-fig01-tiny"], force=True, jobs=2, out=report)  # the stamp is there
    assert "preparing" not in report.getvalue()


def test_one_at_a_time_a_preparation_runs_first(monkeypatch, mini_project, tmp_path):
    step = needs_fake_step(monkeypatch, mini_project, tmp_path)
    report = io.StringIO()
    assert len(run(mini_project, [], jobs=1, out=report)) == 2
    assert step.done and report.getvalue().index("prepared fake-data") < report.getvalue().index("[1/2]")


def test_a_failed_preparation_stops_the_build_and_publishes_nothing_that_needs_it(monkeypatch, mini_project,
                                                                                  tmp_path):
    step = needs_fake_step(monkeypatch, mini_project, tmp_path, fail=True)
    for jobs in (1, 2):
        with pytest.raises(prepare.PreparationError, match="'fake-data' \\(test data\\) failed with exit code 4"):
            run(mini_project, [], jobs=jobs, out=io.StringIO())
        assert not step.done
        assert outputs(mini_project, "quick", "survival-fig01-tiny") == {}


def test_requires_names_a_known_step(mini_project):
    edit(mini_project, "soc-fig02-tiny", ".yaml", "timeout: 60", "timeout: 60\nrequires: [no-such-step]")
    with pytest.raises(RegistryError, match="unknown step\\(s\\) \\['no-such-step'\\]; allowed: language-data"):
        select(mini_project.figures(), ["soc-fig02-tiny"])
    edit(mini_project, "soc-fig02-tiny", ".yaml", "[no-such-step]", "language-data")
    with pytest.raises(RegistryError, match="requires must be a list"):
        select(mini_project.figures(), ["soc-fig02-tiny"])


def test_the_language_figures_require_the_language_data():
    figures = Project.at().figures()
    needing = {fig_id for fig_id, figure in figures.items() if "language-data" in figure.requires}
    assert needing == {f"survival-fig{n:02d}-{slug}" for n, slug in (
        (4, "search"), (6, "coding"), (7, "mathematics"), (8, "qa"), (9, "writing"), (10, "languages"),
        (11, "fit-quality"), (12, "model-size"), (13, "prediction"))}


def test_a_free_process_takes_a_figure_that_shares_no_fragment_with_a_running_one():
    def task(fig_id: str, extends: str | None = None, requires: tuple = ()):
        figure = Figure(id=fig_id, paper="aiq", notebook=Path(f"{fig_id}.md"), spec_path=Path(f"{fig_id}.yaml"),
                        title="", timeout=60, inputs=(), depends=(), params={}, profiles={},
                        requires=requires, extends=extends)
        return Task(figure=figure, profile="quick", params={}, hashes={}, reasons=["new"])

    waiting = list(enumerate([task("aiq-fig23-a", "_cartpole3d.yaml"), task("aiq-fig24-b", "_cartpole3d.yaml"),
                              task("survival-fig07-c", "_language.yaml", ("language-data",)), task("aiq-fig05-d")]))
    assert next_figure(waiting, set(), set())[0] == 0  # the order given (longest first)
    assert next_figure(waiting, set(), {"_cartpole3d.yaml"})[0] == 2
    assert next_figure(waiting, {"language-data"}, {"_cartpole3d.yaml"})[0] == 3
    assert next_figure(waiting[:3], {"language-data"}, {"_cartpole3d.yaml"})[0] == 0  # else it waits its turn
    assert next_figure(waiting[2:3], {"language-data"}, set()) is None


def test_the_kernel_is_stopped_with_everything_it_started(mini_project, tmp_path):
    # The runner kills a finished kernel's process group instead of waiting for a graceful exit (1-3 s
    # per figure with torch loaded): the figure is published and no process the notebook left
    # running survives it.
    pid_file = tmp_path / "child.pid"
    start_child = f"import subprocess\nopen({str(pid_file)!r}, 'w').write(str(subprocess.Popen(['sleep', '120']).pid))"
    edit(mini_project, "soc-fig02-tiny", ".md", "if fail:", f"{start_child}\nif fail:")
    run(mini_project, ["soc-fig02-tiny"], out=io.StringIO())
    assert (mini_project.output_dir("quick", "soc") / "soc-fig02-tiny.json").exists()
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while runner._alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not runner._alive(child)
