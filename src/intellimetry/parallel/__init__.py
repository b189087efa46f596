"""One parallel map for the heavy sweeps: pool training, bootstrap resamples, AGITB candidates, trials.

:func:`parallel_map` calls ``function`` on every task and returns the results in the order of the
tasks. Where the tasks run:

* on a Dask cluster when one is in use: the ``client`` given, else the client this process made
  (``distributed.default_client()``, e.g. ``Client("tcp://head:8786")`` in a notebook cell), else
  the scheduler named by ``INTELLIMETRY_DASK_SCHEDULER`` (the cluster runner sets it for the
  notebooks it runs on workers, so a figure's sweep spreads over the cluster); ``workers`` is then
  ignored, the cluster's size decides. Dask's own configured address is not used: a figure holds a
  worker's `figure` resource while its notebook runs, and only the runner's workers leave a thread
  free beside it for the sweep's tasks (see intellimetry.pipeline.cluster);
* otherwise in ``workers`` local processes started with "spawn" (each runs torch on one thread);
* in this process, one task after the other, when ``workers`` is 1 or there is a single task, and
  inside a task that already runs on a Dask worker (the cluster parallelises one level up).

Results must not depend on where a task runs: every task carries its own seed, derived by the
caller from the base seed and the task's identity (:func:`task_seed`),
never from a worker's position or a shared generator, and code that depends on a thread count
fixes it itself. Then 1, 2 or N workers give identical values.

Processes are started with "spawn", so ``function`` must be importable by name (a top-level
function, or a functools.partial of one) and a script calling this with ``workers > 1`` needs the
usual ``if __name__ == "__main__":`` guard (notebooks do not).
"""
from __future__ import annotations

import hashlib
import multiprocessing
import os
import pickle
import reprlib
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager

from intellimetry.checks import check_int

__all__ = ["in_process", "parallel_map", "task_seed"]

_NOTHING = object()  # `shared` not given (None is a valid shared value)

# What a local worker process was started with: (function, shared arguments).
_WORKER: tuple[Callable, tuple] | None = None


def parallel_map(function: Callable, tasks: Iterable, *, workers: int = 1, shared=_NOTHING,
                 desc: str | None = None, progress: bool = True,
                 on_result: Callable[[int, object], None] | None = None, client=None) -> list:
    """``[function(task) for task in tasks]``, or ``function(shared, task)`` when ``shared`` is given,
    run where the module docstring says; results in the order of ``tasks``.

    ``shared``: one object every task needs (a data set, agents): sent once per worker, not per task.
    ``on_result(index, result)`` runs in this process as each task finishes (in completion order),
    e.g. to store it in a cache at once. ``desc`` labels the progress bar (plain tqdm, shown unless
    ``progress`` is False). An exception in a task is raised here with a note naming the task."""
    if not callable(function):
        raise ValueError(f"function must be callable, got {type(function).__name__}")
    workers = check_int("workers", workers, 1)
    tasks = list(tasks)
    if not tasks:
        return []
    _check_picklable(function)
    extra = () if shared is _NOTHING else (shared,)
    from tqdm import tqdm

    bar = tqdm(total=len(tasks), desc=desc, disable=not progress, leave=False)
    results: list = [None] * len(tasks)

    def finish(index: int, result) -> None:
        results[index] = result
        if on_result is not None:
            on_result(index, result)
        bar.update(1)

    try:
        dask_client = _active_client(client)
        if dask_client is not None:
            _map_on_dask(dask_client, function, tasks, extra, finish)
        elif workers == 1 or len(tasks) == 1 or _inside_dask_worker():
            for index, task in enumerate(tasks):
                with _naming(index, task):
                    result = function(*extra, task)
                finish(index, result)
        else:
            _map_on_processes(function, tasks, extra, min(workers, len(tasks)), finish)
    finally:
        bar.close()
    return results


def task_seed(*parts) -> int:
    """A 31-bit seed for one task from what identifies it (``parts`` joined by ':', hashed by sha256):
    the same on every machine, Python version and worker, unlike ``hash``, and independent of which
    other tasks run or in what order."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def in_process(workers: int, n_tasks: int, client=None) -> bool:
    """Whether :func:`parallel_map` would run ``n_tasks`` tasks in this process, one after the other
    (so a caller can keep per-item locks that cannot cross processes)."""
    workers = check_int("workers", workers, 1)
    if _active_client(client) is not None:
        return False
    return workers == 1 or n_tasks <= 1 or _inside_dask_worker()


# --------------------------------------------------------------------------- running tasks

@contextmanager
def _naming(index: int, task) -> Iterator[None]:
    """Let an exception of this task through with a note saying which task it was."""
    try:
        yield
    except BaseException as error:
        error.add_note(f"in parallel_map task {index}: {reprlib.repr(task)}")
        raise


def _check_picklable(function: Callable) -> None:
    try:
        pickle.dumps(function)
    except Exception as error:
        raise ValueError(f"function {function!r} cannot be sent to worker processes ({error}); "
                         "pass a top-level function (or a functools.partial of one), not a lambda "
                         "or a function defined inside another") from None


def _start_worker(function: Callable, extra: tuple) -> None:
    """Runs once per local worker process: keep the function and the shared object (sent once,
    not per task) and run torch on one thread (workers share the machine's cores)."""
    global _WORKER
    _WORKER = (function, extra)
    if "torch" in sys.modules:  # imported by the function's module: no import paid otherwise
        torch = sys.modules["torch"]
        torch.set_num_threads(1)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:  # already set, or the inter-op pool already started
            pass


def _run_in_worker(task):
    if _WORKER is None:
        raise RuntimeError("parallel_map worker used without its initializer")
    function, extra = _WORKER
    return function(*extra, task)


def _map_on_processes(function: Callable, tasks: list, extra: tuple, workers: int, finish) -> None:
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        # A spawned child is re-running an unguarded main script: fail now (the parent then sees a
        # broken pool) instead of hanging in ProcessPoolExecutor's shutdown.
        raise RuntimeError("parallel_map(workers > 1) was called while a worker process was starting: "
                           "put the script's top-level code under `if __name__ == '__main__':`")
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker,
                             initargs=(function, extra)) as pool:
        futures = {pool.submit(_run_in_worker, task): index for index, task in enumerate(tasks)}
        try:
            for future in as_completed(futures):
                index = futures[future]
                with _naming(index, tasks[index]):
                    result = future.result()
                finish(index, result)
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


