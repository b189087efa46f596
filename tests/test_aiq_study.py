"""Known answers for the AIQ study functions (pools -> MCCP, mixtures -> DS, the space, the figures' summaries)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from intellimetry.aiq import claims, study
from intellimetry.aiq.domains import Domain
from intellimetry.aiq.measures import Embedding
from intellimetry.stats import Interval


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(study, "POOL_CACHE", tmp_path / "pools")


def _separable(name="sep", seed=0, n=200):
    """Two well-separated Gaussian blobs: the smallest network solves it."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x = rng.normal(0, 0.3, (n, 2)) + np.where(y[:, None] == 1, 3.0, -3.0)
    return Domain(name, x[:150], y[:150], x[150:], y[150:], 2, "test blobs")


def _random_labels(name="noise", seed=1, n=200):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(0, 1, (n, 2)), rng.integers(0, 2, n)
    return Domain(name, x[:150], y[:150], x[150:], y[150:], 2, "test noise")


def test_mccp_of_a_domain_the_smallest_network_solves_is_its_minimum():
    spec = study.PoolSpec(agents=6, depth=(1, 2), width=(2, 8), epochs=60, learning_rate=0.1)
    result = study.complexity(_separable(), spec, repeats=2, rule="monotone", progress=False)
    for pool, value in zip(result.pools, result.values):
        smallest = min(pool, key=lambda a: a.size)
        assert smallest.accuracy == 1.0
        assert value == pytest.approx(smallest.size)  # every bin takes the smallest network


def test_self_dissimilarity_is_about_zero_and_swapping_the_domains_mirrors_p():
    spec = study.MixSpec(agents=2, depth=1, width=8, epochs=60, learning_rate=0.1, p_step=0.25)
    blobs, noise = _separable(), _random_labels()
    assert study.mixing_curve(blobs, blobs, spec).dissimilarity < 0.01
    forward = study.mixing_curve(blobs, noise, spec)
    backward = study.mixing_curve(noise, blobs, spec)
    assert forward.labels == backward.labels == "concatenate"
    assert forward.v_first > 0.95 and backward.v_second > 0.95  # p = share of the first domain
    assert forward.dissimilarity == pytest.approx(backward.dissimilarity, abs=0.05)


def test_label_mode_follows_the_task():
    a = _separable("shapes10[0,1]")
    b = _separable("shapes10", seed=3)
    spec = study.MixSpec(agents=1, depth=1, width=2, epochs=2, p_step=0.5)
    assert study.mixing_curve(a, b, spec).labels == "shared"
    with pytest.raises(ValueError, match="labels"):
        study.mixing_curve(a, b, spec, labels="both")


def test_intelligence_space_points_have_the_normalised_complexity_as_length():
    ds = np.array([[0.0, 0.2, 0.3], [0.22, 0.0, 0.25], [0.28, 0.26, 0.0]])
    space = study.intelligence_space(["a", "b", "c"], [100.0, 400.0, 800.0], ds)
    assert np.allclose(np.linalg.norm(space.points, axis=1), [0.125, 0.5, 1.0])
    assert np.allclose(space.distance, space.distance.T) and space.distance.max() == pytest.approx(1.0)
    scaled = study.intelligence_space(["a", "b", "c"], [100.0, 400.0, 800.0], 7 * ds)
    assert np.allclose(scaled.distance, space.distance)  # DS units do not matter
    assert space.aiq(np.ones(3)) >= space.aiq(np.full(3, 0.5))


def test_intelligence_space_rejects_bad_scales():
    with pytest.raises(ValueError, match="complexity_scale"):
        study.intelligence_space(["a"], [10.0], np.zeros((1, 1)), complexity_scale="sqrt")
    with pytest.raises(ValueError, match="above 1"):
        study.intelligence_space(["a", "b"], [1.0, 10.0], np.ones((2, 2)), complexity_scale="log")


def test_mix_spec_p_grid():
    assert np.allclose(study.MixSpec(p_step=0.25).p_grid(), [0, 0.25, 0.5, 0.75, 1])
    with pytest.raises(ValueError, match="p_step"):
        study.MixSpec(p_step=0.3)


