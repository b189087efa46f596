"""The subjects of the agreement study: worlds with known oracles, learners, baselines, AGITB adapters."""
from __future__ import annotations

import numpy as np
import pytest

from intellimetry.agitb.axioms import Settings, run_suite
from intellimetry.agitb.protocol import protocol_problems
from intellimetry.subjects.learners import Spec, make_learner
from intellimetry.subjects.online import online_factory
from intellimetry.subjects.worlds import WORLD_NAMES, make_world, mixture_episodes

A = 16


def accuracy(learner, world, rng, episodes=64, skip=3):
    test = world.sample(episodes, 16, rng)
    scores = learner.scores(test, skip)
    return float(np.mean(scores.argmax(axis=2) == test[:, skip:]))


@pytest.mark.parametrize("name", WORLD_NAMES)
def test_every_world_is_a_proper_markov_source(name):
    world = make_world(name, seed=3)
    assert np.allclose(world.table.sum(axis=1), 1) and (world.table >= 0).all()
    assert world.table.shape == (A ** world.order, A)
    episodes = world.sample(200, 16, np.random.default_rng(0))
    assert episodes.min() >= 0 and episodes.max() < A
    # the oracle's accuracy on samples matches its stated ceiling
    oracle = world.oracle_scores(episodes).argmax(axis=2) == world.targets(episodes)
    assert abs(oracle.mean() - world.ceiling()) < 0.05


def test_worlds_follow_their_definitions():
    rng = np.random.default_rng(1)
    sums = make_world("sum", 0).sample(5, 12, rng)
    assert (sums[:, 2:] == (sums[:, :-2] + sums[:, 1:-1]) % A).all()
    cycle = make_world("cycle", 0)
    successor = cycle.table.argmax(axis=1)
    assert sorted(successor) == list(range(A))  # a permutation: one cycle through every symbol
    walk, seen = 0, set()
    for _ in range(A):
        seen.add(walk)
        walk = successor[walk]
    assert len(seen) == A
    assert make_world("markov", 0).ceiling() == pytest.approx(0.75)
    assert make_world("echo3", 0).ceiling() == pytest.approx(0.85 + 0.15 / A)


def test_a_mixture_at_share_one_or_zero_is_one_world():
    first, second = make_world("sum", 0), make_world("cycle", 0)
    rng = np.random.default_rng(2)
    only_first = mixture_episodes(first, second, 1.0, 20, 10, rng)
    assert (only_first[:, 2:] == (only_first[:, :-2] + only_first[:, 1:-1]) % A).all()
    with pytest.raises(ValueError, match="share"):
        mixture_episodes(first, second, 1.5, 20, 10, rng)


@pytest.mark.parametrize("kind", ["mlp", "rnn", "esn"])
def test_every_family_learns_the_cycle(kind):
    rng = np.random.default_rng(4)
    cycle = make_world("cycle", 0)
    learner = make_learner(Spec(kind, 16, 4000), A)
    before = accuracy(learner, cycle, rng)
    learner.fit(cycle.sample(4000 // 16, 16, rng))
    assert before < 0.3 and accuracy(learner, cycle, rng) > 0.9


def test_the_baselines_score_at_chance_and_the_lookup_learns_an_order_two_world():
    rng = np.random.default_rng(5)
    world = make_world("sum", 0)
    for kind in ("random", "constant"):
        assert accuracy(make_learner(Spec(kind), A), world, rng, episodes=400) == pytest.approx(1 / A, abs=0.03)
    lookup = make_learner(Spec("lookup", 0, 8000), A)
    lookup.fit(world.sample(500, 16, rng))
    assert accuracy(lookup, world, rng) == 1.0


def test_the_constant_subject_ranks_the_same_way_at_every_event():
    scores = make_learner(Spec("constant", seed=2), A).scores(np.zeros((3, 16), dtype=int), 3)
    assert (scores == scores[0, 0]).all() and sorted(scores[0, 0]) == list(range(A))


def test_a_learner_is_fixed_by_its_spec_and_stream():
    episodes = make_world("pairs", 0).sample(40, 16, np.random.default_rng(6))
    a, b = make_learner(Spec("rnn", 8, 640, 1), A), make_learner(Spec("rnn", 8, 640, 1), A)
    other = make_learner(Spec("rnn", 8, 640, 1), A, stream=1)
    for learner in (a, b, other):
        learner.fit(episodes)
    assert np.array_equal(a.scores(episodes, 3), b.scores(episodes, 3))
    assert not np.array_equal(a.scores(episodes, 3), other.scores(episodes, 3))


def test_policy_sizes_count_what_each_learner_stores():
    assert make_learner(Spec("mlp", 4, 16), A).parameters() == (3 * A + 1) * 4 + (4 + 1) * A
    assert make_learner(Spec("rnn", 4, 16), A).parameters() == (A + 1) * 4 + 4 * 4 + (4 + 1) * A
    assert make_learner(Spec("esn", 4, 16), A).parameters() == (4 + 1) * A  # the read-out alone
    assert make_learner(Spec("random"), A).parameters() == 0


def test_a_spec_refuses_what_it_cannot_be():
    with pytest.raises(ValueError, match="kind"):
        Spec("transformer", 4, 100)
    with pytest.raises(ValueError, match="capacity"):
        Spec("mlp", 0, 100)
    with pytest.raises(ValueError, match="budget"):
        Spec("lookup", 0, 0)


@pytest.mark.parametrize("kind", ["mlp", "rnn", "esn", "lookup", "constant", "random"])
def test_every_subject_meets_agitbs_model_protocol(kind):
    spec = Spec(kind, 4 if kind in ("mlp", "rnn", "esn") else 0, 100 if kind != "constant" and kind != "random" else 0)
    factory = online_factory(spec)
    assert protocol_problems(factory) == []
    model = factory()
    inputs = np.array([1, 2, 12, 3, 512, 5], dtype=np.int64)
    stepped, batched = factory(), factory()
    last = [stepped(int(x)) for x in inputs][-1]
    assert batched.feed_many(inputs) == last and batched == stepped  # feed_many is feeding one by one
    assert model != stepped and model.copy() == model
    assert last & int(inputs[-1]) == 0  # the refractory mask: no bit of the current input is predicted


def test_agitb_tells_a_learner_from_the_constant_subject():
    """Hand-checkable tests: any deterministic model passes 1 (two fresh models are equal) and 2
    (determinism); only a learner can learn {x, ~x} (test 5) and an 8-step variant (test 7)."""
    settings = Settings(simulated_infinity=20, repetitions=2, runs_per_trial=4)

    def verdicts(spec):
        return {r.number: r.verdict for r in run_suite(online_factory(spec), settings, 1, tests=(1, 2, 5))}

    constant, network = verdicts(Spec("constant")), verdicts(Spec("mlp", 8, 100))
    assert constant == {1: "pass", 2: "pass", 5: "fail"}
    assert network == {1: "pass", 2: "pass", 5: "pass"}
