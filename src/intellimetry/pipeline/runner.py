"""Execute figure notebooks with papermill, only when their content hash changed.

    python -m intellimetry.pipeline list
    python -m intellimetry.pipeline show ID
    python -m intellimetry.pipeline prepare STEP   (a run does a missing one itself: YAML `requires`)
    python -m intellimetry.pipeline run [ID ...] [name=value ...] [--profile quick|full|smoke]
                                        [--paper PAPER ...] [--dry-run] [--force] [--jobs N]
                                        [--stop-at-first-failure]

Overrides (name=value) run one figure under the `custom` profile. Every parameter is validated
against the figure's YAML before anything executes. Outputs are staged in figures/.staging and
moved into figures/<profile>/<paper>/ file by file (the sidecar last) only after a clean run.
A figure being run holds a lock, so a second runner on the same figure waits for it.

By default as many notebooks run at once as the machine has cores, the longest first (from the run
times recorded in sidecars or in data/runs/<profile>.json; figures sharing a YAML fragment one after
the other), each kernel limited to its share of the cores; a missing preparation step (YAML
`requires`) runs as one of the jobs; the run ends with a summary (total time, the slowest figures,
cache hits).

A failed figure is reported when it fails and the others still run; the run ends by listing the
failures (exit code 1). With --stop-at-first-failure the first failure stops the run at once.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import json
import logging
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from intellimetry import CHAPTERS, paths
from intellimetry.atomic import atomic_path, exclusive_lock, write_json
from intellimetry.pipeline.execution import environment, heartbeat, kernel_options
from intellimetry.pipeline.gitstate import run_commit
from intellimetry.pipeline.hashing import (
    digest_of,
    excluded_subpackages,
    figure_hashes,
    recorded_inputs,
    reference_inputs,
    stale_reasons,
)
from intellimetry.pipeline.prepare import PREPARATIONS, PreparationError, missing, run_preparation
from intellimetry.pipeline.project import Project, read_sidecar
from intellimetry.pipeline.registry import (
    CUSTOM,
    DECLARABLE_PROFILES,
    Figure,
    ParameterError,
    RegistryError,
    add_override,
)
from intellimetry.pipeline.schedule import (
    RUNS_DIR,
    available_cores,
    expected_seconds,
    longest_chains_first,
    recorded_seconds,
    summary,
    thread_environment,
)
from intellimetry.provenance import RUN_CONTEXT_ENV, machine_summary

KERNEL = "python3"
# An executed notebook is a record, not a live view: no Hugging Face progress bars in it (with
# ipywidgets installed, as jupyter brings it, they are widgets whose saved text stays at 0 %).
QUIET_KERNEL = {"HF_HUB_DISABLE_PROGRESS_BARS": "1"}
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
HEARTBEAT_S = 30.0
# How a failure's message names its executed notebook (kept as <id>.failed.ipynb beside the outputs).
KEPT_NOTEBOOK = "executed notebook:"


class RunError(RuntimeError):
    """A figure that could not be produced; the message says where to look."""


@dataclass
class Task:
    figure: Figure
    profile: str
    params: dict
    hashes: dict
    reasons: list[str]


class Outcome:
    """What the figures of a run come to, recorded as each finishes: the sidecars of those built (each
    handed to the caller's `on_built` at once) and the failures (each printed at once, or raised at once
    when the run stops at the first)."""

    def __init__(self, out, stop_at_first_failure: bool = False,
                 on_built: Callable[[Task, dict], None] | None = None):
        self.out, self.stop_at_first_failure, self.on_built = out, stop_at_first_failure, on_built
        self.built: list[dict] = []
        self.failures: list[RunError] = []

    def add_built(self, task: Task, sidecar: dict) -> None:
        self.built.append(sidecar)
        if self.on_built is not None:
            self.on_built(task, sidecar)

    def add_failure(self, error: RunError, label: str = "") -> None:
        if self.stop_at_first_failure:
            raise error
        print(f"{label}{error}", file=self.out, flush=True)
        self.failures.append(error)

    def raise_failures(self, attempted: int) -> None:
        """A RunError listing each failure by its first line (the figure and why) and its kept notebook."""
        if self.failures:
            raise RunError(f"{len(self.failures)} of {attempted} figure(s) failed:\n  "
                           + "\n  ".join(map(_headline, self.failures)))


def _headline(error: RunError) -> str:
    first, *rest = str(error).splitlines()
    return "\n    ".join([first, *(line.strip() for line in rest if line.strip().startswith(KEPT_NOTEBOOK))])


def select(figures: dict[str, Figure], ids: list[str], broken: list[str] | None = None,
           papers: list[str] | None = None) -> list[Figure]:
    """The named figures (all when none is named, or all of `papers`); an unknown id gets close matches."""
    if papers:
        unknown = sorted(set(papers) - set(CHAPTERS))
        if unknown:
            raise ParameterError(f"unknown paper(s) {', '.join(unknown)}; allowed: {', '.join(CHAPTERS)}")
        figures = {fig_id: figure for fig_id, figure in figures.items() if figure.paper in papers}
    unknown = [i for i in ids if i not in figures]
    if unknown:
        for fig_id in unknown:  # a named figure whose own YAML is broken: say that, not "unknown"
            for message in broken or []:
                if f"{fig_id}.yaml" in message:
                    raise RegistryError(message)
        hints = {i: difflib.get_close_matches(i, figures, n=3) for i in unknown}
        raise RunError("unknown figure id(s): " + "; ".join(
            f"{i} (did you mean {', '.join(h)}?)" if h else i for i, h in hints.items())
            + f"\nknown ids: {', '.join(figures)}")
    return [figures[i] for i in ids] if ids else list(figures.values())


def split_targets(words: list[str]) -> tuple[list[str], dict[str, str]]:
    """Command-line words -> (figure ids, {name: value}); anything else is refused with the reason."""
    ids, overrides = [], {}
    for word in words:
        if "=" not in word and paths.is_figure_id(word):
            ids.append(word)
        else:
            add_override(overrides, word)
    return ids, overrides


def parse_overrides(words: list[str]) -> dict[str, str]:
    ids, overrides = split_targets(words)
    if ids:
        raise ParameterError(f"override {ids[0]!r} must look like name=value")
    return overrides


def _task(project: Project, figure: Figure, profile: str, overrides: dict | None, force: bool) -> Task:
    out_profile = CUSTOM if overrides else profile
    try:
        params = figure.resolve(profile, overrides)
    except ParameterError as err:
        raise ParameterError(f"{figure.id}: {err}") from None
    recorded = (read_sidecar(project.sidecar(out_profile, figure)) or {}).get("hashes")
    hashes = figure_hashes(figure, params, project.root, **recorded_inputs(recorded))
    reasons = stale_reasons(hashes, recorded)
    if force and not reasons:
        reasons = ["forced"]
    return Task(figure, out_profile, params, hashes, reasons)


def plan(project: Project, ids: list[str], profile: str = "quick",
         overrides: dict[str, str] | None = None, force: bool = False,
         broken: list[str] | None = None, papers: list[str] | None = None) -> list[Task]:
    """Resolve and validate every figure's parameters, hash it, and say why it is stale.

    With overrides, `profile` is the starting point and the outputs go to `custom`. Figures whose
    YAML is broken are reported in `broken` (when given) and left out; otherwise they raise.
    """
    figures = select(project.figures(broken), ids, broken, papers)
    if overrides and len(figures) != 1:
        raise ParameterError("parameter overrides apply to exactly one figure: name its ID")
    return [_task(project, figure, profile, overrides, force) for figure in figures]


def _to_ipynb(notebook: Path, target: Path) -> None:
    import jupytext
    import nbformat

    nb = jupytext.read(notebook)
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, target)


def _error_summary(error: Exception) -> str:
    ename, evalue = getattr(error, "ename", None), getattr(error, "evalue", None)
    if ename:
        lines = [ANSI.sub("", line) for line in getattr(error, "traceback", [])]
        tail = "\n".join("\n".join(lines).splitlines()[-15:])
        return f"{ename}: {evalue}\n{tail}"
    return f"{type(error).__name__}: {error}"


def _kernel_output(kernel_log: Path, error: Exception) -> str:
    """The end of what a dead kernel printed (a crash in compiled code says why only there)."""
    if "DeadKernel" not in type(error).__name__ or not kernel_log.exists():
        return ""
    tail = kernel_log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-10:]
    return "\n  the kernel printed:\n    " + "\n    ".join(tail) if tail else ""


def remove_orphaned_staging(project: Project) -> list[Path]:
    """Staging folders left by a killed run (their process is gone); returns what was removed."""
    removed = []
    for stage in sorted(project.staging_dir.glob("*")) if project.staging_dir.exists() else []:
        pid = stage.name.rsplit(".", 2)[-2] if stage.name.count(".") >= 2 else ""
        if pid.isdigit() and _alive(int(pid)):
            continue
        if stage.is_dir():
            shutil.rmtree(stage, ignore_errors=True)
        else:
            stage.unlink(missing_ok=True)
        removed.append(stage)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def execute(project: Project, task: Task, commit: str, progress_bar: bool = False) -> dict:
    """Run one notebook in a staging folder and publish its outputs atomically. Returns the sidecar."""
    import papermill

    figure = task.figure
    out_dir = project.output_dir(task.profile, figure)
    project.staging_dir.mkdir(parents=True, exist_ok=True)
    # <id>.<pid>.<random>: the pid lets the next runner tell a live stage from an orphan
    stage = Path(tempfile.mkdtemp(prefix=f"{figure.id}.{os.getpid()}.", dir=project.staging_dir))
    context = {"figure_id": figure.id, "profile": task.profile, "parameters": task.params,
               "hash": task.hashes["total"], "output_dir": str(stage), "commit": commit}
    executed = stage / f"{figure.id}.ipynb"
    kernel_log = stage / "kernel.log"
    started = time.monotonic()
    try:
        source = stage / "source.ipynb"
        _to_ipynb(figure.notebook, source)
        try:
            with environment(**{RUN_CONTEXT_ENV: json.dumps(context)}, **QUIET_KERNEL), \
                    kernel_options(kernel_log) as kernel, heartbeat(figure.id, None if progress_bar else HEARTBEAT_S):
                # shutdown_kernel="immediate": the last cell has written every output, so the finished
                # kernel's process group is killed instead of left to exit (1-3 s per figure tearing
                # down torch; about 40 s of a two-core first build)
                papermill.execute_notebook(
                    str(source), str(executed), parameters=task.params, kernel_name=KERNEL,
                    cwd=str(project.root), execution_timeout=figure.timeout,
                    progress_bar=progress_bar, log_output=False, shutdown_kernel="immediate", **kernel)
        except Exception as error:  # papermill, nbclient timeouts, dead kernels
            failed = _keep_failed(executed, project.failed_notebook(task.profile, figure))
            where = f"\n  {KEPT_NOTEBOOK} {failed}" if failed else ""
            hint = (f" (the per-cell timeout is {figure.timeout} s, set in {figure.spec_path.name})"
                    if "Timeout" in type(error).__name__ else "")
            # the first line says which figure failed and why: the list at the end of a run quotes it
            why, _, details = _error_summary(error).partition("\n")
            raise RunError(f"{figure.id} failed ({task.profile}): {why}{hint}{where}\n{details}"
                           f"{_kernel_output(kernel_log, error)}".rstrip()) from None
        source.unlink()
        kernel_log.unlink(missing_ok=True)
        sidecar_path = stage / f"{figure.id}.json"
        sidecar = read_sidecar(sidecar_path)
        if sidecar is None:
            raise RunError(f"{figure.id}: the notebook finished without calling save_figure(..., "
                           f"{figure.id!r}), so it produced no figure")
        hashes = hashes_of_run(task, project, sidecar.pop("reference_files", []), sidecar.pop("project_files", []))
        sidecar.update(hashes=hashes, wall_time_s=round(time.monotonic() - started, 2),
                       executed_notebook=executed.name, machine=machine_summary())
        write_json(sidecar_path, sidecar)
        publish(stage, out_dir, figure.id)
        return sidecar
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def hashes_of_run(task: Task, project: Project, reads: list[str], files: list[str] = ()) -> dict:
    """The hashes a finished run records: the reference files it read are known only now, so its inputs
    are hashed now; the notebook, parameters, library and requirements keep the hashes taken before it
    started, so a file edited while it ran leaves the figure stale instead of passing for what ran."""
    after = figure_hashes(task.figure, task.params, project.root, reads, files)
    before = task.hashes
    parts = {**after["parts"], **{key: value for key, value in before["parts"].items() if key != "inputs"}}
    return {**after, "parts": parts, "library_files": before["library_files"], "total": digest_of(parts)}


def _keep_failed(executed: Path, failed: Path) -> Path | None:
    if not executed.exists():
        return None
    with atomic_path(failed) as tmp:
        shutil.copyfile(executed, tmp)
    return failed


def publish(stage: Path, out_dir: Path, fig_id: str) -> None:
    """Move staged files into place, one atomic rename each, the sidecar last.

    Until the new sidecar lands, the old one's hash no longer matches the files that changed, so a
    crash in between leaves the figure stale (re-run next time), never silently half-updated.
    Files of the figure that the new run did not write (a .failed.ipynb among them) are removed.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    sidecar = f"{fig_id}.json"
    names = sorted(p.name for p in stage.iterdir())
    for name in [n for n in names if n != sidecar] + [sidecar]:
        os.replace(stage / name, out_dir / name)
    for old in out_dir.glob(f"{fig_id}.*"):
        if old.name not in names:
            old.unlink()


