"""AIQ measures computed from numbers: MCCP complexity, entropy baselines, dissimilarity,
multilateration into the intelligence space, and the AIQ hull volume.

Nothing here trains a model: inputs are policy sizes and performances, mixed-domain performance
curves, complexities and distances, or raw images/observations.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from intellimetry.stats import Interval, mean_interval

RULES = ("neighbour", "monotone")
RUN_FILLS = ("fit", "interpolate")
FIT_POINTS = ("all", "minima")
NORMALISATIONS = ("max", "minmax")
MCCP_BINS = 30  # performance bins of an MCCP curve over [0, 1] (the spec's)


# --------------------------------------------------------------------------- MCCP complexity

@dataclass(frozen=True)
class MCCPCurve:
    """Minimal policy size per performance bin.

    ``source`` says how each bin got its size: "observed" (a policy of the pool), "nearest"
    (below the lowest observed performance: copy of the first observed bin), "neighbour" (mean of
    the two adjacent bins), "fit" (linear fit of size vs performance) or "interpolated".
    """

    edges: np.ndarray
    centres: np.ndarray
    sizes: np.ndarray
    source: np.ndarray

    @property
    def width(self) -> float:
        return float(self.edges[1] - self.edges[0])

    @property
    def area(self) -> float:
        """Bin-width sum Σ size_i · width (exact for the step curve the bins define)."""
        return float(self.sizes.sum() * self.width)


def _pool(sizes, performances) -> tuple[np.ndarray, np.ndarray]:
    """Sizes and performances as equal-length finite 1-D float arrays, sizes non-negative."""
    s = np.asarray(sizes, dtype=float).ravel()
    v = np.asarray(performances, dtype=float).ravel()
    if s.size == 0 or s.shape != v.shape:
        raise ValueError("sizes and performances must be non-empty and of equal length")
    if not (np.isfinite(s).all() and np.isfinite(v).all()):
        raise ValueError("sizes and performances must be finite")
    if (s < 0).any():
        raise ValueError("sizes must be non-negative")
    return s, v


def _linear_fit(x: np.ndarray, y: np.ndarray):
    """Least-squares line y = a + b x; a constant (mean of y) when x has fewer than two values."""
    if np.unique(x).size < 2:
        mean = float(y.mean())
        return lambda q: np.full(np.shape(q), mean)
    slope, intercept = np.polyfit(x, y, 1)
    return lambda q: intercept + slope * np.asarray(q, dtype=float)


def _bins_of(v: np.ndarray, bins: int, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    """(reaches a bin, bin index) of each performance in ``v``: index by arithmetic with a 1e-9 bin
    tolerance, so that e.g. 120/200 = 0.6 sits in the bin starting at 0.6 although linspace stores that
    edge as 0.6000000000000001; the last bin also takes p >= high."""
    position = np.floor((v - low) / (high - low) * bins + 1e-9)
    return position >= 0, np.clip(position, 0, bins - 1).astype(int)


def bins_above(best: float, bins: int = MCCP_BINS, low: float = 0.0, high: float = 1.0) -> int:
    """How many bins of an MCCP curve lie above the bin of ``best``, a pool's best performance: the
    bins :func:`mccp_curve` fills by extrapolating its size-vs-performance line (all ``bins`` when
    ``best`` reaches none). 0 means the pool's best network reached the top bin."""
    if int(bins) != bins or bins < 1 or not high > low:
        raise ValueError("need an integer bins >= 1 and high > low")
    inside, index = _bins_of(np.array([float(best)]), int(bins), low, high)
    return int(bins) - 1 - int(index[0]) if inside[0] else int(bins)


