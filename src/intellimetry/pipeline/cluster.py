"""The runner on a Dask cluster (`run --scheduler`): each stale figure runs on a worker, the client publishes it.

    python -m intellimetry.pipeline run --profile full --scheduler local:2          # 2 worker processes here
    python -m intellimetry.pipeline run --profile full --scheduler tcp://host:8786  # an existing scheduler

A worker runs a figure exactly as the local runner does (runner.execute: papermill, the same parameters
and kernel), in a private temporary folder of its own, and sends the finished outputs back as bytes. The
client checks them, records the hashes of its own checkout and publishes them with the runner's atomic
publish, so no shared filesystem is needed and figures/ never sees a file from an unfinished run. A
figure whose worker is lost is submitted once more, and reported as failed if that attempt is lost too.

A worker needs this repository at the same commit with `make env`: it imports intellimetry from its own
install, reads its own data/reference and uses its own model cache. Before any figure runs, the client
compares every worker's library sources and package versions with its own and refuses a worker that
differs, naming the difference.
"""
from __future__ import annotations

import json
import os
import platform
import re
import shutil
import sys
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import replace
from importlib import metadata
from pathlib import Path
from typing import Iterator

import dask.config
from distributed import Client, LocalCluster, as_completed, get_worker
from distributed.comm.addressing import parse_address, parse_host_port
from distributed.comm.registry import backends

from intellimetry import paths
from intellimetry.atomic import atomic_path, exclusive_lock, write_json
from intellimetry.parallel import SCHEDULER_VARIABLE, SWEEP_RESOURCE
from intellimetry.pipeline.execution import environment
from intellimetry.pipeline.hashing import changed_files, file_hashes
from intellimetry.pipeline.prepare import PreparationError, ensure
from intellimetry.pipeline.project import Project
from intellimetry.pipeline.registry import ParameterError
from intellimetry.pipeline.runner import (
    Outcome,
    RunError,
    Task,
    execute,
    hashes_of_run,
    publish,
    remove_orphaned_staging,
)

LOCAL = "local:"
SCHEDULER_FORMS = ("local:N (a LocalCluster of N worker processes on this machine), "
                   "tcp://HOST:PORT (an existing scheduler; also " + ", ".join(
                       f"{name}://" for name in sorted(set(backends) - {"tcp"})) + "), or HOST:PORT")
LOCK_FILE = paths.REPO_ROOT / "requirements-lock.txt"
# A figure task holds its worker's one `figure` resource while its notebook runs (in a kernel process
# of its own); the worker's second thread runs the tasks of the sweeps that notebooks send to the
# cluster (intellimetry.parallel, through INTELLIMETRY_DASK_SCHEDULER), one at a time as its one
# `sweep` resource says, so a figure with a sweep uses every worker, and a sweep always finds a free
# thread (no figure can wait on its own sweep).
FIGURE = "figure"
WORKER_THREADS = 2
WORKER_RESOURCES = {FIGURE: 1, SWEEP_RESOURCE: 1}
WORKER_FLAGS = f"--nthreads {WORKER_THREADS} --resources {FIGURE}=1,{SWEEP_RESOURCE}=1"
# Dask settings for the workers (local:N sets them; the docs start remote workers with the same, as
# DASK_* environment variables, and a test holds the docs to this dict):
# - the statistical profiler samples every task thread each 10 ms; on the SOC sweeps it made each task
#   about 12 % slower (a network system: 21.3 s against 18.9 s with it off);
# - every Dask process wakes its event loop each 20 ms (the tick that detects a blocked loop), measures
#   its memory each 100 ms and the machine each 500 ms. An idle local:2 used 4.3 CPU s a minute that way
#   (1.0 per worker, 2.2 in the scheduler and nannies), 0.8 with the intervals below: on 2 cores, about
#   3 % of the machine taken from the sweeps. Coarser checks only report a blocked loop or a memory
#   spike later; the tick's 3 s limit for the warning stays.
WORKER_CONFIG = {"distributed.worker.profile.enabled": False,
                 "distributed.admin.tick.interval": "500ms",
                 "distributed.worker.memory.monitor-interval": "1s",
                 "distributed.admin.system-monitor.interval": "2s"}
# How many differing library files a refusal lists by name.
NAMED_FILES = 10


