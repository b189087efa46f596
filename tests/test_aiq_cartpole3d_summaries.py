"""What the CartPole3D figures record for their verdicts, on hand-made measurements with known answers:
the intervals, the noise floor, and each figure's null, which must fail the item's own criterion
(from data/reference/aiq/items.yaml) where the planted result passes it."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from intellimetry import verdicts
from intellimetry.aiq.cartpole3d.summaries import (
    apti_array,
    apti_summary,
    as_text,
    complexity_summary,
    dissimilarity_summary,
    handicap_group_summary,
    member_mccps,
    noise_floor,
    pair_margins,
    resampled_intervals,
    reversal_margins,
    shuffle_novelties,
    space_summary,
)
from intellimetry.aiq.controls import shuffled_off_diagonal
from intellimetry.aiq.study import intelligence_space

NOVELTIES = list(range(1, 17))


@pytest.fixture(scope="module")
def items():
    return {item["id"]: item for item in verdicts.load_items("aiq")["items"]}


def test_as_text_prints_no_python_list():
    assert as_text([16, 4, 15]) == "16, 4, 15" and as_text([]) == ""


def test_resampled_intervals_measure_each_multiset_once_and_share_the_resamples():
    calls = []

    def measure(units):
        calls.append(tuple(units))
        return np.array([10.0, 20.0])[units].mean()

    out = resampled_intervals(2, measure, {"mean": lambda m: m, "twice": lambda m: 2 * m}, seed=0, resamples=200)
    assert len(calls) == len(set(calls)) <= 3  # {0, 0}, {0, 1}, {1, 1}
    assert out["mean"] == [10.0, 20.0] and out["twice"] == [20.0, 40.0]
    constant = resampled_intervals(5, lambda units: 7.0, {"c": lambda m: m}, seed=1, resamples=50)
    assert constant["c"] == [7.0, 7.0]


def test_noise_floor_is_the_rise_above_a_novelty_with_itself():
    ds = np.full((4, 4), 0.3)
    np.fill_diagonal(ds, 0.1)
    out = noise_floor(ds)
    assert out["excess_over_self"] == pytest.approx(0.2) and out["tests_with_self_cell"] == 4
    assert out["excess_over_self_interval"] == pytest.approx([0.2, 0.2])
    assert out["self_dissimilarity"] == pytest.approx(0.1)
    flat = np.full((4, 4), 0.3) + np.diag([0.05, -0.05, 0.02, -0.02])  # itself as far as the others
    low, high = noise_floor(flat)["excess_over_self_interval"]
    assert low < 0 < high
    one = np.full((4, 4), np.nan)
    one[0] = one[:, 0] = 0.3
    assert noise_floor(one)["excess_over_self_interval"] == [-1.0, 1.0]  # one diagonal cell: nothing known


def _pair_matrix(n=6, pair=(1, 2)):
    """DS 0.1 off the diagonal, 0.5 between the pair and the rest, 0.05 within the pair, 0 on the diagonal."""
    ds = np.full((n, n), 0.1)
    a, b = pair
    for i in pair:
        ds[i, :] = ds[:, i] = 0.5
    ds[a, b] = ds[b, a] = 0.05
    np.fill_diagonal(ds, 0.0)
    return ds


def test_pair_margins_by_hand():
    ds = _pair_matrix()
    rows, cols = np.nonzero(~np.eye(6, dtype=bool))
    out = pair_margins(6, rows, cols, ds[rows, cols], [1, 2])
    # the pair's mean DS: (8 x 0.5 + 2 x 0.05) / 10 = 0.41; another's: (4 x 0.5 + 6 x 0.1) / 10 = 0.26
    assert out["top_two"] == pytest.approx(0.15) and out["one_in_top_two"] == pytest.approx(0.15)
    assert out["similar"] == pytest.approx(0.45)  # 0.5 to the rest, 0.05 to each other
    out = pair_margins(6, rows, cols, ds[rows, cols], [0, 3])  # two ordinary tests: below the pair
    # each to the rest: (4 x 0.5 + 4 x 0.1) / 8 = 0.3, to each other 0.1
    assert out["top_two"] == pytest.approx(0.26 - 0.41) and out["similar"] == pytest.approx(0.2)


def test_shuffled_cells_keep_the_values_the_diagonal_and_the_blanks():
    ds = _pair_matrix()
    ds[4, 5] = np.nan
    out = shuffled_off_diagonal(ds, 0)
    assert np.array_equal(np.isnan(out), np.isnan(ds)) and np.array_equal(np.diag(out), np.diag(ds))
    assert sorted(out[np.isfinite(out)]) == sorted(ds[np.isfinite(ds)]) and not np.array_equal(out, ds, equal_nan=True)


def _planted_dissimilarity(noise=0.01):
    ds = _pair_matrix(16, (1, 2)) + np.random.default_rng(3).normal(0, noise, (16, 16))
    np.fill_diagonal(ds, np.abs(np.random.default_rng(4).normal(0, noise, 16)))
    return ds


def test_fig24_holds_for_a_planted_pair_and_fails_for_its_shuffled_cells(items):
    values = dissimilarity_summary(NOVELTIES, _planted_dissimilarity(), [2, 3], seed=0, resamples=300)
    assert set(values["most_dissimilar_two"]) == {2, 3} and values["paper_pair_similar"]
    assert values["excess_over_self_interval"][0] > 0
    record = verdicts.verdict(items["fig24"], values)
    assert record["verdict"] == verdicts.REPRODUCED, record
    assert record["control"]["outcome"] == verdicts.FAILS


def test_fig24_at_the_noise_floor_is_inconclusive_not_a_contradiction(items):
    ds = np.random.default_rng(5).uniform(0.02, 0.06, (16, 16))  # a novelty with itself as far as any pair
    values = dissimilarity_summary(NOVELTIES, ds, [2, 3], seed=0, resamples=300)
    record = verdicts.verdict(items["fig24"], values)
    assert record["verdict"] == verdicts.INCONCLUSIVE and "noise floor" in record["reason"]


def _complexities(named=(1, 8, 9), pools=2, members=6):
    """Pools of the same architectures for every novelty: the named novelties need bigger networks."""
    sizes = [10.0, 20.0, 40.0, 80.0, 160.0, 320.0][:members]
    easy, hard = np.linspace(0.2, 1.0, members), np.linspace(0.05, 0.5, members)
    out = []
    for n in NOVELTIES:
        perf = hard if n in named else easy
        pool = [[SimpleNamespace(size=s) for s in sizes] for _ in range(pools)]
        performances = [list(perf + 0.01 * r) for r in range(pools)]
        estimate = member_mccps([[np.array(sizes)] * pools], [[np.array(p) for p in performances]],
                                np.arange(members))[0]
        out.append(SimpleNamespace(pools=pool, performances=performances, interval=SimpleNamespace(estimate=estimate)))
    return out


def test_member_mccps_average_the_pools():
    c = _complexities(members=4)
    sizes = [[np.array([a.size for a in pool]) for pool in x.pools] for x in c[:2]]
    perf = [[np.array(p) for p in x.performances] for x in c[:2]]
    out = member_mccps(sizes, perf, np.arange(4))
    assert out[0] == pytest.approx(c[0].interval.estimate) and out[0] > out[1]  # novelty 1 is named (hard)


def test_fig23_holds_for_planted_complexities_and_fails_for_shuffled_labels(items):
    values = complexity_summary(NOVELTIES, _complexities(), [1, 8, 9], seed=0, resamples=300)
    assert values["top_three_text"] == "1, 8, 9" and values["mccp_gap_interval"][0] > 0
    record = verdicts.verdict(items["fig23"], values)
    assert record["verdict"] == verdicts.REPRODUCED, record
    assert record["control"]["outcome"] == verdicts.FAILS
    assert sorted(values["shuffled_labels"]["permutation"]) == NOVELTIES


def _planted_handicap(seed=0):
    """Twenty near tests (radius 0.1) and twenty far ones (radius 1); the one-layer networks solve the near
    tests and fail most of the far ones, the deeper groups do well everywhere."""
    rng = np.random.default_rng(seed)
    directions = rng.normal(size=(40, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    points = directions * np.r_[np.full(20, 0.1), np.ones(20)][:, None]
    shallow = np.r_[np.ones(20), np.full(20, 0.3)]
    performance = np.array([[shallow, shallow], [np.full(40, 0.95)] * 2, [np.full(40, 0.85)] * 2])
    return points, performance


def test_fig28_holds_for_planted_groups_and_fails_for_shuffled_depths(items):
    points, performance = _planted_handicap()
    values = handicap_group_summary([1, 2, 3], [4, 8], performance, points, top_k=3, seed=0, resamples=300)
    assert values["depth_order_by_aiq_text"] == values["depth_order_by_mean_performance_text"] == "2 > 3 > 1"
    assert values["order_agreement_interval"] == [1.0, 1.0]
    assert values["one_layer_performance_share"] == pytest.approx(0.65 / 0.95)
    assert values["one_layer_aiq_share"] == pytest.approx(0.3 ** 3 / 0.95 ** 3, rel=0.05)
    record = verdicts.verdict(items["fig28"], values)
    assert record["verdict"] == verdicts.REPRODUCED, record
    assert record["control"]["outcome"] == verdicts.FAILS
    assert sorted(map(tuple, values["shuffled_depths"]["networks"])) == [(d, w) for d in (1, 2, 3) for w in (4, 8)]


class LinearSpace:
    """A stand-in space whose 'volume' is a weighted sum, so AIQ shares are known by hand."""

    def __init__(self, weights):
        self.weights = np.asarray(weights, dtype=float)

    def aiq(self, performances, top_k=3):
        return float(self.weights @ np.asarray(performances, dtype=float))

    def volume(self, top_k=3):
        return float(self.weights.sum())


def _apti_results(per_system, trials=3, novelties=(14, 15, 16)):
    return [SimpleNamespace(agent=a, novelty=n, apti=(v,) * trials)
            for a, row in per_system.items() for n, v in zip(novelties, row)]


LEARNED = {"above_random": 0.3}  # a baseline DQN above random actions without novelty (Fig. 29's measured condition)


def test_fig29_mean_apti_aiq_and_margins_by_hand(items):
    systems = {"baseline": [0.5, 0.5, 0.5], "a": [0.9, 0.9, 0.3], "b": [0.6, 0.6, 0.6]}
    values = apti_summary(list(systems), [14, 15, 16], _apti_results(systems), LinearSpace([0, 0, 1]), 3,
                          "baseline", seed=0, resamples=200)
    assert values["mean_apti"] == pytest.approx({"baseline": 0.5, "a": 0.7, "b": 0.6})
    assert values["aiq_share"] == pytest.approx({"baseline": 0.5, "a": 0.3, "b": 0.6})
    assert values["place_by_apti"] == {"a": 1, "b": 2, "baseline": 3}
    assert values["place_by_aiq"] == {"b": 1, "baseline": 2, "a": 3}
    # a leads the baseline by 0.2 in mean APTI and trails it by 0.2 in AIQ; a and b: 0.1 and 0.3
    assert values["reversal_margin"] == pytest.approx(0.2) and values["baseline_reversal_margin"] == pytest.approx(0.2)
    assert values["reversal_margin_interval"] == pytest.approx([0.2, 0.2]) and values["trials"] == 3
    record = verdicts.verdict(items["fig29"], {**values, "dqn": LEARNED})
    assert record["verdict"] == verdicts.REPRODUCED, record
    # the same margins with a baseline below random actions measured nothing (APTI divides by it)
    record = verdicts.verdict(items["fig29"], {**values, "dqn": {"above_random": -0.05}})
    assert record["verdict"] == verdicts.INCONCLUSIVE and "baseline that learned" in record["reason"]


def test_fig29_fails_for_apti_shuffled_among_the_novelties(items):
    """a earns its lead on five novelties and loses the one AIQ weighs: shuffled over ten trials, its
    weak score rarely lands there, so the reversal is gone."""
    systems = {"baseline": [0.5] * 6, "a": [0.9] * 5 + [0.3], "b": [0.6] * 6}
    novelties = list(range(11, 17))
    values = apti_summary(list(systems), novelties, _apti_results(systems, 10, novelties),
                          LinearSpace([0, 0, 0, 0, 0, 1]), 3, "baseline", seed=0, resamples=300)
    record = verdicts.verdict(items["fig29"], {**values, "dqn": LEARNED})
    assert record["verdict"] == verdicts.REPRODUCED, record
    assert record["control"]["outcome"] == verdicts.FAILS, values["shuffled_novelties"]


def test_fig29_two_trials_are_not_an_interval(items):
    systems = {"baseline": [0.5, 0.5, 0.5], "a": [0.9, 0.9, 0.3], "b": [0.6, 0.6, 0.6]}
    values = apti_summary(list(systems), [14, 15, 16], _apti_results(systems, trials=2), LinearSpace([0, 0, 1]), 3,
                          "baseline", seed=0, resamples=100)
    record = verdicts.verdict(items["fig29"], {**values, "dqn": LEARNED})
    assert record["verdict"] == verdicts.INCONCLUSIVE and "three trials" in record["reason"]


def test_reversal_margins_without_a_reversal_are_not_positive():
    out = reversal_margins(["baseline", "a"], [0.5, 0.7], [0.5, 0.7], "baseline")
    assert out["largest"] == pytest.approx(-0.2) and out["baseline"] == pytest.approx(-0.2)


def test_apti_array_and_its_shuffle():
    results = _apti_results({"baseline": [0.5, 0.5, 0.5], "a": [0.9, 0.8, 0.3]}, trials=2)
    apti = apti_array(["baseline", "a"], [14, 15, 16], results)
    assert apti.shape == (2, 3, 2) and apti[1, 2, 1] == 0.3
    shuffled = shuffle_novelties(apti, np.random.default_rng(0))
    assert all(sorted(shuffled[s, :, t]) == sorted(apti[s, :, t]) for s in range(2) for t in range(2))
    with pytest.raises(ValueError, match="no APTI result"):
        apti_array(["baseline", "c"], [14, 15, 16], results)


def test_space_summary_records_both_nulls():
    rng = np.random.default_rng(0)
    names = [1, 2, 3, 4, 5, 6]
    ds = rng.uniform(0.1, 0.5, (6, 6))
    np.fill_diagonal(ds, 0.0)
    complexities = [SimpleNamespace(interval=SimpleNamespace(estimate=m)) for m in rng.uniform(100, 500, 6)]
    space = intelligence_space([f"N{n}" for n in names], [c.interval.estimate for c in complexities], ds)
    values = space_summary(names, complexities, ds, space, [3, 4], np.ones(6), np.zeros(6), top_k=3, seed=0)
    assert values["agent_share"] == pytest.approx(1.0) and values["null_agent"]["agent_share"] == 0.0
    assert values["paper_bounding_vertices"] == sum(n in values["hull_vertices"] for n in (3, 4))
    assert values["hull_vertices_text"] == as_text(values["hull_vertices"])
    assert 1 <= values["shuffled_cells"]["dimensions_for_80_percent"] <= 6
    assert values["excess_over_self"] > 0


def test_random_performance_is_the_random_policy_on_each_novelty():
    from intellimetry.aiq.cartpole3d import mean_performance
    from intellimetry.aiq.cartpole3d.study import NoveltySuite, random_performance

    suite = NoveltySuite(novelties=(14, 3), anchors=None, seed=2)
    out = random_performance(suite, 1)
    assert out.tolist() == [mean_performance(n, "easy", "random", 1, 2) for n in (14, 3)]
    assert ((0 < out) & (out <= 1)).all()


class PointSpace:
    """A stand-in space with given points (the hull and AIQ computed as for the real one)."""

    def __init__(self, points, embedding):
        self.points, self.embedding = np.asarray(points, dtype=float), embedding

    def aiq(self, performances, top_k=3):
        from intellimetry.aiq.measures import aiq

        return aiq(self.points, performances, top_k)

    def volume(self, top_k=3):
        return self.aiq(np.ones(len(self.points)), top_k)


def test_fig27_holds_when_the_papers_tests_bound_the_hull_and_fails_for_shuffled_labels(items):
    """Tests 3, 4, 14 and 15 at the corners of a tetrahedron around the origin, the others well inside."""
    rng = np.random.default_rng(0)
    points = rng.uniform(-0.1, 0.1, (16, 3))
    corners = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], dtype=float)
    for n, corner in zip((3, 4, 14, 15), corners):
        points[n - 1] = corner
    ds = np.full((16, 16), 0.3)
    np.fill_diagonal(ds, 0.01)
    complexities = [SimpleNamespace(interval=SimpleNamespace(estimate=m)) for m in rng.uniform(100, 500, 16)]
    embedding = intelligence_space([f"N{n}" for n in NOVELTIES], [c.interval.estimate for c in complexities],
                                   ds).embedding
    values = space_summary(NOVELTIES, complexities, ds, PointSpace(points, embedding), [3, 4, 14, 15],
                           np.full(16, 0.5), np.full(16, 0.1), top_k=3, seed=0)
    assert values["hull_vertices"] == [3, 4, 14, 15] and values["agent_share"] == pytest.approx(0.125)
    assert values["null_agent"]["paper_bounding_vertices"] < 4
    assert values["null_agent"]["agent_share"] == pytest.approx(0.001)
    record = verdicts.verdict(items["fig27"], values)
    assert record["verdict"] == verdicts.REPRODUCED, record
    assert record["control"]["outcome"] == verdicts.FAILS


def test_fig25s_null_is_the_space_of_the_shuffled_cells():
    from intellimetry.aiq.cartpole3d.claims import dimensions_for_share
    from intellimetry.aiq.cartpole3d.summaries import control_seed

    rng = np.random.default_rng(1)
    x = rng.normal(size=(16, 5))
    ds = np.linalg.norm(x[:, None] - x[None], axis=2)
    mccps = np.linalg.norm(x, axis=1)
    names = [f"N{n}" for n in NOVELTIES]
    space = intelligence_space(names, mccps, ds)
    complexities = [SimpleNamespace(interval=SimpleNamespace(estimate=m)) for m in mccps]
    values = space_summary(NOVELTIES, complexities, ds, space, [3, 4, 14, 15], np.ones(16), np.zeros(16), seed=0)
    shuffled = intelligence_space(names, mccps, shuffled_off_diagonal(ds, control_seed(0, "fig25")))
    assert values["shuffled_cells"]["dimensions_for_80_percent"] == dimensions_for_share(shuffled.embedding, 0.8)
    assert values["dimensions_for_80_percent"] == dimensions_for_share(space.embedding, 0.8)
