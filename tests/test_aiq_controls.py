"""The AIQ claims' null subjects and intervals (intellimetry.aiq.controls, the untrained flags of the
measurements), and that each kind of control fails its claim's criterion on a known case (issue 32)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from intellimetry import verdicts
from intellimetry.aiq import claims, controls, paper_values, study
from intellimetry.aiq.domains import Domain
from intellimetry.aiq.policy_search import CartPole2DTask, CEMBudget, random_policy_pool
from intellimetry.aiq.pools import Architecture, agent_seed, untrained_agent, untrained_pool
from intellimetry.criteria import FAILS, HOLDS, judge


def _item(item_id: str) -> dict:
    return next(i for i in verdicts.load_items("aiq")["items"] if i["id"] == item_id)


def _control_state(item_id: str, values: dict) -> str:
    item = _item(item_id)
    return judge(item["criterion"], verdicts.value_at(values, item["control"]["values"]))[0]


def _pool(sizes, accuracies):
    return [SimpleNamespace(size=s, accuracy=a) for s, a in zip(sizes, accuracies)]


def _complexity(sizes_by_pool, performances_by_pool, name="d"):
    pools = [_pool(s, v) for s, v in zip(sizes_by_pool, performances_by_pool)]
    return study.complexity_of(name, pools, [list(v) for v in performances_by_pool])


# --------------------------------------------------------------------------- shuffles

def test_permutations_always_move_something_and_derangements_everything():
    for seed in range(20):
        order = controls.permutation(3, seed)
        assert sorted(order) == [0, 1, 2] and (order != np.arange(3)).any()
        moved = controls.permutation(4, seed, fixed_points=False)
        assert sorted(moved) == [0, 1, 2, 3] and (moved != np.arange(4)).all()
    assert controls.permutation(2, 0).tolist() == [1, 0]
    with pytest.raises(ValueError):
        controls.permutation(1)


def test_shuffles_keep_the_values_and_break_their_places():
    values = np.arange(10.0)
    assert sorted(controls.shuffled(values, 1)) == values.tolist()
    matrix = np.arange(16.0).reshape(4, 4)
    mixed = controls.shuffled_off_diagonal(matrix, 2)
    off = ~np.eye(4, dtype=bool)
    assert np.array_equal(np.diag(mixed), np.diag(matrix)) and sorted(mixed[off]) == sorted(matrix[off])
    relabelled = controls.relabelled_columns(matrix, 3)
    assert sorted(map(tuple, relabelled.T)) == sorted(map(tuple, matrix.T))
    assert not np.any(np.diag(relabelled) == np.diag(matrix))  # no column left in place


def test_a_shuffled_pairing_keeps_the_pool_and_drops_the_size_accuracy_relation():
    pool = _pool(np.arange(1, 25) * 10, np.linspace(0.05, 0.95, 24))  # size grows with accuracy
    curve = controls.shuffled_pairing_curve(pool, seed=0)
    assert set(curve.sizes[curve.source == "observed"]) <= {a.size for a in pool}
    values = claims.mccp_curve_claims(pool, seed=0)
    assert values["size_trend"]["rho"] == pytest.approx(1.0) and values["size_trend"]["p"] < 0.05
    assert (values["smallest_size"], values["largest_size"]) == (10, 240)
    # the kind "shuffled pairing" fails Fig. 2's criterion where the pool itself holds it
    assert judge(_item("fig02")["criterion"], values)[0] == HOLDS
    assert _control_state("fig02", values) != HOLDS


# --------------------------------------------------------------------------- intervals

def test_an_mccp_bootstrap_of_identical_networks_is_a_point():
    same = _complexity([[50] * 6, [50] * 6], [np.linspace(0.1, 0.9, 6)] * 2)
    interval = controls.mccp_intervals([same])[0]
    assert interval.estimate == pytest.approx(50.0) and interval.low == pytest.approx(50.0)
    assert interval.high == pytest.approx(50.0)


def test_an_mccp_bootstrap_holds_the_estimate_and_pairs_the_settings():
    rng = np.random.default_rng(0)
    sizes = [rng.integers(10, 1000, 12) for _ in range(2)]
    performances = [rng.random(12) for _ in range(2)]
    first = _complexity(sizes, performances)
    doubled = _complexity([2 * s for s in sizes], performances)
    interval = controls.mccp_intervals([first])[0]
    assert interval.low <= interval.estimate <= interval.high and interval.low < interval.high
    assert interval.estimate == pytest.approx(first.interval.estimate)
    # the same draw for every setting: the ratio of two MCCPs whose networks are twice as large is exactly 2
    ratio = controls.mccp_bootstrap([first, doubled], lambda m: m[1] / m[0])
    assert (ratio.low, ratio.high) == (pytest.approx(2.0), pytest.approx(2.0))
    with pytest.raises(ValueError, match="same number of pools"):
        controls.mccp_bootstrap([first, _complexity([s[:11] for s in sizes], [v[:11] for v in performances])],
                                lambda m: m[0])


def test_correlation_intervals():
    x = np.arange(12.0)
    perfect = controls.correlation_interval(x, 3 * x + 1)
    assert (perfect.estimate, perfect.low, perfect.high) == (pytest.approx(1.0),) * 3
    noisy = controls.correlation_interval(x, np.random.default_rng(1).random(12))
    assert noisy.low < noisy.estimate < noisy.high and noisy.high - noisy.low > 0.5
    assert np.isnan(controls.correlation([1, 2], [3, 4])) and np.isnan(controls.correlation([1, 2, 3], [5, 5, 5]))
    assert controls.correlation([1, 2, 3], [1, 3, 2], "spearman") == pytest.approx(0.5)


# --------------------------------------------------------------------------- untrained networks and random policies

def _separable(n=120, seed=0) -> Domain:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x = (rng.normal(size=(n, 4)) + 3 * y[:, None]).astype(np.float32)
    return Domain("blobs", x[:80], y[:80], x[80:], y[80:].astype(np.int64), 2, "two separable blobs")


def test_an_untrained_agent_is_the_trained_agents_starting_point():
    data, architecture = _separable(), Architecture("mlp", 1, 8)
    result = untrained_agent(data, architecture, seed=7)
    torch.manual_seed(7)
    model = architecture.build((4,), 2).eval()
    with torch.no_grad():
        expected = float((model(torch.from_numpy(np.array(data.x_test))).argmax(1).numpy() == data.y_test).mean())
    assert result.accuracy == pytest.approx(expected) and result.size == architecture.parameters((4,), 2)
    pool = untrained_pool(data, [architecture] * 3, seed=5)
    assert [a.seed for a in pool] == [agent_seed(5, i) for i in range(3)]


def test_untrained_pools_score_near_chance_where_trained_ones_learn():
    data = _separable(400)
    spec = study.PoolSpec(agents=6, depth=(1, 2), width=(2, 8), epochs=60, learning_rate=0.1)
    trained = study.complexity(data, spec, repeats=2, progress=False)
    null = study.complexity(data, spec, repeats=2, untrained=True)
    assert min(a.accuracy for pool in trained.pools for a in pool) > 0.9
    assert np.mean([a.accuracy for pool in null.pools for a in pool]) < 0.8
    assert [a.architecture for a in null.pools[0]] == [a.architecture for a in trained.pools[0]]


def test_random_policies_are_seeded_draws_that_do_not_balance():
    task, budget = CartPole2DTask(), CEMBudget(2, 4, 1, final_episodes=5)
    architectures = [Architecture("mlp", 1, 4)] * 3
    first = random_policy_pool(task, architectures, budget, seed=1)
    assert [a.control for a in first] == [a.control for a in random_policy_pool(task, architectures, budget, seed=1)]
    assert all(0 < a.control < 0.5 and a.control == a.accuracy for a in first)


# --------------------------------------------------------------------------- each kind of control on a known case

def test_a_shuffled_order_fails_a_trend_that_the_ordered_values_hold():
    sizes = list(range(1, 11))
    values = claims.subset_dissimilarity_summary(sizes, np.linspace(0.5, 0.05, 10), seed=0)
    assert judge(_item("fig13")["criterion"], values)[0] == HOLDS
    assert _control_state("fig13", values) != HOLDS
    steps = claims.stepwise_claims(np.arange(1.0, 11.0) ** 2, np.arange(1.0, 10.0) + 0.01 * np.sin(np.arange(9)),
                                   paper_r=0.9, seed=0)
    assert judge(_item("fig15")["criterion"], steps)[0] == HOLDS
    assert _control_state("fig15", steps) != HOLDS


def test_shuffled_settings_fail_a_dissimilarity_that_follows_the_gravity_difference():
    gravities = np.array([0.0, 40.0, 80.0, 120.0, 160.0, 200.0])
    noise = np.random.default_rng(0).normal(0, 0.002, (6, 6))
    matrix = np.abs(gravities[:, None] - gravities[None, :]) / 1000 + noise + noise.T
    values = claims.gravity_dissimilarity_claims(gravities, matrix, paper_r=0.7, seed=0)
    assert judge(_item("fig14")["criterion"], values)[0] == HOLDS
    assert _control_state("fig14", values) == FAILS
    assert values["control"]["symmetry_r"] == pytest.approx(values["symmetry_r"])  # the relabelling keeps the mirror


def test_relabelled_columns_fail_a_matrix_with_each_domain_closest_to_itself():
    names = ["digits", "digits-hard", "shapes10", "shapes100"]
    ds = np.array([[0.01, 0.05, 0.30, 0.40], [0.06, 0.02, 0.20, 0.35], [0.25, 0.22, 0.03, 0.10],
                   [0.30, 0.33, 0.12, 0.04]])
    values = {**claims.group_structure(ds, names),
              "control_relabelled": claims.group_structure(controls.relabelled_columns(ds, 0), names)}
    assert judge(_item("fig17")["criterion"], values)[0] == HOLDS
    assert _control_state("fig17", values) == FAILS


def test_a_self_pair_fails_a_dissimilarity_of_two_different_domains():
    def summary(performance):
        curve = study.Mixing("a", "b", np.linspace(0, 1, 11), np.asarray(performance), np.zeros((11, 1)), "shared")
        return claims.mixing_summary(curve, paper=0.018)
    dip = 0.9 - 0.04 * np.sin(np.linspace(0, np.pi, 11))  # two domains interfering: below the diagonal
    values = {**summary(dip), "control": summary(np.full(11, 0.9))}  # a domain with itself: flat
    assert judge(_item("fig12")["criterion"], values)[0] == HOLDS
    assert _control_state("fig12", values) == FAILS


def test_untrained_networks_fail_the_handicapping_claims():
    widths, depths = [1, 2, 3, 4, 6, 8, 10, 12, 14], [1, 2]
    mean = np.array([[0.1 + 0.8 * (1 - np.exp(-w / 4)) for w in widths]] * 2)  # trained: rises, saturates
    score = np.array([[0.02 * w for w in widths]] * 2)                           # AIQ: a straight line
    values = claims.handicap_claims(depths, widths, mean, score, zoom_width=14)
    chance = np.full((2, len(widths)), 0.1) + np.random.default_rng(0).normal(0, 0.01, (2, len(widths)))
    values["control"] = claims.handicap_claims(depths, widths, chance, chance ** 3, zoom_width=14)
    assert judge(_item("fig21")["criterion"], values)[0] == HOLDS
    assert _control_state("fig21", values) != HOLDS
    assert _control_state("fig20", values) == FAILS


def test_untrained_pools_fail_a_rising_complexity():
    counts = [10, 20, 30, 40, 50]
    rising = [_complexity([[m] * 4] * 2, [[0.2, 0.4, 0.6, 0.8]] * 2) for m in (100, 200, 250, 270, 280)]
    flat = [_complexity([[100] * 4] * 2, [[0.1, 0.1, 0.1, 0.1]] * 2) for _ in counts]
    values = {**claims.class_count_summary(counts, rising), "control": claims.class_count_summary(counts, flat)}
    assert judge(_item("fig06")["criterion"], values)[0] == HOLDS
    assert _control_state("fig06", values) != HOLDS


# --------------------------------------------------------------------------- the paper's own numbers

@pytest.mark.parametrize("item_id", ["fig11", "fig12", "fig14", "fig15", "fig18"])
def test_the_papers_own_numbers_pass_their_criteria(item_id):
    item = _item(item_id)
    module, function = item["paper_values"].split(":")
    assert module == "intellimetry.aiq.paper_values"
    assert judge(item["criterion"], getattr(paper_values, function)())[0] == HOLDS


# --------------------------------------------------------------------------- the sweeps and the smaller summaries

def test_sweeps_give_one_measurement_per_setting():
    from intellimetry.aiq import sweeps

    blobs = _separable(200)
    assert [d.n_classes for d in sweeps.class_subsets(blobs, [1, 2])] == [1, 2]
    nested = sweeps.nested_subsets(blobs, [1, 2])
    assert nested[1] is blobs and nested[0].n_classes == 1
    assert [len(d.y_train) for d in sweeps.duplicated_domains(blobs, [1, 3])] == [80, 240]
    noisy = sweeps.noisy_domains(blobs, [0.0, 0.5], seed=0)
    assert np.array_equal(noisy[0].x_train, blobs.x_train) and not np.array_equal(noisy[1].x_train, blobs.x_train)
    pool = _pool([10, 20, 40], [0.2, 0.5, 0.9])
    assert sweeps.pool_curve(pool).sizes[-1] >= 40 and sweeps.pool_curve(pool).area > 0
    with pytest.raises(ValueError, match="unknown setting"):
        sweeps.cartpole_teachers([1.0], "mass", 10.0, 9.8)


def test_random_policy_baselines_and_sweeps_of_random_policies():
    from intellimetry.aiq import sweeps

    policy = sweeps.RandomPolicy(3)
    assert repr(policy) == "RandomPolicy(seed=3)" and {policy(None) for _ in range(50)} == {0, 1}
    entropies = sweeps.random_policy_entropies([9.8, 20.0], "gravity", 10.0, 9.8, seed=0, episodes=4)
    assert len(entropies) == 2 and all(0 < e <= 4 * np.log2(sweeps.ENTROPY_BINS) for e in entropies)
    spec, budget = study.PoolSpec(agents=3, width=(1, 4)), CEMBudget(2, 4, 1, final_episodes=3)
    null = sweeps.cartpole_sweep([5.0, 15.0], "force", 10.0, 9.8, spec, "rl", budget, 2, "neighbour", untrained=True)
    assert [c.name for c in null] == [CartPole2DTask(5.0).name, CartPole2DTask(15.0).name]
    assert all(a.control < 0.5 for c in null for pool in c.pools for a in pool)


def test_small_claim_statistics_by_hand():
    assert claims.relative_spread([100.0, 120.0, 110.0]) == pytest.approx(20 / 110)
    assert claims.slope_difference([0, 1, 2, 3, 4])(np.array([0.0, 1.0, 2.0, 2.2, 2.5])) == pytest.approx(0.75)
    widths = np.array([1.0, 2.0, 3.0, 4.0])
    straight, bent = np.array([[1.0, 2.0, 3.0, 4.0]]), np.array([[1.0, 4.0, 9.0, 16.0]])
    assert claims.zoom_r2_gap(widths, bent, straight) == pytest.approx(1 - np.corrcoef(widths, bent[0])[0, 1] ** 2)
    space = SimpleNamespace(volume=lambda top_k: 2.0, aiq=lambda accuracy, top_k: float(np.prod(accuracy)))
    hull = claims.agent_hull(["a", "b"], space, [0.5, 0.8])
    assert hull == {"agent_accuracy": {"a": 0.5, "b": 0.8}, "agent_mean_performance": pytest.approx(0.65),
                    "suite_volume": 2.0, "agent_aiq": pytest.approx(0.4), "agent_share": pytest.approx(0.2)}


def test_the_suite_controls_are_the_suite_measured_on_null_subjects():
    names, mccps = ["digits", "digits-hard", "shapes10"], [100.0, 400.0, 800.0]
    ds = np.array([[0.01, 0.05, 0.30], [0.06, 0.02, 0.20], [0.25, 0.22, 0.03]])
    complexities = [_complexity([[m] * 4] * 2, [[0.2, 0.4, 0.6, 0.8]] * 2) for m in mccps]
    suite = study.Suite(names, [], complexities, ds, study.intelligence_space(names, mccps, ds))
    untrained = [_complexity([[m] * 4] * 2, [[0.1] * 4] * 2) for m in (50.0, 50.0, 60.0)]
    out = claims.suite_controls(suite, "max", None, untrained, seed=0)
    assert out["control_relabelled"]["self_lowest"] is False  # the columns moved: no domain on its own diagonal
    assert out["control_untrained"]["mccp_paper"] == {"MNIST": 50.0, "Fashion-MNIST": 50.0, "CIFAR10": 60.0}
    assert set(out["control_shuffled"]) == {"pearson_ds_vs_mccp_gap", "pearson_ds_vs_mccp_gap_interval",
                                            "dimensions_over_10_percent"}
    assert "control_untrained" not in claims.suite_controls(suite, "max", None)
