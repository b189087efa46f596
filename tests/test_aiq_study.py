"""Known answers for the AIQ study functions (pools -> MCCP, mixtures -> DS, the space)."""
from __future__ import annotations

import numpy as np
import pytest

from intellimetry.aiq import study
from intellimetry.aiq.domains import Domain


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
