"""Divergence speed: the full pairwise Δ matrix of 400 generated Node-RED flows.

The flows are the project's task generators' reference flows (`intellimetry.gindex.domains`):
25 tasks from each of the 16 domains, seeded. Δ is not symmetric in general (node similarity
counts only the first node's keys), so the full matrix is every ordered pair of distinct flows:
N·(N − 1) = 159,600 pairs for N = 400 (the diagonal is 0 by definition and not computed).
Association-graph construction and the maximum-weight clique search are timed separately.
Goal: the whole matrix in < 5 min on one core.

    .venv/bin/python benchmarks/bench_gindex_divergence.py [--flows 400] [--rule either] [--seed 0]
"""
from __future__ import annotations

import argparse
import math
import sys
import time

from intellimetry.gindex import association_graph, divergence, max_weight_clique, parse_flow
from intellimetry.gindex.domains import DOMAINS, generate_corpus

GOAL_SECONDS = 300.0


def generated_flows(count: int, seed: int) -> list:
    """`count` reference flows, the same number from every domain (the first `count` of them)."""
    corpus = generate_corpus(DOMAINS, math.ceil(count / len(DOMAINS)), seed)
    interleaved = [task.flow for tasks in zip(*corpus.values()) for task in tasks]
    return interleaved[:count]


def main(argv=None) -> int:
    """Time the full ordered Δ matrix; exit 1 if it misses the goal (scaled to 400 flows)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flows", type=int, default=400)
    parser.add_argument("--rule", default="either", choices=["either", "strict"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.flows < 2:
        parser.error("--flows must be at least 2")
    start = time.perf_counter()
    graphs = [parse_flow(flow) for flow in generated_flows(args.flows, args.seed)]
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
