"""Flow parsing, node similarity, association graphs and the divergence Δ on hand-made flows."""
from __future__ import annotations

import json
import random

import networkx as nx
import pytest

from intellimetry.gindex import (
    FlowError,
    association_graph,
    divergence,
    divergence_of_texts,
    max_weight_clique,
    node_similarity,
    parse_flow,
    performance,
    skill_level,
)


def node(id_, type_, wires=(), **props):
    """A Node-RED node dict with one output port."""
    return {"id": id_, "type": type_, "x": 100, "y": 100, "z": "tab", "wires": [list(wires)], **props}


TAB = {"id": "tab", "type": "tab", "label": "Flow 1", "disabled": False, "info": ""}
# inject -> function -> debug, with a tab
CHAIN = [node("i", "inject", ["f"], repeat="60", topic="a"), node("f", "function", ["d"], func="return msg;"),
         node("d", "debug", active=True, complete="payload"), TAB]
# inject fans out to a function and a template that both feed one debug
DIAMOND = [node("i", "inject", ["f", "t"], repeat=""), node("f", "function", ["d"], func="return msg;", outputs=1),
           node("t", "template", ["d"], template="{{payload}}"), node("d", "debug", active=True), TAB]
SINGLE = [node("only", "debug", active=False)]


def random_flow(rng: random.Random, size: int) -> list[dict]:
    """A small random DAG flow of inject/function/debug nodes with a few properties and a tab."""
    nodes = []
    for k in range(size):
        type_ = "inject" if k == 0 else rng.choice(["function", "function", "debug"])
        props = {"inject": {"repeat": rng.choice(["", "60"])},
                 "function": {"func": rng.choice(["a", "b"]), "outputs": rng.choice([1, 2])},
                 "debug": {"active": rng.choice([True, False])}}[type_]
        nodes.append(node(f"n{k}", type_, **props))
    for k in range(1, size):
        for parent in {rng.randrange(k), rng.randrange(k)}:
            nodes[parent]["wires"][0].append(f"n{k}")
    return nodes + [dict(TAB)]


def random_pairs(count: int = 30, seed: int = 1):
    """Seeded pairs of small random flows (1–6 nodes plus a tab)."""
    rng = random.Random(seed)
    return [(random_flow(rng, rng.randint(1, 6)), random_flow(rng, rng.randint(1, 6))) for _ in range(count)]


# --- parsing ---------------------------------------------------------------------------------------

def test_parse_flow_builds_dag_with_tab_and_flattened_wires():
    flow = [node("a", "function", func="x"), node("b", "debug"), node("c", "debug"), TAB]
    flow[0]["wires"] = [["b"], ["c", "b"]]  # two output ports
    graph = parse_flow(json.dumps(flow))
    assert set(graph) == {"a", "b", "c", "tab"}
    assert set(graph.edges) == {("a", "b"), ("a", "c")}
    assert graph.nodes["a"]["node"]["func"] == "x"
    assert parse_flow("[]").number_of_nodes() == 0


@pytest.mark.parametrize("text, message", [
    ("[{", "malformed JSON"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"id": "a"}', "top level must be a list"),
    ('[{"type": "debug"}]', "has no 'id'"),
    ('[{"id": "a"}]', "has no 'type'"),
    ('[3]', "not an object"),
    ('[{"id": "a", "type": "debug"}, {"id": "a", "type": "debug"}]', "duplicate node id 'a'"),
    ('[{"id": "a", "type": "debug", "wires": [["ghost"]]}]', "dangling wire: 'a' -> 'ghost'"),
    ('[{"id": "a", "type": "f", "wires": [["b"]]}, {"id": "b", "type": "f", "wires": [["a"]]}]', "cycle"),
    ('[{"id": "a", "type": "f", "wires": [["a"]]}]', "cycle"),
    ('[{"id": "a", "type": "f", "wires": "b"}]', "wires must be a list"),
])
def test_flow_errors_name_the_problem(text, message):
    with pytest.raises(FlowError, match=message):
        parse_flow(text)


# --- node similarity -------------------------------------------------------------------------------

def test_node_similarity_cases():
    assert node_similarity(node("a", "debug"), node("b", "inject")) == 0  # different types
    # only ignored keys (id, x, y, z, wires, type, name): nothing to compare
    assert node_similarity(node("a", "debug", name="p"), node("b", "debug", active=True)) == 1
    half = node_similarity(node("a", "inject", repeat="60", topic="a"), node("b", "inject", repeat="60", topic="b"))
    assert half == 0.5
    # asymmetric: only u's keys count, and a key missing in v is a mismatch
    u, v = node("a", "function", func="f", outputs=1), node("b", "function", func="f")
    assert (node_similarity(u, v), node_similarity(v, u)) == (0.5, 1.0)