# --------------------------------------------------------------------------- Dask

SCHEDULER_VARIABLE = "INTELLIMETRY_DASK_SCHEDULER"
# A worker of the figure runner (intellimetry.pipeline.cluster) offers one `sweep` resource, and a
# sweep's tasks each take it: two tasks in one worker process would share its GIL (the SOC kernels and
# the bootstrap fits hold it) and run at half speed each, one of them maybe the longest task.
SWEEP_RESOURCE = "sweep"
_SCHEDULER_CLIENTS: dict = {}  # address -> the client of this process (one connection, kept open)


def _active_client(client):
    """The Dask client to run on: the one given, else this process's default one, else one of the
    scheduler in INTELLIMETRY_DASK_SCHEDULER; None when there is none (or inside a Dask task)."""
    if client is not None:
        return client
    address = os.environ.get(SCHEDULER_VARIABLE)
    if "distributed" not in sys.modules and not address:
        return None  # no client can exist without distributed imported: skip its import
    import distributed

    if _inside_dask_worker():
        return None
    try:
        return distributed.default_client()
    except ValueError:  # no client made in this process
        pass
    if not address:
        return None
    if address not in _SCHEDULER_CLIENTS:
        _SCHEDULER_CLIENTS[address] = distributed.Client(address, set_as_default=False)
    return _SCHEDULER_CLIENTS[address]


def _inside_dask_worker() -> bool:
    if "distributed" not in sys.modules:
        return False
    import distributed

    try:
        distributed.get_worker()
    except ValueError:
        return False
    return True


def _map_on_dask(client, function: Callable, tasks: list, extra: tuple, finish) -> None:
    from distributed import as_completed as dask_completed

    # scatter([value]): one future for the whole object (a dict or tuple alone would be split up)
    shared = tuple(client.scatter([value], broadcast=True)[0] for value in extra)
    slots = _sweep_slots(client)
    submitted, placed = [], {}  # placed: future key -> (task index, the slot's worker or None)

    def submit(index: int, worker: str | None = None):
        where = {} if worker is None else {"resources": {SWEEP_RESOURCE: 1}, "workers": [worker],
                                           "allow_other_workers": True}  # another, should this one leave
        future = client.submit(_apply, function, tasks[index], *shared, pure=False, **where)
        submitted.append(future)
        placed[future.key] = (index, worker)
        return future

    # On the runner's workers each task takes a worker's one `sweep` slot. Dask sends a resource-bound
    # task to a worker when it is submitted (its queue of waiting tasks holds only unrestricted ones),
    # both of two tasks to one worker as readily as one to each, so a long task could wait while
    # another worker idles. So each slot gets one task at a time, the next in the order given as its
    # task finishes; elsewhere everything is submitted and Dask's queue hands it out.
    if slots is None:
        for index in range(len(tasks)):
            submit(index)
        waiting = iter(())
    else:
        for index, worker in zip(range(len(tasks)), slots):
            submit(index, worker)
        waiting = iter(range(min(len(slots), len(tasks)), len(tasks)))
    try:
        finished = dask_completed(list(submitted), loop=client.loop)  # this client, maybe not the default
        for future in finished:
            index, worker = placed[future.key]
            with _naming(index, tasks[index]):
                result = future.result()
            finish(index, result)
            following = next(waiting, None)
            if following is not None:
                finished.add(submit(following, worker))
    except BaseException:
        client.cancel(submitted)
        raise


def _sweep_slots(client) -> list[str] | None:
    """The workers' addresses, one per `sweep` slot, when every worker offers the resource (the figure
    runner's workers do: one each), so a worker process runs one sweep task at a time; None on other
    clusters (any free thread)."""
    workers = client.scheduler_info(n_workers=-1)["workers"]
    offered = {address: int((worker.get("resources") or {}).get(SWEEP_RESOURCE, 0))
               for address, worker in sorted(workers.items())}
    if offered and all(amount >= 1 for amount in offered.values()):
        return [address for address, amount in offered.items() for _ in range(amount)]
    return None


def _apply(function: Callable, task, *shared):
    """A Dask task: the shared object arrives resolved from its scattered future."""
    return function(*shared, task)
