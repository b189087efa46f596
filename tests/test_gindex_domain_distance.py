"""Ω from generated tasks beside the authors' (Figure 5): flows as graphs, the within-domain divergence
and the summary the book quotes, on one-node flows whose divergences are known by hand."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from intellimetry.gindex import parse_flow
from intellimetry.gindex.study import corpus_graphs, domain_distance_summary, within_domain_divergence


def fn(func, **extra):
    """A one-node flow holding a function node."""
    return [{"id": "f", "type": "function", "wires": [], "func": func, **extra}]


def test_corpus_graphs_parse_every_task():
    corpus = {"a": [SimpleNamespace(flow=fn("x")), SimpleNamespace(flow=fn("y"))], "b": [SimpleNamespace(flow=fn("z"))]}
    graphs = corpus_graphs(corpus)
    assert list(graphs) == ["a", "b"] and [len(g) for g in graphs["a"]] == [1, 1]


def test_within_domain_divergence_by_hand():
    # Δ between one-node flows is 1 − s² (s = share of the first node's keys that match): 1 between
    # different funcs, 0 between equal ones; x with an extra key against x: s = 1/2, Δ = 0.75, the
    # other way round s = 1, Δ = 0 -> mean 0.375
    graphs = {"differ": [parse_flow(fn("x")), parse_flow(fn("y"))], "alone": [parse_flow(fn("x"))],
              "same": [parse_flow(fn("x")), parse_flow(fn("x"))],
              "half": [parse_flow(fn("x", outputs=2)), parse_flow(fn("x"))]}
    within = within_domain_divergence(graphs)
    assert within[0] == 1.0 and math.isnan(within[1]) and within[2] == 0.0 and within[3] == pytest.approx(0.375)


def test_domain_distance_summary_by_hand():
    names = ["a", "b", "c"]
    omega = np.array([[0.0, 0.5, 0.5], [0.75, 0.0, 1.0], [0.0, 1.0, 0.0]])
    summary = domain_distance_summary(names, omega, omega / 2, [1.0, float("nan"), 0.0])
    assert summary["n_domains"] == 3
    assert summary["omega_mean_off_diagonal"] == pytest.approx(3.75 / 6) and summary["omega_min_off_diagonal"] == 0.0
    assert summary["authors_mean_off_diagonal"] == pytest.approx(3.75 / 12)
    assert summary["within_domain_mean"] == 0.5  # NaN (one task) left out
    assert summary["spearman_vs_authors"] == pytest.approx(1.0)
    assert summary["asymmetry_max"] == 0.5  # Ω(a, c) = 0.5 against Ω(c, a) = 0
    assert summary["closest_pair"] == {"a": "c", "b": "a"}  # Ω(c, a) = 0, the diagonal never counts
    assert summary["omega"]["b"] == {"a": 0.75, "b": 0.0, "c": 1.0}
