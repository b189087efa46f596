"""The vision figure's numbers: per task, every model's decay rate and level on the task's support (a
classifier over C classes: K = C; a caption-to-image retriever over N images: K = N), and the decay rate
against parameter count over the family (through the shared :mod:`intellimetry.survival.rates`), and
whether every member learned at all (its top-1 rate above chance)."""
from __future__ import annotations

import numpy as np
from scipy.stats import binomtest

from intellimetry.survival import controls
from intellimetry.survival.rates import decay_rates, is_measured, size_scaling

SCORE_KEYS = ("accuracy", "recall_at_1")  # what a member reports besides its failures (by task)
CHANCE_LEVEL = 0.95  # of the exact interval on each member's top-1 rate


def above_chance(failures, candidates: int, level: float = CHANCE_LEVEL) -> dict:
    """Whether a member learned anything: its top-1 rate (events with no candidate scored above the true
    one: accuracy, or recall at one) with its exact (Clopper-Pearson) interval, against chance, 1 /
    candidates, a uniformly random ranker's rate. An interval reaching chance means the member measured
    nothing: its failure counts could be a random ranker's."""
    failures = np.asarray(failures)
    if failures.size == 0:
        raise ValueError("above_chance needs at least one event")
    hits, events = int(np.sum(failures == 0)), int(failures.size)
    interval = binomtest(hits, events).proportion_ci(level, method="exact")
    chance = 1.0 / candidates
    return {"top1": hits / events, "top1_interval": [float(interval.low), float(interval.high)], "chance": chance,
            "above_chance": bool(interval.low > chance)}


def training_check(summaries: dict) -> dict:
    """Whether every member of every task learned (`above_chance` in its row), the members at chance by
    name, and the smallest margin of an interval's lower end over chance (negative where one is at chance)."""
    rows = {name: row for summary in summaries.values() for name, row in summary["models"].items()}
    at_chance = [name for name, row in rows.items() if not row["above_chance"]]
    return {"all_above_chance": not at_chance, "at_chance": at_chance, "members": len(rows), "level": CHANCE_LEVEL,
            "smallest_margin": min(row["top1_interval"][0] - row["chance"] for row in rows.values())}


def task_summary(members: dict, task: str, support: int, resamples: int, rng: np.random.Generator,
                 k_min: int = 1) -> dict:
    """Decay rate (bounded fit with bootstrap interval, status, level) per member on [k_min, support - 1],
    the members' parameter counts and scores, the α-vs-size line (`rises_with_size`: a positive slope
    through measured rates only) and the largest member's gain over the smallest."""
    rates = {name: decay_rates({task: m["failures"]}, k_min, support, resamples, rng) for name, m in members.items()}
    params = {name: m["params"] for name, m in members.items()}
    line = size_scaling(rates, params)[task]
    rows = {name: {**rates[name][task], "params": params[name], "trained_now": m["record"]["trained_now"],
                   **{key: m[key] for key in SCORE_KEYS if key in m}, **above_chance(m["failures"], support)}
            for name, m in members.items()}
    return {"models": rows, "rates": rates, "scaling": line, "rises_with_size": line["rises"],
            **size_gain(rows), "k_min": k_min, "k_max": support - 1, "support": support,
            "test_events": int(len(next(iter(members.values()))["failures"]))}


def summaries(members: dict, candidates: dict, resamples: int, rng: np.random.Generator) -> dict:
    """`task_summary` of every task ({task: {name: member}}), each on its support K = the task's candidates
    (fitted on 1 <= k <= K - 1, every failure count the task allows), the tasks in order, drawing from one
    generator."""
    return {task: task_summary(by_name, task, candidates[task], resamples, rng) for task, by_name in members.items()}


TASK_KEYS = ("models", "scaling", "rises_with_size", "size_gain", "size_gain_interval", "size_gain_measured",
             "smallest", "largest", "k_min", "k_max", "support", "test_events")


def task_values(summary: dict, candidates: int, recipe) -> dict:
    """What the page quotes of one task: its summary's statistics, its candidates, recipe and levels."""
    return {**{key: summary[key] for key in TASK_KEYS}, "candidates": candidates, "recipe": recipe.to_dict(),
            "levels": {name: row["level"] for name, row in summary["models"].items()},
            "statuses": {name: row["status"] for name, row in summary["models"].items()}}


def size_gain(rows: dict) -> dict:
    """How far the largest member's decay rate is above the smallest's ({name: row with params and
    above_chance}), with the interval their bootstrap intervals allow: "larger models come closer to
    Capable". Only measured rates of members that learned make a gain: where either rate is not measured
    or either member is at chance, `size_gain_measured` is False and the gain is 0 in [0, 0] (the item's
    `measured` conditions then make the verdict inconclusive)."""
    smallest, largest = (min(rows, key=lambda n: rows[n]["params"]), max(rows, key=lambda n: rows[n]["params"]))
    measured = all(is_measured(rows[name]) and rows[name]["above_chance"] for name in (smallest, largest))
    gain = (controls.difference(rows[largest], rows[smallest]) if measured
            else {"value": 0.0, "interval": [0.0, 0.0]})
    return {"size_gain": gain["value"], "size_gain_interval": gain["interval"], "size_gain_measured": measured,
            "smallest": smallest, "largest": largest}


def claim_statistics(summaries: dict) -> dict:
    """What the verdict reads over every task: all pairs Limited, all decaying (every interval above 0,
    where a random ranker's flat counts sit), each task's size gain with its interval, whether the
    rates were measured (every bounded fit measured) and whether every member learned (`training_check`)."""
    rows = [row for summary in summaries.values() for row in summary["models"].values()]
    return {"all_limited": all_limited(summaries), "all_decaying": controls.all_decaying(rows),
            "measured": controls.measurement(rows), "trained": training_check(summaries),
            **{task: {key: s[key] for key in ("size_gain", "size_gain_interval", "size_gain_measured")}
               for task, s in summaries.items()}}


def random_ranker_control(members: dict, candidates: dict, resamples: int, seed: int) -> dict:
    """The claim statistics of the control: every member of every task ({task: {name: member}})
    replaced by a uniformly random ranker over the task's candidates, for the same test events, fitted
    by the same code on the same support."""
    rng = controls.control_rng(seed)
    null = {task: {name: {"failures": controls.random_ranker_counts(candidates[task], rng, n_events=len(m["failures"])),
                          "params": m["params"], "record": m["record"]} for name, m in by_name.items()}
            for task, by_name in members.items()}
    return {"subject": controls.NULL_SUBJECT, **claim_statistics(summaries(null, candidates, resamples, rng))}


def all_limited(summaries: dict) -> bool:
    """Whether every (model, task) pair was fitted and is at the Limited level."""
    return all(row["level"] == "Limited" for summary in summaries.values() for row in summary["models"].values())