def mccp_curve(sizes, performances, bins: int = MCCP_BINS, low: float = 0.0, high: float = 1.0,
               rule: str = "neighbour", run_fill: str = "fit", fit_points: str = "all") -> MCCPCurve:
    """Size of the smallest policy per performance bin over [low, high] (the MCCP curve).

    Bins: ``bins`` equal bins; a performance p lies in bin i when edges[i] <= p < edges[i+1] (up to
    a 1e-9 bin-width tolerance against rounding); the last bin also takes p >= high (it reaches the
    top); p < low reaches no bin (but still enters the linear fit with ``fit_points="all"``).

    ``rule="neighbour"`` (the paper): each bin gets the smallest policy whose performance falls in
    it. Empty bins: below the lowest filled bin, the first filled bin's size (the paper's
    low-performance edge case); a single empty bin between filled ones, the mean of its two
    neighbours; a run of two or more interior empty bins, the linear fit at the bin centres
    (``run_fill="fit"``) or linear interpolation between the flanking bins (``"interpolate"``);
    bins beyond the best observed performance, the linear fit at the bin centres.

    ``rule="monotone"``: each bin gets the smallest policy reaching at least its lower edge; bins
    above the best performance take the linear fit; the curve is then made non-decreasing by a
    running maximum (so an extrapolation never dips below the last observed bin).

    Linear fit: least squares of size on performance over every policy of the pool
    (``fit_points="all"``, as the paper fits its estimator on all observations) or over the smallest
    policy of each occupied bin (``"minima"``); fitted sizes are clipped below at the pool's smallest
    policy (no member of the family is smaller, and a line fitted mostly to large, accurate networks
    otherwise reaches zero or negative sizes at low performance).
    """
    if rule not in RULES or run_fill not in RUN_FILLS or fit_points not in FIT_POINTS:
        raise ValueError(f"rule in {RULES}, run_fill in {RUN_FILLS}, fit_points in {FIT_POINTS}")
    if int(bins) != bins or bins < 1 or not high > low:
        raise ValueError("need an integer bins >= 1 and high > low")
    s, v = _pool(sizes, performances)
    edges = np.linspace(low, high, int(bins) + 1)
    centres = (edges[:-1] + edges[1:]) / 2
    inside, index = _bins_of(v, bins, low, high)
    if not inside.any():
        raise ValueError("no policy reaches the performance range")

    smallest = np.full(int(bins), np.nan)  # smallest policy per occupied bin; nan = empty
    np.fmin.at(smallest, index[inside], s[inside])
    observed = ~np.isnan(smallest)
    if fit_points == "all":
        fit = _linear_fit(v, s)
    else:  # the observed curve points: (performance, size) of each bin's smallest policy
        pick = [np.flatnonzero(inside & (index == b))[np.argmin(s[inside & (index == b)])]
                for b in np.flatnonzero(observed)]
        fit = _linear_fit(v[pick], s[pick])

    def fitted(where):
        return np.maximum(fit(centres[where]), s.min())

    if rule == "monotone":  # smallest policy in bin b or above = reaching bin b's lower edge
        curve = np.fmin.accumulate(smallest[::-1])[::-1]
        source = np.where(np.isnan(curve), "fit", "observed").astype(object)
        curve[np.isnan(curve)] = fitted(np.isnan(curve))
        return MCCPCurve(edges, centres, np.maximum.accumulate(curve), source)

    curve = smallest.copy()
    source = np.where(observed, "observed", "").astype(object)
    filled = np.flatnonzero(observed)
    first, last = filled[0], filled[-1]
    curve[:first], source[:first] = curve[first], "nearest"
    tail = np.arange(last + 1, int(bins))
    curve[tail], source[tail] = fitted(tail), "fit"
    for left, right in zip(filled[:-1], filled[1:]):
        gap = np.arange(left + 1, right)
        if gap.size == 1:
            curve[gap], source[gap] = (curve[left] + curve[right]) / 2, "neighbour"
        elif gap.size > 1 and run_fill == "fit":
            curve[gap], source[gap] = fitted(gap), "fit"
        elif gap.size > 1:
            curve[gap] = np.interp(centres[gap], centres[[left, right]], curve[[left, right]])
            source[gap] = "interpolated"
    return MCCPCurve(edges, centres, curve, source)


