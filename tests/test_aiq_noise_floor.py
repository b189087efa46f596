"""Known answers for the dissimilarity noise floor (intellimetry.aiq.noise_floor): binomial sampling
noise falls as (n m)^-1/2, noise the networks share does not fall with m, a deterministic learner
has no floor, the variance model inverts, and bad inputs are named."""
from __future__ import annotations

import math

import numpy as np
import pytest

from intellimetry.aiq import noise_floor as nf
from intellimetry.aiq import study
from intellimetry.aiq.domains import Domain

P_GRID = np.linspace(0, 1, 11)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(study, "POOL_CACHE", tmp_path / "pools")


def _binomial(sizes, agents, accuracy=0.7, seed=0):
    """Each network's accuracy at each p: its own Binomial(n, accuracy) / n test score."""
    rng = np.random.default_rng(seed)
    return lambda i, r: rng.binomial(sizes[i], accuracy, size=(len(P_GRID), agents)) / sizes[i]


def test_binomial_noise_falls_as_one_over_root_n_and_root_m():
    sizes, agents = [100, 400, 1600, 6400], [1, 4, 16]
    floor = nf.noise_floor(_binomial(sizes, 16), sizes, agents, repeats=30, p_grid=P_GRID)
    slopes = floor.slopes()
    assert slopes["test_size"] == pytest.approx(-0.5, abs=0.06)
    assert slopes["agents"] == pytest.approx(-0.5, abs=0.06)
    model = floor.model()  # independent per-network noise: most of it in the 1/(n m) term
    n, m = np.meshgrid(sizes, agents, indexing="ij")
    own = model.own_test / (n * m)
    assert (own > 0.75 * model.floor(n, m) ** 2).all()


def test_noise_the_networks_share_does_not_fall_with_more_networks():
    rng = np.random.default_rng(1)
    sizes = [100, 400]

    def shared(i, r):  # one test draw per p, the same for every network
        column = rng.binomial(sizes[i], 0.7, size=(len(P_GRID), 1)) / sizes[i]
        return np.repeat(column, 8, axis=1)

    floor = nf.noise_floor(shared, sizes, [1, 2, 8], repeats=3, p_grid=P_GRID)
    assert np.array_equal(floor.values[:, 0], floor.values[:, 2])
    assert floor.slopes()["agents"] == pytest.approx(0.0, abs=1e-12)


def test_a_deterministic_learner_has_no_floor():
    floor = nf.noise_floor(lambda i, r: np.full((len(P_GRID), 4), 0.9), [50, 100], [1, 4], repeats=2,
                           p_grid=P_GRID)
    assert (floor.values == 0).all()
    assert math.isnan(floor.slopes()["test_size"])
    summary = floor.summary(1.7e-4)
    assert summary["lowest_floor"] == 0 and summary["model"]["training"] == 0
    assert summary["agents_for_target"] == 0 and summary["cells"]["n100_m4"]["high"] == 0


def test_variance_model_floor_and_its_inverses():
    model = nf.FloorModel(shared_test=1e-2, training=1e-3, own_test=0.0)
    assert model.floor(100, 10) == pytest.approx(math.sqrt(2e-4))
    assert model.test_size_for(math.sqrt(2e-4), 10) == pytest.approx(100)
    assert model.agents_for(math.sqrt(2e-4), 100) == pytest.approx(10)
    assert model.test_size_for(1e-3, 10) == math.inf  # 1e-3 / 10 networks alone is above 1e-6
    assert model.agents_for(1e-3, 100) == math.inf


def test_summary_records_an_unreachable_target_as_none():
    sizes = [100, 400]
    floor = nf.noise_floor(lambda i, r: np.random.default_rng(r).normal(0.5, 0.05, (11, 2)), sizes, [1, 2], 2, P_GRID)
    summary = floor.summary(1e-9)
    assert summary["test_size_for_target"] is None or summary["test_size_for_target"] > 1e6
    assert set(summary["cells"]) == {"n100_m1", "n100_m2", "n400_m1", "n400_m2"}


@pytest.mark.parametrize("kwargs, message", [
    ({"test_sizes": [400, 100]}, "test_sizes must be distinct"),
    ({"agent_counts": [0, 2]}, "agent_counts\\[0\\] must be an integer >= 1"),
    ({"repeats": 1}, "repeats must be an integer >= 2"),
])
def test_grid_inputs_are_validated(kwargs, message):
    args = {"test_sizes": [100, 400], "agent_counts": [1, 2], "repeats": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        nf.noise_floor(lambda i, r: np.zeros((11, 2)), p_grid=P_GRID, **args)


def test_a_performance_array_of_the_wrong_shape_is_named():
    with pytest.raises(ValueError, match="performances must return an array"):
        nf.noise_floor(lambda i, r: np.zeros((11, 1)), [100], [1, 2], 2, P_GRID)


def test_sized_domain_sets_generated_sizes_and_keeps_the_default():
    assert nf.sized_domain("shapes10", 0, 0).fingerprint() == study.suite_domain("shapes10", 0).fingerprint()
    assert len(nf.sized_domain("shapes10", 0, 400).y_test) == 100
    with pytest.raises(ValueError, match="only generated domains.*shapes10, shapes100"):
        nf.sized_domain("digits", 0, 500)


def _separable(n):
    """Two far-apart Gaussian blobs: every network solves them at every p."""
    rng = np.random.default_rng(n)
    y = rng.integers(0, 2, n)
    x = rng.normal(0, 0.3, (n, 2)) + np.where(y[:, None] == 1, 3.0, -3.0)
    cut = 3 * n // 4
    return Domain(f"blobs{n}", x[:cut], y[:cut], x[cut:], y[cut:], 2, "test blobs")


def test_a_domain_every_network_solves_has_a_zero_floor():
    spec = study.MixSpec(agents=2, depth=1, width=8, epochs=60, learning_rate=0.1, p_step=0.5)
    floor = nf.self_dissimilarity_floor([_separable(80), _separable(160)], [1, 2], spec, repeats=2, progress=False)
    assert floor.test_sizes.tolist() == [20, 40]
    assert (floor.values == 0).all()
