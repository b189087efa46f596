"""The runner: hashing, staleness, no needless re-runs, atomic outputs, validation before execution."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from intellimetry import runner
from intellimetry.paths import paper_of
from intellimetry.registry import ParameterError
from intellimetry.runner import Project, RunError, plan, run


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
    edit(project, fig_id, ".yaml", "quick: {n: 3, fail: false}", "quick: {n: 3, fail: true}")


def stale_ids(project: Project, **kwargs) -> dict[str, list[str]]:
    return {t.figure.id: t.reasons for t in plan(project, [], **kwargs) if t.reasons}


def test_first_run_builds_everything_and_second_run_nothing(mini_project):
    assert set(stale_ids(mini_project)) == {"survival-fig01-tiny", "soc-fig02-tiny"}
    executed = run(mini_project, [], out=io.StringIO())
    assert len(executed) == 2
    sidecar = json.loads((mini_project.output_dir("quick", "survival") / "survival-fig01-tiny.json").read_text())
    assert sidecar["values"] == {"n": 3, "total": 3}
    assert sidecar["profile"] == "quick" and sidecar["parameters"] == {"n": 3, "fail": False}
    assert sidecar["hashes"]["total"] and sidecar["wall_time_s"] > 0
    assert set(outputs(mini_project, "quick", "survival-fig01-tiny")) == {
        "survival-fig01-tiny.ipynb", "survival-fig01-tiny.json", "survival-fig01-tiny.png", "survival-fig01-tiny.svg"}
    assert stale_ids(mini_project) == {}
    assert run(mini_project, [], out=io.StringIO()) == []


@pytest.fixture
def built(mini_project):
    run(mini_project, [], out=io.StringIO())
    return mini_project


def test_editing_a_paper_subpackage_marks_exactly_its_figures(built):
    lib = built.root / "src/intellimetry/survival/__init__.py"
    lib.write_text(lib.read_text() + "def more(): return 5\n")
    stale = stale_ids(built)
    assert list(stale) == ["survival-fig01-tiny"]
    assert stale["survival-fig01-tiny"] == ["library changed: src/intellimetry/survival/__init__.py"]


def test_editing_shared_code_marks_every_figure_and_tooling_none(built):
    (built.root / "src/intellimetry/runner.py").write_text("# tooling changed\n")
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
    assert stale_ids(built) == {"survival-fig01-tiny": ["inputs changed"]}
    run(built, [], out=io.StringIO())
    (built.root / "data/table.csv").write_text("a,b\n1,2\n")
    assert stale_ids(built) == {"survival-fig01-tiny": ["inputs changed"]}


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
    ({"m": "1"}, ["unknown parameter 'm'", "known: fail, n"]),
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


def test_a_failure_in_a_parallel_run_stops_the_build(mini_project):
    make_it_fail(mini_project, "soc-fig02-tiny")
    with pytest.raises(RunError, match="soc-fig02-tiny failed"):
        run(mini_project, [], jobs=2, out=io.StringIO())


def test_the_yaml_timeout_stops_a_cell_that_runs_too_long(mini_project):
    edit(mini_project, "soc-fig02-tiny", ".yaml", "timeout: 60", "timeout: 2")
    edit(mini_project, "soc-fig02-tiny", ".md", "if fail:", "import time\ntime.sleep(30)\nif fail:")
    with pytest.raises(RunError, match="the per-cell timeout is 2 s, set in soc-fig02-tiny.yaml"):
        run(mini_project, ["soc-fig02-tiny"], out=io.StringIO())