# --- hand-worked divergences -----------------------------------------------------------------------

def test_two_node_example():
    # s(i1, i2) = 1/2 (repeat equal, topic not), s(d1, d2) = 1; the wire i -> d exists in both,
    # so both vertices form a clique: S = 1.5, Δ = 1 - (1.5/2)(1.5/2) = 1 - 0.5625 = 0.4375
    g1 = parse_flow([node("i1", "inject", ["d1"], repeat="60", topic="t"), node("d1", "debug", active=True)])
    g2 = parse_flow([node("i2", "inject", ["d2"], repeat="60", topic="x"), node("d2", "debug", active=True)])
    assert divergence(g1, g2) == 0.4375


def test_two_node_reversed_edge_is_rejected_by_both_rules():
    # G1: x -> y, G2: y' -> x'. Vertices (x, x') and (y, y') with s = 1 ((x, y') has s = 0: funcs differ).
    # Their edges point in opposite directions, so no association edge: S = 1, Δ = 1 - 1/4 = 0.75
    g1 = parse_flow([node("x", "function", ["y"], func="x"), node("y", "function", func="y")])
    g2 = parse_flow([node("y2", "function", ["x2"], func="y"), node("x2", "function", func="x")])
    for rule in ("either", "strict"):
        assert association_graph(g1, g2, rule).number_of_edges() == 0
        assert divergence(g1, g2, rule) == 0.75


def test_three_node_example_with_tab():
    # inject -> change -> debug plus a tab in both flows, same wiring, partial matches:
    # s(i) = 2/3 (repeat, once equal; topic differs), s(c) = 1/2 (action equal; rules differ),
    # s(d) = 1/2 (active equal; complete differs), s(tab) = 1/2 (disabled equal; info differs; label ignored)
    # S = 2/3 + 1/2 + 1/2 + 1/2 = 13/6, |V| = 4: Δ = 1 - (13/24)^2 = 407/576 ≈ 0.706597
    def flow(topic, rules, complete, info):
        return parse_flow([node("i", "inject", ["c"], repeat="60", topic=topic, once=False),
                           node("c", "change", ["d"], rules=rules, action=""),
                           node("d", "debug", active=True, complete=complete),
                           {"id": "tab", "type": "tab", "label": topic, "disabled": False, "info": info}])
    g1 = flow("a", [{"t": "set", "p": "payload"}], "payload", "")
    g2 = flow("b", [{"t": "delete", "p": "payload"}], "true", "note")
    assert divergence(g1, g2) == pytest.approx(407 / 576, abs=1e-15)


def test_either_and_strict_differ_on_missing_edges():
    # G1: i -> f -> d (chain); G2: i -> d and i -> f (fan-out); all node pairs have s = 1.
    # (i,i)-(f,f): edge in both, accepted by both rules.
    # (i,i)-(d,d) and (f,f)-(d,d): edge on one side only. "either" accepts (the reverse ordering has no
    # edge on either side); "strict" rejects. either: S = 3, Δ = 0; strict: S = 2, Δ = 1 - (2/3)^2 = 5/9
    g1 = parse_flow([node("i", "inject", ["f"]), node("f", "function", ["d"]), node("d", "debug")])
    g2 = parse_flow([node("i", "inject", ["d", "f"]), node("f", "function"), node("d", "debug")])
    assert association_graph(g1, g2, "either").number_of_edges() == 3
    assert set(map(frozenset, association_graph(g1, g2, "strict").edges)) == {frozenset({("i", "i"), ("f", "f")})}
    assert divergence(g1, g2, "either") == 0.0
    assert divergence(g1, g2, "strict") == pytest.approx(5 / 9, abs=1e-15)


# --- properties --------------------------------------------------------------------------------------

@pytest.mark.parametrize("flow", [CHAIN, DIAMOND, SINGLE, [TAB]], ids=["chain", "diamond", "single", "tab"])
@pytest.mark.parametrize("rule", ["either", "strict"])
def test_divergence_to_itself_is_zero(flow, rule):
    assert divergence(parse_flow(flow), parse_flow(flow), rule) == 0.0


def test_empty_graph_gives_one():
    assert divergence(parse_flow([]), parse_flow(CHAIN)) == 1.0
    assert divergence(parse_flow(CHAIN), parse_flow([])) == 1.0


