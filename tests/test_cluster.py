"""The runner on a Dask cluster (--scheduler): the same outputs as one by one, a lost worker retried,
a worker that differs from this checkout refused, and every form of address checked."""
from __future__ import annotations

import io
import json
import os
import signal
import threading
import time
from importlib import metadata
from pathlib import Path

import pytest

from intellimetry import paths
from intellimetry.pipeline import cluster, runner
from intellimetry.pipeline.cluster import differences, locked_packages, parse_scheduler, publish_result
from intellimetry.pipeline.project import Project
from intellimetry.pipeline.registry import ParameterError
from intellimetry.pipeline.runner import RunError, plan, run
from tests.test_runner import edit, outputs, stale_ids

FIGURES = ("survival-fig01-tiny", "soc-fig02-tiny")
SOC_FILES = {f"soc-fig02-tiny.{suffix}" for suffix in ("ipynb", "json", "png", "svg")}


# ----------------------------------------------------------------- without a cluster

@pytest.mark.parametrize("address, expected", [
    ("local:2", 2), ("local:16", 16), ("tcp://10.0.0.5:8786", "tcp://10.0.0.5:8786"),
    ("scheduler.example.org:8786", "scheduler.example.org:8786"), ("tls://node7:8786", "tls://node7:8786"),
])
def test_the_scheduler_forms_that_are_accepted(address, expected):
    assert parse_scheduler(address) == expected


@pytest.mark.parametrize("address, words", [
    ("local:0", "whole number >= 1"), ("local:two", "whole number >= 1"), ("local:", "whole number >= 1"),
    ("tcp://node7", "missing port"), ("ftp://node7:21", "unknown protocol 'ftp'"),
    ("my-cluster", "allowed: local:N"),
])
def test_other_scheduler_forms_are_refused_naming_the_allowed_ones(address, words):
    with pytest.raises(ParameterError, match=words) as error:
        parse_scheduler(address)
    assert address in str(error.value)


def test_the_command_line_refuses_a_bad_scheduler_before_anything_runs(monkeypatch, capsys):
    monkeypatch.setattr(runner, "run", lambda *a, **k: pytest.fail("ran despite a bad --scheduler"))
    assert runner.main(["run", "--scheduler", "local:zero"]) == 2
    assert "--scheduler 'local:zero'" in capsys.readouterr().err


def test_the_pinned_package_names_are_read_from_the_lock_file(tmp_path):
    lock = tmp_path / "requirements-lock.txt"
    lock.write_text("# a comment\nnumpy==2.4.6\nPyYAML==6.0.3\n\n-e .\nscikit_learn==1.9.1  # pinned\n")
    assert locked_packages(lock) == ["numpy", "PyYAML", "scikit_learn"]


def test_differences_name_the_files_and_the_versions():
    mine = {"library": {"intellimetry/a.py": "1", "intellimetry/b.py": "2"},
            "packages": {"python": "3.11.9", "numpy": "2.4.6", "scipy": "1.17.1"}}
    theirs = {"library": {"intellimetry/a.py": "1", "intellimetry/b.py": "3", "intellimetry/c.py": "4"},
              "packages": {"python": "3.11.9", "numpy": "2.4.5", "scipy": None}}
    assert differences(mine, theirs) == [
        "library files differ: intellimetry/b.py, intellimetry/c.py",
        "numpy 2.4.6 here, 2.4.5 on the worker",
        "scipy 1.17.1 here, not installed on the worker"]
    assert differences(mine, mine) == []


def test_this_process_fingerprint_covers_the_installed_package():
    found = cluster.fingerprint(["numpy"])
    assert "intellimetry/pipeline/cluster.py" in found["library"]
    assert found["packages"]["numpy"] == metadata.version("numpy")


def test_outputs_that_are_not_the_figures_own_are_refused_and_nothing_is_published(mini_project):
    task = plan(mini_project, ["soc-fig02-tiny"])[0]
    sidecar = json.dumps({"figure_id": "soc-fig02-tiny", "profile": "quick", "hashes": {"reads": []}}).encode()
    for files, why in [({"soc-fig02-tiny.json": sidecar, "../escape.svg": b"<svg/>"}, "files of another name"),
                       ({"soc-fig02-tiny.svg": b"<svg/>"}, "no quick sidecar of soc-fig02-tiny")]:
        with pytest.raises(RunError, match=why):
            publish_result(mini_project, task, {"worker": "tcp://w:1", "files": files})
    assert outputs(mini_project, "quick", "soc-fig02-tiny") == {}