def parse_scheduler(address: str) -> int | str:
    """'local:N' -> N (worker processes); a scheduler address -> itself; anything else is refused."""
    if address.startswith(LOCAL):
        count = address[len(LOCAL):]
        if count.isdigit() and int(count) >= 1:
            return int(count)
        raise ParameterError(f"--scheduler {address!r}: N in local:N must be a whole number >= 1")
    try:
        protocol, location = parse_address(address)
        if protocol not in backends:
            raise ValueError(f"unknown protocol {protocol!r}")
        if protocol != "inproc":
            parse_host_port(location)
    except ValueError as error:
        raise ParameterError(f"--scheduler {address!r} is not a scheduler address ({error}); "
                             f"allowed: {SCHEDULER_FORMS}") from None
    return address


@contextmanager
def connect(address: str, out=sys.stdout) -> Iterator[Client]:
    """A client of the scheduler at `address`, or of a LocalCluster started for `local:N` (closed after)."""
    target = parse_scheduler(address)
    if isinstance(target, int):
        # allowed_failures=0: a task whose worker dies fails at once, so run_on_cluster's single retry is
        # the only one; dashboard on any free port (the link is printed)
        with dask.config.set(WORKER_CONFIG), \
                LocalCluster(n_workers=target, threads_per_worker=WORKER_THREADS, resources=WORKER_RESOURCES,
                             processes=True, dashboard_address=":0",
                             scheduler_kwargs={"allowed_failures": 0}) as cluster, Client(cluster) as client:
            yield client
        return
    try:
        client = Client(target)
    except OSError as error:
        raise RunError(f"could not reach the Dask scheduler at {address}: {error}") from None
    with client:
        if not client.scheduler_info(n_workers=1)["workers"]:
            print(f"waiting for a worker to join {address} ...", file=out, flush=True)
            client.wait_for_workers(1)
        yield client


# ----------------------------------------------------------------- the worker check

def library_files() -> dict[str, str]:
    """{path: sha256} of the intellimetry sources this process imports (its own install)."""
    return file_hashes(paths.PACKAGE_DIR.parent, [paths.PACKAGE_DIR.name])


def locked_packages(lock_file: Path = LOCK_FILE) -> list[str]:
    """The package names pinned in requirements-lock.txt (`name==version` lines)."""
    lines = lock_file.read_text(encoding="utf-8").splitlines()
    return [match[1] for line in lines if (match := re.match(r"^([A-Za-z0-9._-]+)==", line.strip()))]


def _installed_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def fingerprint(packages: list[str]) -> dict:
    """What this process runs figures with: its library sources and the versions of `packages` and Python."""
    versions = {name: _installed_version(name) for name in packages}
    return {"library": library_files(), "packages": {"python": platform.python_version(), **versions}}


def differences(mine: dict, theirs: dict) -> list[str]:
    """How a worker's fingerprint differs from this process's, as phrases naming files and versions."""
    found = []
    files = changed_files(mine["library"], theirs["library"])
    if files:
        named = ", ".join(files[:NAMED_FILES]) + (f" and {len(files) - NAMED_FILES} more" if len(files) > NAMED_FILES
                                                  else "")
        found.append(f"library files differ: {named}")
    for name in sorted(set(mine["packages"]) | set(theirs["packages"])):
        here, there = mine["packages"].get(name), theirs["packages"].get(name)
        if here != there:
            found.append(f"{name} {here or 'not installed'} here, {there or 'not installed'} on the worker")
    return found


def check_workers(client: Client) -> dict[str, int]:
    """{address: figures at once} of the workers, after refusing the run if any of them differs from this
    checkout or lacks the `figure` resource and the second thread."""
    packages = locked_packages()
    mine = fingerprint(packages)
    theirs = client.run(fingerprint, packages, on_error="return")
    problems = []
    for address, result in sorted(theirs.items()):
        if isinstance(result, BaseException):
            problems.append(f"{address}: the check could not run there ({type(result).__name__}: {result})")
        elif found := differences(mine, result):
            problems.append(f"{address}: " + "; ".join(found))
    if problems:
        raise RunError("refused: worker(s) that differ from this checkout (a worker needs this repository at "
                       "the same commit with `make env`; stop the worker or reinstall it):\n  " + "\n  ".join(problems))
    workers = client.scheduler_info(n_workers=-1)["workers"]
    slots = {address: int((worker.get("resources") or {}).get(FIGURE, 0)) for address, worker in workers.items()}
    def fit(worker: dict) -> bool:
        offered = worker.get("resources") or {}
        return worker["nthreads"] >= WORKER_THREADS and all(offered.get(name, 0) >= need
                                                            for name, need in WORKER_RESOURCES.items())
    unfit = sorted(address for address, worker in workers.items() if not fit(worker))
    if unfit:
        raise RunError(f"refused: worker(s) {', '.join(unfit)} lack the `{FIGURE}` or `{SWEEP_RESOURCE}` resource "
                       f"or a second thread for the figures' sweeps; start workers with "
                       f"`dask worker ADDRESS {WORKER_FLAGS}`")
    return slots


