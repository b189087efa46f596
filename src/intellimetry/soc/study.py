"""One avalanche experiment per system: relax, record, fit; the rows the chapter's figures draw."""
from __future__ import annotations

import time

import numpy as np

from intellimetry.soc.sandpile import Sandpile, graph, lattice
from intellimetry.soc.simulate import fit_avalanche_exponent, record_avalanches, relax_to_stationary

NETWORK_KINDS = ("random_regular", "erdos_renyi")
TAU_FLOOR = 1.01  # a fit this close to the estimator's lower bound means "no power law"


def make_network(kind: str, mean_degree: int, nodes: int, seed: int):
    """A random regular graph, or the largest connected component of an Erdős–Rényi graph."""
    import networkx as nx

    if kind == "random_regular":
        return nx.random_regular_graph(mean_degree, nodes, seed=seed)
    if kind == "erdos_renyi":
        g = nx.gnp_random_graph(nodes, mean_degree / (nodes - 1), seed=seed)
        return nx.convert_node_labels_to_integers(g.subgraph(max(nx.connected_components(g), key=len)).copy())
    raise ValueError(f"unknown network kind {kind!r}; allowed: {', '.join(NETWORK_KINDS)}")


def avalanche_experiment(pile: Sandpile, grains: int, s_min: int, s_max_fraction: float, resamples: int,
                         rng: np.random.Generator, kernel: str = "numba") -> dict:
    """Relax `pile` to its stationary state, record `grains` avalanches and fit tau on
    [s_min, max(10 s_min, s_max_fraction × largest avalanche)]: the fit stays below the
    finite-size cutoff, where the distribution bends down."""
    started = time.monotonic()
    warm = relax_to_stationary(pile, rng, kernel=kernel)
    avalanches = record_avalanches(pile, grains, rng, kernel=kernel)
    sizes = avalanches["size"]
    s_max = max(10 * s_min, int(s_max_fraction * sizes.max()))
    fit = fit_avalanche_exponent(sizes, s_min, s_max, resamples, rng)
    return {
        "system": pile.description, "sites": pile.n_sites, **fit, "power_law": fit["tau"] > TAU_FLOOR,
        "warmup_grains": warm["grains"], "mean_height": warm["mean_height"],
        "largest": int(sizes.max()), "topplings": int(sizes.sum()), "mean_size": float(sizes.mean()),
        "seconds": time.monotonic() - started, "sizes": sizes,
    }


def lattice_experiment(d: int, side: int, **kwargs) -> dict:
    return {"d": d, "side": side, **avalanche_experiment(lattice(d, side), **kwargs)}


def network_experiment(kind: str, mean_degree: int, nodes: int, dissipative_fraction: float, seed: int,
                       **kwargs) -> dict:
    g = make_network(kind, mean_degree, nodes, seed)
    pile = graph(g, dissipative_fraction, np.random.default_rng(seed), name=f"{kind}, mean degree {mean_degree}")
    measured_degree = 2 * g.number_of_edges() / g.number_of_nodes()
    return {"kind": kind, "mean_degree": mean_degree, "measured_degree": measured_degree,
            **avalanche_experiment(pile, **kwargs)}
