"""Node-RED flows as directed acyclic graphs (the programs of the g-index)."""
from __future__ import annotations

import json

import networkx as nx


class FlowError(ValueError):
    """A program that is not a well-formed Node-RED flow."""


def _load(text_or_list):
    """The flow as a Python list of nodes, from JSON text or an already parsed list."""
    if isinstance(text_or_list, (bytes, bytearray)):
        text_or_list = text_or_list.decode("utf-8", errors="replace")
    if isinstance(text_or_list, str):
        try:
            text_or_list = json.loads(text_or_list)
        except json.JSONDecodeError as err:
            raise FlowError(f"malformed JSON: {err}") from None
        except RecursionError:  # absurdly deep nesting, e.g. from a degenerate generated program
            raise FlowError("malformed JSON: nested too deeply") from None
    if not isinstance(text_or_list, list):
        raise FlowError(f"top level must be a list of nodes, got {type(text_or_list).__name__}")
    return text_or_list


def _targets(node: dict) -> list:
    """Flattened `wires` of a node: Node-RED nests one list of targets per output port."""
    wires = node.get("wires", [])  # tab and config nodes have no wires
    if not isinstance(wires, list):
        raise FlowError(f"node {node['id']!r}: wires must be a list, got {type(wires).__name__}")
    targets = []
    for port in wires:
        # a flat list of ids is tolerated: some generators write [id, ...] for a single port
        for target in port if isinstance(port, list) else [port]:
            if not isinstance(target, str):
                raise FlowError(f"node {node['id']!r}: wire target {target!r} is not a string id")
            targets.append(target)
    return targets


def _check_node(index: int, node) -> None:
    """Raise FlowError unless the node is a dict with string id and type."""
    if not isinstance(node, dict):
        raise FlowError(f"node #{index} is a {type(node).__name__}, not an object")
    for key in ("id", "type"):
        if key not in node:
            raise FlowError(f"node #{index} has no {key!r}")
        if not isinstance(node[key], str) or not node[key]:
            raise FlowError(f"node #{index}: {key!r} must be a non-empty string, got {node[key]!r}")


def parse_flow(text_or_list) -> nx.DiGraph:
    """Parse a Node-RED flow (JSON text or list of node dicts) into its DAG."""
    nodes = _load(text_or_list)
    graph = nx.DiGraph()
    for index, node in enumerate(nodes):
        _check_node(index, node)
        if node["id"] in graph:
            raise FlowError(f"duplicate node id {node['id']!r}")
        graph.add_node(node["id"], node=node)  # V includes the tab node, as in the spec
    for node in nodes:
        for target in _targets(node):
            if target not in graph:
                raise FlowError(f"dangling wire: {node['id']!r} -> {target!r} (no such node)")
            graph.add_edge(node["id"], target)
    if not nx.is_directed_acyclic_graph(graph):
        cycle = [u for u, _ in nx.find_cycle(graph)]
        raise FlowError("cycle in wires: " + " -> ".join(map(repr, cycle + cycle[:1])))
    return graph


def dag_check(flow) -> dict:
    """What drawing a flow as a DAG asserts, checked: its nodes, edges and node types, and `is_dag`, true
    when it parses into an acyclic graph with one vertex per JSON node and one edge per distinct wire."""
    try:
        graph = parse_flow(flow)
    except FlowError:
        return {"nodes": 0, "edges": 0, "types": [], "is_dag": False}
    nodes = _load(flow)
    wires = {(node["id"], target) for node in nodes for target in _targets(node)}
    is_dag = (nx.is_directed_acyclic_graph(graph) and graph.number_of_nodes() == len(nodes)
              and set(graph.edges) == wires)
    return {"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges(),
            "types": sorted({graph.nodes[n]["node"]["type"] for n in graph}), "is_dag": bool(is_dag)}