def test_cartpole_data_from_a_trained_teacher():
    data = study.cartpole_data(10.0, 9.8, seed=0, episodes=4)
    assert data.teacher.mean_length >= 190
    assert data.domain.n_classes == 2 and len(data.domain.y_test) > 0
    assert set(np.unique(data.domain.y_train)) == {0, 1}
    assert data.observations.shape[1] == 4


def test_domain_entropy_grows_with_copies_of_the_data():
    from intellimetry.aiq.domains import duplicated

    blobs = _separable()
    assert study.domain_entropy(duplicated(blobs, 3, test=True)) == pytest.approx(3 * study.domain_entropy(blobs))


def test_entropy_per_sample_and_over_equal_counts_drop_the_domain_size():
    from intellimetry.aiq.domains import duplicated
    from intellimetry.aiq.sweeps import domain_entropies

    blobs = _separable()
    thrice = duplicated(blobs, 3, test=True)
    per_sample = study.sample_entropies(blobs)
    assert per_sample.shape == (200,) and per_sample.sum() == pytest.approx(study.domain_entropy(blobs))
    summed = domain_entropies([blobs, thrice])
    assert summed[1] == pytest.approx(3 * summed[0])  # the paper's sum counts the copies
    mean = domain_entropies([blobs, thrice], per="sample")
    assert mean[1] == pytest.approx(mean[0]) and mean[0] == pytest.approx(per_sample.mean())
    # equally many samples (200, the smaller domain's count) of each: the small one whole, the large one
    # a draw whose mean is the same value (every copy's samples repeat the original's)
    equal = domain_entropies([blobs, thrice], per="equal", seed=3)
    assert equal[0] == pytest.approx(summed[0]) and equal[1] == pytest.approx(summed[0], rel=0.05)
    with pytest.raises(ValueError, match="allowed"):
        domain_entropies([blobs], per="max")


def test_teacher_performance_is_full_at_normal_gravity_and_low_where_nothing_can_hold():
    from intellimetry.aiq.sweeps import teacher_performance

    assert teacher_performance(10.0, 9.8) == 1.0  # every fresh episode held for 200 steps
    # 2000 m/s²: a 10 N push cannot hold the pole beyond a small fraction of a degree, so every episode
    # ends within a few steps whatever the policy
    assert teacher_performance(10.0, 2000.0) < 0.1


def test_stand_in_labels():
    assert study.stand_in_label("digits") == "digits (MNIST)"
    assert study.stand_in_label("shapes100[0,1]") == "shapes100[0,1] (CIFAR100)"
    with pytest.raises(ValueError, match="allowed"):
        study.suite_domain("imagenet")


def test_partial_mapping_measures_only_the_anchor_pairs_and_completes_the_space():
    spec = study.MixSpec(agents=1, depth=1, width=4, epochs=5, learning_rate=0.1, p_step=0.5)
    domains = [_separable("a", 0), _random_labels("b", 1), _separable("c", 2)]
    matrix, curves = study.dissimilarity_matrix(domains, spec, progress=False, anchors=1)
    assert sorted(curves) == [(0, 0), (0, 1), (0, 2), (1, 0), (2, 0)]
    assert np.isnan(matrix[1, 2]) and np.isnan(matrix[2, 1]) and np.isnan(matrix[1, 1])
    with pytest.raises(ValueError, match="anchors"):
        study.intelligence_space(["a", "b", "c"], [10.0, 20.0, 30.0], matrix)
    space = study.intelligence_space(["a", "b", "c"], [10.0, 20.0, 30.0], matrix, anchors=1)
    assert np.isfinite(space.distance).all()
    with pytest.raises(ValueError, match="anchors must lie"):
        study.dissimilarity_matrix(domains, spec, progress=False, anchors=4)