def mccp(sizes, performances, bins: int = MCCP_BINS, low: float = 0.0, high: float = 1.0,
         rule: str = "neighbour", **options) -> float:
    """MCCP complexity: area under the minimal-size curve over [low, high] as the bin-width sum
    Σ size_i · (high − low)/bins (a discretised ∫ MDL(π_min(V)) dV)."""
    return mccp_curve(sizes, performances, bins, low, high, rule, **options).area


def normalise_across(values, method: str = "max") -> np.ndarray:
    """Complexities made comparable across domains.

    ``"max"`` (default) divides by the largest value, keeping 0 as "no complexity" so that the
    result can serve as a distance from the empty test; ``"minmax"`` maps to [0, 1] (it sends the
    simplest domain to the origin, so use it only for display).
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0 or not np.isfinite(x).all():
        raise ValueError("values must be non-empty and finite")
    if method == "max":
        if not x.max() > 0:
            raise ValueError("max normalisation needs a positive maximum")
        return x / x.max()
    if method == "minmax":
        span = x.max() - x.min()
        if span == 0:
            raise ValueError("min-max normalisation needs distinct values")
        return (x - x.min()) / span
    raise ValueError(f"method must be one of {NORMALISATIONS}")


def mccp_interval(pools, confidence: float = 0.95, interval: str = "t", **options) -> tuple[Interval, np.ndarray]:
    """MCCP over repeated pools (each a (sizes, performances) pair): the shared stats.mean_interval
    of the pools' values ("t": mean ± t · sd/√n; "percentile": quantiles of the values), and the values."""
    values = np.array([mccp(s, v, **options) for s, v in pools], dtype=float)
    return mean_interval(values, confidence, interval), values


# --------------------------------------------------------------------------- entropy baselines

def _entropy_bits(counts) -> float:
    """Shannon entropy (bits) of a histogram."""
    p = np.asarray(counts, dtype=float)
    p = p[p > 0] / p.sum()
    return float(-(p * np.log2(p)).sum())


def pixel_entropy(images) -> np.ndarray:
    """Per-pixel Shannon entropy (bits) of the radius-1 4-neighbourhood including the pixel.

    The neighbourhood has 5 pixels inside, 4 on an edge, 3 at a corner. Values are compared by
    exact equality (quantise float images first). Returns an array shaped like ``images``.
    """
    x = np.asarray(images)
    if x.ndim != 3 or 0 in x.shape:
        raise ValueError("images must be a non-empty (n, h, w) array")
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1)))
    valid = np.pad(np.ones(x.shape[1:], bool), 1)
    h, w = x.shape[1:]
    shifts = [(1, 1), (0, 1), (2, 1), (1, 0), (1, 2)]  # self, up, down, left, right
    vals = np.stack([padded[:, r:r + h, c:c + w] for r, c in shifts])          # (5, n, h, w)
    ok = np.stack([valid[r:r + h, c:c + w] for r, c in shifts])[:, None]        # (5, 1, h, w)
    # Σ_values (c/m) log2(c/m) = Σ_members (1/m) log2(c_member/m), c_member = equal valid members
    same = (vals[:, None] == vals[None, :]) & ok[None] & ok[:, None]           # (5, 5, n, h, w)
    count = same.sum(axis=1)
    m = ok.sum(axis=0)
    terms = np.where(ok, np.log2(np.maximum(count, 1) / m), 0.0)
    return -(terms.sum(axis=0) / m)


def image_entropies(images, n_classes: int, chunk: int = 512) -> np.ndarray:
    """Each image's entropy (bits): its mean pixel entropy + log2 n_classes, the label's share as in
    the paper. Images are processed ``chunk`` at a time to bound memory."""
    if int(n_classes) != n_classes or n_classes < 1:
        raise ValueError("n_classes must be a positive integer")
    x = np.asarray(images)
    if x.ndim != 3 or x.shape[0] == 0:
        raise ValueError("images must be a non-empty (n, h, w) array")
    per_image = np.concatenate([pixel_entropy(x[i:i + chunk]).mean(axis=(1, 2))
                                for i in range(0, x.shape[0], chunk)])
    return per_image + np.log2(n_classes)


