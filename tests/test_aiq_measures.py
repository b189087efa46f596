"""AIQ measures on known answers: MCCP, entropy baselines, dissimilarity, multilateration, AIQ."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.linalg import orthogonal_procrustes
from scipy.spatial.distance import pdist, squareform
from scipy.stats import ortho_group

from intellimetry.aiq.measures import (
    aiq,
    aiq_relative,
    bins_above,
    complete_distances,
    diagonal,
    dissimilarity,
    hull_faces,
    hull_volume,
    image_entropies,
    image_entropy,
    is_flat,
    mccp,
    mccp_curve,
    mccp_interval,
    multilaterate,
    normalise_across,
    observation_entropy,
    pixel_entropy,
    scaled_points,
)

# ------------------------------------------------------------------ MCCP
# Hand pool, 5 bins over [0, 1]: edges 0 .2 .4 .6 .8 1, centres .1 .3 .5 .7 .9, width .2.
# (size, performance): (10, .10) (20, .15) -> bin 0; (30, .50) (60, .45) -> bin 2; bin 1 empty;
# bins 3, 4 lie beyond the best performance .50.
# Linear fit over all four policies: mean perf .3, mean size 30, dx = (-.2, -.15, .2, .15),
# dy = (-20, -10, 0, 30): Sxy = 4 + 1.5 + 0 + 4.5 = 10, Sxx = .125 -> slope 80, intercept 30 - 24 = 6;
# fit(.7) = 62, fit(.9) = 78.
SIZES = [10, 20, 30, 60]
PERFS = [0.10, 0.15, 0.50, 0.45]


def test_mccp_neighbour_rule_hand_pool():
    # bin 1 = mean(10, 30) = 20 -> curve (10, 20, 30, 62, 78), sum 200, area 200 * .2 = 40
    curve = mccp_curve(SIZES, PERFS, bins=5)
    np.testing.assert_allclose(curve.edges, [0, .2, .4, .6, .8, 1])
    np.testing.assert_allclose(curve.sizes, [10, 20, 30, 62, 78])
    assert list(curve.source) == ["observed", "neighbour", "observed", "fit", "fit"]
    assert mccp(SIZES, PERFS, bins=5) == pytest.approx(40.0)


def test_mccp_monotone_rule_hand_pool():
    # smallest policy with perf >= lower edge: edge 0 -> 10; .2 -> 30; .4 -> 30; .6, .8 -> none, fit
    # (62, 78) -> curve (10, 30, 30, 62, 78), sum 210, area 42
    curve = mccp_curve(SIZES, PERFS, bins=5, rule="monotone")
    np.testing.assert_allclose(curve.sizes, [10, 30, 30, 62, 78])
    assert mccp(SIZES, PERFS, bins=5, rule="monotone") == pytest.approx(42.0)


def test_mccp_fit_on_bin_minima():
    # fit through (.1, 10) and (.5, 30): size = 5 + 50 p -> fit(.7) = 40, fit(.9) = 50
    # neighbour: (10, 20, 30, 40, 50) -> 150 * .2 = 30; monotone: (10, 30, 30, 40, 50) -> 160 * .2 = 32
    assert mccp(SIZES, PERFS, bins=5, fit_points="minima") == pytest.approx(30.0)
    assert mccp(SIZES, PERFS, bins=5, rule="monotone", fit_points="minima") == pytest.approx(32.0)


def test_mccp_run_of_empty_bins_fit_or_interpolate():
    # (10, .1) (30, .1) -> bin 0 = 10; (50, .9) (70, .9) -> bin 4 = 50; bins 1-3 a run of three.
    # fit: mean p .5, mean size 40, Sxy = 4 * .4 * 20 + ... = 12 + 4 + 4 + 12 = 32, Sxx = .64 -> 15 + 50 p
    # -> bins 1-3 = 30, 40, 50 -> (10, 30, 40, 50, 50), sum 180, area 36
    # interpolate between 10 (p .1) and 50 (p .9): 20, 30, 40 -> sum 150, area 30
    sizes, perfs = [10, 30, 50, 70], [0.1, 0.1, 0.9, 0.9]
    np.testing.assert_allclose(mccp_curve(sizes, perfs, bins=5).sizes, [10, 30, 40, 50, 50])
    assert mccp(sizes, perfs, bins=5) == pytest.approx(36.0)
    assert mccp(sizes, perfs, bins=5, run_fill="interpolate") == pytest.approx(30.0)
    # monotone: edge 0 -> 10, edges .2 ... .8 -> 50: sum 210, area 42
    assert mccp(sizes, perfs, bins=5, rule="monotone") == pytest.approx(42.0)


def test_mccp_smallest_network_reaches_the_top():
    # all policies in the top bin: every lower bin copies it (nearest) -> 5 * range
    sizes, perfs = [5, 10, 100], [1.0, 0.99, 0.995]
    assert mccp(sizes, perfs) == pytest.approx(5.0)
    assert mccp(sizes, perfs, low=0.5, high=1.0) == pytest.approx(2.5)
    # monotone rule: the 5-parameter policy reaches every lower edge, whatever the big ones do
    sizes, perfs = [5, 10, 100, 400], [1.0, 0.4, 0.3, 0.8]
    assert mccp(sizes, perfs, rule="monotone") == pytest.approx(5.0)
    assert mccp(sizes, perfs) > 5.0  # per-bin minima see the big, weaker networks


def test_mccp_bin_edges_exact_for_grid_performances():
    # 120/200 = 0.6 is the lower edge of bin 3 of 5 (linspace stores 0.6000000000000001)
    curve = mccp_curve([7, 9], [120 / 200, 1.0], bins=5)
    assert list(curve.source) == ["nearest"] * 3 + ["observed", "observed"]
    np.testing.assert_allclose(mccp_curve([7, 9], [120 / 200, 1.0], bins=5, rule="monotone").sizes,
                               [7, 7, 7, 7, 9])


def test_mccp_monotone_curve_never_decreases():
    rng = np.random.default_rng(3)
    for _ in range(20):
        sizes = rng.integers(1, 1000, size=12)
        perfs = rng.uniform(0, 1, size=12)
        curve = mccp_curve(sizes, perfs, rule="monotone")
        assert (np.diff(curve.sizes) >= 0).all()
        assert (curve.sizes >= 0).all()


def test_mccp_rejects_bad_input():
    with pytest.raises(ValueError):
        mccp([1, 2], [0.5])
    with pytest.raises(ValueError):
        mccp([1], [0.5], rule="nope")
    with pytest.raises(ValueError):
        mccp([1], [-0.5])  # nothing reaches the range


def _pools(n, seed):
    rng = np.random.default_rng(seed)
    pools = []
    for _ in range(n):
        sizes = rng.integers(10, 500, size=25)
        perfs = np.clip(sizes / 500 + rng.normal(0, 0.1, size=25), 0, 1)
        pools.append((sizes, perfs))
    return pools


def test_mccp_interval_contains_mean_and_shrinks():
    # the same spread seen over 8 times as many pools: sd barely moves, t and 1/√n shrink
    few, v = mccp_interval(_pools(5, 1), bins=10)
    many, _ = mccp_interval(_pools(5, 1) * 8, bins=10)
    for result in (few, many):
        assert result.low < result.estimate < result.high and result.method == "t"
    assert few.estimate == pytest.approx(v.mean())
    assert many.high - many.low < few.high - few.low
    # t-interval by hand for the small case
    half = 2.7764451051977987 * v.std(ddof=1) / math.sqrt(5)  # t_{0.975, 4}
    assert few.high - few.estimate == pytest.approx(half)
    pct, _ = mccp_interval(_pools(5, 1), bins=10, interval="percentile")
    assert pct.low == pytest.approx(np.quantile(v, 0.025))
    with pytest.raises(ValueError):
        mccp_interval(_pools(1, 1))
    with pytest.raises(ValueError, match="allowed: t, percentile"):
        mccp_interval(_pools(5, 1), interval="normal")

def test_normalise_across():
    np.testing.assert_allclose(normalise_across([2.0, 4.0, 8.0]), [0.25, 0.5, 1.0])
    np.testing.assert_allclose(normalise_across([2.0, 4.0, 6.0], method="minmax"), [0, 0.5, 1])
    with pytest.raises(ValueError):
        normalise_across([0.0, 0.0])


def test_bins_above_the_best_counts_the_bins_the_curve_extrapolates():
    assert bins_above(0.50, bins=5) == 2  # the hand pool: bins 3 and 4 lie beyond .50
    assert bins_above(0.99, bins=5) == 0 and bins_above(1.0, bins=5) == 0 and bins_above(1.7, bins=5) == 0
    assert bins_above(29 / 30) == 0 and bins_above(28.9 / 30) == 1  # 30 bins: the top bin starts at 29/30
    assert bins_above(120 / 200, bins=5) == 1  # 0.6 sits in the bin starting at 0.6 (rounding tolerance)
    assert bins_above(-0.1, bins=5) == 5  # below the range: every bin is filled by the line
    curve = mccp_curve(SIZES, PERFS, bins=5)
    assert int((curve.source[3:] == "fit").sum()) == bins_above(max(PERFS), bins=5)
    with pytest.raises(ValueError):
        bins_above(0.5, bins=0)


# ------------------------------------------------------------------ entropy

def test_constant_image_has_zero_pixel_entropy():
    images = np.full((3, 4, 5), 7)
    assert np.all(pixel_entropy(images) == 0)
    assert image_entropy(images, 10) == pytest.approx(3 * math.log2(10))


def H(*counts):
    total = sum(counts)
    return -sum(c / total * math.log2(c / total) for c in counts)


def test_image_entropy_hand_2x2():
    # [[0, 1], [1, 1]]: every pixel is a corner (itself + 2 neighbours).
    # (0,0): {0, 1, 1} -> H(1, 2) = .9183; (0,1): {1, 0, 1} -> .9183; (1,0): {1, 0, 1} -> .9183;
    # (1,1): {1, 1, 1} -> 0. Mean 3 * .9183 / 4 = .6887; + log2 2 = 1 -> 1.6887
    image = np.array([[[0, 1], [1, 1]]])
    np.testing.assert_allclose(pixel_entropy(image)[0], [[H(1, 2), H(1, 2)], [H(1, 2), 0]])
    assert image_entropy(image, 2) == pytest.approx(3 * H(1, 2) / 4 + 1)
    assert image_entropy(image, 2) == pytest.approx(1.68872, abs=1e-5)


def test_image_entropy_hand_3x3_checkerboard():
    # centre: itself + 4 of the other colour -> H(1, 4) = .7219; side middles: itself + 3 others
    # -> H(1, 3) = .8113; corners: itself + 2 others -> H(1, 2) = .9183
    board = (np.indices((3, 3)).sum(axis=0) % 2).astype(float)[None]
    ent = pixel_entropy(board)[0]
    assert ent[1, 1] == pytest.approx(H(1, 4))
    assert ent[0, 1] == pytest.approx(H(1, 3))
    assert ent[0, 0] == pytest.approx(H(1, 2))
    expected = (H(1, 4) + 4 * H(1, 3) + 4 * H(1, 2)) / 9
    assert image_entropy(np.concatenate([board, board]), 1) == pytest.approx(2 * expected)
    assert image_entropy(np.concatenate([board, board]), 1, chunk=1) == pytest.approx(2 * expected)


def test_image_entropies_are_the_per_image_terms_of_the_sum():
    board = np.indices((3, 3)).sum(axis=0)[None] % 2
    flat = np.zeros((1, 3, 3), dtype=int)
    both = np.concatenate([board, flat, board])
    per_image = image_entropies(both, 4)
    assert per_image[1] == pytest.approx(2.0)  # a constant image: 0 bits + log2 4
    assert per_image[0] == pytest.approx(per_image[2]) and per_image[0] > 2.0
    assert per_image.sum() == pytest.approx(image_entropy(both, 4))


def test_observation_entropy_uniform_and_constant():
    bins = 30
    column = np.repeat(np.arange(bins, dtype=float), 3)  # 3 observations in each of 30 bins
    assert observation_entropy(column[:, None], bins=bins) == pytest.approx(math.log2(bins))
    two = np.column_stack([column, np.full_like(column, 2.5)])  # a constant column adds 0
    assert observation_entropy(two, bins=bins) == pytest.approx(math.log2(bins))
    four = np.column_stack([np.repeat([0.0, 1.0], 10)] * 2)  # two columns of a fair coin: 1 + 1
    assert observation_entropy(four, bins=bins) == pytest.approx(2.0)


# ------------------------------------------------------------------ dissimilarity

GRID = np.linspace(0, 1, 11)


def test_diagonal_convention():
    np.testing.assert_allclose(diagonal([0, 0.25, 1], v1=0.8, v2=0.4), [0.4, 0.5, 0.8])


def test_straight_line_gives_zero():
    assert dissimilarity(GRID, diagonal(GRID, 0.9, 0.3)) == pytest.approx(0.0, abs=1e-15)


def test_triangle_bump_hand():
    # V(μ2) = .4 at p = 0, V(μ1) = .8 at p = 1, diagonal .6 at p = .5; V_O(.5) = .8 -> gap .2,
    # piecewise linear tent -> area .5 * 1 * .2 = .1
    assert dissimilarity([0, 0.5, 1], [0.4, 0.8, 0.8]) == pytest.approx(0.1)
    tent = diagonal(GRID, 0.8, 0.4) + 0.2 * (1 - np.abs(GRID - 0.5) / 0.5)
    assert dissimilarity(GRID, tent) == pytest.approx(0.1)
    assert dissimilarity(GRID, diagonal(GRID, 0.8, 0.4) - (tent - diagonal(GRID, 0.8, 0.4))) \
        == pytest.approx(0.1)  # a dip counts like a bump


def test_dissimilarity_symmetric_under_swap():
    rng = np.random.default_rng(0)
    grid = np.sort(np.concatenate([[0, 1], rng.uniform(0, 1, 7)]))
    curve = rng.uniform(0, 1, grid.size)
    swapped = dissimilarity(1 - grid[::-1], curve[::-1])
    assert swapped == pytest.approx(dissimilarity(grid, curve), rel=1e-12)
    assert swapped > 0


@pytest.mark.parametrize("grid, curve", [
    ([0, 0.5, 0.9], [0.1, 0.2, 0.3]),      # does not end at 1
    ([0.1, 0.5, 1], [0.1, 0.2, 0.3]),      # does not start at 0
    ([0, 0.6, 0.5, 1], [0.1, 0.2, 0.3, 0.4]),  # not sorted
    ([0, 1], [0.1, 0.2, 0.3]),             # lengths differ
    ([0], [0.1]),                          # too short
])
def test_dissimilarity_validates(grid, curve):
    with pytest.raises(ValueError):
        dissimilarity(grid, curve)


# ------------------------------------------------------------------ multilateration

def _known_points():
    rng = np.random.default_rng(7)
    points = rng.normal(size=(6, 3)) @ ortho_group.rvs(3, random_state=11)
    return points, np.linalg.norm(points, axis=1), squareform(pdist(points))


def test_multilateration_reproduces_euclidean_points():
    points, c, d = _known_points()
    emb = multilaterate(c, d)
    assert emb.coordinates.shape == (6, 3)
    assert np.all(np.diff(emb.eigenvalues) <= 0)
    np.testing.assert_allclose(emb.coordinates @ emb.coordinates.T, points @ points.T, atol=1e-10)
    np.testing.assert_allclose(squareform(pdist(emb.coordinates)), d, atol=1e-10)
    np.testing.assert_allclose(np.linalg.norm(emb.coordinates, axis=1), c, atol=1e-10)
    rotation, _ = orthogonal_procrustes(emb.coordinates, points)
    np.testing.assert_allclose(emb.coordinates @ rotation, points, atol=1e-10)
    assert emb.non_euclidean_share == pytest.approx(0.0, abs=1e-12)
    assert emb.stress == pytest.approx(0.0, abs=1e-10)
    # a measured self-dissimilarity (paper: MNIST vs itself 1.7e-4) is ignored: G_ii = C_i²
    noisy = multilaterate(c, d + np.diag(np.full(6, 0.05)))
    np.testing.assert_allclose(noisy.coordinates @ noisy.coordinates.T, points @ points.T, atol=1e-10)


def test_multilateration_flags_violated_triangle_inequality():
    # C = (1, 1), d12 = 3 > 1 + 1: G = [[1, -3.5], [-3.5, 1]], eigenvalues 4.5 and -2.5 -> share 2.5 / 7
    emb = multilaterate([1.0, 1.0], [[0, 3.0], [3.0, 0]])
    np.testing.assert_allclose(emb.eigenvalues, [4.5, -2.5])
    assert emb.non_euclidean_share == pytest.approx(2.5 / 7)
    assert emb.coordinates.shape == (2, 1)
    assert emb.stress > 0.1


def test_scaled_points_directions_times_complexity():
    coords = np.array([[3.0, 4.0], [0.0, 0.0], [0.0, -2.0]])
    out = scaled_points(coords, [10.0, 5.0, 1.0])
    np.testing.assert_allclose(out, [[6.0, 8.0], [0.0, 0.0], [0.0, -1.0]])
    # after truncation to the top dimension the norms are restored to C
    points, c, d = _known_points()
    emb = multilaterate(c, d)
    np.testing.assert_allclose(np.linalg.norm(scaled_points(emb.coordinates[:, :2], c), axis=1), c)


# ------------------------------------------------------------------ AIQ / hull

SIMPLEX = np.eye(3)


def test_unit_simplex_volume():
    assert hull_volume(SIMPLEX) == pytest.approx(1 / 6)
    assert hull_volume([[2.0, 0], [0, 3.0]]) == pytest.approx(3.0)  # right triangle with the origin


def test_hull_rotation_invariant_and_interior_point_ignored():
    rng = np.random.default_rng(5)
    points = rng.normal(size=(8, 3))
    volume = hull_volume(points)
    rotation = ortho_group.rvs(3, random_state=5)
    assert hull_volume(points @ rotation) == pytest.approx(volume, rel=1e-10)
    inside = np.vstack([SIMPLEX, [0.1, 0.2, 0.3]])  # strictly inside the simplex
    assert hull_volume(inside) == pytest.approx(1 / 6)


def test_flat_hull_is_zero_without_exception():
    plane = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 2], [2, -1, 1.0]])  # z = x + y through the origin
    assert hull_volume(plane) == 0.0
    assert hull_volume([[1.0, 2.0, 3.0]]) == 0.0  # a single point
    assert aiq(plane, np.ones(4), top_k=None) == 0.0


def test_hull_faces_of_the_simplex_and_of_a_flat_hull():
    vertices, faces = hull_faces(SIMPLEX)
    np.testing.assert_array_equal(vertices, np.vstack([np.zeros(3), SIMPLEX]))  # the origin comes first
    assert faces.shape == (4, 3)  # a tetrahedron: four triangles over the four vertices
    assert sorted(map(sorted, faces.tolist())) == [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]
    plane = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 2], [2, -1, 1.0]])  # z = x + y through the origin
    assert is_flat(plane) and is_flat([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]) and is_flat(np.zeros((0, 3)))
    assert not is_flat(SIMPLEX)
    vertices, faces = hull_faces(plane)
    assert vertices.shape == (5, 3) and faces.shape == (0, 3) and faces.dtype.kind == "i"
    with pytest.raises(ValueError, match="two coordinates"):
        hull_faces([[1.0], [2.0]])
    with pytest.raises(ValueError, match="finite"):
        hull_faces([[np.nan, 0.0, 1.0]])


def test_aiq_scaling_and_validation():
    rng = np.random.default_rng(9)
    points = rng.normal(size=(7, 3))
    full = hull_volume(points)
    assert aiq(points, np.ones(7)) == pytest.approx(full)
    assert aiq(points, np.full(7, 0.5), top_k=None) == pytest.approx(0.5 ** 3 * full)
    assert aiq_relative(points, np.full(7, 0.5)) == pytest.approx(0.125)
    assert aiq(SIMPLEX, [1.0, 0.5, 0.2]) == pytest.approx(0.1 / 6)  # simplex: Π V / 6
    for bad in ([1.0] * 6 + [1.5], [1.0] * 6 + [-0.1], [1.0] * 6 + [np.nan]):
        with pytest.raises(ValueError):
            aiq(points, bad)


def test_aiq_top_k_keeps_leading_dimensions():
    rng = np.random.default_rng(4)
    points = rng.normal(size=(9, 5))
    v = rng.uniform(0.2, 1, 9)
    assert aiq(points, v, top_k=3) == pytest.approx(hull_volume(points[:, :3] * v[:, None]))
    assert aiq(points, v, top_k=None) == pytest.approx(hull_volume(points * v[:, None]))
    assert aiq(points, v, top_k=3) != pytest.approx(aiq(points, v, top_k=None))


def test_fitted_bins_never_fall_below_the_smallest_policy():
    # larger networks doing worse make the fitted line fall below zero beyond the best performance;
    # those bins must take the family's smallest size, not zero
    curve = mccp_curve([1000, 900, 50], [0.1, 0.2, 0.3], rule="neighbour")
    tail = curve.centres > 0.4
    assert (curve.source[tail] == "fit").all()
    assert np.allclose(curve.sizes[tail], 50)
    assert (curve.sizes >= 50).all()


def test_partial_mapping_recovers_the_unmeasured_distances_of_a_known_point_set():
    rng = np.random.default_rng(4)
    points = rng.normal(size=(7, 3))
    c = np.linalg.norm(points, axis=1)
    full = np.linalg.norm(points[:, None] - points[None], axis=-1)
    partial = full.copy()
    partial[4:, 4:] = np.nan  # only pairs with one of the first 4 tests (3-D space: 3 would do) measured
    np.fill_diagonal(partial, 0.0)
    assert np.allclose(complete_distances(c, partial, anchors=4), full, atol=1e-8)
    with pytest.raises(ValueError, match="anchor"):
        complete_distances(c, partial, anchors=5)
