"""The vision figure's numbers: per task, every model's decay rate and level, and the decay rate
against parameter count over the family (through the shared :mod:`intellimetry.survival.rates`)."""
from __future__ import annotations

import numpy as np

from intellimetry.survival import controls
from intellimetry.survival.rates import at_lower_bound, decay_rates, size_scaling

SCORE_KEYS = ("accuracy", "recall_at_1")  # what a member reports besides its failures (by task)


def rises_with_size(line: dict) -> bool:
    """The criterion's reading of "larger models come closer to Capable": a positive log-log slope of α
    on size, with the largest member's α measured (not pinned at the estimator's lower bound)."""
    largest = int(np.argmax(line["sizes"]))
    return bool(line["slope"] > 0 and not at_lower_bound(line["alphas"][largest]))


def task_summary(members: dict, task: str, k_max: int, resamples: int, rng: np.random.Generator,
                 k_min: int = 1) -> dict:
    """Decay rate (MLE with bootstrap interval, level) per member on [k_min, k_max], the members'
    parameter counts and scores, the α-vs-size line and whether it rises with size."""
    rates = {name: decay_rates({task: m["failures"]}, k_min, k_max, resamples, rng) for name, m in members.items()}
    params = {name: m["params"] for name, m in members.items()}
    line = size_scaling({name: {task: rows[task]["alpha"]} for name, rows in rates.items()}, params)[task]
    rows = {name: {**rates[name][task], "params": params[name], "trained_now": m["record"]["trained_now"],
                   **{key: m[key] for key in SCORE_KEYS if key in m}} for name, m in members.items()}
    return {"models": rows, "rates": rates, "scaling": line, "rises_with_size": rises_with_size(line),
            **size_gain(rows), "k_min": k_min, "k_max": k_max,
            "test_events": int(len(next(iter(members.values()))["failures"]))}


def summaries(members: dict, candidates: dict, resamples: int, rng: np.random.Generator) -> dict:
    """`task_summary` of every task ({task: {name: member}}), each fitted on 1 <= k <= candidates - 1
    (every failure count the task allows), the tasks in order, drawing from one generator."""
    return {task: task_summary(by_name, task, candidates[task] - 1, resamples, rng)
            for task, by_name in members.items()}


TASK_KEYS = ("models", "scaling", "rises_with_size", "size_gain", "size_gain_interval", "smallest", "largest",
             "k_min", "k_max", "test_events")


def task_values(summary: dict, candidates: int, recipe) -> dict:
    """What the page quotes of one task: its summary's statistics, its candidates, recipe and levels."""
    return {**{key: summary[key] for key in TASK_KEYS}, "candidates": candidates, "recipe": recipe.to_dict(),
            "levels": {name: row["level"] for name, row in summary["models"].items()}}


def size_gain(rows: dict) -> dict:
    """How far the largest member's decay rate is above the smallest's ({name: row with params}), with
    the interval their bootstrap intervals allow: "larger models come closer to Capable"."""
    smallest, largest = (min(rows, key=lambda n: rows[n]["params"]), max(rows, key=lambda n: rows[n]["params"]))
    gain = controls.difference(rows[largest], rows[smallest])
    return {"size_gain": gain["value"], "size_gain_interval": gain["interval"], "smallest": smallest,
            "largest": largest}


def claim_statistics(summaries: dict) -> dict:
    """What the verdict reads over every task: all pairs Limited, all decaying measurably (above the
    estimator's floor), each task's size gain with its interval, and whether the rates were measured."""
    rows = [row for summary in summaries.values() for row in summary["models"].values()]
    return {"all_limited": all_limited(summaries), "all_decaying": controls.all_decaying(rows),
            "measured": controls.measurement(rows),
            **{task: {key: s[key] for key in ("size_gain", "size_gain_interval")} for task, s in summaries.items()}}


def random_ranker_control(members: dict, candidates: dict, resamples: int, seed: int) -> dict:
    """The claim statistics of the control: every member of every task ({task: {name: member}})
    replaced by a uniformly random ranker over the task's candidates, for the same test events, fitted
    by the same code."""
    rng = controls.control_rng(seed)
    null = {task: {name: {"failures": controls.random_ranker_counts(candidates[task], rng, n_events=len(m["failures"])),
                          "params": m["params"], "record": m["record"]} for name, m in by_name.items()}
            for task, by_name in members.items()}
    return {"subject": controls.NULL_SUBJECT, **claim_statistics(summaries(null, candidates, resamples, rng))}


def all_limited(summaries: dict) -> bool:
    """Whether every (model, task) pair is at the Limited level."""
    return all(row["level"] == "Limited" for summary in summaries.values() for row in summary["models"].values())
