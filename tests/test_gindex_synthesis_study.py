"""The program-synthesis study: splits, steps, per-size scores, a model's g-index, the skeleton check."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from intellimetry.gindex import divergence, g_index, parse_flow
from intellimetry.gindex.domains import DOMAINS, generate_tasks
from intellimetry.gindex.synthesis import DomainScore
from intellimetry.gindex.study import (
    by_program_size,
    held_out_split,
    model_g_index,
    properties_removed,
    run_grid,
    steps_for,
)


def test_held_out_split_nests_training_sets_and_never_tests_on_them():
    domains = DOMAINS[:3]
    train, test = held_out_split(domains, [4, 2, 4], test_per_domain=3, seed=7)
    assert sorted(train) == [2, 4]
    assert len(train[2]) == 2 * 3 and len(train[4]) == 4 * 3 and len(test) == 3 * 3
    specs = lambda tasks: {(t.domain, t.spec) for t in tasks}  # noqa: E731
    assert specs(train[2]) <= specs(train[4])
    assert not specs(test) & specs(train[4])
    assert [t.spec for t in test if t.domain == domains[0]] == [t.spec for t in generate_tasks(domains[0], 7, 7)[4:]]
    with pytest.raises(ValueError, match="samples_per_domain"):
        held_out_split(domains, [0, 2], 1, 0)
    with pytest.raises(ValueError, match="test_per_domain"):
        held_out_split(domains, [2], 0, 0)


def test_steps_for_counts_epochs():
    assert steps_for(2, 48, 16) == 6
    assert steps_for(0.01, 10, 16) == 1
    assert steps_for(1.5, 100, 16) == math.ceil(150 / 16)
    with pytest.raises(ValueError):
        steps_for(0, 10, 4)


def _result(deltas, domains, per_domain_theta, samples, flops):
    scores = {d: DomainScore(theta=t, perfects=0.0, parseable=1.0, n=1) for d, t in per_domain_theta.items()}
    return SimpleNamespace(task_deltas=deltas, task_domains=domains, domains=scores,
                           train_samples_per_domain=samples, flops=flops)


def test_by_program_size_by_hand():
    flow = lambda n: [{"id": str(i), "type": "debug", "wires": []} for i in range(n)]  # noqa: E731
    test = [SimpleNamespace(flow=flow(3)), SimpleNamespace(flow=flow(3)), SimpleNamespace(flow=flow(5))]
    result = _result([0.0, 0.5, 1.0], ["a", "a", "b"], {}, {}, 0.0)
    assert by_program_size(result, test) == {3: {"theta": 0.75, "skill": 0.5, "n": 2},
                                             5: {"theta": 0.0, "skill": 0.0, "n": 1}}
    with pytest.raises(ValueError):
        by_program_size(result, test[:2])


def test_model_g_index_is_the_formula_with_compute_in_the_chosen_unit():
    names = ["a", "b"]
    omega = np.array([[0.0, 0.1], [0.2, 0.0]])
    result = _result([], [], {"b": 1.0, "a": 0.5}, {"a": 1, "b": 4}, 16e9)
    # 16e9 FLOPs = 16 GF -> E = log2 16 = 4: the two-domain toy case of test_gindex_formula
    assert model_g_index(result, omega, names, unit="GF") == pytest.approx(g_index([0.5, 1.0], omega, [1, 4], 4.0))
    assert model_g_index(result, omega, names, unit="GF") == pytest.approx(287.20296, rel=1e-6)
    with pytest.raises(ValueError, match="allowed: PF, TF, GF"):
        model_g_index(result, omega, names, unit="kF")
    with pytest.raises(ValueError, match="no test scores"):
        model_g_index(result, omega, ["a", "c"])


def test_a_program_without_properties_scores_a_perfect_divergence():
    for domain in DOMAINS:
        flow = generate_tasks(domain, 1, 3)[0].flow
        skeleton = properties_removed(flow)
        assert len(skeleton) == len(flow) and all(set(n) <= {"id", "type", "wires", "z"} for n in skeleton)
        assert divergence(parse_flow(skeleton), parse_flow(flow)) == 0.0
        assert divergence(parse_flow(flow), parse_flow(skeleton)) > 0.0  # the other way round it is penalised


def test_run_grid_trains_one_model_per_size_and_training_set():
    train, test = held_out_split(DOMAINS[-3:], [1, 2], test_per_domain=1, seed=0)
    results = run_grid(train, test, ["tiny"], epochs=2, batch_size=4, learning_rate=3e-3, seed=0, progress=False)
    assert [(r.size, r.train_samples) for r in results] == [("tiny", 3), ("tiny", 6)]
    assert [r.steps for r in results] == [steps_for(2, 3, 4), steps_for(2, 6, 4)]
    assert all(len(r.task_deltas) == len(test) for r in results)
    with pytest.raises(ValueError, match="allowed: tiny"):
        run_grid(train, test, ["huge"], 1, 4, 1e-3, 0, progress=False)
