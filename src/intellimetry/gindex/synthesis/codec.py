"""Compact program text: a flow written as canonical JSON with only what Δ sees, and the flow rebuilt from it."""
from __future__ import annotations

import json
from collections import defaultdict

import networkx as nx

from intellimetry.gindex.divergence import IGNORED_KEYS
from intellimetry.gindex.flows import FlowError, parse_flow

# keys the compact text leaves out: everything Δ ignores except the type and the wiring
DROPPED_KEYS = IGNORED_KEYS - {"type", "wires"}
_RESERVED = ("id", "x", "y", "z")  # never in compact text: decode_flow sets them


def _is_tab(node: dict) -> bool:
    return node.get("type") == "tab"


def encode_flow(flow, keep_ignored: bool = False, id_refs: bool = False) -> str:
    """Canonical compact JSON text of a flow (JSON text or list of node dicts).

    Nodes come in topological order of the wiring DAG (ties by their order in the flow), tab nodes last.
    Each node loses `id`, `x`, `y`, `z` and, unless `keep_ignored`, the other keys Δ ignores (`name`,
    `label`, `group`, `tab`, `endpointUrl`); `wires` keep their port structure with each target id replaced
    by the target's index in this order. Keys are sorted at every depth and the JSON has no spaces, so the
    text does not depend on ids, positions or key order.

    Property values are kept verbatim, including strings that hold another node's id (a chat node's `bot`
    names its config node), so Δ(decode(encode(f)), f) = 0 for every flow, but then the text does depend on
    those ids. With `id_refs`, any string equal to a node's id (at any depth of any property but `type`) is
    written `{"$ref":index}` instead, which `decode_flow(..., id_refs=True)` turns into the fresh id: shorter
    text and a consistent flow, but Δ compares the fresh id with the reference's, so the round trip keeps
    Δ = 0 only for flows without such values. Raises FlowError for a flow that does not parse.
    """
    graph = parse_flow(flow)
    original = {node_id: k for k, node_id in enumerate(graph)}  # graph keeps the flow's node order
    nodes = {node_id: graph.nodes[node_id]["node"] for node_id in graph}
    topological = nx.lexicographical_topological_sort(graph, key=original.__getitem__)
    order = [n for n in topological if not _is_tab(nodes[n])]
    order += [n for n in graph if _is_tab(nodes[n])]
    index = {node_id: k for k, node_id in enumerate(order)}
    dropped = set(_RESERVED) | (set() if keep_ignored else DROPPED_KEYS)

    def refs(value):
        if isinstance(value, str) and value in index:
            return {"$ref": index[value]}
        if isinstance(value, dict):
            return {key: refs(v) for key, v in value.items()}
        if isinstance(value, list):
            return [refs(v) for v in value]
        return value

    compact = []
    for node_id in order:
        node = nodes[node_id]
        item = {key: refs(value) if id_refs and key != "type" else value for key, value in node.items()
                if key not in dropped and key != "wires"}
        if "wires" in node:  # config and tab nodes have no wires: keep that distinction
            item["wires"] = [[index[t] for t in port] if isinstance(port, list) else index[port]
                             for port in node["wires"]]
        compact.append(item)
    return json.dumps(compact, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _wire_index(value, n_nodes: int, where: str) -> int:
    """A wire target (or reference) of compact text: an int index of a node in the list."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise FlowError(f"{where}: {value!r} is not a node index")
    if not 0 <= value < n_nodes:
        raise FlowError(f"{where}: node index {value} out of range (the flow has {n_nodes} nodes)")
    return value


def _layout(flow: list[dict]) -> None:
    """Set x, y on wired nodes: columns by longest path from a source, rows by order within a column."""
    graph = parse_flow(flow)
    column: dict[str, int] = {}
    for node_id in nx.topological_sort(graph):
        column[node_id] = max((column[p] + 1 for p in graph.predecessors(node_id)), default=0)
    rows: dict[int, int] = defaultdict(int)
    for node in flow:
        if "wires" in node and not _is_tab(node):
            c = column[node["id"]]
            node["x"], node["y"] = 120 + 200 * c, 60 + 80 * rows[c]
            rows[c] += 1


def _resolve_refs(value, n_nodes: int, where: str):
    """Replace each {"$ref": index} by the fresh id of that node."""
    if isinstance(value, dict):
        if "$ref" in value:
            if len(value) != 1:
                raise FlowError(f"{where}: a reference must be {{\"$ref\": index}} alone, got keys {sorted(value)}")
            return f"n{_wire_index(value['$ref'], n_nodes, where)}"
        return {key: _resolve_refs(v, n_nodes, where) for key, v in value.items()}
    if isinstance(value, list):
        return [_resolve_refs(v, n_nodes, where) for v in value]
    return value


def decode_flow(text, add_tab: bool = False, id_refs: bool = False) -> list[dict]:
    """A Node-RED flow rebuilt from compact program text (see `encode_flow`); FlowError if it is not one.

    Nodes get fresh ids `n0`, `n1`, … (their index); nodes with `wires` get `z` (the first tab's id) and a
    layered x/y layout; config nodes (no `wires`) and tab nodes get neither, as in Node-RED. A missing tab is
    added only with `add_tab=True`: Δ counts the tab node, so inventing one would credit a generated program
    for a node it did not write. With `id_refs`, `{"$ref": index}` values become that node's id.
    """
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        raise FlowError(f"compact program text must be a string, got {type(text).__name__}")
    try:
        items = json.loads(text)
    except json.JSONDecodeError as err:
        raise FlowError(f"malformed JSON: {err}") from None
    except RecursionError:
        raise FlowError("malformed JSON: nested too deeply") from None
    if not isinstance(items, list):
        raise FlowError(f"top level must be a list of nodes, got {type(items).__name__}")
    n_nodes = len(items)
    flow = []
    for k, item in enumerate(items):
        if not isinstance(item, dict):
            raise FlowError(f"node #{k} is a {type(item).__name__}, not an object")
        if not isinstance(item.get("type"), str) or not item["type"]:
            raise FlowError(f"node #{k} has no non-empty string 'type'")
        reserved = [key for key in _RESERVED if key in item]
        if reserved:
            raise FlowError(f"node #{k} has reserved key(s) {reserved}: compact text has no ids or positions")
        if id_refs:
            item = {key: value if key in ("wires", "type") else _resolve_refs(value, n_nodes, f"node #{k}")
                    for key, value in item.items()}
        node = {"id": f"n{k}", **item}
        if "wires" in item:
            wires = item["wires"]
            if not isinstance(wires, list):
                raise FlowError(f"node #{k}: wires must be a list, got {type(wires).__name__}")
            node["wires"] = [[f"n{_wire_index(t, n_nodes, f'node #{k}')}" for t in port] if isinstance(port, list)
                             else f"n{_wire_index(port, n_nodes, f'node #{k}')}" for port in wires]
        flow.append(node)
    tabs = [node["id"] for node in flow if _is_tab(node)]
    if not tabs and add_tab:
        flow.append({"id": f"n{n_nodes}", "type": "tab", "label": "Flow 1", "disabled": False, "info": ""})
        tabs = [flow[-1]["id"]]
    for node in flow:
        if "wires" in node and not _is_tab(node) and tabs:
            node["z"] = tabs[0]
    _layout(flow)  # parse_flow inside rejects cycles (an index can point backwards)
    return flow
