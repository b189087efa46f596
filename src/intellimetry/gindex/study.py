"""The program-synthesis study of the g-index chapter (the paper's Figures 9-12): models of several
sizes trained on several amounts of generated tasks, scored on held-out tasks, and their g-index."""
from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
from tqdm.auto import tqdm

from intellimetry.gindex.domains import generate_corpus
from intellimetry.gindex.gindex import experience, g_index
from intellimetry.gindex.synthesis import SIZES, ExperimentResult, run_experiment

# Training compute of laptop-scale models is far below 1 petaFLOP, where log2 is negative; E can be
# counted in a smaller unit instead (a documented choice, shown beside the others in the book).
COMPUTE_UNITS = {"PF": 1e15, "TF": 1e12, "GF": 1e9}


def held_out_split(domains, samples_per_domain, test_per_domain: int, seed: int) -> tuple[dict, list]:
    """Nested training sets {n: the first n tasks of every domain} and one shared test set (the
    `test_per_domain` tasks after the largest training set, so no test task is ever trained on)."""
    sizes = sorted({int(n) for n in samples_per_domain})
    if not sizes or sizes[0] < 1:
        raise ValueError(f"samples_per_domain must be positive integers, got {list(samples_per_domain)}")
    if test_per_domain < 1:
        raise ValueError(f"test_per_domain must be at least 1, got {test_per_domain}")
    corpus = generate_corpus(domains, sizes[-1] + test_per_domain, seed)
    train = {n: [task for tasks in corpus.values() for task in tasks[:n]] for n in sizes}
    test = [task for tasks in corpus.values() for task in tasks[sizes[-1]:]]
    return train, test


def steps_for(epochs: float, train_samples: int, batch_size: int) -> int:
    """Optimisation steps for `epochs` passes over the training set (at least one step)."""
    if epochs <= 0:
        raise ValueError(f"epochs must be positive, got {epochs}")
    return max(1, math.ceil(epochs * train_samples / batch_size))


def run_grid(train: dict, test: list, sizes, epochs: float, batch_size: int, learning_rate: float, seed: int,
             torch_threads: int = 1, progress: bool = True) -> list[ExperimentResult]:
    """One model per (size, training-set size), every one scored on the same test tasks."""
    unknown = [size for size in sizes if size not in SIZES]
    if unknown:
        raise ValueError(f"unknown model sizes {unknown}; allowed: {', '.join(SIZES)}")
    grid = [(size, n) for size in sizes for n in sorted(train)]
    results = []
    for size, n in tqdm(grid, desc="models", disable=not progress):
        results.append(run_experiment(train[n], test, size=size, steps=steps_for(epochs, len(train[n]), batch_size),
                                      batch_size=batch_size, learning_rate=learning_rate, seed=seed,
                                      torch_threads=torch_threads, progress=False))
    return results


def program_size(flow) -> int:
    """Nodes of a flow, the tab node included (as Δ counts them)."""
    return len(flow)


def by_program_size(result: ExperimentResult, test: list) -> dict[int, dict]:
    """θ (mean 1 − Δ) and skill level (share with Δ = 0) of one model's test tasks, per program size."""
    if len(test) != len(result.task_deltas):
        raise ValueError(f"{len(test)} test tasks but {len(result.task_deltas)} scores")
    groups: dict[int, list[float]] = defaultdict(list)
    for task, delta in zip(test, result.task_deltas):
        groups[program_size(task.flow)].append(delta)
    return {size: {"theta": float(1 - np.mean(deltas)), "skill": float(np.mean(np.asarray(deltas) == 0)),
                   "n": len(deltas)} for size, deltas in sorted(groups.items())}


def model_g_index(result: ExperimentResult, omega: np.ndarray, names, unit: str = "GF", mode: str = "log2",
                  prior: float = 1e-4) -> float:
    """The g-index of a trained model: θ per test domain (in `names` order), its training samples per
    curriculum domain, Ω (rows test, columns curriculum, `names` order) and E from its training
    FLOPs counted in `unit`."""
    if unit not in COMPUTE_UNITS:
        raise ValueError(f"unknown compute unit {unit!r}; allowed: {', '.join(COMPUTE_UNITS)}")
    missing = [name for name in names if name not in result.domains]
    if missing:
        raise ValueError(f"no test scores for domains {missing}")
    theta = [result.domains[name].theta for name in names]
    samples = [result.train_samples_per_domain.get(name, 0) for name in names]
    return g_index(theta, omega, samples, experience(result.flops / COMPUTE_UNITS[unit], mode), prior)


def properties_removed(flow) -> list[dict]:
    """The flow with every property but id, type, wires and z deleted: the same program skeleton.

    Node similarity counts only the generated node's properties and gives 1 to a node with none, so
    this skeleton scores Δ = 0 against the full flow: a weakness of the metric the book shows."""
    return [{key: node[key] for key in ("id", "type", "wires", "z") if key in node} for node in flow]
