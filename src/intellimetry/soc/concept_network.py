"""Figure 14: a concept network as a sandpile, and one perturbation cascading through it."""
from __future__ import annotations

import numpy as np

from intellimetry.plotting import COLORS
from intellimetry.soc.kernels import drive, drive_numpy
from intellimetry.soc.sandpile import graph
from intellimetry.soc.simulate import relax_to_stationary


def concept_network(nodes: int, neighbours: int, rewiring: float, seed: int):
    """Concepts coupled mostly to related concepts plus a few long-range links (Watts–Strogatz)."""
    import networkx as nx

    return nx.connected_watts_strogatz_graph(nodes, neighbours, rewiring, seed=seed)


def largest_cascade(g, dissipative_fraction: float, rng: np.random.Generator) -> dict:
    """Bring the network's sandpile to its stationary state, then perturb the concept whose single
    extra grain sets off the widest cascade; returns the wave at which each concept first toppled and the
    share of the concepts that toppled."""
    pile = graph(g, dissipative_fraction, rng, name="concept network")
    relax_to_stationary(pile, rng)
    areas = [drive(pile.copy(), np.array([node]))["area"][0] for node in range(pile.n_sites)]
    trigger = int(np.argmax(areas))
    first_wave = np.full(pile.n_sites, -1, dtype=np.int64)
    result = drive_numpy(pile, np.array([trigger]), first_wave=first_wave)
    return {"trigger": trigger, "first_wave": first_wave, "size": int(result["size"][0]),
            "area": int(result["area"][0]), "duration": int(result["duration"][0]),
            "share_toppled": int(result["area"][0]) / pile.n_sites,
            "dissipative": np.flatnonzero(pile.sink_grains > 0)}


def draw_cascade(ax, g, cascade: dict, seed: int, cmap: str = "viridis"):
    """Concepts coloured by the wave in which they first toppled; untouched ones grey; the perturbed
    concept ringed. Returns the colour mapping for a colour bar."""
    import matplotlib as mpl
    import networkx as nx

    position = nx.spring_layout(g, seed=seed)
    waves = cascade["first_wave"]
    norm = mpl.colors.Normalize(0, max(1, waves.max()))
    mapping = mpl.cm.ScalarMappable(norm=norm, cmap=cmap)
    colours = [mapping.to_rgba(w) if w >= 0 else "0.85" for w in waves]
    nx.draw_networkx_edges(g, position, ax=ax, edge_color="0.75", width=0.6)
    nx.draw_networkx_nodes(g, position, ax=ax, node_color=colours, node_size=60, edgecolors="0.3", linewidths=0.4)
    nx.draw_networkx_nodes(g, position, nodelist=[cascade["trigger"]], ax=ax, node_color="none", node_size=220,
                           edgecolors=COLORS["paper"], linewidths=2.0)
    ax.set_axis_off()
    return mapping
