"""Null subjects for the g-index chapter's claims (issue 32): the subject replaced by one for which the
claim should not hold, computed in the same run and judged through the same code.

    shuffled_groups        Figure 5: the same generated tasks dealt to the domains at random (shuffled
                           domain labels), so "within a domain" no longer means anything
    random_program_nulls   Figures 9-12 and Table 2: every trained model's answers replaced by training
                           programs drawn at random, ignoring the specification (its cost kept)
    random_ranking         Table 1: the recomputed g-indices dealt to the runs in a random order
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from intellimetry.gindex.synthesis import encode_flow, rescore


def shuffled_groups(groups: Mapping[str, list[int]], seed: int) -> dict[str, list[int]]:
    """The tasks of `groups` ({domain: task indices}) dealt to the same domains, each keeping its
    number of tasks, in a random order: domain labels carrying no information."""
    members = [k for indices in groups.values() for k in indices]
    dealt = np.random.default_rng(seed).permutation(members)
    out, start = {}, 0
    for name, indices in groups.items():
        out[name] = sorted(int(k) for k in dealt[start:start + len(indices)])
        start += len(indices)
    return out


def random_program_nulls(results, train: Mapping[int, list], test: list, seed: int, rule: str = "either") -> list:
    """Per trained model, a null that answers every test task with the program of a task drawn at random
    from that model's training set (any domain: the specification is ignored), scored as the model's
    own answers are (synthesis.rescore). Each null keeps its model's size, samples and compute."""
    pools = {len(tasks): tasks for tasks in train.values()}
    rng = np.random.default_rng(seed)
    nulls = []
    for result in results:
        pool = pools.get(result.train_samples)
        if pool is None:
            raise ValueError(f"no training set of {result.train_samples} tasks; have {sorted(pools)}")
        picks = rng.integers(0, len(pool), len(test))
        nulls.append(rescore(result, [encode_flow(pool[k].flow) for k in picks], test, rule))
    return nulls


def random_ranking(g_by_run: Mapping[str, float], intervals: Mapping[str, list], seed: int) -> dict:
    """A random ranker for Table 1: the g-indices and their intervals dealt to the runs in a random
    order, shaped like the figure's values (`rows.<run>.ours`, `g_by_run`, `intervals`)."""
    runs = list(g_by_run)
    source = [runs[k] for k in np.random.default_rng(seed).permutation(len(runs))]
    return {"rows": {run: {"ours": g_by_run[src], "dealt_from": src} for run, src in zip(runs, source)},
            "g_by_run": {run: g_by_run[src] for run, src in zip(runs, source)},
            "intervals": {run: list(intervals[src]) for run, src in zip(runs, source)}}
