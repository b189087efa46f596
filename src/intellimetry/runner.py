"""Execute figure notebooks with papermill, only when their content hash changed.

    python -m intellimetry.runner list
    python -m intellimetry.runner show ID
    python -m intellimetry.runner run [ID ...] [key=value ...] [--profile quick|full] [--dry-run] [--force]

Overrides (key=value) run one figure under the `custom` profile. Every parameter is validated
against the figure's YAML before anything executes. Outputs are staged in figures/.staging and
moved into figures/<profile>/<paper>/ file by file (the sidecar last) only after a clean run.
"""
from __future__ import annotations

import argparse
import difflib
import json
import multiprocessing
import os
import re
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from intellimetry import paths
from intellimetry.atomic import atomic_path, write_json
from intellimetry.hashing import figure_hashes, stale_reasons
from intellimetry.provenance import RUN_CONTEXT_ENV, git_commit
from intellimetry.registry import CUSTOM, DECLARABLE_PROFILES, Figure, ParameterError, RegistryError, discover

KERNEL = "python3"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class RunError(RuntimeError):
    """A figure that could not be produced; the message says where to look."""


@dataclass(frozen=True)
class Project:
    root: Path
    figures_dir: Path

    @classmethod
    def at(cls, root: Path | None = None, figures_dir: Path | None = None) -> "Project":
        root = Path(root or paths.REPO_ROOT).resolve()
        return cls(root=root, figures_dir=Path(figures_dir or root / "figures").resolve())

    def figures(self) -> dict[str, Figure]:
        return discover(self.root / "notebooks")

    def output_dir(self, profile: str, paper: str) -> Path:
        return self.figures_dir / profile / paper

    def sidecar(self, profile: str, figure: Figure) -> Path:
        return self.output_dir(profile, figure.paper) / f"{figure.id}.json"


@dataclass
class Task:
    figure: Figure
    profile: str
    params: dict
    hashes: dict
    reasons: list[str]