def test_paper_scale_domains_are_read_from_a_data_directory(tmp_path):
    from tests.test_aiq_domains import write_idx

    rng = np.random.default_rng(0)
    folder = tmp_path / "mnist"
    folder.mkdir()
    write_idx(folder / "train-images-idx3-ubyte", rng.integers(0, 256, (6, 28, 28)), 2051, compress=False)
    write_idx(folder / "train-labels-idx1-ubyte", np.array([0, 1, 2, 3, 4, 5]), 2049, compress=False)
    write_idx(folder / "t10k-images-idx3-ubyte", rng.integers(0, 256, (2, 28, 28)), 2051, compress=False)
    write_idx(folder / "t10k-labels-idx1-ubyte", np.array([6, 7]), 2049, compress=False)
    mnist = study.suite_domain("mnist", data_dir=str(tmp_path))
    assert mnist.x_train.shape == (6, 1, 28, 28) and mnist.n_classes == 8  # labels 0-7 seen
    assert study.stand_in_label("mnist") == "MNIST"
    with pytest.raises(ValueError, match="data_dir"):
        study.suite_domain("cifar10")


# --------------------------------------------------------------------------- the suite notebooks' settings

def test_suite_specs_give_the_pool_and_the_two_layer_mixture_of_one_budget():
    pool, mix = study.suite_specs(pool_agents=24, mix_agents=2, mix_width=32, epochs=40, batch_size=0,
                                  learning_rate=0.03, p_step=0.1, seed=3, workers=2)
    assert pool == study.PoolSpec(agents=24, epochs=40, batch_size=0, learning_rate=0.03, seed=3, workers=2)
    assert mix == study.MixSpec(agents=2, depth=2, width=32, epochs=40, batch_size=0, learning_rate=0.03,
                                p_step=0.1, seed=3, workers=2)
    assert pool.depth == (1, 3) and pool.width == (1, 32)  # PoolSpec's architecture ranges are kept
    with pytest.raises(TypeError):
        study.suite_specs(24, 2, 32, 40, 0, 0.03, 0.1, 3, 2)  # keyword-only: no silent swaps


# --------------------------------------------------------------------------- what the figures quote

def _complexities(*intervals):
    """Stand-ins for Complexity results: (estimate, low, high) per domain."""
    return [SimpleNamespace(interval=Interval(e, lo, hi, 0.95), **_pools_of(e)) for e, lo, hi in intervals]


def _pools_of(size: float) -> dict:
    """Two pools of networks that all have ``size`` parameters: every pool's MCCP, and every bootstrap
    resample's, is ``size``, so the bootstrap interval is the point [size, size]."""
    pools = [[SimpleNamespace(size=size, accuracy=a) for a in (0.2, 0.5, 0.9)] for _ in range(2)]
    return {"pools": pools, "performances": [[a.accuracy for a in pool] for pool in pools], "rule": "neighbour"}


def test_mccp_estimates_gaps_and_relative_intervals():
    results = _complexities((100.0, 80.0, 120.0), (400.0, 300.0, 500.0))
    np.testing.assert_array_equal(claims.mccp_estimates(results), [100.0, 400.0])
    np.testing.assert_array_equal(claims.mccp_gaps([100.0, 400.0, 250.0]),
                                  [[0, 300, 150], [300, 0, 150], [150, 150, 0]])
    estimate, low, high = claims.relative_intervals(results)
    np.testing.assert_allclose(estimate, [0.25, 1.0])
    np.testing.assert_allclose(low, [0.2, 0.75])
    np.testing.assert_allclose(high, [0.3, 1.25])


