"""Divergence speed: the full pairwise Δ matrix of 400 random Node-RED flows.

Flows are generated here (seeded): one `tab` node plus 3–12 nodes of six common types (inject,
function, http request, change, template, debug), a few properties each drawn from small value
pools (so same-type nodes often agree on some keys), wired as a DAG (each node after the first has
an earlier parent; a few extra forward wires). Δ is not symmetric in general (node similarity
counts only the first node's keys), so the full matrix is every ordered pair of distinct flows:
N·(N − 1) = 159,600 pairs for N = 400 (the diagonal is 0 by definition and not computed).
Association-graph construction and the maximum-weight clique search are timed separately.
Goal: the whole matrix in < 5 min on one core.

    .venv/bin/python benchmarks/bench_gindex_divergence.py [--flows 400] [--rule either] [--seed 0]
"""
from __future__ import annotations

import argparse
import random
import sys
import time

from intellimetry.gindex import association_graph, divergence, max_weight_clique, parse_flow

GOAL_SECONDS = 300.0
POOLS = {
    "inject": {
        "repeat": ["", "60", "3600"], "crontab": ["", "*/5 * * * *", "00 09 * * 1-5"], "once": [False, True],
        "topic": ["", "tick"], "payload": ["", "hello"], "payloadType": ["date", "str"],
    },
    "function": {
        "func": ["return msg;", "msg.payload = msg.payload.length;\nreturn msg;", "node.warn(msg);\nreturn null;"],
        "outputs": [1, 2], "noerr": [0],
    },
    "http request": {
        "method": ["GET", "POST"], "ret": ["txt", "obj"], "paytoqs": ["ignore", "query"],
        "url": ["https://example.com/api", "https://example.org/feed", "https://example.net/search"],
        "tls": [""], "persist": [False, True],
    },
    "change": {
        "rules": [[{"t": "set", "p": "payload", "pt": "msg", "to": "ok", "tot": "str"}],
                  [{"t": "delete", "p": "topic", "pt": "msg"}],
                  [{"t": "move", "p": "payload", "pt": "msg", "to": "data", "tot": "msg"}]],
        "action": [""], "property": [""], "reg": [False],
    },
    "template": {
        "field": ["payload"], "fieldType": ["msg"], "format": ["handlebars", "html"], "syntax": ["mustache", "plain"],
        "template": ["Hello {{payload}}", "<p>{{payload.title}}</p>", "Result: {{payload}}"], "output": ["str", "json"],
    },
    "debug": {
        "active": [True, False], "tosidebar": [True], "console": [False, True], "complete": ["payload", "true"],
    },
}
MIDDLE_TYPES = ["function", "http request", "change", "template"]


def random_flow(rng: random.Random) -> list[dict]:
    """One random Node-RED flow: a tab, an inject first, a debug last, a DAG in between."""
    tab_id = f"{rng.getrandbits(32):08x}.{rng.getrandbits(20):05x}"
    size = rng.randint(3, 12)
    types = ["inject"] + [rng.choice(MIDDLE_TYPES + ["debug"]) for _ in range(size - 2)] + ["debug"]
    ids = [f"{rng.getrandbits(32):08x}.{rng.getrandbits(20):05x}" for _ in types]
    nodes = []
    for i, node_type in enumerate(types):
        node = {"id": ids[i], "type": node_type, "z": tab_id, "name": rng.choice(["", f"step {i}"]),
                "x": rng.uniform(100, 900), "y": rng.uniform(40, 600), "wires": [[]]}
        node.update({key: rng.choice(values) for key, values in POOLS[node_type].items()})
        nodes.append(node)
    for i in range(1, size):  # every node after the first has an earlier parent: a connected DAG
        for parent in {rng.randrange(i)} | ({rng.randrange(i)} if rng.random() < 0.2 else set()):
            if nodes[parent]["type"] != "debug":  # debug nodes are sinks
                nodes[parent]["wires"][0].append(ids[i])
    tab = {"id": tab_id, "type": "tab", "label": "Flow 1", "disabled": False, "info": ""}
    return nodes + [tab]


def main(argv=None) -> int:
    """Time the full ordered Δ matrix; exit 1 if it misses the goal (scaled to 400 flows)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flows", type=int, default=400)
    parser.add_argument("--rule", default="either", choices=["either", "strict"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.flows < 2:
        parser.error("--flows must be at least 2")
    rng = random.Random(args.seed)
    start = time.perf_counter()
    graphs = [parse_flow(random_flow(rng)) for _ in range(args.flows)]
    parse_s = time.perf_counter() - start
    build_s = clique_s = 0.0
    vertices = edges = pairs = 0
    check = []
    for i, g1 in enumerate(graphs):
        for j, g2 in enumerate(graphs):
            if i == j:
                continue
            t0 = time.perf_counter()
            assoc = association_graph(g1, g2, args.rule)
            t1 = time.perf_counter()
            _, total = max_weight_clique(assoc)
            t2 = time.perf_counter()
            build_s, clique_s = build_s + t1 - t0, clique_s + t2 - t1
            vertices, edges, pairs = vertices + len(assoc), edges + assoc.number_of_edges(), pairs + 1
            if pairs % 997 == 1:  # spot-check against the public divergence()
                check.append(abs(divergence(g1, g2, args.rule) - (1 - (total / len(g1)) * (total / len(g2)))))
    total_s = build_s + clique_s
    projected = total_s * (400 * 399) / pairs
    nodes = sum(len(g) for g in graphs) / len(graphs)
    print(f"flows={args.flows} rule={args.rule} seed={args.seed} mean nodes/flow={nodes:.2f} (tab included)")
    print(f"ordered pairs={pairs}  parse={parse_s:.2f}s")
    print(f"association graphs: {build_s:.1f}s  mean {vertices / pairs:.1f} vertices, {edges / pairs:.1f} edges")
    print(f"clique search:      {clique_s:.1f}s")
    print(f"total {total_s:.1f}s = {pairs / total_s:.0f} pairs/s; max spot-check |Δ diff| = {max(check):.1e}")
    print(f"projected for 400 flows (159,600 ordered pairs): {projected:.0f}s (goal < {GOAL_SECONDS:.0f}s)")
    return 0 if projected < GOAL_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
