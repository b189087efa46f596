"""Drawings for the g-index chapter: a flow as a DAG, an association graph with its maximum clique,
a domain-distance heat map, the responsiveness curves (Figures 6-7), and the synthesis run per test domain
(parse rates, best θ beside Table 2)."""
from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

from intellimetry.plotting.style import COLORS


def dag_layout(graph: nx.DiGraph) -> dict:
    """Wired nodes by topological generation, left to right; unwired nodes (the tab node, config
    nodes) in a row underneath."""
    wired = graph.subgraph(n for n in graph if graph.degree(n) > 0)
    pos = {}
    for layer, nodes in enumerate(nx.topological_generations(wired)):
        for rank, node in enumerate(sorted(nodes, key=str)):
            pos[node] = (float(layer), (len(nodes) - 1) / 2 - rank)
    bottom = min((y for _, y in pos.values()), default=0.0) - 1.2
    for column, node in enumerate(n for n in graph if n not in pos):
        pos[node] = (float(column), bottom)
    return pos


def node_label(graph: nx.DiGraph, node) -> str:
    """A node's type, wrapped for a small drawing."""
    return "\n".join(textwrap.wrap(graph.nodes[node]["node"]["type"], 9, break_on_hyphens=True))


def draw_flow(ax, graph: nx.DiGraph, title: str = "", font_size: float = 8) -> None:
    """A flow's DAG: one box per node labelled with its type, arrows for wires."""
    pos = dag_layout(graph)
    # arrows stop at a box as wide as its label (node_size is the square of the box's width in points)
    widths = [font_size * (0.55 * max(map(len, node_label(graph, n).split("\n"))) + 1.0) for n in graph]
    nx.draw_networkx_edges(graph, pos, ax=ax, arrows=True, arrowsize=10, edge_color="0.4",
                           node_size=[w ** 2 for w in widths])
    nx.draw_networkx_labels(graph, pos, {n: node_label(graph, n) for n in graph}, ax=ax, font_size=font_size,
                            bbox={"boxstyle": "round,pad=0.3", "fc": "white", "ec": COLORS["ours"]})
    ax.set_title("\n".join(textwrap.wrap(title, 80)), fontsize=font_size + 1)
    xs, ys = zip(*pos.values())  # labels do not widen the axes by themselves
    ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
    ax.set_ylim(min(ys) - 0.6, max(ys) + 0.6)
    ax.set_axis_off()


def flow_span(graph: nx.DiGraph) -> float:
    """The height of a flow's drawing in layout units (rows of nodes and the margins draw_flow adds)."""
    ys = [y for _, y in dag_layout(graph).values()]
    return max(ys) - min(ys) + 1.2


def draw_association(ax, assoc: nx.Graph, clique, g1: nx.DiGraph, g2: nx.DiGraph, font_size: float = 8) -> None:
    """The association graph: vertex (u, v) labelled with the node types and s(u, v); the
    maximum-weight clique coloured, its edges dark, every other edge light."""
    in_clique = set(clique)
    pos = nx.circular_layout(sorted(assoc.nodes, key=str))
    clique_edges = [e for e in assoc.edges if e[0] in in_clique and e[1] in in_clique]
    other_edges = [e for e in assoc.edges if e not in clique_edges]
    nx.draw_networkx_edges(assoc, pos, edgelist=other_edges, ax=ax, edge_color="0.85", width=0.8)
    nx.draw_networkx_edges(assoc, pos, edgelist=clique_edges, ax=ax, edge_color=COLORS["neutral"], width=1.8)
    colours = [COLORS["autonomous"] if v in in_clique else "white" for v in assoc.nodes]
    # a circle wide enough for its three lines of up to ten characters
    nx.draw_networkx_nodes(assoc, pos, ax=ax, node_size=(6.5 * font_size) ** 2, node_color=colours, edgecolors="0.3")
    labels = {(u, v): f"{g1.nodes[u]['node']['type'][:10]}\n{g2.nodes[v]['node']['type'][:10]}\n"
                      f"s={assoc.nodes[(u, v)]['weight']:.2f}" for u, v in assoc.nodes}
    nx.draw_networkx_labels(assoc, pos, labels, ax=ax, font_size=font_size)
    ax.margins(0.12)
    ax.set_axis_off()