def test_entropy_prediction_ranks_and_counts_entropies_inside_the_interval():
    results = _complexities((100.0, 80.0, 120.0), (400.0, 300.0, 500.0), (200.0, 150.0, 250.0))
    # the bootstrap intervals of pools of equal networks are points: 0.25, 1.0, 0.5 of the largest;
    # entropy ÷ max = (0.1, 1.0, 0.5): outside, inside, inside
    summary = claims.entropy_prediction(["a", "b", "c"], results, np.array([1.0, 10.0, 5.0]))
    assert {k: summary[k] for k in ("ranking_by_mccp", "most_complex", "least_complex", "most_complex_paper",
                                    "least_complex_paper", "entropy_inside_interval",
                                    "entropy_all_inside_interval")} == {
        "ranking_by_mccp": ["a", "c", "b"], "most_complex": "b", "least_complex": "a", "most_complex_paper": "b",
        "least_complex_paper": "a", "entropy_inside_interval": 2, "entropy_all_inside_interval": False}
    # a perfect ranking of three: 2 of the 6 pairings reach |ρ| = 1 (exact p)
    assert summary["spearman_mccp_entropy"] == pytest.approx(1.0)
    assert summary["spearman_mccp_entropy_p"] == pytest.approx(1 / 3)
    assert {k: pytest.approx(v) for k, v in summary["mccp_intervals_paper"].items()} == {
        "a": [100.0, 100.0], "b": [400.0, 400.0], "c": [200.0, 200.0]}
    assert summary["normalised"]["entropy"] == pytest.approx([0.1, 1.0, 0.5])
    named = claims.entropy_prediction(["cartpole", "shapes100"], results[:2], np.array([0.25, 1.0]))
    assert (named["least_complex_paper"], named["most_complex_paper"]) == ("CartPole", "CIFAR100")
    assert named["entropy_all_inside_interval"] is True
    assert named["mccp_paper"] == {"CartPole": 100.0, "CIFAR100": 400.0}
    # another baseline against the same intervals: entropy ÷ max = (1.0, 0.25, 0.75) ranks them backwards
    other = claims.entropy_prediction(["a", "b", "c"], results, np.array([1.0, 10.0, 5.0]),
                                      others={"backwards": np.array([4.0, 1.0, 3.0])})
    assert other["backwards"]["entropy_inside_interval"] == 0
    assert other["backwards"]["spearman_mccp_entropy"] == pytest.approx(-1.0)
    assert other["entropy_inside_interval"] == 2  # the judged baseline's fit is unchanged


def test_noise_summary_fits_the_quadratic_and_splits_the_entropy_gain():
    levels = [0.0, 0.5, 1.0, 1.5]
    results = _complexities(*[(1 + 2 * x + 3 * x * x, 0.0, 100.0) for x in levels])  # MCCP = 1 + 2x + 3x²
    summary = claims.noise_summary(levels, results, [10.0, 14.0, 15.0, 16.0])
    np.testing.assert_allclose(summary["quadratic"], [3.0, 2.0, 1.0], atol=1e-9)  # highest power first
    assert summary["entropy_gain_first_half"] == 5.0 and summary["entropy_gain_second_half"] == 1.0
    assert summary["spearman_noise_mccp"] == pytest.approx(1.0)
    assert summary["spearman_noise_entropy"] == pytest.approx(1.0)
    assert (summary["mccp_clean"], summary["mccp_noisiest"]) == (1.0, 1 + 3 + 3 * 2.25)
    two = claims.noise_summary([0.0, 1.0], results[:2], [1.0, 2.0])
    assert all(np.isnan(two["quadratic"]))


def test_duplication_summary_spread_overlap_and_ratios():
    same = _complexities((100.0, 90.0, 130.0), (100.0, 90.0, 130.0), (100.0, 90.0, 130.0))
    summary = claims.duplication_summary([1, 2, 4], same, [10.0, 20.0, 40.0])
    assert {k: summary[k] for k in ("mccp_relative_spread", "intervals_overlap", "overlap_text",
                                    "entropy_ratio_last_first", "copies_ratio_last_first",
                                    "entropy_per_copy_ratio")} == {
        "mccp_relative_spread": 0.0, "intervals_overlap": True, "overlap_text": "overlap",
        "entropy_ratio_last_first": 4.0, "copies_ratio_last_first": 4.0, "entropy_per_copy_ratio": 1.0}
    assert summary["widest_relative_half_width"] == pytest.approx(0.0, abs=1e-12)
    assert summary["mccp_intervals"] == {k: pytest.approx([100.0, 100.0]) for k in ("1", "2", "4")}
    apart = claims.duplication_summary([1, 2], _complexities((100.0, 90.0, 105.0), (120.0, 110.0, 130.0)), [1.0, 2.0])
    assert apart["intervals_overlap"] is False and apart["overlap_text"] == "do not all overlap"
    assert apart["mccp_relative_spread"] == pytest.approx(20 / 110)
    assert apart["mccp_relative_spread_interval"] == pytest.approx([20 / 110, 20 / 110])