def test_bounds_and_self_on_random_pairs():
    for f1, f2 in random_pairs():
        g1, g2 = parse_flow(f1), parse_flow(f2)
        for rule in ("either", "strict"):
            assert 0.0 <= divergence(g1, g2, rule) <= 1.0
        assert divergence(g1, g1) == 0.0


def relabel(flow: list[dict], rng: random.Random) -> list[dict]:
    """The same flow with fresh ids (wires and z rewritten), moved positions and shuffled node order."""
    new = {n["id"]: f"{rng.getrandbits(32):08x}.{k}" for k, n in enumerate(flow)}
    out = []
    for n in flow:
        m = dict(n, id=new[n["id"]], x=rng.uniform(0, 999), y=rng.uniform(0, 999))
        if "wires" in n:
            m["wires"] = [[new[t] for t in port] for port in n["wires"]]
        if "z" in n:
            m["z"] = new.get(n["z"], n["z"])
        out.append(m)
    rng.shuffle(out)
    return out


def test_invariant_to_renaming_ids_and_moving_nodes():
    rng = random.Random(7)
    for f1, f2 in random_pairs(15, seed=3):
        for rule in ("either", "strict"):
            before = divergence(parse_flow(f1), parse_flow(f2), rule)
            assert divergence(parse_flow(relabel(f1, rng)), parse_flow(relabel(f2, rng)), rule) == before


def test_strict_edges_are_a_subset_of_either_edges():
    for f1, f2 in random_pairs(40, seed=5):
        g1, g2 = parse_flow(f1), parse_flow(f2)
        either, strict = association_graph(g1, g2, "either"), association_graph(g1, g2, "strict")
        assert set(strict) == set(either)
        assert {frozenset(e) for e in strict.edges} <= {frozenset(e) for e in either.edges}
        # a strict clique is an "either" clique, so S can only shrink and Δ only grow
        assert divergence(g1, g2, "strict") >= divergence(g1, g2, "either")


def test_association_graph_vertices_and_rule_check():
    assoc = association_graph(parse_flow(CHAIN), parse_flow(DIAMOND))
    # same-type pairs with s > 0: inject (repeat differs; topic missing in DIAMOND) has s = 0
    assert {v: w for v, w in assoc.nodes(data="weight")} == {("f", "f"): 1.0, ("d", "d"): 0.5, ("tab", "tab"): 1.0}
    with pytest.raises(ValueError, match="either, strict"):
        association_graph(parse_flow(CHAIN), parse_flow(CHAIN), rule="and")


def test_max_weight_clique_is_exact():
    # triangle of weight 1/3 each (total exactly 1) against a lone vertex of 999999/10**6:
    # rounding 1/3 to 333333/10**6 would tie them; exact LCM scaling picks the triangle
    assoc = nx.Graph()
    assoc.add_nodes_from([("a", {"weight": 1 / 3}), ("b", {"weight": 1 / 3}), ("c", {"weight": 1 / 3}),
                          ("d", {"weight": 0.999999})])
    assoc.add_edges_from([("a", "b"), ("b", "c"), ("a", "c")])
    clique, total = max_weight_clique(assoc)
    assert sorted(clique) == ["a", "b", "c"] and total == 1.0
    assert max_weight_clique(nx.Graph()) == ([], 0.0)


# --- texts, performance, skill ------------------------------------------------------------------------

@pytest.mark.parametrize("bad", ["", "[{", None, "[" * 100_000, '{"flow": []}',
                                 '[{"id": "a", "type": "f", "wires": [["a"]]}]',
                                 '[{"id": "a", "type": "debug", "wires": [["nope"]]}]'])
def test_unparseable_generated_program_scores_one(bad):
    assert divergence_of_texts(bad, CHAIN) == 1.0


def test_divergence_of_texts_parses_both():
    assert divergence_of_texts(json.dumps(CHAIN), json.dumps(CHAIN)) == 0.0
    assert divergence_of_texts(json.dumps(CHAIN), parse_flow(DIAMOND), "strict") == divergence(
        parse_flow(CHAIN), parse_flow(DIAMOND), "strict")


def test_performance_and_skill_level():
    assert performance([0.0, 0.5, 1.0, 0.0]) == 0.625  # mean of 1, 0.5, 0, 1
    assert skill_level([0.0, 0.5, 1.0, 0.0]) == 0.5
    for bad in ([], [1.5], [-0.1], [float("nan")]):
        with pytest.raises(ValueError):
            performance(bad)
