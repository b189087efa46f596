"""The agreement study: each measure's adapter on hand-computable subjects, and the agreement statistics
against scipy and synthetic matrices with a known structure."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kendalltau

from intellimetry.agreement import analysis, measures, runs
from intellimetry.agreement.findings import random_last
from intellimetry.agreement.study import Design, make_tests, subjects
from intellimetry.aiq.study import intelligence_space
from intellimetry.subjects.learners import Spec
from intellimetry.subjects.worlds import make_world


def small_design(**changes) -> Design:
    base = dict(families=("mlp",), capacities=(4,), budgets=(160,), seeds=3, world_seed=0, test_episodes=40,
                simulated_infinity=10, repetitions=1, runs_per_trial=2, mix_shares=(0.0, 0.5, 1.0),
                curve_chunks=3, curve_agents=2, reference_capacity=4, decay_resamples=50)
    return Design(**{**base, **changes})


# --------------------------------------------------------------------------- Kendall τ and its bootstrap

def test_tau_is_scipys_tau_b_on_a_hand_case():
    x, y = [1, 2, 3, 4], [1, 3, 2, 4]  # one discordant pair of six
    assert analysis.tau(x, y) == pytest.approx(4 / 6)
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=30), rng.normal(size=30)
    b[::3] = b[0]  # ties: τ-b
    assert analysis.tau(a, b) == pytest.approx(kendalltau(a, b).statistic)


def test_tau_drops_undefined_subjects_and_refuses_degenerate_columns():
    assert analysis.tau([1, 2, np.nan, 3, 4], [1, 3, 9, 2, 4]) == pytest.approx(4 / 6)
    assert np.isnan(analysis.tau([1, 1, 1, 1], [1, 2, 3, 4]))  # a measure giving one value ranks nothing
    assert np.isnan(analysis.tau([1, 2], [1, 2]))


def test_the_bootstrap_of_identical_rankings_is_one_and_of_opposite_ones_minus_one():
    column = np.repeat(np.arange(12.0)[:, None], 3, axis=1)
    values = {"a": column, "b": 2 * column + 1, "c": -column}
    result = analysis.agreement(values, 200, np.random.default_rng(1))
    assert result["tau"] == {"a|b": pytest.approx(1), "a|c": pytest.approx(-1), "b|c": pytest.approx(-1)}
    assert result["interval"]["a|b"] == pytest.approx([1, 1])
    assert result["interval"]["a|c"] == pytest.approx([-1, -1])


def test_the_bootstrap_resamples_seeds_within_subjects():
    """Seed noise widens the interval: the same subject means with noisy seeds give a wider one."""
    rng = np.random.default_rng(2)
    truth = np.arange(20.0)
    quiet = {"a": np.repeat(truth[:, None], 3, 1), "b": np.repeat(truth[:, None], 3, 1)}
    noisy = {m: v + rng.normal(0, 6, v.shape) for m, v in quiet.items()}
    low_quiet, _ = analysis.agreement(quiet, 300, np.random.default_rng(3))["interval"]["a|b"]
    low_noisy, high_noisy = analysis.agreement(noisy, 300, np.random.default_rng(3))["interval"]["a|b"]
    assert low_quiet == pytest.approx(1) and low_noisy < 0.8 and high_noisy - low_noisy > 0.1


def test_the_shuffled_control_keeps_each_measures_values():
    values = {"a": np.arange(30.0).reshape(10, 3), "b": np.arange(30.0, 60).reshape(10, 3)}
    mixed = analysis.shuffled(values, np.random.default_rng(4))
    for m in values:
        assert sorted(mixed[m].ravel()) == sorted(values[m].ravel())
        assert sorted(map(tuple, mixed[m])) == sorted(map(tuple, values[m]))  # seeds stay with their subject


def test_parallel_analysis_finds_one_factor_in_one_factor_data_and_none_in_noise():
    rng = np.random.default_rng(5)
    general = rng.normal(size=(40, 1))
    one = {f"m{k}": np.repeat(general + 0.3 * rng.normal(size=(40, 1)), 2, axis=1) for k in range(5)}
    noise = {f"m{k}": np.repeat(rng.normal(size=(40, 1)), 2, axis=1) for k in range(5)}
    found = analysis.factor_analysis(one, 200, np.random.default_rng(6))
    assert found["factors"] == 1 and found["first_share"] > 0.8
    assert min(found["loadings"].values()) > 0.8
    none = analysis.factor_analysis(noise, 200, np.random.default_rng(6))
    assert none["factors"] == 0 and none["first_share"] < 0.45


def test_rank_swaps_name_the_subject_that_moves_most():
    means = {"a": np.array([4.0, 3, 2, 1]), "b": np.array([4.0, 3, 1, 9])}
    swaps = analysis.rank_swaps(means, "a|b", ["w", "x", "y", "z"], top=1)
    assert swaps[0]["subject"] == "z" and swaps[0]["rank_a"] == 4 and swaps[0]["rank_b"] == 1


def test_random_last_reads_each_measure_separately():
    specs = [Spec("mlp", 4, 16), Spec("lookup", 0, 16), Spec("constant"), Spec("random")]
    matrix = {"good": np.array([[3.0], [2], [0], [1]]), "blind": np.array([[3.0], [0], [1], [2]])}
    assert random_last(specs, matrix) == {"good": True, "blind": False}


# --------------------------------------------------------------------------- each measure's adapter

def test_relative_aiq_of_an_even_subject_is_its_accuracy_cubed():
    """AIQ is a hull volume in three dimensions: scaling every performance by v scales it by v³."""
    rng = np.random.default_rng(7)
    ds = rng.uniform(0.3, 1.0, (6, 6))
    space = intelligence_space(list("abcdef"), rng.uniform(1, 3, 6), ds)
    assert measures.relative_aiq(space, [0.5] * 6) == pytest.approx(0.125)
    assert measures.relative_aiq(space, [1.0] * 6) == pytest.approx(1.0)


def test_the_mixed_score_of_an_even_subject_is_its_accuracy():
    weights = {"x": 0.7, "y": 0.2, "z": 0.1}
    assert measures.mixed([0.3, 0.3, 0.3], ["x", "y", "z"], weights) == pytest.approx(0.3)
    assert measures.mixed([1.0, 0.0, 0.0], ["x", "y", "z"], weights) == pytest.approx(0.7)


def test_the_g_index_of_a_subject_that_computes_nothing_by_hand():
    """θ = v everywhere, Ω = 0, n samples per world, no compute: g = sqrt(e^{12v} · k/(1 + log2 n) / ρ)."""
    k, n, v = 4, 256, 1 / 16
    expected = np.sqrt(np.exp(12 * v) * k / (1 + np.log2(n)) / 1e-4)
    assert measures.gindex_of([v] * k, np.zeros((k, k)), n, 0.0) == pytest.approx(expected)


def test_the_decay_rate_of_a_uniform_ranker_is_zero():
    """A subject whose failure counts are uniform on 0..15 (a random ranker) has alpha = 0."""
    rng = np.random.default_rng(8)
    histograms = [np.bincount(rng.integers(0, 16, 2000), minlength=16) for _ in range(2)]
    row = measures.decay_rate(histograms, 16, 200, rng)
    assert row["status"] == "measured" and row["ci_low"] <= 0 <= row["ci_high"] and abs(row["alpha"]) < 0.05


def test_domain_distance_is_zero_on_the_diagonal_and_large_between_unrelated_worlds():
    design = small_design()
    tests = make_tests(design)
    omega = measures.domain_distance(tests)
    names = [w.name for w in tests.worlds]
    assert np.allclose(np.diag(omega), 0) and ((omega >= 0) & (omega <= 1)).all()
    assert omega[names.index("sum"), names.index("cycle")] > 0.8


def test_the_random_subject_scores_chance_in_every_world():
    tests = make_tests(small_design(test_episodes=200))
    record = runs.evaluate_subject(tests, Spec("random", seed=1), 4000)
    assert np.allclose(record["accuracy"], 1 / 16, atol=0.02)
    assert all(sum(h) == 200 * 13 for h in record["histograms"])  # 13 scored events per episode
    assert record["samples"] == 4000 and record["petaflops"] == 0 and record["sizes"] == [0] * 6


def test_a_learner_reports_its_compute_and_budget():
    tests = make_tests(small_design())
    record = runs.evaluate_subject(tests, Spec("mlp", 4, 160, 0), 4000)
    size = record["sizes"][0]
    assert record["samples"] == 160 and record["petaflops"] == pytest.approx(6 * size * 160 * 6 / 1e15)


def test_agitb_counts_the_tests_passed():
    result = runs.agitb_passes(Spec("constant"), small_design().settings, 1)
    assert result["passed"] == result["verdicts"].count("pass") and len(result["verdicts"]) == 11


def test_the_design_lists_every_subject_once_and_refuses_bad_settings():
    names = [s.name for s in subjects(small_design(families=("mlp", "esn"), capacities=(4, 8), budgets=(160, 800)))]
    assert len(names) == len(set(names)) == 2 * 2 * 2 + 2 + 2
    with pytest.raises(ValueError, match="mix_shares"):
        small_design(mix_shares=(0.2, 1.0))
    with pytest.raises(ValueError, match="family"):
        small_design(families=("gru",))


def test_oracle_accuracy_of_a_world_on_itself_is_its_ceiling():
    world = make_world("pairs", 0)
    episodes = world.sample(400, 16, np.random.default_rng(9))
    assert measures._oracle_accuracy(world, world, episodes) == pytest.approx(world.ceiling(), abs=0.03)


# --------------------------------------------------------------------------- the tables the pages render

def test_a_values_table_renders_the_rows_a_run_wrote():
    from intellimetry.book.tables import TableError, table_lines

    table = {"header": ["subject", "AIQ"], "rows": [["mlp-4 / 400", "0.1 [0.05, 0.2]"], ["a|b", "–"]]}
    assert table_lines(table) == ["| subject | AIQ |", "|---|---|", "| mlp-4 / 400 | 0.1 [0.05, 0.2] |",
                                  "| a/b | – |"]  # a pipe in a cell would split it
    with pytest.raises(TableError, match="header"):
        table_lines({"rows": []})
    with pytest.raises(TableError, match="2 cells"):
        table_lines({"header": ["a", "b"], "rows": [["only one"]]})


def test_cell_text_shows_an_interval_only_where_there_is_one():
    from intellimetry.agreement.findings import cell_text

    assert cell_text(0.12345, 0.1, 0.15) == "0.123 [0.1, 0.15]"
    assert cell_text(7.0, 7.0, 7.0) == "7"
    assert cell_text(None) == "–" and cell_text(float("nan")) == "–"
