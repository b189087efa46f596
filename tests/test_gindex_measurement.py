"""What a synthesis run measured (issue 34), by hand: parse rates per domain pooled over the models, the
summary of which domains parse, and θ gained over the untrained model of the best model's size."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from intellimetry.gindex.measurement import domain_rows, measured_values, parse_summary, untrained_gap
from intellimetry.gindex.synthesis import DomainScore

TEST = [SimpleNamespace(domain="a", flow=[{}] * 3), SimpleNamespace(domain="a", flow=[{}] * 5),
        SimpleNamespace(domain="b", flow=[{}] * 9)]


def result(size, theta, deltas, domains, parseable=0.5):
    return SimpleNamespace(size=size, theta=theta, task_deltas=deltas, parseable=parseable,
                           domains={d: DomainScore(*score) for d, score in domains.items()})


# (θ, perfects, parseable, n, unaided) per domain
MODELS = [result("tiny", 0.3, [0.4, 0.6, 1.0], {"a": (0.5, 0.0, 1.0, 2, 0.5), "b": (0.0, 0.0, 0.0, 1, 0.0)}),
          result("small", 0.5, [0.0, 0.5, 1.0], {"a": (0.75, 0.5, 1.0, 2, 1.0), "b": (0.0, 0.0, 1.0, 1, 0.0)})]
UNTRAINED = {"tiny": result("tiny", 0.0, [1.0, 1.0, 1.0], {"a": (0.0, 0.0, 0.0, 2, 0.0), "b": (0.0, 0.0, 0.0, 1, 0.0)}),
             "small": result("small", 0.1, [0.9, 0.8, 1.0], {"a": (0.15, 0.0, 0.5, 2, 0.0),
                                                               "b": (0.0, 0.0, 0.0, 1, 0.0)})}


def test_domain_rows_pool_the_models_and_keep_the_test_order():
    rows = domain_rows(MODELS, UNTRAINED, TEST, {"a": 1.0, "c": 0.5})
    assert list(rows) == ["a", "b"]
    assert rows["a"] == {"parseable": 1.0, "unaided": 0.75, "perfects": 0.25, "untrained_parseable": 0.25,
                         "best_theta": 0.75,
                         "untrained_theta": 0.15, "paper_theta": 1.0, "nodes": 4.0}
    assert rows["b"]["parseable"] == 0.5 and rows["b"]["paper_theta"] is None and rows["b"]["nodes"] == 9.0


def test_parse_summary_counts_the_domains_where_half_the_programs_decode():
    rows = domain_rows(MODELS, UNTRAINED, TEST, {})
    summary = parse_summary(rows)
    assert summary["domains_parsing"] == 2 and summary["share_parsing"] == 1.0  # b: exactly half decode
    assert (summary["lowest_domain"], summary["lowest_parseable"]) == ("b", 0.5)
    assert summary["mean_parseable"] == 0.75 and summary["mean_unaided"] == 0.375
    rows["b"]["parseable"] = 0.49
    assert parse_summary(rows)["domains_parsing"] == 1 and parse_summary(rows)["share_parsing"] == 0.5


def test_untrained_gap_pairs_the_best_model_with_the_untrained_model_of_its_size():
    gap = untrained_gap(MODELS, UNTRAINED, seed=0)
    # best: small (θ 0.5); its untrained model's Δ minus the model's: 0.9, 0.3, 0.0
    assert gap["size"] == "small" and gap["gain"] == pytest.approx(0.4)
    low, high = gap["interval"]
    assert 0.0 <= low < 0.4 < high <= 0.9
    assert gap["untrained_theta_by_size"] == {"tiny": 0.0, "small": 0.1}


def test_no_gain_when_the_model_writes_what_the_untrained_model_writes():
    same = [result("tiny", 0.0, [1.0, 1.0, 1.0], {"a": (0.0, 0.0, 0.0, 2, 0.0), "b": (0.0, 0.0, 0.0, 1, 0.0)})]
    gap = untrained_gap(same, UNTRAINED, seed=0)
    assert gap["gain"] == 0.0 and gap["interval"] == [0.0, 0.0]


def test_measured_values_hold_all_three():
    values = measured_values(MODELS, UNTRAINED, TEST, {"a": 1.0}, seed=0)
    assert set(values) == {"domains", "parse", "untrained_gap"}
