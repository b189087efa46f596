"""The g-index chapter's controls (issue 32), each on a case with a known answer and each failing its
claim's criterion there: shuffled domain labels (Figure 5), random training programs in place of a
model's answers (Figures 9-12, Table 2), a random ranker (Table 1); and the paper's own numbers shaped
like our values (paper_values), with the helpers they rest on."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from intellimetry import verdicts
from intellimetry.gindex import (
    domain_distance_from_pairwise,
    domain_distance_matrix,
    pairwise_divergences,
    parse_flow,
    within_domain_from_pairwise,
)
from intellimetry.gindex import paper_values as pv
from intellimetry.gindex.domains import DOMAINS, generate_corpus, generate_tasks
from intellimetry.gindex.nulls import random_program_nulls, random_ranking, shuffled_groups
from intellimetry.gindex.reference import load_table1
from intellimetry.gindex.study import (
    OMEGA_PRECISION,
    corpus_graphs,
    distance_intervals,
    domain_distance_study,
    grid_words,
    shifted_omega,
    synthesis_claims,
    synthesis_control,
    table1_intervals,
    theta_against_paper,
    within_domain_divergence,
)
from intellimetry.gindex.synthesis import ExperimentResult, encode_flow, rescore, score_program

ITEMS = {item["id"]: item for item in verdicts.load_items("gindex")["items"]}


def judged(item_id: str, values) -> str:
    return verdicts.judge(ITEMS[item_id]["criterion"], values)[0]


# --------------------------------------------------------------------------- Figure 5: shuffled labels

def test_omega_and_within_from_pairwise_divergences_equal_the_direct_computation():
    graphs = corpus_graphs(generate_corpus(DOMAINS[:4], 3, 1))
    flat = [g for gs in graphs.values() for g in gs]
    groups = {name: list(range(3 * k, 3 * k + 3)) for k, name in enumerate(graphs)}
    pairwise = pairwise_divergences(flat)
    assert pairwise[0][0] is None and pairwise[0][1] is not None
    names, omega = domain_distance_from_pairwise(pairwise, groups)
    direct_names, direct = domain_distance_matrix(graphs)
    assert names == direct_names and np.array_equal(omega, direct)
    assert within_domain_from_pairwise(pairwise, groups) == pytest.approx(within_domain_divergence(graphs))
    with pytest.raises(ValueError, match="share out"):
        domain_distance_from_pairwise(pairwise, {"a": [0, 1], "b": [1]})
    with pytest.raises(ValueError, match="at least one task"):
        within_domain_from_pairwise(pairwise[:1], {"a": [0], "b": []})


def test_shuffled_groups_keep_each_domain_size_and_deal_every_task_once():
    groups = {"a": [0, 1, 2], "b": [3, 4], "c": [5, 6, 7, 8]}
    dealt = shuffled_groups(groups, seed=3)
    assert {k: len(v) for k, v in dealt.items()} == {"a": 3, "b": 2, "c": 4}
    assert sorted(k for v in dealt.values() for k in v) == list(range(9))
    assert dealt != groups and dealt == shuffled_groups(groups, seed=3)


def test_distance_intervals_by_hand():
    omega = np.array([[0.0, 0.8, 0.8], [0.8, 0.0, 0.8], [0.8, 0.8, 0.0]])
    intervals = distance_intervals(omega, [0.2, 0.2, float("nan")], seed=0, resamples=50)
    # every resample of identical values gives the same mean: the intervals are points
    assert intervals["within_domain_interval"] == pytest.approx([0.2, 0.2])
    assert intervals["omega_off_diagonal_interval"] == pytest.approx([0.8, 0.8])


def test_shuffled_labels_fail_the_figure5_claim_that_real_domains_pass():
    """Generated tasks: within a domain close, across far; dealt at random, "within a domain" is as far
    as across, so the control fails Fig. 5's criterion."""
    names = list(DOMAINS[:6])
    graphs = corpus_graphs(generate_corpus(names, 3, 0))
    authors = pd.DataFrame(np.full((6, 6), 0.9) - 0.9 * np.eye(6), index=names, columns=names)
    got_names, omega, values = domain_distance_study(graphs, authors, seed=0, resamples=200)
    assert got_names == names and omega.shape == (6, 6) and "omega" not in values["control"]
    assert set(values["control"]) == set(values) - {"omega", "control"}
    assert values["within_domain_interval"][0] <= values["within_domain_mean"] <= values["within_domain_interval"][1]
    assert judged("fig05", values) == verdicts.HOLDS
    assert values["control"]["within_domain_mean"] > 0.5
    assert judged("fig05", values["control"]) == verdicts.FAILS
    assert verdicts.verdict(ITEMS["fig05"], values)["verdict"] == verdicts.REPRODUCED


