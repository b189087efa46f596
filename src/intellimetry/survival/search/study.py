"""The search figure's experiment: every model on every collection, the decay rates, and the paper's
three claims (all Limited; the title -> document task closest to Capable; larger, more complex models
decay faster), as the numbers the book quotes.

Model complexity follows the paper's order, simplest first: BM25 (no learned parameters) < the
small dense retriever < the larger one (Figure 4 has DR Small, DR Base and a cross-encoder). The
notebook passes the models in that order; "larger, more complex models decay faster" on a task means
that the decay rates rise strictly along it (a rate pinned at the estimator's lower bound is no rise).
"""
from __future__ import annotations

import time

import numpy as np

from intellimetry.plotting import COLORS
from intellimetry.survival import controls
from intellimetry.survival.plots import interval_errors
from intellimetry.survival.rates import decay_rates, is_measured, level_counts, levels, shown_rate
from intellimetry.survival.search import retrievers

TITLE_TASK = "python-titles"  # the stand-in for the paper's synthetic Wikipedia title -> document set
MAIN_TASKS = ("python-titles", "python-faq")  # the paper's first two rows: Wikipedia and web search
TASK_STYLES = (("0.1", "o"), ("0.45", "s"), ("0.65", "^"), ("0.3", "D"))


def failure_counts_by_model(models, collections: dict, max_tokens: int, batch_size: int = 32, threads: int = 1,
                            cache_root=None, progress: bool = True) -> tuple[dict, dict]:
    """({model label: {task: failure counts}}, {model label: description}) for every model, in order.

    A dense model encodes each distinct document pool once (collections built from one pool share
    it), through the shared model cache.
    """
    from tqdm import tqdm

    counts, described = {}, {}
    for model in tqdm(list(models), desc="models", disable=not progress):
        started = time.perf_counter()
        name = retrievers.label(model)
        if model == retrievers.BM25:
            counts[name] = {task: retrievers.bm25_failure_counts(c) for task, c in collections.items()}
            described[name] = {"model": model, "non_embedding_parameters": 0, "max_tokens": None}
        else:
            encoder = retrievers.load_encoder(model, max_tokens, threads)
            pools: dict[int, np.ndarray] = {}
            counts[name] = {}
            for task, collection in collections.items():
                key = id(collection.documents)
                if key not in pools:
                    pools[key] = retrievers.cached_embeddings(encoder, collection.documents, batch_size, cache_root)
                counts[name][task] = retrievers.dense_failure_counts(encoder, collection, pools[key], batch_size)
            described[name] = {"model": model, "non_embedding_parameters": encoder.non_embedding_parameters,
                               "max_tokens": encoder.max_tokens}
        described[name]["seconds"] = time.perf_counter() - started
    return counts, described


def supports(collections: dict) -> dict:
    """{task: K}, the collection's documents: what every retriever ranks for every query."""
    return {task: len(collection.documents) for task, collection in collections.items()}


def rates_by_model(counts: dict, k_min: int, support, resamples: int, seed: int) -> dict:
    """{model: {task: decay-rate row}} on each task's support (an int, or {task: K}): every model's
    bootstrap draws from its own generator of `seed`."""
    return {name: decay_rates(by_task, k_min, support, resamples, np.random.default_rng(seed))
            for name, by_task in counts.items()}


def rises(rows: list[dict]) -> bool:
    """Whether decay rates rise along the list of rate rows: every rate measured (rates.is_measured) and
    each one's interval above the one before's (a rise the intervals cannot tell from none is no rise)."""
    return (len(rows) > 1 and all(is_measured(row) for row in rows)
            and all(b["ci_low"] > a["ci_high"] for a, b in zip(rows, rows[1:])))


