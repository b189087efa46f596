"""The program-synthesis study: splits, steps, per-size scores, a model's g-index, the variants of E,
the ranking of the grid and the skeleton check."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from intellimetry.gindex import divergence, g_index, parse_flow
from intellimetry.gindex.domains import DOMAINS, generate_tasks
from intellimetry.gindex.study import (
    by_program_size,
    experience_defined,
    g_index_variants,
    g_indices,
    grid_totals,
    held_out_split,
    model_g_index,
    model_key,
    properties_removed,
    rank_descending,
    run_grid,
    skeleton_theta,
    steps_for,
    synthesis_ranking,
)
from intellimetry.gindex.synthesis import DomainScore


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


def test_g_indices_are_none_where_log2_of_the_unit_is_negative():
    names, omega = ["a", "b"], np.array([[0.0, 0.1], [0.2, 0.0]])
    result = _result([], [], {"b": 1.0, "a": 0.5}, {"a": 1, "b": 4}, 16e9)
    assert experience_defined([result], "GF", "log2", 1e-4)
    assert g_indices([result], omega, names, "GF", "log2", 1e-4) == [pytest.approx(287.20296, rel=1e-6)]
    # 16e9 FLOPs = 1.6e-5 PF: log2 is -15.9, so ρ + E < 0 and the g-index does not exist
    assert not experience_defined([result], "PF", "log2", 1e-4)
    assert g_indices([result], omega, names, "PF", "log2", 1e-4) is None
    variants = g_index_variants([result], omega, names, "GF", "log2", 1e-4)
    assert list(variants) == ["log2_GF", "log2_TF", "log2_1p_PF"]
    assert variants["log2_TF"] is None  # 0.016 TF: log2 = -5.97, undefined too
    assert variants["log2_1p_PF"] == [pytest.approx(g_index([0.5, 1.0], omega, [1, 4], math.log2(1 + 1.6e-5)))]
    with pytest.raises(ValueError, match=r"ρ \+ E <= 0"):
        g_index_variants([result], omega, names, "PF", "log2", 1e-4)
    with pytest.raises(ValueError, match="allowed: PF, TF, GF"):
        experience_defined([result], "kF", "log2", 1e-4)


def test_rank_descending_and_model_key():
    assert rank_descending([3.0, 1.0, 2.0]) == [1, 3, 2]
    assert rank_descending([1.0, 1.0]) == [1, 2]  # ties by position
    assert model_key(SimpleNamespace(size="small", train_samples=48), 16) == "small_3"


def _grid():
    flow = [{"id": "0", "type": "debug", "wires": []}]
    test = [SimpleNamespace(flow=flow)]
    common = dict(params=100, non_embedding_params=80, steps=5, attention_flops=1.0, perfects=0.0, parseable=1.0,
                  task_domains=["a"], domains={}, train_samples_per_domain={})
    results = [SimpleNamespace(size=size, train_samples=n, theta=theta, flops=f, petaflops=f / 1e15, seconds=s,
                               task_deltas=[1 - theta], **common)
               for size, n, theta, f, s in (("tiny", 4, 0.9, 1e9, 1.0), ("tiny", 8, 0.5, 2e9, 2.0),
                                            ("small", 4, 0.7, 4e9, 4.0))]
    return results, test


def test_synthesis_ranking_by_hand():
    results, test = _grid()
    variants = {"log2_GF": [10.0, 30.0, 20.0], "log2_TF": None, "log2_1p_PF": [3.0, 1.0, 2.0]}
    ranking = synthesis_ranking(results, test, variants, "log2_GF", n_domains=2)
    assert ranking["n_models"] == 3
    assert (ranking["best_theta_model"], ranking["best_g_model"]) == ("tiny_2", "tiny_4")
    assert (ranking["best_theta"], ranking["best_theta_g"], ranking["best_g"], ranking["best_g_theta"]) == \
        (0.9, 10.0, 30.0, 0.5)
    assert ranking["same_best"] is False
    # θ ranks (ascending) 3, 1, 2 against g ranks 1, 3, 2: ρ = 1 − 6 · 8 / (3 · 8) = −1
    assert ranking["theta_g_spearman"] == pytest.approx(-1.0) and 0 <= ranking["theta_g_p"] <= 1
    assert ranking["rank_by_variant"] == {"log2_GF": [3, 1, 2], "log2_1p_PF": [1, 3, 2]}
    assert ranking["undefined_variants"] == ["log2_TF"]
    assert ranking["ranking_same_in_every_variant"] is False
    assert ranking["best_g_by_variant"] == {"log2_GF": "tiny_4", "log2_1p_PF": "tiny_2"}
    assert (ranking["best_g_model_log2_1p_pf"], ranking["best_g_theta_log2_1p_pf"]) == ("tiny_2", 0.9)
    m1 = ranking["models"]["m1"]
    assert list(ranking["models"]) == ["m1", "m2", "m3"]
    assert (m1["name"], m1["samples_per_domain"], m1["g_index"], m1["g_rank"], m1["theta_rank"]) == \
        ("tiny_2", 2, 10.0, 3, 1)
    assert m1["g_index_by_variant"] == {"log2_GF": 10.0, "log2_1p_PF": 3.0}
    assert m1["by_program_size"] == {"n1": {"theta": 0.9, "skill": 0.0, "n": 1}}
    one = synthesis_ranking(results[:1], test, {"log2_GF": [5.0], "log2_1p_PF": [1.0]}, "log2_GF", 2)
    # one model: no trend to measure (ρ = 0, p = 1, never nan: the page quotes it)
    assert (one["theta_g_spearman"], one["theta_g_p"]) == (0.0, 1.0) and one["ranking_same_in_every_variant"] is True


def test_grid_totals():
    results, _ = _grid()
    assert grid_totals(results) == {"total_train_seconds": 7.0, "max_parseable": 1.0, "max_perfects": 0.0,
                                    "min_petaflops": 1e-6, "max_petaflops": 4e-6}


def test_the_skeleton_of_every_test_program_scores_theta_one():
    _, test = held_out_split(DOMAINS, [1], test_per_domain=1, seed=5)
    assert skeleton_theta(test) == 1.0
