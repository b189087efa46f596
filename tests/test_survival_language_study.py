"""The language study's statistics on hand-made counts: rates, levels, size lines, fit quality, caching."""
import numpy as np
import pytest

from intellimetry.stats import sample_discrete_power_law
from intellimetry.survival.language import scoring, study
from intellimetry.survival.scaling import Hardware, Timeline


class FakeModel:
    def __init__(self, name, params):
        self.name, self.non_embedding_params = name, params


def test_a_test_set_without_counts_in_the_range_is_named():
    with pytest.raises(ValueError, match="'code' has no failure counts in \\[5, 1000\\]"):
        study.decay_rates({"code": np.zeros(50, dtype=int)}, 5, 1000, 10, np.random.default_rng(0))


def test_decay_rates_recover_a_known_exponent_and_its_level():
    counts = sample_discrete_power_law(2.5, 20000, np.random.default_rng(1))
    row = study.decay_rates({"s": counts}, 1, 1000, 20, np.random.default_rng(0))["s"]
    assert abs(row["alpha"] - 2.5) < 0.1 and row["level"] == "Capable"


def test_size_lines_recover_a_known_log_log_slope():
    sizes = {f"m{i}": n for i, n in enumerate([1e3, 1e4, 1e5, 1e6])}
    alphas = {m: {"a": 1.1 * n**0.05, "b": 2.0 * n**-0.01} for m, n in sizes.items()}
    lines = study.size_scaling(alphas, sizes)
    assert lines["a"]["slope"] == pytest.approx(0.05) and lines["a"]["rises"]
    assert lines["b"]["slope"] == pytest.approx(-0.01) and not lines["b"]["rises"]
    assert lines["a"]["decades"] == pytest.approx(3.0) and lines["a"]["measured"]
    # one slope significantly positive, one significantly negative: the share is 0.5 whatever the noise
    assert study.rising_share(lines) == {"sets": 2, "measured": 2, "positive": 1, "significant": 1,
                                         "significantly_negative": 1, "share_positive": 0.5,
                                         "share_interval": [0.5, 0.5]}


def test_rates_censored_at_the_estimators_bound_make_no_line():
    from intellimetry.stats.powerlaw_fit import ALPHA_RANGE

    sizes = {"m0": 1e3, "m1": 1e4, "m2": 1e5}
    pinned = {"m0": {"a": ALPHA_RANGE[0]}, "m1": {"a": ALPHA_RANGE[0] + 1e-9}, "m2": {"a": ALPHA_RANGE[0] + 2e-9}}
    line = study.size_scaling(pinned, sizes)["a"]
    assert line["censored"] == 3 and not line["rises"]  # a round-off slope is not a rise
    one_measured = pinned | {"m0": {"a": 1.2}}
    assert line["measured"] is False and study.size_scaling(one_measured, sizes)["a"]["measured"] is False
    assert study.rising_share({"a": line})["share_positive"] == 0.0
    _, values = study.family_prediction(line, Timeline(), Hardware())
    assert values["reaches_levels"] is False and "lower bound" in values["summary"]


def test_comparison_counts_limited_pairs_and_where_the_larger_model_decays_faster(monkeypatch):
    models = {"small": FakeModel("small", 10), "large": FakeModel("large", 1000)}
    def row(alpha, level):
        return {key: 0 for key in study.RATE_KEYS} | {"alpha": alpha, "level": level, "k_max": 1000,
                                                      "ci_low": alpha - 0.05, "ci_high": alpha + 0.05}

    rates = {"small": {"x": row(1.2, "Limited"), "y": row(1.5, "Limited")},
             "large": {"x": row(1.4, "Limited"), "y": row(2.5, "Capable")}}
    sets = {"x": study.TestSet("x", "X", "answers", ()), "y": study.TestSet("y", "Y", "answers", ())}
    counts = {m: {"x": np.zeros(3), "y": np.zeros(4)} for m in models}
    monkeypatch.setattr(study, "model_rows", lambda models: {label: {} for label in models})
    monkeypatch.setattr(study, "candidates", lambda models: {label: 2048 for label in models})
    result = study.comparison(models, sets, counts, rates)
    assert result["larger_model"] == "large" and result["larger_faster_sets"] == ["x", "y"]
    assert result["level_counts"] == {"Limited": 3, "Capable": 1, "Autonomous": 0}
    assert result["all_limited"] is False and result["larger_faster_share"] == 1.0
    assert result["subjects"] == {"pretrained": "small", "ours": "large"}
    assert result["by_subject"]["ours"]["rates"]["y"]["alpha"] == 2.5
    # x: intervals [1.15, 1.25] and [1.35, 1.45] apart; y: apart too: the share's interval is [1, 1]
    assert result["larger_faster_interval"] == [1.0, 1.0] and result["larger_faster_apart"] == ["x", "y"]
    # every first guess wrong (first_try 0): not above chance; no rate at the floor; k_max inside 2048
    assert result["measured"]["above_chance"] is False and result["measured"]["off_floor"] is True
    assert result["measured"]["range_inside_candidates"] is True and result["all_decaying"] is True