def claims(rates: dict, tasks, title_task: str = TITLE_TASK, main_tasks=MAIN_TASKS) -> dict:
    """The statistics the verdict reads, models taken in the order of `rates` (simplest first).

    * all_limited: every (model, task) pair is Limited; all_decaying: every rate's interval above 0
      (a random ranker's counts are flat, alpha = 0);
    * title_margin: how far the title task's largest rate is above every other task's largest (the
      smallest of those differences), with the interval the rates' bootstrap intervals allow;
    * rise: on the main tasks, the smallest step between consecutive models' rates, with its interval
      (above zero by its whole interval when every step's intervals are apart upwards);
    * largest_over_simplest: on the main tasks, the smallest difference between the last and the first
      model's rates, with its interval;
    * measured: every rate measured (enough events in [k_min, K - 1], not a bound, a power law the
      truncated alternatives do not beat; controls.measurement), and the tasks present.
    The booleans are the same comparisons on the point estimates. A task missing from the run, or a
    rate not fitted, makes the statistics that need it False (and their margins undefined: None).
    """
    models, tasks = list(rates), list(tasks)
    by_task = {task: [rates[m][task] for m in models] for task in tasks}
    best = {task: _largest(rows) for task, rows in by_task.items()}
    largest = {task: row["alpha"] if row else None for task, row in best.items()}
    rows = controls.rate_rows(rates)
    present = [task for task in main_tasks if task in tasks]
    complete = len(present) == len(main_tasks)
    others = [task for task in tasks if task != title_task]
    title = (_smallest_margin([(best[title_task], best[task]) for task in others])
             if title_task in tasks and others else None)
    steps = [(rates[b][task], rates[a][task]) for task in present for a, b in zip(models, models[1:])]
    ends = [(rates[models[-1]][task], rates[models[0]][task]) for task in present]
    rise = _smallest_margin(steps) if complete else None
    over = _smallest_margin(ends) if complete and len(models) > 1 else None
    return {
        "all_limited": controls.all_limited(rows), "all_decaying": controls.all_decaying(rows),
        "title_task_closest_to_capable": title is not None and title["value"] >= 0,
        "rises_on_main_tasks": complete and all(rises(by_task[task]) for task in present),
        "largest_beats_bm25_on_main_tasks": over is not None and over["value"] > 0,
        **_margin("title_margin", title), **_margin("rise", rise), **_margin("largest_over_simplest", over),
        "measured": {**controls.measurement(rows), "tasks_present": complete and title_task in tasks},
        "rises": {task: rises(task_rows) for task, task_rows in by_task.items()},
        "alpha_max": largest, "level_counts": level_counts(rates), "levels": levels(rates),
    }


def _largest(rows: list[dict]) -> dict | None:
    """The row with the largest fitted rate (None when none was fitted)."""
    fitted = [row for row in rows if controls.fitted(row)]
    return max(fitted, key=lambda row: row["alpha"]) if fitted else None


def _smallest_margin(pairs: list) -> dict | None:
    """controls.smallest_margin of (higher, lower) rate rows; None when there are no pairs or a rate of
    one was not fitted (no difference to take)."""
    if not pairs or not all(a is not None and b is not None and controls.fitted(a) and controls.fitted(b)
                            for a, b in pairs):
        return None
    return controls.smallest_margin(pairs)


def _margin(name: str, margin: dict | None) -> dict:
    """{name: value, name_interval: [low, high]}; an undefined margin (a task missing, or a rate not
    fitted) is 0 in [0, 0], and `measured` says the run could not judge it (`tasks_present`, or a rate
    not measured)."""
    margin = margin or {"value": 0.0, "interval": [0.0, 0.0]}
    return {name: margin["value"], f"{name}_interval": margin["interval"]}


def random_ranker_control(collections: dict, counts: dict, k_min: int, resamples: int, seed: int) -> dict:
    """The claims' statistics of the control: every model replaced by a uniformly random ranker over
    the task's documents, for the same queries, fitted by the same code on the same supports."""
    rng = controls.control_rng(seed)
    null = {model: {task: _random_ranker(collections[task], rng) for task in by_task}
            for model, by_task in counts.items()}
    rates = {model: decay_rates(by_task, k_min, supports(collections), resamples, rng)
             for model, by_task in null.items()}
    return {"subject": controls.NULL_SUBJECT, **claims(rates, collections)}