def draw_domain_distance(ax, omega: np.ndarray, names, annotate: bool = True,
                         font_size: float = 7) -> plt.cm.ScalarMappable:
    """Ω as a heat map, rows = test domain, columns = curriculum domain; returns the image."""
    image = ax.imshow(omega, cmap="viridis", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(names)), names, rotation=90, fontsize=font_size)
    ax.set_yticks(range(len(names)), names, fontsize=font_size)
    ax.set_xlabel("curriculum domain b")
    ax.set_ylabel("test domain a")
    ax.grid(False)
    if annotate:
        for (a, b), value in np.ndenumerate(omega):
            ax.text(b, a, f"{value:.2f}".lstrip("0") if value < 1 else "1", ha="center", va="center", fontsize=5,
                    color="white" if value < 0.5 else "black")
    return image


def plot_curves(ax, result: dict, xlabel: str, band: str = "min–max of the random splits") -> None:
    """One line per θ (the evenly split curriculum), the mean of the random splits dashed, their range shaded."""
    for t, theta in enumerate(result["thetas"]):
        colour = f"C{t}"
        ax.plot(result["x"], result["even"][t], color=colour, lw=1.6, label=f"θ = {theta:g}")
        ax.plot(result["x"], result["mean"][t], color=colour, lw=0.9, ls="--")
        ax.fill_between(result["x"], result["min"][t], result["max"][t], color=colour, alpha=0.18, lw=0)
    ax.set_yscale("log")
    ax.set(xlabel=xlabel, ylabel="g-index (log scale)")
    ax.plot([], [], color="0.4", ls="--", lw=0.9, label="mean of random splits")
    ax.fill_between([], [], [], color="0.4", alpha=0.18, label=band)


def draw_parse_rates(ax, rows: dict, threshold: float) -> None:
    """Per test domain (measurement.domain_rows): the share of the models' programs that decode under the
    grammar, that decode with no token changed by it, and the untrained models' share."""
    names = list(rows)
    y = np.arange(len(names))
    bars = (("parseable", "decode (grammar)", COLORS["ours"]), ("unaided", "decode unaided", COLORS["capable"]),
            ("untrained_parseable", "untrained model", COLORS["limited"]))
    for k, (key, label, colour) in enumerate(bars):
        ax.barh(y + (k - 1) * 0.27, [rows[d][key] for d in names], height=0.27, color=colour, label=label)
    ax.axvline(threshold, color="0.3", ls=":", lw=1)
    ax.set(yticks=y, yticklabels=names, xlim=(0, 1.02), xlabel="share of generated programs")
    ax.invert_yaxis()
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.2 / len(names)), ncol=3, fontsize=8)


def draw_domain_theta(ax, rows: dict) -> None:
    """Table 2: our best θ per test domain (and the untrained model's) beside the paper's best θ."""
    names = list(rows)
    y = np.arange(len(names))
    ours = [rows[d]["best_theta"] for d in names]
    ax.barh(y - 0.2, ours, height=0.4, color=COLORS["ours"], label="ours (best model)")
    paper = [np.nan if rows[d]["paper_theta"] is None else rows[d]["paper_theta"] for d in names]
    ax.barh(y + 0.2, paper, height=0.4, color=COLORS["paper"], label="paper (Table 2)")
    ax.plot([rows[d]["untrained_theta"] for d in names], y - 0.2, "k|", ms=9, label="untrained model")
    ax.set(yticks=y, yticklabels=names, xlim=(0, 1.02), xlabel="best θ")
    ax.invert_yaxis()
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.2 / len(names)), ncol=3, fontsize=8)
