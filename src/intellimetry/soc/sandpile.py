"""The Bak–Tang–Wiesenfeld abelian sandpile on lattices and graphs.

A site holds grains; a site with at least `threshold[i]` grains topples: it loses `threshold[i]`
grains and sends one to each neighbour. Grains beyond its neighbours go to the sink (lost). On a
d-dimensional hypercubic lattice with open boundaries the threshold is 2d everywhere, so boundary
sites lose the grains that would leave the lattice. On a graph the threshold is the degree, plus
one for the "dissipative" nodes that also feed the sink (without any sink every grain would stay
and the pile would never settle).

Relaxation runs in parallel waves: in each wave every unstable site topples once. The avalanche
size is the number of topplings, its area the number of distinct sites that toppled, its duration
the number of waves. Because the sandpile is abelian, size and final configuration do not depend on
the order of topplings; the wave order makes the duration well defined too.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from intellimetry.checks import check_float

# Sites, edges and heights are stored as int32: half the memory of int64, which is what the avalanche
# kernel's speed depends on once a system outgrows the CPU cache (a 3-D lattice of side 48 relaxes
# about 1.8x faster, and two systems side by side compete less for the shared cache).
INDEX_DTYPE = np.int32


@dataclass
class Sandpile:
    """A sandpile's topology (CSR neighbour lists and thresholds) and its current heights, all
    stored as INDEX_DTYPE (its sites and edges are checked to fit)."""
    indptr: np.ndarray     # neighbours of site i are indices[indptr[i]:indptr[i + 1]]
    indices: np.ndarray
    threshold: np.ndarray  # grains a toppling sends out (neighbours + grains to the sink)
    heights: np.ndarray
    description: str = ""

    def __post_init__(self):
        limit = np.iinfo(INDEX_DTYPE).max
        edges = int(self.indptr[-1]) if len(self.indptr) else 0
        if edges > limit or self.threshold.size > limit:
            raise ValueError(f"{self.description or 'sandpile'}: {self.threshold.size} sites and {edges} edges; "
                             f"at most {limit} of each fit the kernel's {np.dtype(INDEX_DTYPE).name} indices")
        for name in ("indptr", "indices", "threshold", "heights"):
            setattr(self, name, np.ascontiguousarray(getattr(self, name), dtype=INDEX_DTYPE))

    @property
    def n_sites(self) -> int:
        return self.threshold.size

    @property
    def sink_grains(self) -> np.ndarray:
        """Grains each toppling sends to the sink (lost)."""
        return self.threshold - np.diff(self.indptr)

    def copy(self) -> "Sandpile":
        return Sandpile(self.indptr, self.indices, self.threshold, self.heights.copy(), self.description)


def lattice(d: int, side: int, dissipation: int = 0) -> Sandpile:
    """A d-dimensional hypercubic lattice of side `side` with open boundaries (threshold 2d), empty.

    ``dissipation`` > 0 makes every site lose that many grains to the sink at each toppling (threshold
    2d + dissipation): bulk dissipation, which keeps the pile subcritical (avalanches have a finite
    size scale instead of a power law); the chapter's negative control."""
    if d < 1 or side < 2:
        raise ValueError(f"need dimension d >= 1 and side >= 2, got d = {d}, side = {side}")
    if isinstance(dissipation, bool) or not isinstance(dissipation, int | np.integer) or dissipation < 0:
        raise ValueError(f"dissipation must be an integer >= 0 (grains lost per toppling), got {dissipation!r}")
    n = side**d
    coords = np.indices((side,) * d).reshape(d, n)
    strides = side ** np.arange(d - 1, -1, -1)
    neighbours = []
    for axis in range(d):
        for step in (-1, 1):
            moved = coords[axis] + step
            inside = (moved >= 0) & (moved < side)
            target = np.arange(n) + step * strides[axis]
            neighbours.append(np.where(inside, target, -1))
    table = np.stack(neighbours, axis=1)  # n × 2d, -1 where the neighbour would be outside
    lost = f", {dissipation} grain(s) lost per toppling" if dissipation else ""
    return _from_neighbour_table(table, np.full(n, 2 * d + dissipation), f"{d}-D lattice, side {side}{lost}")


def graph(g, dissipative_fraction: float, rng: np.random.Generator, name: str = "graph") -> Sandpile:
    """A sandpile on a networkx graph: threshold = degree, + 1 for a random `dissipative_fraction`
    of the nodes (at least one), which lose one grain to the sink at every toppling."""
    import networkx as nx

    check_float("dissipative_fraction", dissipative_fraction, 0, 1, low_open=True)
    adjacency = nx.to_scipy_sparse_array(g, format="csr", dtype=np.int8)
    n = adjacency.shape[0]
    degree = np.diff(adjacency.indptr)
    if (degree == 0).any():
        raise ValueError("the graph has isolated nodes: a grain dropped there could never move")
    threshold = degree.copy()
    dissipative = rng.choice(n, size=max(1, round(dissipative_fraction * n)), replace=False)
    threshold[dissipative] += 1
    return Sandpile(adjacency.indptr, adjacency.indices, threshold, np.zeros(n), name)


def _from_neighbour_table(table: np.ndarray, threshold: np.ndarray, description: str) -> Sandpile:
    valid = table >= 0
    indptr = np.concatenate([[0], np.cumsum(valid.sum(axis=1))])
    return Sandpile(indptr, table[valid], threshold, np.zeros(table.shape[0]), description)