# --------------------------------------------------------------------------- Figures 9-12: random programs

def node(nid: str, kind: str, targets=(), **props) -> dict:
    return {"id": nid, "type": kind, "z": "t", "wires": [list(targets)], **props}


CHAIN = [{"id": "t", "type": "tab"}, node("a", "inject", ["b"], topic="go"), node("b", "function", ["c"], func="x"),
         node("c", "change", ["d"], rules="r"), node("d", "template", ["e"], template="y"),
         node("e", "debug", [], complete="payload")]


def prefix(n: int) -> list[dict]:
    """The tab node and the chain's first n - 1 nodes, the last one unwired: a program of n nodes."""
    flow = [dict(x) for x in CHAIN[:n]]
    flow[-1]["wires"] = [[]]
    return flow


def experiment(size: str, samples: int, flops: float, params: int, tasks: list) -> ExperimentResult:
    """A trained model's record with no answers scored yet (rescore fills them in)."""
    per_domain: dict[str, int] = {}
    for task in tasks[:samples]:
        per_domain[task.domain] = per_domain.get(task.domain, 0) + 1
    return ExperimentResult(
        size=size, pretrained=None, seed=0, steps=1, batch_size=1, learning_rate=1e-3, n_layer=1, n_embd=8,
        n_head=1, n_positions=8, vocab_size=8, params=params, non_embedding_params=params,
        train_samples=samples, train_samples_per_domain=per_domain, tokens=1, padded_tokens=1, flops=flops,
        attention_flops=0.0, petaflops=flops / 1e15, seconds=0.0, eval_seconds=0.0, max_new_tokens=8, theta=0.0,
        perfects=0.0, parseable=0.0, domains={}, task_domains=[], task_deltas=[], generations=[], losses=[])


def test_rescore_scores_given_answers_as_a_model_is_scored_and_keeps_the_cost():
    test = [SimpleNamespace(domain="d", spec="s", flow=prefix(n)) for n in (3, 6)]
    base = experiment("tiny", 4, 1e9, 100, test)
    texts = [encode_flow(prefix(6)), "not a program"]
    scored = rescore(base, texts, test)
    assert scored.task_deltas == [score_program(texts[0], test[0].flow)[0], 1.0]
    assert (scored.parseable, scored.perfects) == (0.5, 0.0) and scored.generations == texts
    assert scored.domains["d"].theta == pytest.approx(scored.theta) and scored.domains["d"].n == 2
    assert (scored.flops, scored.train_samples, scored.params) == (1e9, 4, 100)
    perfect = rescore(base, [encode_flow(t.flow) for t in test], test)
    assert perfect.theta == 1.0 and perfect.perfects == 1.0


def test_random_programs_rise_with_program_size_here_and_fail_the_figure9_claim():
    """Known case: every null answers with the whole chain (its only training program); against a
    reference that is the chain's first n nodes it matches all n, so θ = n² / (n · 6) = n / 6 rises
    with the size of the program, the opposite of Fig. 9's fall."""
    sizes = [n for n in (2, 3, 4, 5, 6) for _ in range(2)]
    test = [SimpleNamespace(domain=f"d{n}", spec=f"task {n}", flow=prefix(n)) for n in sizes]
    train = {1: [SimpleNamespace(domain="d6", spec="the chain", flow=prefix(6))]}
    results = [experiment("tiny", 1, 1e9 * (k + 1), 100 * (k + 1), train[1]) for k in range(3)]
    nulls = random_program_nulls(results, train, test, seed=0)
    assert all([1 - d for d in null.task_deltas] == pytest.approx([n / 6 for n in sizes]) for null in nulls)
    assert [(null.flops, null.params) for null in nulls] == [(r.flops, r.params) for r in results]
    claims = synthesis_claims(nulls, test, g=[3.0, 2.0, 1.0], paper_best={f"d{n}": 1.0 for n in (2, 3, 4, 5, 6)})
    assert claims["size_trend"]["theta_rho"] == pytest.approx(1.0)
    assert judged("fig09", claims) == verdicts.FAILS
    # every null has the same θ, so the first (cheapest) is both the best θ and the best g: no trade-off
    assert judged("fig11", claims) == verdicts.FAILS and judged("fig12", claims) == verdicts.FAILS
    with pytest.raises(ValueError, match="no training set of 5 tasks"):
        random_program_nulls([experiment("tiny", 5, 1.0, 1, train[1])], train, test, seed=0)