def summary(collections: dict, counts: dict, described: dict, rates: dict) -> dict:
    """The figure's values: the collections, the models, every rate row and the claims' statistics."""
    return {
        "tasks": {task: {**c.summary(), "events": {m: int(np.asarray(counts[m][task]).size) for m in counts}}
                  for task, c in collections.items()},
        "supports": supports(collections),
        "models": described,
        "order": list(rates),
        "rates": {m: {task: shown_rate(row) for task, row in by_task.items()}
                  for m, by_task in rates.items()},
        **claims(rates, collections),
    }


def _random_ranker(collection, rng: np.random.Generator) -> np.ndarray:
    """A random ranker's counts on a collection: its queries, references and excluded documents."""
    mask = [list(excluded) for excluded in collection.excluded] if collection.excluded else None
    return controls.random_ranker_counts(len(collection.documents), rng, reference=collection.reference, mask=mask)


def rate_by_complexity_panel(ax, rates: dict, described: dict, collections: dict) -> None:
    """Decay rate (with its bootstrap interval) of each model in the paper's order of complexity, one
    line per task (greys and markers: the decay panels' colours stand for models), against the
    Capable boundary α = 2 and a random ranker's α = 0; a rate not fitted is left out of its line, and
    one fitted but not measured is drawn hollow. An interval that runs past the panel is cut at its edge."""
    models = list(rates)
    x = np.arange(len(models))
    shown = [0.0, 2.0]  # the random ranker's rate and the Capable boundary stay in view
    for offset, (task, collection) in enumerate(collections.items()):
        shade, marker = TASK_STYLES[offset % len(TASK_STYLES)]
        shift = (offset - (len(collections) - 1) / 2) * 0.06
        rows = [rates[m][task] for m in models]
        keep = [i for i, row in enumerate(rows) if controls.fitted(row)]
        alpha = np.array([rows[i]["alpha"] for i in keep])
        errors = interval_errors(alpha, [rows[i]["ci_low"] for i in keep], [rows[i]["ci_high"] for i in keep])
        ax.errorbar(x[keep] + shift, alpha, yerr=errors, fmt=f"{marker}-",
                    ms=4, lw=1, capsize=2, color=shade, label=collection.label)
        hollow = [j for j, i in enumerate(keep) if not is_measured(rows[i])]
        ax.plot(x[keep][hollow] + shift, alpha[hollow], marker, ms=7, mfc="white", color=shade)
        shown += [rows[i]["alpha"] for i in keep]
    ax.axhline(2.0, ls="--", color=COLORS["capable"], lw=1.2, label="Capable boundary (α = 2)")
    ax.axhline(0.0, ls=":", color="0.5", lw=1, label="random ranker (α = 0)")
    ax.plot([], [], "o", ms=7, mfc="white", color="0.4", label="hollow: not measured")
    ax.set_xticks(x, [_model_tick(m, described[m]) for m in models])
    ax.set_xlim(-0.5, len(models) - 0.5)
    # the estimates set the scale (an interval of few events can reach the search range's end, 20, and
    # runs off the panel); room for the legend above them
    ax.set_ylim(min(shown) - 0.3, max(shown) + 0.5 + 0.25 * (len(collections) + 2))
    ax.set_ylabel("decay rate α")
    ax.set_title("α by model, simplest first")
    ax.legend(loc="upper right", fontsize=7, handlelength=1.5)


def _model_tick(name: str, row: dict) -> str:
    size = row["non_embedding_parameters"]
    return f"{name}\n(no parameters)" if not size else f"{name}\n{size / 1e6:.1f}M"