def read_sidecar(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def select(figures: dict[str, Figure], ids: list[str]) -> list[Figure]:
    unknown = [i for i in ids if i not in figures]
    if unknown:
        hints = {i: difflib.get_close_matches(i, figures, n=3) for i in unknown}
        raise RunError("unknown figure id(s): " + "; ".join(
            f"{i} (did you mean {', '.join(h)}?)" if h else i for i, h in hints.items())
            + f"\nknown ids: {', '.join(figures)}")
    return [figures[i] for i in ids] if ids else list(figures.values())


def parse_overrides(words: list[str]) -> dict[str, str]:
    overrides = {}
    for word in words:
        name, sep, value = word.partition("=")
        if not sep or not name:
            raise ParameterError(f"override {word!r} must look like name=value")
        overrides[name.strip()] = value.strip()
    return overrides


def plan(project: Project, ids: list[str], profile: str = "quick",
         overrides: dict[str, str] | None = None, force: bool = False) -> list[Task]:
    """Resolve and validate every figure's parameters, hash it, and say why it is stale.

    With overrides, `profile` is the starting point and the outputs go to `custom`.
    """
    figures = select(project.figures(), ids)
    if overrides and len(figures) != 1:
        raise ParameterError("parameter overrides apply to exactly one figure: name its ID")
    out_profile = CUSTOM if overrides else profile
    tasks = []
    for figure in figures:
        try:
            params = figure.resolve(profile, overrides)
        except ParameterError as err:
            raise ParameterError(f"{figure.id}: {err}") from None
        hashes = figure_hashes(figure, params, project.root)
        recorded = read_sidecar(project.sidecar(out_profile, figure))
        reasons = stale_reasons(hashes, (recorded or {}).get("hashes"))
        if force and not reasons:
            reasons = ["forced"]
        tasks.append(Task(figure, out_profile, params, hashes, reasons))
    return tasks


@contextmanager
def environment(**values: str):
    """Set environment variables for the kernel papermill starts, then restore them."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


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


def execute(project: Project, task: Task, commit: str, progress_bar: bool = False) -> dict:
    """Run one notebook in a staging folder and publish its outputs atomically. Returns the sidecar."""
    import papermill

    figure = task.figure
    out_dir = project.output_dir(task.profile, figure.paper)
    staging_root = project.figures_dir / ".staging"
    staging_root.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f"{figure.id}-", dir=staging_root))
    context = {"figure_id": figure.id, "profile": task.profile, "parameters": task.params,
               "hash": task.hashes["total"], "output_dir": str(stage), "commit": commit}
    executed = stage / f"{figure.id}.ipynb"
    started = time.monotonic()
    try:
        source = stage / "source.ipynb"
        _to_ipynb(figure.notebook, source)
        try:
            with environment(**{RUN_CONTEXT_ENV: json.dumps(context)}):
                papermill.execute_notebook(
                    str(source), str(executed), parameters=task.params, kernel_name=KERNEL,
                    cwd=str(project.root), execution_timeout=figure.timeout,
                    progress_bar=progress_bar, log_output=False)
        except Exception as error:  # papermill, nbclient timeouts, dead kernels
            failed = _keep_failed(executed, out_dir, figure.id)
            where = f"\n  executed notebook: {failed}" if failed else ""
            hint = (f"\n  (the per-cell timeout is {figure.timeout} s, set in {figure.spec_path.name})"
                    if "Timeout" in type(error).__name__ else "")
            raise RunError(f"{figure.id} failed ({task.profile}){where}\n  {_error_summary(error)}{hint}") from None
        source.unlink()
        sidecar_path = stage / f"{figure.id}.json"
        sidecar = read_sidecar(sidecar_path)
        if sidecar is None:
            raise RunError(f"{figure.id}: the notebook finished without calling save_figure(..., "
                           f"{figure.id!r}), so it produced no figure")
        sidecar.update(hashes=task.hashes, wall_time_s=round(time.monotonic() - started, 2),
                       executed_notebook=executed.name)
        write_json(sidecar_path, sidecar)
        _publish(stage, out_dir, figure.id)
        return sidecar
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _keep_failed(executed: Path, out_dir: Path, fig_id: str) -> Path | None:
    if not executed.exists():
        return None
    failed = out_dir / f"{fig_id}.failed.ipynb"
    with atomic_path(failed) as tmp:
        shutil.copyfile(executed, tmp)
    return failed


def _publish(stage: Path, out_dir: Path, fig_id: str) -> None:
    """Move staged files into place, one atomic rename each, the sidecar last.

    Until the new sidecar lands, the old one's hash no longer matches the files that changed, so a
    crash in between leaves the figure stale (re-run next time), never silently half-updated.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    sidecar = f"{fig_id}.json"
    names = sorted(p.name for p in stage.iterdir())
    for name in [n for n in names if n != sidecar] + [sidecar]:
        os.replace(stage / name, out_dir / name)
    for old in out_dir.glob(f"{fig_id}.*"):
        if old.name not in names:
            old.unlink()


def run(project: Project, ids: list[str], profile: str = "quick", overrides: dict | None = None,
        dry_run: bool = False, force: bool = False, jobs: int = 1, out=sys.stdout) -> list[Task]:
    """Plan, report, and execute the stale figures (in `jobs` processes); stop at the first failure."""
    tasks = plan(project, ids, profile, overrides, force)
    stale = [t for t in tasks if t.reasons]
    for task in tasks:
        state = "stale" if task.reasons else "fresh"
        why = f"  ({'; '.join(task.reasons)})" if task.reasons else ""
        print(f"{state:5}  {task.profile:6} {task.figure.id}{why}", file=out)
    if dry_run or not stale:
        print(f"{len(stale)} of {len(tasks)} figure(s) stale" + ("" if dry_run else "; nothing to run"), file=out)
        return stale
    commit = git_commit(project.root)
    if jobs > 1 and len(stale) > 1:
        _run_parallel(project, stale, commit, jobs, out)
        return stale
    progress_bar = sys.stderr.isatty()
    for number, task in enumerate(stale, 1):
        print(f"[{number}/{len(stale)}] {task.figure.id} ({task.profile}) running ...", file=out, flush=True)
        started = time.monotonic()
        execute(project, task, commit, progress_bar)
        print(f"[{number}/{len(stale)}] {task.figure.id} done in {time.monotonic() - started:.1f} s",
              file=out, flush=True)
    return stale


def _run_parallel(project: Project, stale: list[Task], commit: str, jobs: int, out) -> None:
    """Execute in `jobs` worker processes (each sets its own kernel environment); stop at a failure."""
    context = multiprocessing.get_context("spawn")
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = {pool.submit(execute, project, task, commit): task for task in stale}
        print(f"running {len(stale)} figure(s) in {jobs} processes ...", file=out, flush=True)
        for number, future in enumerate(as_completed(futures), 1):
            task = futures[future]
            try:
                sidecar = future.result()
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
            print(f"[{number}/{len(stale)}] {task.figure.id} ({task.profile}) done in "
                  f"{sidecar['wall_time_s']:.1f} s ({time.monotonic() - started:.0f} s elapsed)",
                  file=out, flush=True)


def _describe(figure: Figure) -> str:
    lines = [f"{figure.id}: {figure.title}", f"  notebook: {figure.notebook}",
             f"  timeout per cell: {figure.timeout} s", "  parameters:"]
    for name, spec in figure.params.items():
        values = ", ".join(f"{p}={figure.profiles[p].get(name)!r}" for p in figure.profiles
                           if name in (figure.profiles[p] or {}))
        lines.append(f"    {name}: {spec.allowed()}  [{values}]" + (f"  {spec.help}" if spec.help else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m intellimetry.runner", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--figures-dir", type=Path, help="output root (default: <repo>/figures)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list figure ids")
    show = sub.add_parser("show", help="a figure's parameters, allowed values and profiles")
    show.add_argument("id")
    run_p = sub.add_parser("run", help="execute stale figures")
    run_p.add_argument("targets", nargs="*", help="figure ids and name=value overrides")
    run_p.add_argument("--profile", default="quick",
                       help=f"one of {', '.join(DECLARABLE_PROFILES)} (default quick); with name=value "
                            "overrides it is the starting point and outputs go to 'custom'")
    run_p.add_argument("--dry-run", action="store_true", help="say what is stale and why; run nothing")
    run_p.add_argument("--force", action="store_true", help="re-run even if up to date")
    run_p.add_argument("--jobs", "-j", type=int, default=1, help="notebooks executed at once (default 1)")
    args = parser.parse_args(argv)
    project = Project.at(figures_dir=args.figures_dir)
    try:
        if args.command == "list":
            for figure in project.figures().values():
                print(f"{figure.id}  {figure.title}")
        elif args.command == "show":
            print(_describe(select(project.figures(), [args.id])[0]))
        else:
            if args.profile not in DECLARABLE_PROFILES:
                raise ParameterError(f"unknown profile {args.profile!r}; allowed: {', '.join(DECLARABLE_PROFILES)}"
                                     " (custom is chosen by giving name=value overrides)")
            ids = [t for t in args.targets if "=" not in t]
            overrides = parse_overrides([t for t in args.targets if "=" in t])
            run(project, ids, args.profile, overrides, args.dry_run, args.force, max(1, args.jobs))
    except (ParameterError, RegistryError, RunError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2 if isinstance(err, (ParameterError, RegistryError)) else 1
    except KeyboardInterrupt:
        print("interrupted: previous outputs are untouched", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