def test_fit_quality_of_a_clean_power_law_is_near_perfect():
    counts = sample_discrete_power_law(2.0, 200000, np.random.default_rng(2))
    quality = study.fit_quality({"m": {"s": counts}}, 1, 100, 10)
    assert quality["lowest_r2"] > 0.98
    assert abs(quality["fits"]["m"]["s"]["mle_alpha"] - 2.0) < 0.05


def line_of(small_alpha, large_alpha):
    return {"sizes": [1e3, 1e5], "alphas": [small_alpha, large_alpha], "decades": 2.0, "censored": 0}


def test_family_prediction_extrapolates_only_a_rising_line():
    timeline, hardware = Timeline(), Hardware()
    rising = {"sizes": [1e3, 1e5], "alphas": [1.1, 1.1 * 100**0.05], "decades": 2.0, "censored": 0}
    fit, values = study.family_prediction(rising, timeline, hardware)
    size = 10 ** (np.log10(3 / 1.1) / 0.05 + 3)
    assert values["autonomous"]["params"] == pytest.approx(size, rel=1e-6)
    assert values["autonomous"]["decades_extrapolated"] == pytest.approx(np.log10(size / 1e5))
    _, flat = study.family_prediction(line_of(1.2, 1.1), timeline, hardware)
    assert flat["reaches_levels"] is False and "autonomous" not in flat


def test_counts_are_cached_by_content(tmp_path, monkeypatch):
    calls = []

    def fake_score(lm, texts, min_prefix, max_tokens, progress):
        calls.append(list(texts))
        return {"counts": np.array([0, 3, 1]), "events_per_document": [3]}

    monkeypatch.setattr(scoring, "score_documents", fake_score)
    lm = type("LM", (), {"identity": "fake"})()
    first = study.document_counts(lm, ["a text"], min_prefix=2, max_tokens=9, cache_root=tmp_path)
    again = study.document_counts(lm, ["a text"], min_prefix=2, max_tokens=9, cache_root=tmp_path)
    other = study.document_counts(lm, ["another"], min_prefix=2, max_tokens=9, cache_root=tmp_path)
    assert len(calls) == 2 and first["counts"].tolist() == again["counts"].tolist() == [0, 3, 1]
    assert other["events_per_document"] == [3]


def test_the_prediction_summary_states_the_outcome_either_way():
    timeline, hardware = Timeline(), Hardware()
    _, rising = study.family_prediction(line_of(1.1, 1.3), timeline, hardware)
    assert "α = 3 at N ≈" in rising["summary"] and "decades beyond our largest member" in rising["summary"]
    _, flat = study.family_prediction(line_of(1.2, 1.1), timeline, hardware)
    assert flat["summary"].startswith("α does not rise with size")


def test_alpha_span_counts_rates_pinned_at_the_estimators_lower_bound():
    from intellimetry.stats.powerlaw_fit import ALPHA_RANGE

    rows = {"a": {"alpha": ALPHA_RANGE[0]}, "b": {"alpha": 1.4}, "c": {"alpha": 1.2}}
    assert study.alpha_span(rows) == {"alpha_min": ALPHA_RANGE[0], "alpha_max": 1.4, "sets": 3, "at_lower_bound": 1}
