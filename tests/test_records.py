"""Records you can trust (data/runs/<profile>.json): what `record` refuses, what an entry keeps, whether it is
still current, and how the book marks one that is not."""
from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from intellimetry.book import records, roles, runs
from intellimetry.book.runs import record_built, record_runs
from intellimetry.pipeline.project import Project
from intellimetry.pipeline.runner import RunError, run
from intellimetry.pipeline.schedule import RUNS_DIR
from tests.conftest import make_mini_project

SURVIVAL, SOC = "survival-fig01-tiny", "soc-fig02-tiny"
SURVIVAL_LIB = "src/intellimetry/survival/__init__.py"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), "-c", "user.email=test@example.org", "-c", "user.name=Test",
                           *args], capture_output=True, text=True, check=True).stdout.strip()


def commit_all(root: Path, message: str = "change") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def append(project: Project, relative: str, text: str) -> None:
    path = project.root / relative
    path.write_text(path.read_text() + text)


@pytest.fixture(scope="module")
def committed_once(tmp_path_factory) -> Project:
    """The mini project as a git repository, committed, with both figures run on quick at that commit."""
    project = make_mini_project(tmp_path_factory.mktemp("records"))
    (project.root / ".gitignore").write_text("figures/\n")
    git(project.root, "init", "-q")
    commit_all(project.root, "the mini project")
    run(project, [], out=io.StringIO())
    return project


@pytest.fixture
def project(committed_once, tmp_path) -> Project:
    """A fresh copy (repository, figures and all) for one test."""
    shutil.copytree(committed_once.root, tmp_path / "repo", symlinks=True)
    return Project.at(tmp_path / "repo")


@pytest.fixture
def runs_dir(tmp_path) -> Path:
    return tmp_path / "runs"


def sidecar(project: Project, fig_id: str) -> dict:
    return json.loads(project.sidecar("quick", project.figures()[fig_id]).read_text())


def written(runs_dir: Path) -> dict:
    return json.loads((runs_dir / "quick.json").read_text())


def test_a_clean_run_is_recorded_with_its_hashes_and_its_files_once_per_commit(project, runs_dir):
    record = record_runs(project, "quick", runs_dir=runs_dir, out=io.StringIO())
    assert record == written(runs_dir) and set(record["figures"]) == {SURVIVAL, SOC}
    entry, run_of = record["figures"][SURVIVAL], sidecar(project, SURVIVAL)
    assert entry["commit"] == run_of["commit"] == git(project.root, "rev-parse", "--short=12", "HEAD")
    assert entry["hashes"] == {key: run_of["hashes"].get(key, []) for key in ("total", "parts", "reads", "files")}
    assert entry["current"] and entry["parameters"] == run_of["parameters"]
    assert entry["wall_time_s"] == run_of["wall_time_s"] > 0 and entry["cpu_time_s"] == run_of["cpu_time_s"]
    assert entry["machine"]["cores"] >= 1 and entry["model_cache"] == run_of["model_cache"]
    # the per-file hashes once, under the commit both entries refer to, holding both figures' files
    assert list(record["files_at"]) == [entry["commit"]]
    assert record["files_at"][entry["commit"]][SURVIVAL_LIB] == run_of["hashes"]["library_files"][SURVIVAL_LIB]
    assert "src/intellimetry/soc/__init__.py" in record["files_at"][entry["commit"]]
    assert record["chapters"]["survival"] == {"figures": 1, "seconds": round(entry["wall_time_s"], 1),
                                              "minutes": round(entry["wall_time_s"] / 60, 1)}
    assert records.entry_status(project, record, SURVIVAL) == (True, [])
    assert records.entry_status(project, record, SOC) == (True, [])


@pytest.mark.parametrize("commit", ["0123456789ab-dirty", "unknown", ""])
def test_a_run_made_from_uncommitted_changes_is_refused_naming_it(project, runs_dir, commit):
    path = project.sidecar("quick", project.figures()[SURVIVAL])
    path.write_text(json.dumps({**sidecar(project, SURVIVAL), "commit": commit}))
    with pytest.raises(RunError) as error:
        record_runs(project, "quick", runs_dir=runs_dir)
    message = str(error.value)
    assert f"{SURVIVAL}: its run (figures/quick/survival/{SURVIVAL}.json) was made at commit " \
           f"{commit or 'unknown'}" in message and SOC not in message
    with pytest.raises(RunError, match=SURVIVAL):
        record_built(project, "quick", SURVIVAL, runs_dir=runs_dir)
    assert not (runs_dir / "quick.json").exists()


