"""Assemble the book from one profile's outputs and render it with Jupyter Book (which never executes).

    python -m intellimetry.book build [--profile quick|full|custom|smoke]
    python -m intellimetry.book assemble [--profile ...]
    python -m intellimetry.book check [book/_build/html]   (see intellimetry.book.check)

`assemble` copies each figure's SVG/PNG, sidecar and executed notebook into book/generated/<paper>/
(only files whose content changed, stamped with the time of copying, so Sphinx's incremental build
re-reads exactly the pages they changed, also after switching profiles) and writes
book/generated/build.json (profile, commit, repository URL, per-figure parameters). The `custom`
profile shows the figures run with overrides and falls back to `quick` for the others.
"""
from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from intellimetry import paths
from intellimetry.atomic import atomic_path, write_json
from intellimetry.book.runs import chapter_totals
from intellimetry.pipeline.hashing import figure_hashes, recorded_inputs
from intellimetry.pipeline.project import Project, read_sidecar
from intellimetry.pipeline.registry import CUSTOM, DECLARABLE_PROFILES, Figure
from intellimetry.pipeline.runner import RunError
from intellimetry.provenance import git_commit

BOOK_PROFILES = (*DECLARABLE_PROFILES, CUSTOM)
# Set by the publish workflow, so a fork's book links to (and launches Binder from) the fork.
REPOSITORY_ENV = "INTELLIMETRY_REPOSITORY_URL"


def repository_settings(book_dir: Path, environ=os.environ) -> dict:
    """The repository the book links to: $INTELLIMETRY_REPOSITORY_URL, else repository.url in
    _config.yml; the branch from repository.branch (links use it when a run's commit is unknown)."""
    config = yaml.safe_load((book_dir / "_config.yml").read_text(encoding="utf-8")) or {}
    repository = config.get("repository") or {}
    url = environ.get(REPOSITORY_ENV) or repository.get("url") or ""
    return {"repository_url": url.strip().rstrip("/").removesuffix(".git"),
            "repository_branch": repository.get("branch") or "main"}


def _source_profile(project: Project, figure: Figure, profile: str) -> str:
    if profile == CUSTOM and not project.sidecar(CUSTOM, figure).exists():
        return "quick"
    return profile


def _copy_if_changed(source: Path, target: Path) -> None:
    """Copy only a changed file, and stamp the copy with the time of copying, not the source's.

    Sphinx re-reads a page only when its file (or a file it depends on) is newer than the page's last
    read. Switching profiles replaces a file by an output that may be older than the last build
    (quick's, after a custom build), so the source's mtime would leave the page stale. An unchanged
    file keeps its mtime, so a rebuild with nothing changed re-reads nothing.
    """
    if target.exists() and filecmp.cmp(source, target, shallow=False):
        return
    with atomic_path(target) as tmp:
        shutil.copy(source, tmp)  # content and mode; the mtime is now's


def assemble(project: Project, book_dir: Path, profile: str = "quick") -> dict:
    """Copy every figure's outputs for `profile` into book_dir/generated; return the build record."""
    if profile not in BOOK_PROFILES:
        raise RunError(f"unknown profile {profile!r}; allowed: {', '.join(BOOK_PROFILES)}")
    generated = book_dir / paths.GENERATED
    wanted: set[Path] = set()
    record = {"profile": profile, "commit": git_commit(project.root), **repository_settings(book_dir),
              "figures": {}}
    for figure in project.figures().values():
        source_profile = _source_profile(project, figure, profile)
        sidecar = read_sidecar(project.sidecar(source_profile, figure))
        if sidecar is None:
            raise RunError(f"{figure.id} has not been built for profile {source_profile!r}: "
                           f"run `make figures PROFILE={source_profile}` (or `make book`)")
        recorded = sidecar["hashes"]
        current = figure_hashes(figure, sidecar["parameters"], project.root, **recorded_inputs(recorded))["total"]
        out_dir = project.output_dir(source_profile, figure)
        for name in (*sidecar["files"], f"{figure.id}.json", sidecar["executed_notebook"]):
            target = paths.figure_dir(generated, figure.id) / name
            _copy_if_changed(out_dir / name, target)
            wanted.add(target)
        record["figures"][figure.id] = {
            "profile": source_profile, "parameters": sidecar["parameters"], "commit": sidecar["commit"],
            "wall_time_s": sidecar.get("wall_time_s"), "up_to_date": current == recorded["total"]}
    times = [info["wall_time_s"] or 0 for info in record["figures"].values()]
    record["notebook_minutes"] = round(sum(times) / 60, 1)
    record["chapters"] = chapter_totals(record["figures"])
    for path in sorted(generated.rglob("*")) if generated.exists() else []:
        if path.is_file() and path not in wanted and path.name != "build.json":
            path.unlink()
    build_json = generated / "build.json"
    if read_sidecar(build_json) != json.loads(json.dumps(record)):
        write_json(build_json, record)
    stale = [fig_id for fig_id, info in record["figures"].items() if not info["up_to_date"]]
    if stale:
        print(f"warning: outputs older than the code for {', '.join(stale)} (run `make figures`)",
              file=sys.stderr)
    return record


def render(book_dir: Path) -> None:
    """jupyter-book build with warnings as errors; raises RunError if it fails."""
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    command = [str(jupyter_book), "build", str(book_dir), "-n", "-W", "--keep-going"]
    print("$ " + " ".join(command), flush=True)
    if subprocess.run(command).returncode != 0:
        raise RunError("the book build failed (see the warnings above)")
    print(f"book: {book_dir / '_build' / 'html' / 'index.html'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m intellimetry.book", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("assemble", "build"))
    parser.add_argument("--profile", default="quick", help=f"one of {', '.join(BOOK_PROFILES)}")
    parser.add_argument("--book-dir", type=Path, default=paths.BOOK_DIR)
    parser.add_argument("--figures-dir", type=Path, help="output root (default: <repo>/figures)")
    args = parser.parse_args(argv)
    project = Project.at(figures_dir=args.figures_dir)
    try:
        assemble(project, args.book_dir, args.profile)
        if args.command == "build":
            render(args.book_dir)
    except RunError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