# ----------------------------------------------------------------- on a LocalCluster of 2 processes

@pytest.mark.slow
def test_a_local_cluster_gives_the_outputs_of_the_sequential_run(mini_project, tmp_path):
    one_by_one = Project.at(mini_project.root, tmp_path / "sequential")
    run(one_by_one, [], out=io.StringIO())
    report = io.StringIO()
    executed = run(mini_project, [], scheduler="local:2", out=report)
    assert len(executed) == 2
    text = report.getvalue()
    assert "dashboard: http" in text and "2 worker(s), 2 at once" in text and "summary: 2 figure(s)" in text
    for fig_id in FIGURES:
        a, b = outputs(mini_project, "quick", fig_id), outputs(one_by_one, "quick", fig_id)
        assert set(a) == set(b)
        assert a[f"{fig_id}.svg"] == b[f"{fig_id}.svg"]
        cluster_sidecar, sequential_sidecar = json.loads(a[f"{fig_id}.json"]), json.loads(b[f"{fig_id}.json"])
        assert cluster_sidecar["values"] == sequential_sidecar["values"] == {"n": 3, "total": 3}
        assert cluster_sidecar["hashes"] == sequential_sidecar["hashes"]  # this checkout's, not the worker's
    assert stale_ids(mini_project) == {}
    assert not list(mini_project.staging_dir.glob("*"))


def kill_the_worker_when_the_figure_starts(marker: Path) -> threading.Thread:
    """Wait for the slow figure to write its worker's and its kernel's pids, then kill both."""
    def killer():
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in map(int, marker.read_text().split()):
            if pid != os.getpid():  # never this test's process, whatever ran the figure
                os.kill(pid, signal.SIGKILL)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    return thread


@pytest.mark.slow
def test_a_worker_killed_mid_figure_is_retried_and_the_figure_published_whole(mini_project, tmp_path):
    marker = tmp_path / "first-attempt.pids"
    # the first attempt records its worker (the kernel's parent) and kernel, then takes long enough to be killed
    edit(mini_project, "soc-fig02-tiny", ".md", "if fail:", (
        f"import os, pathlib, time\nmarker = pathlib.Path({str(marker)!r})\nif not marker.exists():\n"
        "    pathlib.Path(f'{marker}.tmp').write_text(f'{os.getppid()} {os.getpid()}')\n"
        "    os.replace(f'{marker}.tmp', marker)\n    time.sleep(60)\nif fail:"))  # the pids appear whole
    killer = kill_the_worker_when_the_figure_starts(marker)
    report = io.StringIO()
    run(mini_project, ["soc-fig02-tiny"], scheduler="local:2", out=report)
    killer.join(5)
    assert "soc-fig02-tiny: its worker was lost (KilledWorker); running it once more" in report.getvalue()
    published = outputs(mini_project, "quick", "soc-fig02-tiny")
    assert set(published) == SOC_FILES  # whole files only: no temporary or half-written one
    assert json.loads(published["soc-fig02-tiny.json"])["values"] == {"n": 3, "total": 3}
    assert stale_ids(mini_project) == {"survival-fig01-tiny": ["never built"]}
    assert not list(mini_project.staging_dir.glob("*"))


@pytest.mark.slow
def test_a_figure_whose_worker_is_lost_twice_is_reported_and_nothing_published(mini_project):
    edit(mini_project, "soc-fig02-tiny", ".md", "if fail:",  # kills its worker (but never this test's process)
         f"import os, signal\nif os.getppid() != {os.getpid()}:\n    os.kill(os.getppid(), signal.SIGKILL)\n"
         "    os._exit(1)\nif fail:")
    report = io.StringIO()
    with pytest.raises(RunError, match=r"soc-fig02-tiny failed \(quick\): its worker was lost twice"):
        run(mini_project, ["soc-fig02-tiny"], scheduler="local:2", out=report)
    assert report.getvalue().count("running it once more") == 1  # one retry, then the report
    assert outputs(mini_project, "quick", "soc-fig02-tiny") == {}
    assert not list(mini_project.staging_dir.glob("*"))


