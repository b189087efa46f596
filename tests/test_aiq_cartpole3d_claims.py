"""The CartPole3D figures' statements on hand-made measurements with known answers."""
import numpy as np
import pytest

from intellimetry.aiq.cartpole3d.claims import (
    apti_aiq_claims,
    complexity_claims,
    depth_group_claims,
    dimensions_for_share,
    dissimilarity_claims,
    hull_vertices,
)
from intellimetry.aiq.measures import Embedding

NOVELTIES = list(range(1, 17))


def test_complexity_claims_find_the_named_novelties_on_top():
    mccps = np.ones(16)
    mccps[[0, 7, 8]] = [5.0, 4.0, 3.0]  # novelties 1, 8, 9
    out = complexity_claims(NOVELTIES, mccps, [1, 8, 9])
    assert out["top_three"] == [1, 8, 9] and out["paper_three_in_top_three"] == 3
    assert out["paper_three_above_rest"] and out["most_complex"] == 1
    mccps[4] = 10.0  # novelty 5 pushes novelty 9 out of the top three
    out = complexity_claims(NOVELTIES, mccps, [1, 8, 9])
    assert out["paper_three_in_top_three"] == 2 and out["top_three"] == [5, 1, 8]


def test_complexity_claims_refuse_a_suite_without_the_named_novelties():
    with pytest.raises(ValueError, match="most complex"):
        complexity_claims([1, 2, 3], [1.0, 2.0, 3.0], [1, 8, 9])


def _pair_matrix(n=6, pair=(1, 2)):
    """DS 0.1 everywhere off the diagonal, 0.5 between the pair and the rest, 0.05 within the pair."""
    ds = np.full((n, n), 0.1)
    np.fill_diagonal(ds, 0.0)
    a, b = pair
    for i in (a, b):
        ds[i, :] = ds[:, i] = 0.5
        ds[i, i] = 0.0
    ds[a, b] = ds[b, a] = 0.05
    return ds


def test_dissimilarity_claims_on_a_planted_pair():
    names = [1, 2, 3, 4, 5, 6]
    ds = _pair_matrix() + np.random.default_rng(0).normal(0, 0.01, (6, 6))
    out = dissimilarity_claims(names, ds, [2, 3])
    assert out["paper_pair_most_dissimilar"] and out["paper_pair_similar"] and out["paper_pair_one_in_top_two"]
    assert out["symmetry_r"] > 0.9 and out["cells_measured_both_ways"] == 15
    out = dissimilarity_claims(names, ds, [4, 5])
    assert not out["paper_pair_most_dissimilar"] and not out["paper_pair_one_in_top_two"]


def test_dissimilarity_claims_use_only_cells_measured_both_ways():
    ds = _pair_matrix()
    ds[3:, 3:] = np.nan  # partial mapping: pairs among the last three not measured
    np.fill_diagonal(ds, 0.0)
    out = dissimilarity_claims([1, 2, 3, 4, 5, 6], ds, [2, 3])
    assert out["cells_measured_both_ways"] == 12 and out["paper_pair_most_dissimilar"]


def test_dimensions_for_share_counts_the_leading_eigenvalues():
    emb = Embedding(np.zeros((4, 4)), np.array([5.0, 3.0, 1.5, 0.5, -0.2]), 0.0, 0.0)
    assert dimensions_for_share(emb, 0.8) == 2  # 5 + 3 = 8 of 10
    assert dimensions_for_share(emb, 0.81) == 3
    assert dimensions_for_share(emb, 1.0) == 4


def test_hull_vertices_of_a_cube_and_an_inner_point():
    corners = np.array([[x, y, z] for x in (1, 2) for y in (1, 2) for z in (1, 2)], dtype=float)
    points = np.vstack([corners, [[1.5, 1.5, 1.5]]])
    vertices = hull_vertices(points)
    assert 8 not in vertices  # the centre is inside
    assert 7 in vertices  # the far corner (2, 2, 2) bounds the hull
    assert hull_vertices(np.array([[1.0, 0, 0], [2.0, 0, 0]])) == []  # flat: no faces


def test_depth_group_claims_on_known_groups():
    perf = np.array([[0.6, 0.7], [0.9, 1.0], [0.8, 0.8]])
    aiq = np.array([[0.01, 0.02], [0.9, 1.0], [0.5, 0.6]])
    out = depth_group_claims([1, 2, 3], perf, aiq)
    assert out["same_depth_order"] and out["depth_order_by_aiq"] == [2, 3, 1]
    assert out["one_layer_performance_share"] == pytest.approx(0.65 / 0.95)
    assert out["one_layer_aiq_share"] == pytest.approx(0.015 / 0.95) and out["aiq_penalises_one_layer"]


def test_apti_aiq_claims_detect_a_rank_change_for_the_baseline():
    agents = ["baseline", "a", "b"]
    out = apti_aiq_claims(agents, [0.5, 0.7, 0.6], [0.2, 0.1, 0.3], "baseline")
    assert out["ranking_by_apti"] == ["a", "b", "baseline"] and out["ranking_by_aiq"] == ["b", "baseline", "a"]
    assert out["ranking_changed"] and out["baseline_lowest_apti"] and out["baseline_rises_by_aiq"]
    same = apti_aiq_claims(agents, [0.5, 0.7, 0.6], [0.1, 0.3, 0.2], "baseline")
    assert not same["ranking_changed"] and not same["baseline_rises_by_aiq"]


def test_a_subset_space_refuses_novelties_the_suite_did_not_measure():
    from intellimetry.aiq.cartpole3d.study import NoveltySuite, novelty_space

    suite = NoveltySuite(novelties=(1, 2, 3), anchors=None)
    with pytest.raises(ValueError, match=r"novelties \[14\] are not in the suite"):
        novelty_space(suite, [], np.zeros((3, 3)), subset=[1, 14])
