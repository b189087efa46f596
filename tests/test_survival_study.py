"""Known answers for the survival chapter's study functions: simulated subjects and their levels,
classifiers' decay rates, the estimator table, and the scaling prediction's levels and gaps."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from intellimetry.survival import Hardware, Timeline, estimate_decay_rate
from intellimetry.survival.study import (
    against_claims,
    alpha_by_model,
    estimator_cell,
    estimator_table,
    fitted_law,
    judged_statistics,
    levels_reached,
    model_decay_rates,
    paper_style_fit,
    rate_table_summary,
    sidecar_key,
    worst_bias,
)


def test_model_decay_rates_by_hand():
    failures = np.array([[1, 1, 2, 0, 1], [1, 3, 1, 0, 1]])  # 2 seeds × 5 test events
    runs = {"mlp": (failures, [0.5, 0.75])}
    paper = {"mlp": {"name": "MLP", "paper_level": "Capable"}}
    result = model_decay_rates(runs, paper, 2, 1, 10, 10, np.random.default_rng(0))["mlp"]  # ten classes
    assert result["accuracy"] == 0.625 and result["accuracy_sd"] == 0.125
    assert result["events_per_seed"] == 5 and result["mean_failures"] == 1.1
    assert result["frequency"] == {"k1": 3.0, "k2": 0.5, "k3": 0.5}  # counts 6, 1, 1 over two seeds
    assert (result["name"], result["paper_level"]) == ("MLP", "Capable")
    expected = estimate_decay_rate(failures.ravel(), 1, 10, 10, np.random.default_rng(0))
    assert {k: result[k] for k in expected} == expected
    assert (result["support"], result["k_max"]) == (10, 9)  # fitted on the classes' whole support


def test_alpha_by_model_is_what_the_ranking_criterion_reads():
    results = {"linear": {"alpha": 2.6, "name": "Linear"}, "mlp": {"alpha": 2.0}, "cnn": {"alpha": 3}}
    assert alpha_by_model(results) == {"linear": 2.6, "mlp": 2.0, "cnn": 3.0}
    assert list(alpha_by_model(results)) == ["linear", "mlp", "cnn"]
    assert alpha_by_model({**results, "cnn": {"alpha": None}})["cnn"] is None  # no rate fitted: none shown


def _rate(alpha, low, high, status="measured", events=200):
    return {"alpha": alpha, "ci_low": low, "ci_high": high, "status": status, "events_in_range": events,
            "level": None if alpha is None else "Limited", "accuracy": 0.9}


def test_the_ranking_reads_unfitted_rates_as_zero_and_says_they_were_not_measured():
    rows = {"linear": _rate(0.4, 0.3, 0.5), "mlp": _rate(1.5, 1.4, 1.6, "not a power law"),
            "cnn": _rate(None, None, None, "too few events", events=12)}
    judged = judged_statistics(rows, 10)
    assert judged["alpha_by_model"] == {"linear": 0.4, "mlp": 1.5, "cnn": 0.0}
    assert judged["alpha_intervals"]["cnn"] == [0.0, 0.0] and judged["alpha_intervals"]["mlp"] == [1.4, 1.6]
    assert judged["statuses"] == {"linear": "measured", "mlp": "not a power law", "cnn": "too few events"}
    assert not judged["all_decaying"] and not judged["measured"]["measured"]
    assert judged["measured"]["fewest_events_in_range"] == 12 and judged["measured"]["above_chance"]
    decaying = judged_statistics({"linear": _rate(0.4, 0.3, 0.5), "mlp": _rate(1.5, 1.4, 1.6)}, 10)
    assert decaying["all_decaying"] and decaying["measured"]["measured"]
    flat = judged_statistics({"linear": _rate(0.02, -0.05, 0.09), "mlp": _rate(1.5, 1.4, 1.6)}, 10)
    assert not flat["all_decaying"]  # an interval reaching 0: counts that need not fall at all


def test_a_fitted_law_spreads_its_events_over_the_fitted_range():
    law = fitted_law({"alpha": 0.5, "events_in_range": 300, "k_min": 1, "k_max": 9})
    k = np.arange(1, 10)
    assert law.expected_count(k).sum() == pytest.approx(300)
    assert law.expected_count(1) / law.expected_count(4) == pytest.approx(2.0)  # 4^0.5
    flat = fitted_law({"alpha": 0.0, "events_in_range": 90, "k_min": 1, "k_max": 9})
    assert np.allclose(flat.expected_count(k), 10.0)


def _summary():
    rows = [(name, alpha, size, alpha + bias, 0.1, bias, abs(bias), 0.9)
            for name, bias in (("mle", 0.01), ("log_binned", -0.2), ("raw_histogram", 0.5))
            for alpha in (1.5, 2.5) for size in (100, 1000)]
    return pd.DataFrame(rows, columns=["estimator", "alpha", "size", "mean", "sd", "bias", "rmse", "r2"])


def test_estimator_table_keys_and_cells():
    assert sidecar_key("a", 2.5) == "a2p5" and sidecar_key("n", 100000) == "n100000"
    summary = _summary()
    assert estimator_cell(summary, "log_binned", 2.5, 100) == {"mean": 2.3, "sd": 0.1, "bias": -0.2, "rmse": 0.2,
                                                                "r2": 0.9}
    table = estimator_table(summary, [1.5, 2.5], [100, 1000])
    assert list(table) == ["mle", "log_binned", "raw_histogram"]
    assert list(table["mle"]) == ["a1p5", "a2p5"] and list(table["mle"]["a1p5"]) == ["n100", "n1000"]
    assert table["raw_histogram"]["a2p5"]["n1000"]["bias"] == 0.5
    assert worst_bias(summary) == {"mle": 0.01, "log_binned": 0.2, "raw_histogram": 0.5}


def test_paper_style_fit_reads_the_largest_size_only():
    summary = _summary()
    # the raw histogram's bias is 0.5 everywhere; make the small samples worse and the large ones mixed
    small, large = summary["size"] == 100, summary["size"] == 1000
    raw = summary["estimator"] == "raw_histogram"
    summary.loc[raw & small, "bias"] = -0.9
    summary.loc[raw & large & (summary["alpha"] == 2.5), ["bias", "r2"]] = [-0.3, 0.97]
    assert paper_style_fit(summary) == {"estimator": "raw_histogram", "size": 1000, "worst_abs_bias": 0.5,
                                        "lowest_r2": 0.9}
    assert paper_style_fit(summary, "mle")["worst_abs_bias"] == 0.01


def test_rate_table_summary():
    table = pd.DataFrame({"model": ["A-1", "B-7", "A-9"], "alpha": [1.2, 2.4, 2.0]})
    chosen = table[table["model"].str.startswith("A")]
    assert rate_table_summary(table, chosen) == {"alpha_min": 1.2, "alpha_max": 2.4, "best_model": "B-7",
                                                 "largest_series_alpha": 2.0, "models_at_capable_or_above": 1}


def test_levels_reached_and_the_gaps_to_the_claims():
    fit = SimpleNamespace(size_for_alpha=lambda alpha: 10.0 ** (4 * alpha))  # α = 2 at 1e8, α = 3 at 1e12
    timeline = Timeline(base_year=2025.0, base_size=1e12, doubling_years=1.5)
    hardware = Hardware(bytes_per_parameter=2.0, gpu_memory_bytes=80e9, gpu_price=30000.0, market_value=3.7e12)
    levels = levels_reached(fit, timeline, hardware)
    auto = levels["autonomous"]
    assert (auto["alpha"], auto["params"], auto["log10_params"]) == (3.0, 1e12, 12.0)
    assert auto["year"] == 2025.0 and auto["years_from_base"] == 0.0
    assert auto["gpus"] == pytest.approx(25.0) and auto["cost"] == pytest.approx(750000.0)
    capable = levels["capable"]
    assert capable["params"] == 1e8 and capable["years_from_base"] == pytest.approx(1.5 * math.log2(1e-4))
    gaps = against_claims({"log10_params": 12.0, "years_from_base": 5.0, "market_value_multiple": 10.0},
                          {"autonomous_parameters": 1e13, "years_to_autonomous": 3.0, "apple_multiple": 100.0})
    assert gaps == {"log10_params_gap": -1.0, "years_gap": 2.0, "log10_market_multiple_gap": -1.0}