def install_another_library_and_numpy():
    """Run on one worker: its check then reports one library file changed and another numpy."""
    from intellimetry.pipeline import cluster

    real_files, real_version = cluster.library_files, cluster._installed_version
    cluster.library_files = lambda: {**real_files(), "intellimetry/stats/__init__.py": "0" * 64}
    cluster._installed_version = lambda name: "0.0" if name == "numpy" else real_version(name)


@pytest.mark.slow
def test_a_worker_that_differs_from_this_checkout_is_refused_naming_the_difference(mini_project):
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as local, \
            Client(local) as client:
        changed, unchanged = sorted(client.scheduler_info(n_workers=-1)["workers"])
        client.run(install_another_library_and_numpy, workers=[changed])
        with pytest.raises(RunError) as error:
            run(mini_project, [], scheduler=local.scheduler_address, out=io.StringIO())
    message = str(error.value)
    assert message.startswith("refused: worker(s) that differ from this checkout")
    assert (f"{changed}: library files differ: intellimetry/stats/__init__.py; "
            f"numpy {metadata.version('numpy')} here, 0.0 on the worker") in message
    assert unchanged not in message
    for fig_id in FIGURES:
        assert outputs(mini_project, "quick", fig_id) == {}  # refused before any figure ran


@pytest.mark.slow
def test_a_figure_s_sweep_runs_on_the_cluster_that_runs_the_figure(mini_project):
    # the notebook's parallel_map finds the cluster through INTELLIMETRY_DASK_SCHEDULER, and its tasks
    # run on the workers' second threads while the figure holds its worker's `figure` resource
    edit(mini_project, "soc-fig02-tiny", ".md", "save_figure(fig, \"soc-fig02-tiny\", values={",
         "from intellimetry.parallel import _active_client, parallel_map\n"
         "client = _active_client(None)\n"
         "save_figure(fig, \"soc-fig02-tiny\", values={\"swept\": parallel_map(abs, [-1, -2, -3], progress=False), "
         "\"workers\": len(client.scheduler_info(n_workers=-1)[\"workers\"]), ")
    run(mini_project, ["soc-fig02-tiny"], scheduler="local:2", out=io.StringIO())
    values = json.loads(outputs(mini_project, "quick", "soc-fig02-tiny")["soc-fig02-tiny.json"])["values"]
    assert values == {"swept": [1, 2, 3], "workers": 2, "n": 3, "total": 3}


@pytest.mark.slow
def test_a_worker_without_the_figure_resource_is_refused(mini_project):
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as local, \
            Client(local):
        with pytest.raises(RunError, match="lack the `figure` or `sweep` resource or a second thread .* "
                                           "`dask worker ADDRESS --nthreads 2 --resources figure=1,sweep=1`"):
            run(mini_project, [], scheduler=local.scheduler_address, out=io.StringIO())
    for fig_id in FIGURES:
        assert outputs(mini_project, "quick", fig_id) == {}


@pytest.mark.slow
def test_a_local_cluster_s_workers_start_with_the_worker_settings():
    # without the profiler and with coarser housekeeping intervals (see cluster.WORKER_CONFIG)
    import dask.config

    with cluster.connect("local:1") as client:
        settings = client.run(lambda: {key: dask.config.get(key) for key in cluster.WORKER_CONFIG})
    assert list(settings.values()) == [cluster.WORKER_CONFIG]
    assert dask.config.get("distributed.worker.profile.enabled")  # this process's setting is left alone


@pytest.mark.parametrize("page", ["book/reproduce.md"])  # README sends cluster set-up here (issue 36)
def test_the_docs_start_remote_workers_with_the_worker_settings(page):
    # every DASK_* variable the page sets, as Dask reads it, is exactly cluster.WORKER_CONFIG: before the
    # `dask worker` command and in the SLURM prologue
    import re

    import dask.config

    text = (paths.REPO_ROOT / page).read_text(encoding="utf-8")
    worker_lines = text[text.index(".venv/bin/dask scheduler"):text.index("make paper SCHEDULER=tcp://HEAD")]
    prologue = text[text.index("job_script_prologue"):text.index("cluster.scale")]
    for place in (worker_lines, prologue):
        assigned = dict(re.findall(r"\b(DASK_[A-Z_]+)=(\S+?)[\s\"]", place))
        read = dask.config.collect_env(assigned)  # as a worker started with them reads them
        assert len(assigned) == len(cluster.WORKER_CONFIG), place
        assert {key: dask.config.get(key, config=read) for key in cluster.WORKER_CONFIG} == cluster.WORKER_CONFIG, place
