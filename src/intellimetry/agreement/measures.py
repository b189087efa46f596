"""The five measures applied to the same subjects, each through its own chapter's code.

What a subject does in the worlds (runs.evaluate_subject) feeds four measures; AGITB runs the subject
itself as an online model (runs.agitb_passes). Each measure, and the functions of its chapter it calls:

    decay rate   survival.decay_rate.estimate_decay_rate on the failure counts pooled over the
                 worlds (the rank of the right symbol among the 16; survival.failure_counts)
    AIQ          aiq.study.intelligence_space (MCCP complexities from the subject pool, dissimilarity
                 by mixing two worlds) and Space.aiq relative to the suite's full volume
    mixed score  combined.scoring: difficulty of each world = the mean number of training chunks a
                 reference network needs to reach 90 % of the world's ceiling, weights by Eq. 1,
                 the score by Eq. 3
    g-index      gindex.gindex.g_index: skill θ = accuracy per world, domain distance Ω from how
                 badly one world's oracle predicts another, samples = the symbols read per world,
                 experience from the training compute (log2(1 + petaFLOPs))
    AGITB        agitb.axioms.run_suite, tests 1-11: the number passed
"""
from __future__ import annotations

import numpy as np

from intellimetry.agreement.runs import EPISODE_LENGTH, SKIP, Tests, failures_in, training_episodes
from intellimetry.aiq.measures import aiq_relative, dissimilarity, mccp
from intellimetry.aiq.study import intelligence_space
from intellimetry.combined.scoring import difficulty, difficulty_weights, mixed_score
from intellimetry.gindex.gindex import experience, g_index
from intellimetry.subjects.learners import Spec, make_learner
from intellimetry.subjects.worlds import World, mixture_episodes
from intellimetry.survival.decay_rate import estimate_decay_rate

MEASURES = ("decay rate", "AIQ", "mixed score", "g-index", "AGITB")
DIFFICULTY_SHARE = 0.9  # a world is learnt at 90 % of its ceiling accuracy


# --------------------------------------------------------------------------- the measures

def decay_rate(histograms: list, support: int, resamples: int, rng: np.random.Generator) -> dict:
    """The decay-rate row of the pooled failure counts (alpha None when no rate was fitted)."""
    counts = np.sum(np.asarray(histograms), axis=0)
    failures = np.repeat(np.arange(counts.size), counts)
    return estimate_decay_rate(failures, 1, support, resamples, rng)


def world_complexities(sizes: np.ndarray, accuracy: np.ndarray) -> np.ndarray:
    """MCCP of each world over the subject pool: sizes and accuracies (subjects, worlds)."""
    return np.array([mccp(sizes[:, w], accuracy[:, w]) for w in range(accuracy.shape[1])])


def mixing_curve(first: World, second: World, reference: Spec, shares, test_episodes: int, seed: int) -> list[float]:
    """Accuracy of the reference learner trained and tested on mixtures of two worlds, per share of
    the first (AIQ's dissimilarity by mixing)."""
    curve = []
    for k, share in enumerate(shares):
        rng = np.random.default_rng([seed, k, 11])
        learner = make_learner(reference, first.alphabet, k)
        learner.fit(mixture_episodes(first, second, share, max(1, reference.budget // EPISODE_LENGTH),
                                     EPISODE_LENGTH, rng))
        test = mixture_episodes(first, second, share, test_episodes, EPISODE_LENGTH, rng)
        curve.append(float(np.mean(failures_in(learner, test) == 0)))
    return curve


def dissimilarities(tests: Tests, reference: Spec, shares, seed: int) -> np.ndarray:
    """DS of every ordered pair of worlds, by mixing them (aiq.measures.dissimilarity)."""
    worlds = tests.worlds
    n = len(worlds)
    ds = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                curve = mixing_curve(worlds[i], worlds[j], reference, shares, tests.episodes[0].shape[0],
                                     seed + 31 * i + j)
                ds[i, j] = dissimilarity(np.asarray(shares), curve)
    return ds


def aiq_space(tests: Tests, mccps, ds):
    """The suite's intelligence space (aiq.study.intelligence_space) from the worlds' MCCPs and DS."""
    return intelligence_space([w.name for w in tests.worlds], np.asarray(mccps), np.asarray(ds))


def relative_aiq(space, accuracy) -> float:
    """AIQ over the suite's full volume (aiq.measures.aiq_relative on the space's points)."""
    return aiq_relative(space.points, np.asarray(accuracy))


def learning_curves(tests: Tests, reference: Spec, chunks: int, agents: int) -> list[np.ndarray]:
    """Per world, the reference network's test accuracy after each of `chunks` equal parts of its
    budget, for `agents` fresh networks: arrays (chunks, agents)."""
    curves = []
    for stream, (world, episodes) in enumerate(zip(tests.worlds, tests.episodes)):
        curve = np.zeros((chunks, agents))
        for agent in range(agents):
            spec = Spec(reference.kind, reference.capacity, reference.budget, reference.seed + agent)
            learner = make_learner(spec, world.alphabet, stream)
            data = training_episodes(world, reference.budget, spec.seed, stream)
            for chunk, part in enumerate(np.array_split(data, chunks)):
                learner.fit(part)
                curve[chunk, agent] = np.mean(failures_in(learner, episodes) == 0)
        curves.append(curve)
    return curves


def mixed_weights(tests: Tests, curves: list[np.ndarray]) -> tuple[dict, dict]:
    """combined.scoring's difficulty of each world (threshold: 90 % of its ceiling) and the weights."""
    difficulties = {world.name: difficulty(curve, DIFFICULTY_SHARE * world.ceiling())
                    for world, curve in zip(tests.worlds, curves)}
    return difficulties, difficulty_weights({name: d["epochs"] for name, d in difficulties.items()})


def mixed(accuracy, names, weights: dict) -> float:
    return mixed_score(dict(zip(names, accuracy)), weights)


def domain_distance(tests: Tests) -> np.ndarray:
    """Ω(j, i) = 1 - (accuracy of world i's oracle on world j) / (world j's oracle's), in [0, 1]."""
    n = len(tests.worlds)
    omega = np.zeros((n, n))
    for j, (world_j, episodes) in enumerate(zip(tests.worlds, tests.episodes)):
        own = _oracle_accuracy(world_j, world_j, episodes)
        for i, world_i in enumerate(tests.worlds):
            if i != j:
                omega[j, i] = np.clip(1 - _oracle_accuracy(world_i, world_j, episodes) / own, 0, 1)
    return omega


def _oracle_accuracy(predictor: World, world: World, episodes: np.ndarray) -> float:
    """Accuracy on `world`'s episodes of `predictor`'s Bayes-optimal guess (ties to the lowest symbol)."""
    scores = predictor.oracle_scores(episodes)[:, SKIP - predictor.order:]
    return float(np.mean(scores.argmax(axis=2) == episodes[:, SKIP:]))


def gindex_of(accuracy, omega, samples: int, petaflops: float) -> float:
    """The g-index with skill θ = accuracy, the same curriculum of `samples` symbols in every world."""
    n = len(accuracy)
    return g_index(np.asarray(accuracy), omega, np.full(n, samples), experience(petaflops, mode="log2_1p"))