# ----------------------------------------------------------------- the worker side

# The runner passes a figure's run context to its kernel in os.environ, which the threads of one worker
# process share: a worker runs its figures one at a time (its `figure` resource says so to the
# scheduler; the lock guards a worker started with more).
_ONE_FIGURE_AT_A_TIME = threading.Lock()


def worker_folder() -> Project:
    """Where a worker keeps its figures' private folders: its own temporary directory, not the client's
    figures/ (on a machine that runs both, each keeps its own)."""
    return Project(paths.REPO_ROOT, Path(tempfile.gettempdir()) / f"intellimetry-worker-{os.getuid()}")


def run_figure(task: Task, notebook_text: str, commit: str) -> dict:
    """Worker side: run one figure as the local runner does, in a private folder; return its files as bytes.

    A failing notebook is returned as {"error", "failed_notebook"} rather than raised, so that only a lost
    worker makes the task fail (and be retried).
    """
    shared = worker_folder()
    remove_orphaned_staging(shared)  # the folders of workers killed mid-figure
    shared.staging_dir.mkdir(parents=True, exist_ok=True)
    private = Path(tempfile.mkdtemp(prefix=f"{task.figure.id}.{os.getpid()}.", dir=shared.staging_dir))
    try:
        with _ONE_FIGURE_AT_A_TIME:
            return {"worker": get_worker().address, **_run_in(private, task, notebook_text, commit)}
    finally:
        shutil.rmtree(private, ignore_errors=True)


def _run_in(folder: Path, task: Task, notebook_text: str, commit: str) -> dict:
    notebook = folder / task.figure.notebook.name
    notebook.write_text(notebook_text, encoding="utf-8")
    here = replace(task, figure=replace(task.figure, notebook=notebook))
    project = Project(paths.REPO_ROOT, folder / "figures")
    try:
        ensure(task.figure.requires)  # once per machine, into the worker's own cache
        # the notebook's sweeps go to this cluster (intellimetry.parallel reads the variable)
        with environment(**{SCHEDULER_VARIABLE: get_worker().scheduler.address}):
            execute(project, here, commit)
    except (RunError, PreparationError) as error:
        failed = project.failed_notebook(task.profile, here.figure)
        return {"error": str(error), "failed_path": str(failed),
                "failed_notebook": failed.read_bytes() if failed.exists() else None}
    out_dir = project.output_dir(task.profile, here.figure)
    return {"files": {path.name: path.read_bytes() for path in sorted(out_dir.iterdir())}}


# ----------------------------------------------------------------- the client side

def run_on_cluster(project: Project, stale: list[Task], commit: str, scheduler: str, outcome: Outcome,
                   out=sys.stdout) -> int:
    """Run `stale` (in order: the longest first) on the cluster, into `outcome`; return the figures at once."""
    with connect(scheduler, out) as client:
        workers = check_workers(client)
        slots = sum(workers.values())
        print(f"dashboard: {client.dashboard_link}", file=out, flush=True)
        print(f"running {len(stale)} figure(s) on {scheduler}: {len(workers)} worker(s), {slots} at once, "
              "longest first ...", file=out, flush=True)
        _run_all(client, project, stale, commit, outcome, out)
        return slots


