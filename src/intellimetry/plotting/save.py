"""save_figure: the one way a notebook publishes a figure and the numbers its page quotes."""
from __future__ import annotations

import resource
import time
from pathlib import Path

import intellimetry
from intellimetry import cache, paths
from intellimetry.atomic import atomic_path, write_json
from intellimetry.plotting.legibility import book_width_fraction, check_legible
from intellimetry.provenance import INTERACTIVE, git_commit, run_context
from intellimetry.verdicts import judge_figure

FORMATS = ("svg", "png")


def save_figure(fig, fig_id: str, values: dict | None = None, formats: tuple[str, ...] = FORMATS) -> Path:
    """Write <fig_id>.svg/.png and the JSON sidecar (id, profile, parameters, hash, commit, values, verdicts).

    The verdicts judge every paper item that names this figure (data/reference/<paper>/items.yaml)
    against `values`; see intellimetry.verdicts. They are printed, so the executed notebook shows them.

    A figure a reader could not read at the width the book shows it (axes too small, text under 8 px,
    overlapping tick labels or legends) is refused before anything is written: see
    intellimetry.plotting.legibility.

    Under the runner the files go to its staging folder and are published after a clean run; in an
    interactive session they go to figures/interactive/<paper>/. Returns the sidecar path.
    """
    context = run_context()
    verdicts = judge_figure(fig_id, values or {})
    if context["figure_id"] not in (None, fig_id):
        raise ValueError(f"this notebook runs as {context['figure_id']!r} but saves {fig_id!r}: "
                         "one notebook, one figure id")
    check_legible(fig, fig_id, book_width_fraction(fig_id))
    out_dir = Path(context["output_dir"] or paths.figure_dir(paths.FIGURES_DIR, fig_id, INTERACTIVE))
    for fmt in formats:
        with atomic_path(out_dir / f"{fig_id}.{fmt}") as tmp:
            fig.savefig(tmp, format=fmt, metadata=_file_metadata(fmt))
    sidecar = {
        "figure_id": fig_id,
        "profile": context["profile"],
        "parameters": context["parameters"],
        "commit": context["commit"] or git_commit(),
        "library_version": intellimetry.__version__,
        "saved_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "files": [f"{fig_id}.{fmt}" for fmt in formats],
        "values": values or {},
        "verdicts": verdicts,
        # what the runner hashes as this figure's reference inputs (see paths.reference_file)
        "reference_files": paths.references_read(),
        # and the other repository files it read (see paths.project_file), hashed the same way
        "project_files": paths.files_read(),
        # trained items this kernel reused and made (the runner's summary adds them up)
        "model_cache": cache.usage(),
        # the kernel's CPU seconds so far (its worker processes included): unlike wall time, not
        # inflated when other work shares the cores
        "cpu_time_s": round(_cpu_seconds(), 2),
    }
    path = out_dir / f"{fig_id}.json"
    write_json(path, sidecar)
    for item_id, record in verdicts.items():
        print(f"{record['label']} ({item_id}): {record['verdict']}: {record['criterion']}; ours = {record['ours']}")
    return path


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _file_metadata(fmt: str) -> dict:
    """No creation dates in the files, so re-running unchanged code gives byte-identical figures."""
    if fmt == "svg":
        return {"Date": None}
    if fmt == "pdf":
        return {"CreationDate": None}
    return {}
