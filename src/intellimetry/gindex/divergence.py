"""Divergence Δ between two flow programs via a maximum-weight clique of their association graph."""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import networkx as nx
import numpy as np

from intellimetry.gindex.flows import FlowError, parse_flow

# Keys never compared: identity, layout, wiring, and labels that carry no behaviour (spec).
IGNORED_KEYS = frozenset({"id", "x", "y", "z", "wires", "type", "endpointUrl", "name", "group", "tab", "label"})
RULES = ("either", "strict")
_MISSING = object()


def _match_ratio(u: dict, v: dict, ignored_keys=IGNORED_KEYS) -> tuple[int, int]:
    """(matching, comparable) key counts of u against v: (0, 1) for other types, (1, 1) if none comparable."""
    if u.get("type") != v.get("type"):
        return 0, 1
    keys = [k for k in u if k not in ignored_keys]
    if not keys:
        return 1, 1
    # plain Python equality of the parsed JSON values (so 1 == 1.0 == true); a key missing in v never matches
    return sum(1 for k in keys if v.get(k, _MISSING) == u[k]), len(keys)


def node_similarity(u: dict, v: dict, ignored_keys=IGNORED_KEYS) -> float:
    """Share of u's comparable keys whose value in v is equal; 0 for different types (not symmetric)."""
    matches, keys = _match_ratio(u, v, ignored_keys)
    return matches / keys


def _check_rule(rule: str) -> None:
    """Raise ValueError for an unknown association rule."""
    if rule not in RULES:
        raise ValueError(f"unknown association rule {rule!r}; allowed: {', '.join(RULES)}")


def _compatible(s1, s2, u1, v1, u2, v2, strict: bool) -> bool:
    """Whether the associations (u1, v1) and (u2, v2) preserve the edge structure."""
    forward = (u2 in s1[u1]) == (v2 in s2[v1])
    backward = (u1 in s1[u2]) == (v1 in s2[v2])
    # "either" (reference tool): in a DAG this only rejects edges pointing in opposite directions;
    # "strict" (textbook MCES): an edge on one side must be matched by the same edge on the other.
    return forward and backward if strict else forward or backward


def association_graph(g1: nx.DiGraph, g2: nx.DiGraph, rule: str = "either", ignored_keys=IGNORED_KEYS) -> nx.Graph:
    """Association graph: vertex (u, v) with weight s(u, v) > 0, edges between structure-preserving pairs."""
    _check_rule(rule)
    vertices = []
    for u, du in g1.nodes(data="node"):
        for v, dv in g2.nodes(data="node"):
            if du.get("type") == dv.get("type"):  # cheap filter: other types have s = 0
                matches, keys = _match_ratio(du, dv, ignored_keys)
                if matches:
                    vertices.append(((u, v), matches / keys))
    s1 = {u: set(g1.successors(u)) for u in g1}
    s2 = {v: set(g2.successors(v)) for v in g2}
    strict = rule == "strict"
    edges = []
    for i, ((u1, v1), _) in enumerate(vertices):
        for (u2, v2), _ in vertices[i + 1:]:
            # u1 != u2 and v1 != v2 keep the clique a one-to-one mapping
            if u1 != u2 and v1 != v2 and _compatible(s1, s2, u1, v1, u2, v2, strict):
                edges.append(((u1, v1), (u2, v2)))
    assoc = nx.Graph()
    assoc.add_nodes_from((vertex, {"weight": weight}) for vertex, weight in vertices)
    assoc.add_edges_from(edges)
    return assoc


@lru_cache(maxsize=4096)
def _exact(weight: float) -> Fraction:
    """The fraction k/n a float similarity came from (exact for n <= 10**6; distinct values are few)."""
    # two fractions with denominators <= 10**6 differ by >= 1e-12, far above float rounding (~1e-16)
    return Fraction(weight).limit_denominator(10**6)