def test_synthesis_control_is_judged_like_our_models():
    tasks = {d: generate_tasks(d, 3, 0) for d in DOMAINS[:2]}
    train = {1: [ts[0] for ts in tasks.values()], 2: [t for ts in tasks.values() for t in ts[:2]]}
    test = [ts[2] for ts in tasks.values()]
    results = [experiment("tiny", 2, 2e9, 100, train[1]), experiment("small", 4, 4e9, 400, train[2])]
    names, omega = list(tasks), np.array([[0.0, 0.9], [0.8, 0.0]])
    control = synthesis_control(results, train, test, omega, names, "GF", "log2", 1e-4, {d: 1.0 for d in names}, 0)
    assert set(control) == {"size_trend", "domain_theta", "tradeoff", "model_thetas", "mean_theta", "max_theta",
                            "max_parseable"}
    assert list(control["model_thetas"]) == ["m1", "m2"] and control["max_parseable"] == 1.0
    for item_id in ("fig09", "fig10", "fig11", "fig12", "tab02"):
        assert judged(item_id, control) in (verdicts.HOLDS, verdicts.FAILS, verdicts.UNDECIDED)


def test_grid_words_and_the_paper_gap():
    assert grid_words(["tiny", "small", "medium"], [2, 4, 8], {"a": [1.0], "b": None}) == {
        "sizes": "tiny, small and medium", "samples_per_domain": "2, 4 and 8", "undefined_variants": "b"}
    assert grid_words(["tiny"], [2], {"a": [1.0]})["undefined_variants"] == "none"
    gap = theta_against_paper(0.5)
    assert gap["paper_best_theta"] == 0.708 and gap["theta_gap"] == pytest.approx(0.5 - 0.708)


# --------------------------------------------------------------------------- Table 1: a random ranker

def test_shifted_omega_moves_the_off_diagonal_and_clips():
    frame = pd.DataFrame([[0.0, 0.995], [0.004, 0.0]], index=["a", "b"], columns=["a", "b"])
    assert shifted_omega(frame, 0.01).to_numpy().tolist() == [[0.0, 1.0], [0.014, 0.0]]
    assert shifted_omega(frame, -0.01).to_numpy() == pytest.approx(np.array([[0.0, 0.985], [0.0, 0.0]]))
    assert list(shifted_omega(frame, 0.01).index) == ["a", "b"]


def test_table1_intervals_bracket_each_run_by_the_omega_precision():
    from intellimetry.gindex.reference import load_domain_distance, load_table1_inputs
    from intellimetry.gindex.study import table1_g_indices

    records, omega = load_table1_inputs(), load_domain_distance("either")
    runs = list(load_table1()["rows"])[:2]
    g = table1_g_indices(records, runs, omega)
    intervals = table1_intervals(records, runs, omega)
    for run in runs:
        low, high = intervals[run]
        # the authors' Ω has cells near 0 and 1 where the shift is clipped: at most e^{±10·0.01/2}
        assert low < g[run]["g"] < high and high / g[run]["g"] <= math.exp(5 * OMEGA_PRECISION) + 1e-12
    assert table1_intervals(records, runs, omega, precision=0.0)[runs[0]] == [g[runs[0]]["g"]] * 2
    with pytest.raises(ValueError, match="precision"):
        table1_intervals(records, runs, omega, precision=-1)