def execute_locked(project: Project, task: Task, commit: str, progress_bar: bool = False,
                   out=sys.stdout) -> dict | None:
    """execute() while holding the figure's lock; None if another runner built it meanwhile."""
    def waiting(holder: str) -> None:
        print(f"waiting: {task.figure.id} ({task.profile}) is being run by {holder}", file=out, flush=True)

    with exclusive_lock(project.locks_dir / f"{task.profile}--{task.figure.id}.lock", waiting):
        recorded = (read_sidecar(project.sidecar(task.profile, task.figure)) or {}).get("hashes")
        current = figure_hashes(task.figure, task.params, project.root, **recorded_inputs(recorded))
        if task.reasons != ["forced"] and not stale_reasons(current, recorded):
            print(f"{task.figure.id} was built by the other runner meanwhile", file=out, flush=True)
            return None
        return execute(project, task, commit, progress_bar)


def run(project: Project, ids: list[str], profile: str = "quick", overrides: dict | None = None,
        dry_run: bool = False, force: bool = False, jobs: int = 1, out=sys.stdout,
        papers: list[str] | None = None, scheduler: str | None = None, stop_at_first_failure: bool = False,
        on_built: Callable[[Task, dict], None] | None = None) -> list[Task]:
    """Plan, report, and execute the stale figures (in `jobs` processes, or on the Dask cluster
    `scheduler` names, longest first); end with a summary. Returns the stale tasks.

    A failed figure is printed when it fails and the others still run; the run then ends with a
    RunError listing the failures. With `stop_at_first_failure` the first failure is raised at once and
    the figures in flight are stopped. `on_built(task, sidecar)` is called here as each figure is
    published, in the order they finish; what it raises stops the run.

    A figure whose YAML is broken is reported and skipped (the others run); the run then ends with a
    RegistryError naming every broken file.
    """
    broken: list[str] = []
    tasks = plan(project, ids, profile, overrides, force, broken, papers)
    for message in broken:
        print(f"broken  {message}", file=out, flush=True)
    stale = [t for t in tasks if t.reasons]
    for task in tasks:
        state = "stale" if task.reasons else "fresh"
        why = f"  ({'; '.join(task.reasons)})" if task.reasons else ""
        print(f"{state:5}  {task.profile:6} {task.figure.id}{why}", file=out)
    if not dry_run:
        for orphan in remove_orphaned_staging(project):
            print(f"removed {orphan.name} left in {project.staging_dir} by an interrupted run", file=out)
        for task in tasks:  # a good figure's .failed.ipynb from an earlier attempt is stale news
            if not task.reasons:
                project.failed_notebook(task.profile, task.figure).unlink(missing_ok=True)
    if dry_run or not stale:
        print(f"{len(stale)} of {len(tasks)} figure(s) stale" + ("" if dry_run else "; nothing to run"), file=out)
    else:
        commit = run_commit(project.root)
        started = time.monotonic()
        jobs = min(jobs, len(stale))
        preparations = missing(stale)
        outcome = Outcome(out, stop_at_first_failure, on_built)
        with environment(**thread_environment(jobs)):
            if scheduler:  # imported only here: distributed takes a second to import
                from intellimetry.pipeline.cluster import run_on_cluster
                jobs = run_on_cluster(project, order_for_parallel(project, stale), commit, scheduler, outcome, out)
            else:  # imported here: lanes imports this module
                from intellimetry.pipeline.lanes import run_parallel, run_sequential
                if jobs > 1:
                    run_parallel(project, order_for_parallel(project, stale), commit, jobs, outcome, out, preparations)
                else:
                    run_sequential(project, stale, commit, outcome, out, preparations)
        print(summary(time.monotonic() - started, outcome.built, len(tasks) - len(stale), jobs,
                      len(outcome.failures)), file=out, flush=True)
        outcome.raise_failures(len(stale))
    if broken:
        raise RegistryError(f"{len(broken)} figure file(s) could not be read:\n  " + "\n  ".join(broken))
    return stale


