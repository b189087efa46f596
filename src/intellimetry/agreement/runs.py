"""What the sweep's worker processes run: one subject trained in every world and scored there, and the
same subject on AGITB. Kept apart from the measures (which import the AIQ chapter and, with it, torch)
so that a worker starts in a fraction of the time.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from intellimetry.agitb.axioms import Settings, run_suite
from intellimetry.parallel import task_seed
from intellimetry.subjects.learners import FAMILIES, Spec, make_learner
from intellimetry.subjects.online import online_factory
from intellimetry.subjects.worlds import World
from intellimetry.survival.failure_counts import failure_counts

SKIP = 3  # scored positions start here in every world: every subject has seen three symbols (the highest order)
EPISODE_LENGTH = 16
AGITB_TESTS = tuple(range(1, 12))  # test 12 (real-time liveness) times the machine: it fails every candidate
FLOPS_PER_WEIGHT_STEP = 6  # forward and backward, the usual estimate of training compute
PETA = 1e15


@dataclass(frozen=True)
class Tests:
    """What every subject is scored on: the worlds and their held-out test episodes."""
    worlds: tuple[World, ...]
    episodes: tuple[np.ndarray, ...]


def training_episodes(world: World, symbols: int, seed: int, stream: int) -> np.ndarray:
    """The `symbols` (rounded down to whole episodes) a subject with `seed` reads in a world."""
    rng = np.random.default_rng([seed, stream, 7])
    return world.sample(max(1, symbols // EPISODE_LENGTH), EPISODE_LENGTH, rng)


def failures_in(learner, episodes: np.ndarray) -> np.ndarray:
    """Failure counts of every scored event: candidates scored above the right symbol."""
    scores = learner.scores(episodes, SKIP)
    targets = episodes[:, SKIP:]
    return failure_counts(scores.reshape(-1, scores.shape[-1]), targets.ravel())


def evaluate_subject(tests: Tests, spec: Spec, curriculum: int) -> dict:
    """Train a fresh copy of the subject in each world (on `spec.budget` symbols; a baseline is offered
    `curriculum` symbols and reads none) and score it on the test episodes: per world its accuracy,
    the histogram of its failure counts, its size; the samples offered and the training compute."""
    accuracy, histograms, sizes, flops = [], [], [], 0.0
    symbols = spec.budget if spec.learns else curriculum
    for stream, (world, episodes) in enumerate(zip(tests.worlds, tests.episodes)):
        learner = make_learner(spec, world.alphabet, stream)
        if spec.learns:
            learner.fit(training_episodes(world, spec.budget, spec.seed, stream))
        failures = failures_in(learner, episodes)
        accuracy.append(float(np.mean(failures == 0)))
        histograms.append(np.bincount(failures, minlength=world.alphabet).tolist())
        sizes.append(learner.parameters())
        if spec.kind in FAMILIES:
            flops += FLOPS_PER_WEIGHT_STEP * learner.parameters() * spec.budget
        elif spec.kind == "lookup":
            flops += 3 * spec.budget  # three table increments per symbol read
    return {"accuracy": accuracy, "histograms": histograms, "sizes": sizes, "samples": symbols,
            "petaflops": flops / PETA}


def agitb_passes(spec: Spec, settings: Settings, seed: int) -> dict:
    """AGITB tests 1-11 on the subject as an online model: how many pass, and each verdict."""
    results = run_suite(online_factory(spec), settings, seed, tests=AGITB_TESTS)
    return {"passed": sum(r.verdict == "pass" for r in results), "verdicts": [r.verdict for r in results]}


def subject_task(shared: tuple, task: tuple) -> dict:
    """One subject and seed: the worlds, and AGITB where this spec is the one that runs it.
    `shared` = (tests, curriculum symbols offered to a baseline, AGITB settings)."""
    tests, curriculum, settings = shared
    spec, with_agitb = task
    record = evaluate_subject(tests, spec, curriculum)
    if with_agitb:
        record["agitb"] = agitb_passes(spec, settings, task_seed("agitb", spec.seed))
    return record


def expected_cost(task: tuple) -> tuple:
    """A sort key, largest first: AGITB on a network dominates, then AGITB on a baseline, then the worlds
    (by capacity and budget). Handing out the longest tasks first keeps two workers busy to the end."""
    spec, with_agitb = task
    return (with_agitb and spec.kind in FAMILIES, with_agitb, spec.capacity, spec.budget)