def test_a_random_ranker_deals_the_values_and_fails_both_table1_criteria():
    g = {f"r{k}": float(k) for k in range(1, 6)}
    intervals = {run: [value - 0.1, value + 0.1] for run, value in g.items()}
    control = random_ranking(g, intervals, seed=1)
    assert sorted(control["g_by_run"].values()) == sorted(g.values()) and control["g_by_run"] != g
    assert all(control["intervals"][run] == intervals[row["dealt_from"]] for run, row in control["rows"].items())
    assert random_ranking(g, intervals, seed=1) == control
    # on the real table: our values hold tab01, the dealt ones fail it and the ranking
    paper = pv.table1()
    dealt = random_ranking(paper["g_by_run"], paper["intervals"], seed=0)
    assert judged("tab01", paper) == verdicts.HOLDS and judged("tab01-rank", paper) == verdicts.HOLDS
    assert judged("tab01", dealt) == verdicts.FAILS and judged("tab01-rank", dealt) == verdicts.FAILS


# --------------------------------------------------------------------------- the paper's own numbers

def test_model_parameters_from_table1_names():
    assert pv.model_parameters("GPT2-345M") == 3.45e8 and pv.model_parameters("GPT Neo-2.7B") == 2.7e9
    with pytest.raises(ValueError, match="parameter count"):
        pv.model_parameters("GPT2")


def test_the_paper_values_hold_their_items_known_numbers():
    table1 = pv.table1()
    assert table1["g_by_run"]["GPT2-345M_2"] == 7902.972
    assert table1["intervals"]["GPT2-345M_2"] == pytest.approx([7902.9715, 7902.9725])
    trends = pv.program_size_trends()["size_trend"]
    assert trends["n_points"] == 16 and trends["largest_perfect_size"] == 10 and trends["largest_size"] == 12
    assert trends["theta_rho"] < 0 and trends["theta_p"] < 0.05 and trends["perfect_limit"] is True
    cost = pv.cost_tradeoff()
    assert (cost["tradeoff"]["best_g_samples"], cost["tradeoff"]["best_theta_samples"]) == (2560, 5120)
    assert cost["tradeoff"]["best_theta_params"] == 1.5e9 and len(cost["model_thetas"]) == 8
    hard = pv.hard_domains()["domain_theta"]
    assert hard["spearman"] == pytest.approx(1.0) and hard["n"] == 16
    for item in ITEMS.values():
        if item.get("paper_values"):
            values = getattr(pv, item["paper_values"].rpartition(":")[2])()
            assert judged(item["id"], values) == verdicts.HOLDS, item["id"]
            for condition in item.get("measured", []):
                if condition.get("no_paper_value"):  # e.g. an untrained model, which the paper never ran
                    continue
                assert verdicts.judge(condition, values)[0] == verdicts.HOLDS, (item["id"], condition["means"])
    assert pv.decoding_domains() == {"parse": {"share_parsing": 12 / 16}}  # skill 1.0 on twelve domains


def test_every_claim_names_a_control_and_every_synthesis_claim_what_measured_means():
    for item in ITEMS.values():
        if item.get("figure") and item["kind"] == verdicts.CLAIM:
            assert item["control"]["values"] == "control", item["id"]
    for item_id in ("fig09", "fig10", "fig11", "fig12", "tab02"):
        assert ITEMS[item_id]["measured"] and ITEMS[item_id]["conclusive_with"]
        # nothing decodes: every θ zero, so the run measured nothing
        flat = {"size_trend": {"theta_by_size": {"n3": 0.0, "n9": 0.0}, "skill_by_size": {"n3": 0.0, "n9": 0.0}},
                "model_thetas": {"m1": 0.0, "m2": 0.0}, "domain_theta": {"ours": {"a": 0.0, "b": 0.0}},
                "parse": {"share_parsing": 0.0}, "untrained_gap": {"gain": 0.0, "interval": [0.0, 0.0]}}
        assert all(verdicts.judge(c, flat)[0] == verdicts.FAILS for c in ITEMS[item_id]["measured"])
    parse_flow(prefix(3))  # the helper's flows are valid programs