def order_for_parallel(project: Project, stale: list[Task]) -> list[Task]:
    """Longest first, by each figure's last run time (its sidecar, else the committed record of its
    profile, else that of quick: a custom or smoke run is assumed to take what quick took); figures
    sharing a YAML fragment as one chain, in figure order (schedule.longest_chains_first)."""
    records = [recorded_seconds(profile) for profile in dict.fromkeys((stale[0].profile, "quick"))]
    seconds = {task.figure.id: expected_seconds(project.sidecar(task.profile, task.figure), task.figure.id, records)
               for task in stale}
    return longest_chains_first(stale, seconds, key=lambda task: task.figure.id, chain=lambda task: task.figure.extends)


def prepare_all(names: list[str], out) -> None:
    for name in names:
        print(f"preparing {name} ({PREPARATIONS[name].help}) ...", file=out, flush=True)
        seconds = run_preparation(PREPARATIONS[name])
        print(f"prepared {name} in {seconds:.0f} s", file=out, flush=True)


def next_figure(waiting: list[tuple[int, Task]], unprepared: set[str], running_fragments: set):
    """The first waiting (number, task) whose preparation steps are done, preferring one whose YAML
    fragment no running figure shares; None if every one waits for a step."""
    ready = [item for item in waiting if not unprepared & set(item[1].figure.requires)]
    apart = (item for item in ready
             if item[1].figure.extends is None or item[1].figure.extends not in running_fragments)
    return next(apart, ready[0] if ready else None)