def _run_all(client: Client, project: Project, stale: list[Task], commit: str, outcome: Outcome, out) -> None:
    """Submit every figure, publish each as it arrives; a lost attempt is retried once; a failure goes to
    `outcome` (when it stops the run, the figures not yet finished are cancelled)."""
    run_id = uuid.uuid4().hex[:8]
    notebooks = {task.figure.id: task.figure.notebook.read_text(encoding="utf-8") for task in stale}

    def submit(number: int, attempt: int):
        task = stale[number]
        future = client.submit(run_figure, task, notebooks[task.figure.id], commit, pure=False, resources={FIGURE: 1},
                               key=f"{task.figure.id}-{run_id}-attempt{attempt}", priority=len(stale) - number)
        attempts[future] = (number, attempt)
        return future

    attempts: dict = {}
    pending = as_completed([submit(number, 1) for number in range(len(stale))])
    started, done = time.monotonic(), 0
    try:
        for future in pending:
            number, attempt = attempts.pop(future)
            task = stale[number]
            try:
                result = future.result()
            except Exception as error:  # the worker died or left (a failing notebook returns its error)
                if attempt == 1:
                    print(f"{task.figure.id}: its worker was lost ({type(error).__name__}); running it once more",
                          file=out, flush=True)
                    pending.add(submit(number, attempt + 1))
                    continue
                done += 1
                outcome.add_failure(RunError(f"{task.figure.id} failed ({task.profile}): its worker was lost twice, "
                                             f"so nothing was published for it\n  {type(error).__name__}: {error}"),
                                    f"[{done}/{len(stale)}] ")
                continue
            done += 1
            try:
                sidecar = publish_result(project, task, result, out)
            except RunError as error:
                outcome.add_failure(error, f"[{done}/{len(stale)}] ")
                continue
            print(f"[{done}/{len(stale)}] {task.figure.id} ({task.profile}) done in {sidecar['wall_time_s']:.1f} s on "
                  f"{result['worker']} ({time.monotonic() - started:.0f} s elapsed)", file=out, flush=True)
            outcome.add_built(task, sidecar)
    finally:
        client.cancel(list(attempts))


def publish_result(project: Project, task: Task, result: dict, out=sys.stdout) -> dict:
    """A worker's outputs of `task`, checked, with this checkout's hashes, published atomically."""
    fig_id = task.figure.id
    if "error" in result:
        raise RunError(_failure_message(project, task, result))
    files = _checked_files(task, result)
    sidecar_name = f"{fig_id}.json"
    sidecar = json.loads(files.pop(sidecar_name))
    sidecar["hashes"] = hashes_of_run(task, project, sidecar["hashes"]["reads"], sidecar["hashes"].get("files", ()))
    project.staging_dir.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f"{fig_id}.{os.getpid()}.", dir=project.staging_dir))
    try:
        for name, data in files.items():
            (stage / name).write_bytes(data)
        write_json(stage / sidecar_name, sidecar)

        def waiting(holder: str) -> None:
            print(f"waiting: {fig_id} ({task.profile}) is being published by {holder}", file=out, flush=True)

        with exclusive_lock(project.locks_dir / f"{task.profile}--{fig_id}.lock", waiting):
            publish(stage, project.output_dir(task.profile, task.figure), fig_id)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return sidecar


def _failure_message(project: Project, task: Task, result: dict) -> str:
    """The worker's RunError, with its executed notebook kept here (where the local runner keeps it)."""
    message = result["error"]
    if result["failed_notebook"] is not None:
        failed = project.failed_notebook(task.profile, task.figure)
        with atomic_path(failed) as tmp:
            tmp.write_bytes(result["failed_notebook"])
        message = message.replace(result["failed_path"], str(failed))
    return f"{message}\n  (on worker {result['worker']})"


def _checked_files(task: Task, result: dict) -> dict[str, bytes]:
    """The files a worker returned, refused unless they are the figure's own, with its sidecar."""
    fig_id, files = task.figure.id, result["files"]
    wrong = [name for name in files if not name.startswith(f"{fig_id}.") or "/" in name or "\\" in name]
    try:
        sidecar = json.loads(files[f"{fig_id}.json"])
        ours = sidecar.get("figure_id") == fig_id and sidecar.get("profile") == task.profile
    except (KeyError, ValueError):
        ours = False
    if wrong or not ours:
        why = f"files of another name: {', '.join(wrong)}" if wrong else f"no {task.profile} sidecar of {fig_id}"
        raise RunError(f"{fig_id}: worker {result['worker']} returned outputs that are not this figure's ({why}); "
                       "nothing was published")
    return dict(files)
