"""How the runner executes the stale figures on this machine: one after the other, or in a pool of `jobs`
processes (`run --jobs N`); the Dask cluster's way is intellimetry.pipeline.cluster.

A figure that fails (a RunError) is handed to the run's Outcome, which prints it and lets the others run,
or raises it when the run stops at the first failure. Anything else (a failed preparation step, Ctrl-C,
an error of the runner itself) stops the run at once; the pool's figures in flight are then stopped
with their kernels (execution.start_pool_worker).
"""
from __future__ import annotations

import multiprocessing
import queue
import sys
import time

from intellimetry.pipeline.execution import start_pool_worker
from intellimetry.pipeline.prepare import PREPARATIONS, run_preparation
from intellimetry.pipeline.project import Project
from intellimetry.pipeline.runner import Outcome, RunError, Task, execute_locked, next_figure, prepare_all


def run_sequential(project: Project, stale: list[Task], commit: str, outcome: Outcome, out,
                   preparations=()) -> None:
    prepare_all(list(preparations), out)
    progress_bar = sys.stderr.isatty()
    for number, task in enumerate(stale, 1):
        label = f"[{number}/{len(stale)}]"
        print(f"{label} {task.figure.id} ({task.profile}) running ...", file=out, flush=True)
        started = time.monotonic()
        try:
            sidecar = execute_locked(project, task, commit, progress_bar, out)
        except RunError as error:
            outcome.add_failure(error, f"{label} ")
            continue
        if sidecar is not None:
            print(f"{label} {task.figure.id} done in {time.monotonic() - started:.1f} s", file=out, flush=True)
            outcome.add_built(task, sidecar)


def run_parallel(project: Project, stale: list[Task], commit: str, jobs: int, outcome: Outcome, out,
                 preparations=()) -> None:
    """Execute in `jobs` worker processes, in the given order, except that a free process takes the
    next figure that (1) needs no preparation step (YAML `requires`) still running and (2) shares no
    YAML fragment with a running figure, if there is one: figures of one fragment share trained
    models, and the second would only wait for the first's model-cache locks, leaving a core idle.
    The steps themselves run first, as jobs of the same pool. When the run stops (a failed step, the
    first failure if so told, Ctrl-C) the workers are stopped at once, each with its kernel.

    A stopped worker leaves its staging folder, which the next run removes; published outputs are
    never touched, since publishing is the last step of a clean run.
    """
    context = multiprocessing.get_context("spawn")
    started = time.monotonic()
    finished: queue.SimpleQueue = queue.SimpleQueue()  # (what, result, error) from the pool's callbacks
    unprepared = set(preparations)
    waiting = list(enumerate(stale))
    print(f"running {len(stale)} figure(s) in {jobs} processes, longest first ...", file=out, flush=True)
    done, in_flight, running = 0, 0, {}
    with context.Pool(jobs, initializer=start_pool_worker) as pool:  # leaving the block terminates it
        def launch(function, args, what) -> None:
            pool.apply_async(function, args, callback=lambda result: finished.put((what, result, None)),
                             error_callback=lambda error: finished.put((what, None, error)))

        for name in preparations:
            print(f"preparing {name} ({PREPARATIONS[name].help}) beside the figures that do not need it ...",
                  file=out, flush=True)
            launch(run_preparation, (PREPARATIONS[name],), name)
            in_flight += 1
        while waiting or in_flight:
            while in_flight < jobs:
                ready = next_figure(waiting, unprepared, set(running.values()))
                if ready is None:
                    break
                waiting.remove(ready)
                running[ready[0]] = ready[1].figure.extends
                launch(execute_locked, (project, ready[1], commit), ready[0])
                in_flight += 1
            what, result, error = finished.get()
            in_flight -= 1
            if isinstance(what, str):  # a preparation step: the figures that need it cannot run without it
                if error is not None:
                    raise error
                unprepared.discard(what)
                print(f"prepared {what} in {result:.0f} s ({time.monotonic() - started:.0f} s elapsed)",
                      file=out, flush=True)
                continue
            if error is not None and not isinstance(error, RunError):  # the runner's own error, not the figure's
                raise error
            done += 1
            running.pop(what)
            task, label = stale[what], f"[{done}/{len(stale)}]"
            if error is not None:
                outcome.add_failure(error, f"{label} ")
                continue
            took = f"done in {result['wall_time_s']:.1f} s" if result else "built by another runner"
            print(f"{label} {task.figure.id} ({task.profile}) {took} ({time.monotonic() - started:.0f} s elapsed)",
                  file=out, flush=True)
            if result:
                outcome.add_built(task, result)
        # Every figure is done: let the idle workers exit on their own before the block terminates the pool.
        # Pool.terminate takes the task queue's read lock, then joins the workers; a worker waiting for that
        # lock that its SIGTERM did not reach waits for ever, and so does the run (seen under load in tests).
        pool.close()
        pool.join()