def notebook_imports(figure: Figure) -> list[str]:
    """The intellimetry modules a notebook's code cells import, in order of first use."""
    import jupytext

    found: dict[str, None] = {}
    for cell in jupytext.read(figure.notebook).cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue  # IPython magics; not imports
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            for name in names:
                if name.split(".")[0] == "intellimetry":
                    found[name] = None
    return list(found)


def _recorded_reads(project: Project, figure: Figure) -> list[str]:
    """The reference files a built profile of the figure read, as '<file> (read by the <p> run)'."""
    for profile in (*DECLARABLE_PROFILES, CUSTOM):
        hashes = (read_sidecar(project.sidecar(profile, figure)) or {}).get("hashes") or {}
        if "reads" in hashes:
            read = [*reference_inputs(hashes["reads"]), *hashes.get("files", ())]
            return [f"{p} (read by the {profile} run)" for p in read]
    return ["reference files: not known until the figure has run once (they are recorded at run time)"]


def describe(project: Project, figure: Figure) -> str:
    """What `show` prints: files, imports, hashed library and inputs, book page, parameters."""
    def rel(path: Path) -> str:
        return Path(path).resolve().relative_to(project.root).as_posix()

    pages = [rel(p) for p in project.book_pages(figure)]
    inputs = [f"{p} (declared)" for p in figure.inputs] + _recorded_reads(project, figure)
    lines = [f"{figure.id}: {figure.title}",
             f"  notebook:   {rel(figure.notebook)}",
             f"  parameters: {rel(figure.spec_path)}",
             f"  book page:  {', '.join(pages) or 'none (the registry test requires one)'}",
             f"  imports:    {', '.join(notebook_imports(figure)) or 'nothing from intellimetry'}",
             f"  library hashed: src/intellimetry/ except {', '.join(sorted(excluded_subpackages(figure)))}",
             "  inputs hashed:  " + ("; ".join(inputs) or "none"),
             f"  timeout per cell: {figure.timeout} s", "  parameters:"]
    for name, spec in figure.params.items():
        values = ", ".join(f"{p}={figure.profiles[p].get(name)!r}" for p in figure.profiles
                           if name in (figure.profiles[p] or {}))
        lines.append(f"    {name}: {spec.allowed()}  [{values}]" + (f"  {spec.help}" if spec.help else ""))
    return "\n".join(lines)