@pytest.mark.parametrize("relative", [f"notebooks/survival/{SURVIVAL}.md", SURVIVAL_LIB, "requirements.txt"])
def test_an_uncommitted_change_to_a_file_the_hash_covers_is_refused_naming_the_file(project, runs_dir, relative):
    append(project, relative, "\n# edited\n")
    with pytest.raises(RunError) as error:
        record_runs(project, "quick", [SURVIVAL], runs_dir=runs_dir)
    assert f"{SURVIVAL}: uncommitted changes to files its hash covers: {relative} (commit" in str(error.value)
    assert not (runs_dir / "quick.json").exists()


def test_a_new_untracked_library_file_is_refused_and_an_ignored_one_is_not(project, runs_dir):
    (project.root / "src/intellimetry/stats/extra.py").write_text("Y = 2\n")
    with pytest.raises(RunError, match="uncommitted changes to files its hash covers: src/intellimetry/stats/extra.py"):
        record_runs(project, "quick", [SOC], runs_dir=runs_dir)
    (project.root / ".gitignore").write_text("figures/\nsrc/intellimetry/stats/extra.py\n")
    commit_all(project.root)
    with pytest.raises(RunError, match="is not current: library changed: src/intellimetry/stats/extra.py"):
        record_runs(project, "quick", [SOC], runs_dir=runs_dir)  # still hashed, so the run is stale: not blocked


def test_changes_to_tooling_and_to_other_chapters_do_not_block_a_figure(project, runs_dir):
    append(project, "src/intellimetry/pipeline/runner.py", "# tooling edited\n")
    append(project, "src/intellimetry/soc/__init__.py", "# another chapter edited\n")
    (project.root / "notes.txt").write_text("an untracked file no hash covers\n")
    record = record_runs(project, "quick", [SURVIVAL], runs_dir=runs_dir)
    assert list(record["figures"]) == [SURVIVAL] and record["figures"][SURVIVAL]["current"]
    with pytest.raises(RunError, match="src/intellimetry/soc/__init__.py"):
        record_runs(project, "quick", [SOC], runs_dir=runs_dir)


def test_an_uncommitted_change_to_the_extends_fragment_is_refused(project, runs_dir):
    spec = project.root / "notebooks/soc/soc-fig02-tiny.yaml"
    spec.write_text(spec.read_text() + "extends: _shared.yaml\n")
    (project.root / "notebooks/soc/_shared.yaml").write_text("profiles:\n  full: {n: 40}\n")
    commit_all(project.root)  # the quick parameters are unchanged, so the run stays current
    assert record_runs(project, "quick", [SOC], runs_dir=runs_dir)["figures"][SOC]["current"]
    (project.root / "notebooks/soc/_shared.yaml").write_text("profiles:\n  full: {n: 45}\n")
    with pytest.raises(RunError, match="uncommitted changes to files its hash covers: notebooks/soc/_shared.yaml"):
        record_built(project, "quick", SOC, runs_dir=runs_dir)


def test_a_stale_run_is_refused_unless_allowed_and_then_recorded_as_not_current(project, runs_dir):
    append(project, SURVIVAL_LIB, "def more(): return 5\n")
    commit_all(project.root)  # committed, so only staleness stands in the way
    with pytest.raises(RunError) as error:
        record_runs(project, "quick", runs_dir=runs_dir)
    assert f"{SURVIVAL}: its run (figures/quick/survival/{SURVIVAL}.json, commit " in str(error.value)
    assert f"is not current: library changed: {SURVIVAL_LIB} (run it again, or record it as not current with " \
           "--allow-stale)" in str(error.value)
    assert SOC not in str(error.value)
    record = record_runs(project, "quick", runs_dir=runs_dir, allow_stale=True)
    assert record["figures"][SURVIVAL]["current"] is False and record["figures"][SOC]["current"] is True
    assert records.entry_status(project, record, SURVIVAL) == (False, [f"library changed: {SURVIVAL_LIB}"])