def image_entropy(images, n_classes: int, chunk: int = 512) -> float:
    """Domain entropy of an image set as the paper sums it: Σ_images (mean pixel entropy + log2
    n_classes), in bits (:func:`image_entropies` summed), so it grows with the number of images."""
    return float(image_entropies(images, n_classes, chunk).sum())


def observation_entropy(observations, bins: int = 30) -> float:
    """Σ over columns of the Shannon entropy (bits) of the column discretised into ``bins`` equal
    bins over its observed [min, max] (a constant column has entropy 0)."""
    x = np.asarray(observations, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2 or x.shape[0] == 0 or not np.isfinite(x).all():
        raise ValueError("observations must be a non-empty finite (n, d) array")
    return sum(_entropy_bits(np.histogram(col, bins=bins)[0]) for col in x.T)


# --------------------------------------------------------------------------- dissimilarity

def diagonal(p, v1: float, v2: float):
    """Straight-line performance V_d(p) = p·v1 + (1 − p)·v2.

    p is the probability of drawing a sample from domain 1, so v1 = V(μ1) is the performance at
    p = 1 and v2 = V(μ2) the performance at p = 0.
    """
    return np.asarray(p, dtype=float) * v1 + (1 - np.asarray(p, dtype=float)) * v2


def dissimilarity(p_grid, mixed_performance) -> float:
    """DS(μ1, μ2) = ∫₀¹ |V_O(p) − V_d(p)| dp by the trapezoid rule over the p grid.

    ``mixed_performance[i]`` is V_O at ``p_grid[i]`` (p = share of samples from μ1); V(μ1) and
    V(μ2) are the curve's values at p = 1 and p = 0. The grid must be strictly increasing from
    0 to 1. (Where V_O crosses the diagonal between grid points the trapezoid of |·| overstates
    the area slightly; this is the spec's rule.)
    """
    p = np.asarray(p_grid, dtype=float)
    v = np.asarray(mixed_performance, dtype=float)
    if p.ndim != 1 or p.shape != v.shape or p.size < 2:
        raise ValueError("p_grid and mixed_performance must be 1-D, of equal length >= 2")
    if not (np.isfinite(p).all() and np.isfinite(v).all()):
        raise ValueError("p_grid and mixed_performance must be finite")
    if not (np.diff(p) > 0).all():
        raise ValueError("p_grid must be strictly increasing")
    if p[0] != 0 or p[-1] != 1:
        raise ValueError("p_grid must start at 0 and end at 1")
    gap = np.abs(v - diagonal(p, v[-1], v[0]))
    return float(np.sum((gap[1:] + gap[:-1]) / 2 * np.diff(p)))


# --------------------------------------------------------------------------- intelligence space

@dataclass(frozen=True)
class Embedding:
    """Multilateration result: coordinates (n, k) in decreasing-eigenvalue order, all n
    eigenvalues (decreasing), the non-Euclidean share and the normalised stress."""

    coordinates: np.ndarray
    eigenvalues: np.ndarray
    non_euclidean_share: float
    stress: float


def multilaterate(complexities, distances, tol: float = 1e-9) -> Embedding:
    """Place tests in space with the empty test at the origin.

    Test i lies at distance C_i from the origin and d_ij from test j. With G_ij =
    ½(C_i² + C_j² − d_ij²) (symmetrised; the diagonal is C_i², the d_ii are ignored), the
    eigenvectors V and eigenvalues Λ give coordinates V·√Λ over the positive eigenvalues
    (eigenvalues within ``tol``·max|λ| of 0 count as 0).

    non_euclidean_share = Σ|λ<0| / Σ|λ|. stress = √(Σ (d̂ − d)² / Σ d²) (Kruskal stress-1) over
    all test pairs i<j and the n test-to-origin distances (d = C_i, d̂ = ‖x_i‖), where an
    asymmetric d_ij enters as √((d_ij² + d_ji²)/2), the value the symmetrised G uses.
    """
    c = np.asarray(complexities, dtype=float)
    d = np.asarray(distances, dtype=float)
    n = c.size
    if c.ndim != 1 or n == 0 or d.shape != (n, n):
        raise ValueError("complexities must be (n,) and distances (n, n)")
    if not (np.isfinite(c).all() and np.isfinite(d).all()) or (c < 0).any() or (d < 0).any():
        raise ValueError("complexities and distances must be finite and non-negative")
    gram = 0.5 * (c[:, None] ** 2 + c[None, :] ** 2 - d ** 2)
    gram = (gram + gram.T) / 2
    np.fill_diagonal(gram, c ** 2)
    lam, vec = np.linalg.eigh(gram)
    order = np.argsort(lam)[::-1]
    lam, vec = lam[order], vec[:, order]
    scale = np.abs(lam).max()
    clean = np.where(np.abs(lam) <= tol * scale, 0.0, lam)
    keep = clean > 0
    coords = vec[:, keep] * np.sqrt(clean[keep])
    total = np.abs(clean).sum()
    share = float(np.abs(clean[clean < 0]).sum() / total) if total > 0 else 0.0

    iu = np.triu_indices(n, 1)
    given = np.concatenate([np.sqrt((d ** 2 + d.T ** 2) / 2)[iu], c])  # as symmetrised in G
    rebuilt = np.concatenate([np.linalg.norm(coords[:, None] - coords[None], axis=-1)[iu],
                              np.linalg.norm(coords, axis=1)])
    denom = (given ** 2).sum()
    stress = float(np.sqrt(((rebuilt - given) ** 2).sum() / denom)) if denom > 0 else 0.0
    return Embedding(coords, lam, share, stress)


def complete_distances(complexities, distances, anchors: int) -> np.ndarray:
    """Partial mapping (Section 2.5.3): fill the test-to-test distances that were not measured.

    Only the pairs that involve one of the first ``anchors`` tests need measuring (about n·k of
    them for a k-dimensional space, instead of n²). The anchors are placed by :func:`multilaterate`
    from their own distances; every other test t is then located from |x| = C_t and
    |x - a_j| = d_tj, which are linear in x: a_j·x = (C_t² + |a_j|² - d_tj²) / 2 (least squares).
    Unmeasured entries (NaN) become the distances between the located points; measured entries
    are kept. Exact when the tests lie in the space the anchors span.
    """
    c = np.asarray(complexities, dtype=float)
    d = np.array(distances, dtype=float)
    n = c.size
    anchors = int(anchors)
    if d.shape != (n, n) or not 1 <= anchors <= n:
        raise ValueError(f"need (n, n) distances and 1 <= anchors <= n (n = {n}), got {d.shape} and {anchors}")
    if np.isnan(d[:anchors]).any() or np.isnan(d[:, :anchors]).any():
        raise ValueError("every pair involving an anchor (the first `anchors` tests) must be measured")
    placed = multilaterate(c[:anchors], d[:anchors, :anchors]).coordinates
    x = np.zeros((n, placed.shape[1]))
    x[:anchors] = placed
    squared = (placed ** 2).sum(axis=1)
    for t in range(anchors, n):
        from_anchors = (d[t, :anchors] + d[:anchors, t]) / 2  # both orders were measured
        rhs = (c[t] ** 2 + squared - from_anchors ** 2) / 2
        x[t] = np.linalg.lstsq(placed, rhs, rcond=None)[0] if placed.size else 0.0
    located = np.linalg.norm(x[:, None] - x[None], axis=-1)
    return np.where(np.isnan(d), located, d)


def scaled_points(coordinates, complexities) -> np.ndarray:
    """I_μ = ŝ(μ)·C(μ): each row's unit direction times its complexity (zero rows stay zero).

    Needed because dropping eigen-dimensions shortens the vectors; this restores |I_μ| = C(μ).
    """
    x = np.asarray(coordinates, dtype=float)
    c = np.asarray(complexities, dtype=float)
    if x.ndim != 2 or c.shape != (x.shape[0],):
        raise ValueError("coordinates must be (n, k) and complexities (n,)")
    norms = np.linalg.norm(x, axis=1)
    unit = np.divide(x, norms[:, None], out=np.zeros_like(x), where=norms[:, None] > 0)
    return unit * c[:, None]


# --------------------------------------------------------------------------- AIQ

def _finite_points(points) -> np.ndarray:
    x = np.asarray(points, dtype=float)
    if x.ndim != 2 or not np.isfinite(x).all():
        raise ValueError("points must be a finite (m, d) array")
    return x


def is_flat(points) -> bool:
    """Whether the hull of the origin and ``points`` (m, d) is flat: the points span fewer than d
    directions from the origin (too few points, all on one plane through it, ...), so it has no
    volume and no d-dimensional faces."""
    x = _finite_points(points)
    m, dim = x.shape
    return m == 0 or dim == 0 or np.linalg.matrix_rank(x) < dim


def _origin_hull(x: np.ndarray) -> ConvexHull | None:
    """Qhull's hull of the origin and ``x``, or None when it is flat. Flatness is decided by the
    geometry (is_flat) first; Qhull's own degeneracy error remains for points that are independent
    to numpy's rank tolerance but not to Qhull's precision. Qhull's 'QJ' joggle is never used."""
    if is_flat(x):
        return None
    try:
        return ConvexHull(np.vstack([np.zeros(x.shape[1]), x]))
    except QhullError:
        return None


def hull_volume(points) -> float:
    """Volume of the convex hull of the origin and ``points`` (m, d).

    A flat hull (rank of the points < d, or Qhull reporting degeneracy) has volume 0.
    For d = 1 the "volume" is the length of the covered interval.
    """
    x = _finite_points(points)
    if x.shape[0] and x.shape[1] == 1:
        return float(max(x.max(), 0.0) - min(x.min(), 0.0))
    hull = _origin_hull(x)
    return 0.0 if hull is None else float(hull.volume)


def hull_faces(points) -> tuple[np.ndarray, np.ndarray]:
    """The hull of the origin and ``points`` (m, d) for drawing: (vertices, simplices), where vertices
    are the origin followed by the points ((m + 1, d)) and simplices index them ((faces, d) ints).

    A flat hull has no d-dimensional faces: its simplices are an empty (0, d) array, never an error."""
    x = _finite_points(points)
    if x.shape[1] < 2:
        raise ValueError("hull faces need points with at least two coordinates")
    vertices = np.vstack([np.zeros(x.shape[1]), x])
    hull = _origin_hull(x)
    if hull is None:
        return vertices, np.empty((0, x.shape[1]), dtype=int)
    return vertices, hull.simplices


def _scaled(points, performances, top_k) -> np.ndarray:
    x = np.asarray(points, dtype=float)
    v = np.asarray(performances, dtype=float)
    if x.ndim != 2 or v.shape != (x.shape[0],):
        raise ValueError("points must be (n, k) and performances (n,)")
    if not np.isfinite(v).all() or (v < 0).any() or (v > 1).any():
        raise ValueError("performances must lie in [0, 1]")
    if top_k is not None:
        if int(top_k) != top_k or top_k < 1:
            raise ValueError("top_k must be a positive integer or None")
        x = x[:, :int(top_k)]
    return x * v[:, None]


def aiq(points, performances, top_k: int | None = 3) -> float:
    """AIQ: hull volume of the origin and the performance-scaled points I_μ·V_μ, in the first
    ``top_k`` coordinates (the most significant dimensions; None keeps all)."""
    return hull_volume(_scaled(points, performances, top_k))


def aiq_relative(points, performances, top_k: int | None = 3) -> float:
    """AIQ divided by the suite's full volume (every V = 1), so 1 means full marks."""
    full = aiq(points, np.ones(np.asarray(points).shape[0]), top_k)
    if full <= 0:
        raise ValueError("the suite's hull is flat in these dimensions: relative AIQ undefined")
    return aiq(points, performances, top_k) / full