def _quiet_executor_logs() -> None:
    """papermill and nbclient log kernel chatter ("Kernel died ...") that a failed run already
    reports as a RunError with the cell's error; keep it out of the terminal."""
    for name in ("papermill", "traitlets"):
        logger = logging.getLogger(name)
        logger.addHandler(logging.NullHandler())
        logger.propagate = False


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def recorder(project: Project, out=sys.stdout, runs_dir: Path = RUNS_DIR) -> Callable[[Task, dict], None]:
    """The on_built hook of `run --record`: each figure goes into its profile's record as it finishes.
    A run the record refuses (uncommitted changes, say) is kept as built; the message says why it was
    not recorded, and the run goes on."""
    from intellimetry.book.runs import record_built  # the book's module: imported only when recording

    def record(task: Task, sidecar: dict) -> None:
        try:
            record_built(project, task.profile, task.figure.id, sidecar, runs_dir)
            print(f"recorded {task.figure.id} ({task.profile})", file=out, flush=True)
        except RunError as err:
            print(f"not recorded: {task.figure.id}: {err}", file=out, flush=True)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m intellimetry.pipeline", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--figures-dir", type=Path, help="output root (default: <repo>/figures)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list figure ids")
    show = sub.add_parser("show", help="a figure's files, imports, inputs, book page and parameters")
    show.add_argument("id")
    prepare_p = sub.add_parser("prepare", help="run a preparation step now (a run does a missing one itself)")
    prepare_p.add_argument("step", choices=sorted(PREPARATIONS))
    run_p = sub.add_parser("run", help="execute stale figures")
    run_p.add_argument("targets", nargs="*", help="figure ids and name=value overrides")
    run_p.add_argument("--profile", default="quick",
                       help=f"one of {', '.join(DECLARABLE_PROFILES)} (default quick); with name=value "
                            "overrides it is the starting point and outputs go to 'custom'")
    run_p.add_argument("--dry-run", action="store_true", help="say what is stale and why; run nothing")
    run_p.add_argument("--force", action="store_true", help="re-run even if up to date")
    run_p.add_argument("--paper", action="append", choices=CHAPTERS, dest="papers",
                       help="only this chapter's figures, a paper's or a study's (repeatable; e.g. one "
                            "chapter per CI job)")
    run_p.add_argument("--jobs", "-j", type=int, default=available_cores(),
                       help=f"notebooks run at once (default: the cores this process may use, {available_cores()})")
    run_p.add_argument("--stop-at-first-failure", action="store_true",
                       help="stop the run, and the figures running, at the first figure that fails (by default "
                            "the others still run, and the failures are listed at the end)")
    run_p.add_argument("--record", action="store_true",
                       help="record each figure in data/runs/<profile>.json as it finishes (make paper: an "
                            "interrupted run keeps what it did); a run that cannot be trusted (uncommitted "
                            "changes) is built but not recorded, and says why")
    run_p.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on a Dask cluster: local:N (N worker processes here) or a scheduler's address "
                            "(tcp://HOST:PORT); workers need this commit with `make env`")
    args, extra = parser.parse_known_args(argv)
    if extra and args.command == "run" and not any(word.startswith("-") for word in extra):
        args.targets += extra  # ids and overrides after the options ("run ID --profile full n=4")
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    project = Project.at(figures_dir=args.figures_dir)
    _quiet_executor_logs()
    try:
        if args.command == "list":
            broken: list[str] = []
            for figure in project.figures(broken).values():
                print(f"{figure.id}  {figure.title}")
            if broken:
                raise RegistryError("could not read:\n  " + "\n  ".join(broken))
        elif args.command == "show":
            broken = []
            print(describe(project, select(project.figures(broken), [args.id], broken)[0]))
        elif args.command == "prepare":
            prepare_all([args.step], sys.stdout)
        else:
            if args.profile not in DECLARABLE_PROFILES:
                raise ParameterError(f"unknown profile {args.profile!r}; allowed: {', '.join(DECLARABLE_PROFILES)}"
                                     " (custom is chosen by giving name=value overrides)")
            ids, overrides = split_targets(args.targets)
            if args.scheduler:  # a bad address is refused before anything runs
                from intellimetry.pipeline.cluster import parse_scheduler
                parse_scheduler(args.scheduler)
            # a cancelled job (CI, a scheduler) sends SIGTERM: stop as on Ctrl-C, so no kernel outlives the run
            signal.signal(signal.SIGTERM, _interrupt)
            run(project, ids, args.profile, overrides, args.dry_run, args.force, max(1, args.jobs),
                papers=args.papers, scheduler=args.scheduler, stop_at_first_failure=args.stop_at_first_failure,
                on_built=recorder(project) if args.record else None)
    except (ParameterError, RegistryError, RunError, PreparationError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2 if isinstance(err, (ParameterError, RegistryError)) else 1
    except KeyboardInterrupt:
        print("interrupted: previous outputs are untouched", file=sys.stderr, flush=True)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