def test_entry_status_names_what_changed_since_the_entry_was_recorded(project, runs_dir):
    record = record_runs(project, "quick", runs_dir=runs_dir)
    append(project, SURVIVAL_LIB, "def more(): return 5\n")
    assert records.entry_status(project, record, SURVIVAL) == (False, [f"library changed: {SURVIVAL_LIB}"])
    assert records.entry_status(project, record, SOC) == (True, [])
    spec = project.root / f"notebooks/soc/{SOC}.yaml"
    spec.write_text(spec.read_text().replace("quick: {n: 3,", "quick: {n: 4,"))
    assert records.entry_status(project, record, SOC) == (False, ["parameters changed: n"])
    (project.root / "src/intellimetry/stats/__init__.py").unlink()
    current, changes = records.entry_status(project, record, SOC)
    assert not current and "library changed: src/intellimetry/stats/__init__.py" in changes
    assert records.entry_status(project, record, "agitb-fig01-none") == (False, ["not recorded"])


def test_record_built_merges_one_figure_and_keeps_the_others(project, runs_dir):
    record_built(project, "quick", SURVIVAL, runs_dir=runs_dir)
    first = written(runs_dir)["figures"][SURVIVAL]
    record = record_built(project, "quick", SOC, sidecar(project, SOC), runs_dir=runs_dir)  # as on_built hands it
    assert set(record["figures"]) == {SURVIVAL, SOC} and record["figures"][SURVIVAL] == first
    assert record == written(runs_dir) and record["chapters"]["soc"]["figures"] == 1


def test_rewriting_a_record_drops_the_entries_made_from_uncommitted_changes(project, runs_dir):
    old = {"commit": "02d305dcd453-dirty", "wall_time_s": 5.0, "verdicts": {}, "parameters": {}}
    kept = {"commit": "24ea58026391", "wall_time_s": 7.0, "verdicts": {}, "parameters": {},
            "up_to_date_when_recorded": True}  # an entry from before records kept hashes
    runs_dir.mkdir()
    (runs_dir / "quick.json").write_text(json.dumps({"profile": "quick", "figures": {
        SURVIVAL: old, "aiq-fig01-old": kept}}))
    out = io.StringIO()
    record = record_built(project, "quick", SOC, runs_dir=runs_dir, out=out)
    assert set(record["figures"]) == {SOC, "aiq-fig01-old"}
    assert f"dropped from quick.json, made from uncommitted changes (the book shows them as not run): {SURVIVAL} " \
           f"(02d305dcd453-dirty)" in out.getvalue()
    assert list(record["files_at"]) == [record["figures"][SOC]["commit"]]  # the old entry has no files to keep


def test_an_old_entry_loads_and_is_not_known_to_be_current(project):
    record = {"profile": "quick", "figures": {SURVIVAL: {"commit": "24ea58026391", "verdicts": {}, "parameters": {},
                                                         "up_to_date_when_recorded": True}}}
    assert records.entry_status(project, record, SURVIVAL) == (False, [records.NOT_KNOWN])
    status = records.status_details(project, record, SURVIVAL)
    assert records.marker(record["figures"][SURVIVAL], status) == "(recorded at 24ea58026391, not known to be current)"
    assert records.marker(record["figures"][SURVIVAL], status, short=True) == "(not known to be current)"


def test_the_marker_is_short_on_request_and_names_at_most_five_files():
    files = ", ".join(f"src/intellimetry/m{i}.py" for i in range(7))
    status = records.Status(False, [f"library changed: {files}", "parameters changed: n"])
    assert records.marker({"commit": "abc"}, status, short=True) == "(not current: library changed, parameters changed)"
    assert records.marker({"commit": "abc"}, status) == (
        "(recorded at abc, not current: library changed: src/intellimetry/m0.py, src/intellimetry/m1.py, "
        "src/intellimetry/m2.py, src/intellimetry/m3.py, src/intellimetry/m4.py and 2 more; parameters changed: n)")
    assert records.marker({"commit": "abc"}, records.Status(True, [])) == ""


def test_git_status_is_read_with_renames_and_untracked_folders(project):
    git(project.root, "mv", "src/intellimetry/paths.py", "src/intellimetry/moved.py")
    (project.root / "data/new").mkdir(parents=True)
    (project.root / "data/new/table.csv").write_text("a\n")
    assert records.uncommitted_paths(project.root) == {
        "src/intellimetry/paths.py", "src/intellimetry/moved.py", "data/new/table.csv"}


