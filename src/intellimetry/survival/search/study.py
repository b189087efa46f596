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
from intellimetry.survival.rates import at_lower_bound, decay_rates, level_counts, levels
from intellimetry.survival.search import retrievers

TITLE_TASK = "python-titles"  # the stand-in for the paper's synthetic Wikipedia title -> document set
MAIN_TASKS = ("python-titles", "python-faq")  # the paper's first two rows: Wikipedia and web search
RATE_KEYS = ("alpha", "ci_low", "ci_high", "ci_level", "level", "events", "events_in_range", "first_try",
             "mean_failures", "log_binned_alpha", "log_binned_r2")
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


def rates_by_model(counts: dict, k_min: int, k_max: int, resamples: int, seed: int) -> dict:
    """{model: {task: decay-rate row}}: every model's bootstrap draws from its own generator of `seed`."""
    return {name: decay_rates(by_task, k_min, k_max, resamples, np.random.default_rng(seed))
            for name, by_task in counts.items()}


def rises(alphas: list[float]) -> bool:
    """Whether decay rates rise strictly along the list; a step onto the estimator's lower bound is no
    rise (two censored rates differ by round-off only)."""
    return len(alphas) > 1 and all(b > a and not at_lower_bound(b) for a, b in zip(alphas, alphas[1:]))


def claims(rates: dict, tasks, title_task: str = TITLE_TASK, main_tasks=MAIN_TASKS) -> dict:
    """The statistics the verdict reads, models taken in the order of `rates` (simplest first).

    * all_limited: every (model, task) pair is Limited; all_decaying: every rate above the estimator's
      floor (a random ranker's is not);
    * title_margin: how far the title task's largest rate is above every other task's largest (the
      smallest of those differences), with the interval the rates' bootstrap intervals allow;
    * rise: on the main tasks, the smallest step between consecutive models' rates, with its interval
      (above zero by its whole interval when every step's intervals are apart upwards);
    * largest_over_simplest: on the main tasks, the smallest difference between the last and the first
      model's rates, with its interval;
    * measured: enough events in every fitted range and no rate at the estimator's floor.
    The booleans are the same comparisons on the point estimates. A task missing from the run makes
    the statistics that need it False (and their margins undefined: None).
    """
    models, tasks = list(rates), list(tasks)
    alphas = {task: [rates[m][task]["alpha"] for m in models] for task in tasks}
    largest = {task: max(values) for task, values in alphas.items()}
    best = {task: rates[max(models, key=lambda m: rates[m][task]["alpha"])][task] for task in tasks}
    rows = controls.rate_rows(rates)
    found = level_counts(rates)
    present = [task for task in main_tasks if task in tasks]
    complete = len(present) == len(main_tasks)
    others = [task for task in tasks if task != title_task]
    title = (controls.smallest_margin((best[title_task], best[task]) for task in others)
             if title_task in tasks and others else None)
    steps = [(rates[b][task], rates[a][task]) for task in present for a, b in zip(models, models[1:])]
    ends = [(rates[models[-1]][task], rates[models[0]][task]) for task in present]
    rise = controls.smallest_margin(steps) if complete and steps else None
    over = controls.smallest_margin(ends) if complete and len(models) > 1 else None
    return {
        "all_limited": controls.all_limited(rows), "all_decaying": controls.all_decaying(rows),
        "title_task_closest_to_capable": title_task in tasks and all(
            largest[title_task] >= value for value in largest.values()),
        "rises_on_main_tasks": complete and all(rises(alphas[task]) for task in present),
        "largest_beats_bm25_on_main_tasks": complete and len(models) > 1 and all(
            alphas[task][-1] > alphas[task][0] for task in present),
        **_margin("title_margin", title), **_margin("rise", rise), **_margin("largest_over_simplest", over),
        "measured": {**controls.measurement(rows), "tasks_present": complete and title_task in tasks},
        "rises": {task: rises(values) for task, values in alphas.items()},
        "alpha_max": largest, "level_counts": found, "levels": levels(rates),
    }


def _margin(name: str, margin: dict | None) -> dict:
    """{name: value, name_interval: [low, high]}; an undefined margin (a task missing) is 0 in [0, 0],
    and `measured.tasks_present` says the run could not judge it."""
    margin = margin or {"value": 0.0, "interval": [0.0, 0.0]}
    return {name: margin["value"], f"{name}_interval": margin["interval"]}


def random_ranker_control(collections: dict, counts: dict, k_min: int, k_max: int, resamples: int,
                          seed: int) -> dict:
    """The claims' statistics of the control: every model replaced by a uniformly random ranker over
    the task's documents, for the same queries, fitted by the same code."""
    rng = controls.control_rng(seed)
    null = {model: {task: _random_ranker(collections[task], rng) for task in by_task}
            for model, by_task in counts.items()}
    rates = {model: decay_rates(by_task, k_min, k_max, resamples, rng) for model, by_task in null.items()}
    return {"subject": controls.NULL_SUBJECT, **claims(rates, collections)}


def summary(collections: dict, counts: dict, described: dict, rates: dict) -> dict:
    """The figure's values: the collections, the models, every rate row and the claims' statistics."""
    return {
        "tasks": {task: {**c.summary(), "events": {m: int(np.asarray(counts[m][task]).size) for m in counts}}
                  for task, c in collections.items()},
        "models": described,
        "order": list(rates),
        "rates": {m: {task: {key: row[key] for key in RATE_KEYS if key in row} for task, row in by_task.items()}
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
    Capable boundary α = 2."""
    models = list(rates)
    x = np.arange(len(models))
    for offset, (task, collection) in enumerate(collections.items()):
        shade, marker = TASK_STYLES[offset % len(TASK_STYLES)]
        shift = (offset - (len(collections) - 1) / 2) * 0.06
        alpha = np.array([rates[m][task]["alpha"] for m in models])
        low = alpha - np.array([rates[m][task]["ci_low"] for m in models])
        high = np.array([rates[m][task]["ci_high"] for m in models]) - alpha
        ax.errorbar(x + shift, alpha, yerr=[low, high], fmt=f"{marker}-", ms=4, lw=1, capsize=2, color=shade,
                    label=collection.label)
    ax.axhline(2.0, ls="--", color=COLORS["capable"], lw=1.2, label="Capable boundary (α = 2)")
    ax.set_xticks(x, [_model_tick(m, described[m]) for m in models])
    ax.set_xlim(-0.5, len(models) - 0.5)
    highest = max(2.0, *(row["ci_high"] for by_task in rates.values() for row in by_task.values()))
    ax.set_ylim(top=highest + 0.12 * (len(collections) + 1))  # room for the legend above the data
    ax.set_ylabel("decay rate α")
    ax.set_title("α by model, simplest first")
    ax.legend(loc="upper right", fontsize=7, handlelength=1.5)


def _model_tick(name: str, row: dict) -> str:
    size = row["non_embedding_parameters"]
    return f"{name}\n(no parameters)" if not size else f"{name}\n{size / 1e6:.1f}M"