def test_stepwise_correlations():
    # MCCP 1, 2, 4, 7: changes 1, 2, 3 equal the stepwise DS exactly; levels 2, 4, 7 nearly so
    level, change = claims.stepwise_correlations([1.0, 2.0, 4.0, 7.0], np.array([1.0, 2.0, 3.0]))
    assert change == pytest.approx(1.0)
    assert level == pytest.approx(np.corrcoef([2, 4, 7], [1, 2, 3])[0, 1])
    assert all(np.isnan(claims.stepwise_correlations([1.0, 2.0, 4.0], np.array([1.0, 2.0]))))


@pytest.mark.filterwarnings("ignore:An input array is constant")  # two settings: one distance, R undefined
def test_setting_dissimilarity_summary_of_a_matrix_that_follows_the_settings():
    settings = [0.0, 40.0, 80.0]
    matrix = np.abs(np.subtract.outer(settings, settings)) / 400 + np.diag([0.01, 0.02, 0.03])
    summary = claims.setting_dissimilarity_summary(settings, matrix)
    assert summary["r"] == pytest.approx(1.0) and summary["symmetry_r"] == pytest.approx(1.0)
    assert summary["r_interval"][1] == pytest.approx(1.0) and summary["symmetry_r_interval"][1] <= 1.0 + 1e-12
    assert summary["asymmetry_mean"] == 0.0 and summary["diagonal_mean"] == pytest.approx(0.02)
    assert summary["off_diagonal_mean"] == pytest.approx((0.1 + 0.2 + 0.1) * 2 / 6)
    assert np.isnan(claims.setting_dissimilarity_summary([0.0, 1.0], np.array([[0, 1], [2, 0.0]]))["symmetry_r"])


def test_dissimilarity_structure_and_matrix_cosine():
    assert claims.matrix_cosine(np.eye(2), 3 * np.eye(2)) == pytest.approx(1.0)
    assert claims.matrix_cosine(np.eye(2), np.ones((2, 2)) - np.eye(2)) == 0.0
    ds = np.array([[0.1, 0.2, 0.4], [0.4, 0.1, 0.6], [0.6, 0.8, 0.1]])
    gaps = claims.mccp_gaps([1.0, 2.0, 3.0])
    structure = claims.dissimilarity_structure(ds, gaps)
    assert structure["diagonal_mean"] == pytest.approx(0.1)
    assert structure["off_diagonal_mean"] == pytest.approx(3.0 / 6)
    assert structure["asymmetry_mean"] == pytest.approx((0.2 + 0.2 + 0.2) * 2 / 6 / 2)
    assert structure["dot_product_similarity"] == pytest.approx(claims.matrix_cosine(ds, gaps))
    assert structure["pearson_ds_vs_mccp_gap"] == pytest.approx(
        np.corrcoef([0.2, 0.4, 0.4, 0.6, 0.6, 0.8], [1, 2, 1, 1, 2, 1])[0, 1])


def test_space_dimensions_count_the_positive_and_the_large_eigenvalues():
    embedding = Embedding(np.zeros((3, 2)), np.array([6.0, 1.0, 0.5, -2.5]), 0.25, 0.01)
    dims = study.space_dimensions(embedding)
    # shares of |λ| sum 10: 0.6, 0.1 (not over 10 %), 0.05
    assert dims == {"eigenvalues": [6.0, 1.0, 0.5, -2.5], "dimensions": 3, "dimensions_over_10_percent": 1,
                    "non_euclidean_share": 0.25, "stress": 0.01}