def test_two_processes_recording_at_once_lose_no_entry(project, runs_dir):
    """Each process writes slowly (between its read and its write); without the lock one entry would be lost."""
    script = ("import sys, time\nfrom pathlib import Path\nfrom intellimetry.book import runs\n"
              "from intellimetry.pipeline.project import Project\nwrite = runs.write_json\n"
              "runs.write_json = lambda path, obj: (time.sleep(1.5), write(path, obj))\n"
              "runs.record_built(Project.at(sys.argv[1]), 'quick', sys.argv[2], runs_dir=Path(sys.argv[3]))\n")
    processes = [subprocess.Popen([sys.executable, "-c", script, str(project.root), fig_id, str(runs_dir)])
                 for fig_id in (SURVIVAL, SOC)]
    assert [process.wait(timeout=120) for process in processes] == [0, 0]
    assert set(written(runs_dir)["figures"]) == {SURVIVAL, SOC}


# ---- the book: {recorded} and {profile-runs} ----------------------------------------------------------

class FakeEnv:
    """What the roles read of Sphinx's environment: per-page temp data and the dependencies noted."""
    def __init__(self):
        self.temp_data, self.dependencies = {}, set()

    def note_dependency(self, path):
        self.dependencies.add(str(path))


@pytest.fixture
def book_record(project, runs_dir, monkeypatch):
    """The mini project's figures recorded (quick), read by the roles as the checkout's record."""
    record_runs(project, "quick", runs_dir=runs_dir)
    monkeypatch.setattr(roles, "runs_path", lambda profile: runs_dir / f"{profile}.json")
    monkeypatch.setattr(roles, "_checkout", lambda: (project, project.figures()))
    monkeypatch.setattr(roles.paths, "NOTEBOOKS_DIR", project.notebooks_dir)
    roles._status.cache_clear()
    yield project
    roles._status.cache_clear()


def test_a_recorded_value_is_marked_once_in_full_per_page_where_not_current(book_record):
    env = FakeEnv()
    assert roles.lookup_recorded(env, f"quick:figures.{SURVIVAL}.parameters.n") == "3"
    assert str(book_record.root / SURVIVAL_LIB) in env.dependencies  # an edit re-reads the page
    append(book_record, SURVIVAL_LIB, "def more(): return 5\n")
    roles._status.cache_clear()
    commit = written(roles.runs_path("quick").parent)["figures"][SURVIVAL]["commit"]
    env = FakeEnv()
    assert roles.lookup_recorded(env, f"quick:figures.{SURVIVAL}.parameters.n") == \
        f"3 (recorded at {commit}, not current: library changed: {SURVIVAL_LIB})"
    assert roles.lookup_recorded(env, f"quick:figures.{SURVIVAL}.commit") == f"{commit} (not current: library changed)"
    assert roles.lookup_recorded(env, "quick:chapters.survival.figures") == "1 (1 of these 1 figures not current)"
    assert roles.lookup_recorded(env, f"quick:figures.{SOC}.parameters.n") == "3"


def test_a_figure_or_chapter_the_record_lacks_reads_not_run_and_a_typo_is_an_error(book_record):
    env = FakeEnv()
    assert roles.lookup_recorded(env, f"full:figures.{SOC}.verdicts.fig02") == "not run at full"  # no full.json
    assert roles.lookup_recorded(env, "quick:chapters.agitb.minutes%.0f") == "not run at quick"
    with pytest.raises(roles.LookupFailed, match="no figure 'soc-fig09-typo'"):
        roles.lookup_recorded(env, "quick:figures.soc-fig09-typo.wall_time_s")
    with pytest.raises(roles.LookupFailed):
        roles.lookup_recorded(env, f"quick:figures.{SOC}.no_such_key")