def _max_clique_exact(assoc: nx.Graph) -> tuple[list, Fraction]:
    """Maximum-weight clique with its exact total weight, via integer-scaled weights."""
    if len(assoc) == 0:
        return [], Fraction(0)
    fractions = {vertex: _exact(w) for vertex, w in assoc.nodes(data="weight")}
    if any(f <= 0 for f in fractions.values()):
        raise ValueError("association-graph weights must be positive")
    # a vertex adjacent to all others lies in every maximum clique (weights > 0): take it directly,
    # which keeps the search small (the tab pair and unique source/sink pairs are usually universal)
    universal = [x for x, degree in assoc.degree() if degree == len(assoc) - 1]
    rest = set(assoc) - set(universal)
    # networkx needs integer weights: scale by the LCM of the denominators, so scaling is exact
    scale = math.lcm(*(f.denominator for f in fractions.values()))
    scaled = nx.Graph()
    scaled.add_nodes_from((x, {"w": fractions[x].numerator * (scale // fractions[x].denominator)}) for x in rest)
    scaled.add_edges_from((a, b) for a, b in assoc.edges if a in rest and b in rest)
    clique, total = nx.max_weight_clique(scaled, weight="w") if rest else ([], 0)
    return universal + clique, Fraction(total, scale) + sum(fractions[x] for x in universal)


def max_weight_clique(assoc: nx.Graph) -> tuple[list, float]:
    """Maximum-weight clique of an association graph (positive weights in attribute `weight`) and its weight."""
    # Each float weight is read back as the nearest fraction with denominator <= 10**6 (exactly the k/n
    # similarities that association_graph stores) and all are scaled by the LCM of the denominators, so the
    # integer search networkx needs compares clique weights exactly; rounding to 10**-6 could tie or swap them.
    clique, total = _max_clique_exact(assoc)
    return clique, float(total)


def clique_check(assoc: nx.Graph, clique) -> dict:
    """What Figure 4 asserts of a clique of the association graph, checked: its vertices are pairwise
    joined (`is_clique`), it maps nodes one to one (`one_to_one`), and no further association could
    join it (`maximal`); `is_common_subgraph` when all three hold."""
    clique = list(clique)
    members = set(clique)
    is_clique = all(v in assoc for v in clique) and all(
        assoc.has_edge(a, b) for i, a in enumerate(clique) for b in clique[i + 1:])
    left, right = [u for u, _ in clique], [v for _, v in clique]
    one_to_one = len(set(left)) == len(left) and len(set(right)) == len(right)
    maximal = is_clique and not any(all(assoc.has_edge(x, c) for c in clique) for x in assoc if x not in members)
    return {"is_clique": bool(is_clique), "one_to_one": bool(one_to_one), "maximal": bool(maximal),
            "is_common_subgraph": bool(is_clique and one_to_one and maximal)}


def _divergence_exact(g1: nx.DiGraph, g2: nx.DiGraph, rule: str, ignored_keys=IGNORED_KEYS) -> Fraction:
    """Δ as an exact fraction (so Δ(G, G) is exactly 0)."""
    if len(g1) == 0 or len(g2) == 0:
        return Fraction(1)
    _, total = _max_clique_exact(association_graph(g1, g2, rule, ignored_keys))
    return 1 - (total / len(g1)) * (total / len(g2))


def divergence(g1: nx.DiGraph, g2: nx.DiGraph, rule: str = "either", ignored_keys=IGNORED_KEYS) -> float:
    """Δ = 1 − (S/|V1|)(S/|V2|), S = weight of the maximum clique; 1 if either graph is empty."""
    _check_rule(rule)
    return float(_divergence_exact(g1, g2, rule, ignored_keys))


def divergence_of_texts(generated_text, reference_flow, rule: str = "either", ignored_keys=IGNORED_KEYS) -> float:
    """Δ of a generated program against a reference; 1.0 when the generated program does not parse."""
    _check_rule(rule)
    # a reference that does not parse is the caller's bug, so its FlowError propagates
    reference = reference_flow if isinstance(reference_flow, nx.DiGraph) else parse_flow(reference_flow)
    try:
        generated = parse_flow(generated_text)
    except FlowError:  # a broken generated program scores the worst divergence, never an exception
        return 1.0
    return divergence(generated, reference, rule, ignored_keys)


def _deltas(deltas) -> np.ndarray:
    """Divergences as a checked 1-d float array in [0, 1]."""
    values = np.asarray(deltas, dtype=float).ravel()
    if values.size == 0:
        raise ValueError("need at least one divergence")
    if np.isnan(values).any() or (values < 0).any() or (values > 1).any():
        raise ValueError("divergences must lie in [0, 1]")
    return values


def performance(deltas) -> float:
    """θ = mean of 1 − Δ over tasks."""
    return float(np.mean(1.0 - _deltas(deltas)))


def skill_level(deltas) -> float:
    """Share of tasks solved perfectly (Δ == 0)."""
    return float(np.mean(_deltas(deltas) == 0.0))