def test_suite_summary_of_a_known_space():
    names, mccps = ["a", "b", "c"], [100.0, 400.0, 800.0]
    ds = np.array([[0.0, 0.2, 0.3], [0.22, 0.0, 0.25], [0.28, 0.26, 0.0]])
    space = study.intelligence_space(names, mccps, ds)
    results = _complexities(*[(m, m - 10, m + 10) for m in mccps])
    for r in results:
        r.summary = lambda r=r: {"mccp": r.interval.estimate}
    suite = study.Suite(names, [], results, ds, space)
    summary = claims.suite_summary(suite, "max", None, 0.9)
    assert summary["mccp"] == {"a": {"mccp": 100.0}, "b": {"mccp": 400.0}, "c": {"mccp": 800.0}}
    assert summary["simplest"] == "a" and summary["simplest_complexity_normalised"] == pytest.approx(0.125)
    assert summary["complexity_normalised"] == pytest.approx([0.125, 0.5, 1.0])
    assert summary["dot_product_gap"] == pytest.approx(summary["dot_product_similarity"] - 0.9)
    assert summary["other_scale"] == "log"
    log_space = study.intelligence_space(names, mccps, ds, "log")
    assert summary["other_scale_stress"] == log_space.embedding.stress
    assert summary["points"]["c"] == pytest.approx(space.points[2].tolist())
    assert summary["dissimilarity"] == ds.tolist() and summary["diagonal_mean"] == 0.0


def test_space_volume_and_the_share_of_it():
    space = study.intelligence_space(["a", "b", "c"], [100.0, 400.0, 800.0],
                                     np.array([[0.0, 0.2, 0.3], [0.22, 0.0, 0.25], [0.28, 0.26, 0.0]]))
    assert space.volume(2) == space.aiq(np.ones(3), 2) > 0
    assert study.volume_share(1.0, 4.0) == 0.25 and study.volume_share(1.0, 0.0) == 0.0


def test_handicap_aiq_and_summary_by_hand():
    # a stand-in space whose AIQ is the product of the accuracies (top_k ignored)
    space = SimpleNamespace(aiq=lambda accuracy, top_k: float(np.prod(accuracy)))
    accuracy = np.array([[[0.5, 0.5], [1.0, 0.5]],      # depth 1, widths 2 and 4
                         [[0.8, 1.0], [1.0, 1.0]]])     # depth 2
    score = study.handicap_aiq(space, accuracy, 3)
    np.testing.assert_allclose(score, [[0.25, 0.5], [0.8, 1.0]])
    summary = claims.handicap_summary(["x", "y"], [1, 2], [2, 4], accuracy, score, full_volume=2.0)
    assert summary["best_network"] == {"depth": 2, "width": 4}
    assert summary["best_network_accuracy"] == {"x": 1.0, "y": 1.0}
    assert summary["best_aiq"] == 1.0 and summary["best_aiq_share"] == 0.5 and summary["suite_volume"] == 2.0
    assert summary["mean_performance"] == {"1": [0.5, 0.75], "2": [0.9, 1.0]}
    assert summary["aiq"] == {"1": [0.25, 0.5], "2": [0.8, 1.0]}
    assert summary["accuracy"]["1"] == {"x": [0.5, 1.0], "y": [0.5, 0.5]}
    assert summary["average_over_widths"]["1"] == {"mean_performance": 0.625, "aiq_share": pytest.approx(0.1875)}
    assert summary["depth_order_by_mean_performance"] == summary["depth_order_by_aiq"] == "2 > 1"
    assert summary["spearman_aiq_vs_mean"] == pytest.approx(1.0)
    assert claims.depth_order([1, 2, 3], np.array([0.2, 0.5, 0.1])) == "2 > 1 > 3"
    assert claims.handicap_summary(["x", "y"], [1, 2], [2, 4], accuracy, score, 0.0)["best_aiq_share"] == 0.0


def test_share_below_diagonal_and_first_classes():
    mixing = study.Mixing("a", "b", np.array([0.0, 0.5, 1.0]), np.array([0.8, 0.5, 0.6]), np.zeros((3, 1)), "shared")
    assert mixing.share_below_diagonal == pytest.approx(1 / 3)  # only p = 0.5 lies below the line (0.7)
    blobs = _separable()
    assert study.first_classes(blobs, 2) is blobs
    one = study.first_classes(blobs, 1)
    assert set(one.y_train) == {0} and one.n_classes == 1