def test_the_profile_runs_lines_say_current_or_what_changed(book_record):
    record = written(roles.runs_path("quick").parent)
    entry = record["figures"][SOC]
    line = roles.run_line(SOC, entry, records.Status(True, []))
    assert line.startswith(f"{SOC}: ") and line.endswith("; current") and f"commit {entry['commit']}" in line
    stale = records.Status(False, [f"library changed: {SURVIVAL_LIB}"])
    assert roles.run_line(SOC, entry, stale).endswith(
        f"(recorded at {entry['commit']}, not current: library changed: {SURVIVAL_LIB})")
    assert roles.total_sentence("full", None, 0) == ("The full profile of this chapter is not recorded yet: no "
                                                     "figure of it has a run recorded.")
    assert roles.total_sentence("full", {"figures": 3, "minutes": 2.5}, 1).endswith("in all; 1 of them not current.")


def test_a_committed_record_holds_no_run_made_from_uncommitted_changes():
    """Every entry of data/runs/*.json can be traced to a commit (re-record with `make paper` where not)."""
    untrusted = {f"{path.name}: {fig_id} ({entry.get('commit')})"
                 for path in sorted(RUNS_DIR.glob("*.json"))
                 for fig_id, entry in json.loads(path.read_text(encoding="utf-8")).get("figures", {}).items()
                 if records.untrusted_commit(entry.get("commit"))}
    assert not untrusted, "entries made from uncommitted changes: " + ", ".join(sorted(untrusted))


def test_the_record_command_takes_allow_stale(monkeypatch):
    seen = {}
    monkeypatch.setattr(runs, "record_runs", lambda project, profile, ids, allow_stale: seen.update(
        profile=profile, ids=ids, allow_stale=allow_stale) or {"chapters": {}})
    assert runs.main(["--profile", "quick", "--allow-stale", SOC]) == 0
    assert seen == {"profile": "quick", "ids": [SOC], "allow_stale": True}


def test_run_with_record_records_each_figure_as_it_finishes_and_refuses_a_dirty_one(project, runs_dir, tmp_path):
    from intellimetry.pipeline.runner import recorder

    out = io.StringIO()
    run(project, [], force=True, out=out, on_built=recorder(project, out, runs_dir))
    assert set(written(runs_dir)["figures"]) == {SURVIVAL, SOC}
    assert out.getvalue().count("recorded ") == 2
    # an uncommitted edit to the survival library: the figure is built, not recorded, and the run goes on
    append(project, SURVIVAL_LIB, "\n# edited, not committed\n")
    elsewhere, out = tmp_path / "other-runs", io.StringIO()
    run(project, [SURVIVAL], out=out, on_built=recorder(project, out, elsewhere))
    assert f"not recorded: {SURVIVAL}" in out.getvalue()
    assert project.sidecar("quick", project.figures()[SURVIVAL]).exists()
    assert not (elsewhere / "quick.json").exists()


def test_a_resumed_run_with_its_records_uncommitted_is_still_recorded(project):
    """`make paper` interrupted: the records it made are uncommitted when it resumes. They are the runner's
    own output, read by no figure, so the resumed figures carry the clean commit and are recorded."""
    from intellimetry.pipeline.runner import recorder

    records_dir = project.root / "data" / "runs"
    records_dir.mkdir(parents=True)
    (records_dir / "quick.json").write_text('{"profile": "quick", "figures": {}}\n')
    commit_all(project.root, "an empty record")
    out = io.StringIO()
    run(project, [SURVIVAL], force=True, out=out, on_built=recorder(project, out, records_dir))
    assert git(project.root, "status", "--porcelain") == "M data/runs/quick.json"
    run(project, [SOC], force=True, out=out, on_built=recorder(project, out, records_dir))
    assert out.getvalue().count("recorded ") == 2 and "not recorded" not in out.getvalue()
    head = git(project.root, "rev-parse", "--short=12", "HEAD")
    assert {entry["commit"] for entry in written(records_dir)["figures"].values()} == {head}


def test_the_run_commit_is_dirty_for_any_other_uncommitted_change(project):
    from intellimetry.pipeline.gitstate import run_commit

    (project.root / "data" / "runs").mkdir(parents=True)
    (project.root / "data" / "runs" / "quick.json").write_text("{}\n")
    commit_all(project.root, "a record")
    head = git(project.root, "rev-parse", "--short=12", "HEAD")
    append(project, "data/runs/quick.json", "\n")
    assert run_commit(project.root) == head
    append(project, "src/intellimetry/pipeline/runner.py", "# tooling edited\n")  # hashed by no figure, still code
    assert run_commit(project.root) == f"{head}-dirty"
