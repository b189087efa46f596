"""The language study's statistics on hand-made counts: rates, levels, size lines, fit quality, caching."""
import numpy as np
import pytest

from intellimetry import verdicts
from intellimetry.stats.bounded_power_law import sample_bounded_power_law
from intellimetry.survival.language import scoring, study
from intellimetry.survival.rates import SHOWN_KEYS


class FakeModel:
    def __init__(self, name, params):
        self.name, self.non_embedding_params = name, params


ITEMS = {item["id"]: item for item in verdicts.load_items("survival")["items"]}
LANGUAGE_ITEMS = ("fig06", "fig07", "fig08", "fig09", "fig10")


def test_a_test_set_without_counts_in_the_range_gets_no_rate_and_says_why():
    row = study.decay_rates({"code": np.zeros(50, dtype=int)}, 5, 1000, 10, np.random.default_rng(0))["code"]
    assert row["alpha"] is None and row["status"] == "too few events" and row["events_in_range"] == 0
    assert row["summary"] == "no rate: too few events (0 events in [5, 999])"


def test_decay_rates_recover_a_known_exponent_and_its_level():
    counts = sample_bounded_power_law(2.5, 20000, 1, 999, np.random.default_rng(1))
    row = study.decay_rates({"s": counts}, 1, 1000, 20, np.random.default_rng(0))["s"]
    assert abs(row["alpha"] - 2.5) < 0.1 and row["level"] == "Capable" and row["status"] == "measured"


class VocabularyModel(FakeModel):
    """A model whose only part the rates read is its output layer's rows (its vocabulary)."""

    def __init__(self, name, params, vocabulary):
        super().__init__(name, params)
        rows = type("Weight", (), {"shape": (vocabulary, 8)})()
        layer = type("Layer", (), {"weight": rows})()
        self.model = type("Model", (), {"get_output_embeddings": lambda _self: layer})()


def test_each_model_is_fitted_on_its_own_whole_vocabulary():
    rng = np.random.default_rng(7)
    models = {"small": VocabularyModel("small", 10, 50), "large": VocabularyModel("large", 1000, 5000)}
    # a rate below 1 on the large vocabulary is a value, not a bound
    counts = {"small": {"x": sample_bounded_power_law(1.5, 5000, 1, 49, rng)},
              "large": {"x": sample_bounded_power_law(0.7, 20000, 1, 4999, rng)}}
    rates = study.subject_rates(models, counts, 5, 50, seed=0)
    small, large = rates["small"]["x"], rates["large"]["x"]
    assert (small["support"], small["k_max"]) == (50, 49) and (large["support"], large["k_max"]) == (5000, 4999)
    assert abs(small["alpha"] - 1.5) < 0.15 and abs(large["alpha"] - 0.7) < 0.05
    assert small["ci_low"] < 1.5 < small["ci_high"] and large["status"] == "measured"
    assert large["summary"].startswith("α = 0.7") and ", measured, Limited (" in large["summary"]
    with pytest.raises(ValueError, match="lie in \\[0, 49\\]"):  # a count beyond the vocabulary is an error
        study.subject_rates(models, {"small": {"x": np.array([60])}, "large": counts["large"]}, 5, 50, seed=0)


def test_random_rankers_over_each_vocabulary_are_flat_and_fail_every_language_claim():
    models = {"small": VocabularyModel("small", 10**6, 2048), "large": VocabularyModel("large", 10**8, 49152)}
    sets = {name: study.TestSet(name, name, "documents", ()) for name in ("x", "y")}
    counts = {label: {name: np.zeros(1500, dtype=int) for name in sets} for label in models}
    control = study.random_ranker_control(models, sets, counts, 5, 50, seed=0)
    for label, vocabulary in (("small", 2048), ("large", 49152)):
        for row in control["rates"][label].values():
            assert row["support"] == vocabulary and row["status"] == "measured" and row["level"] == "Limited"
            assert abs(row["alpha"]) < 0.1  # uniform counts: no decay
    assert control["all_limited"] and not control["all_decaying"] and control["measured"]["measured"]
    for item_id in LANGUAGE_ITEMS:
        assert verdicts.judge(ITEMS[item_id]["criterion"], control)[0] == verdicts.FAILS, item_id


def rate(alpha, low, high, status="measured", events=400, level="Limited"):
    return {"alpha": alpha, "ci_low": low, "ci_high": high, "status": status, "events_in_range": events,
            "level": level, "first_try": 0.4, "measured": status == "measured"}


def judged_record(item_id, ours, control):
    sizes, vocabularies = {"small": 10**6, "large": 10**8}, {"small": 2048, "large": 49152}
    names = list(ours["small"])
    values = {**study.claim_statistics(sizes, vocabularies, names, ours),
              "control": study.claim_statistics(sizes, vocabularies, names, control)}
    return verdicts.verdict(ITEMS[item_id], values)


FLAT = {label: {n: rate(0.0, -0.05, 0.05) for n in ("x", "y")} for label in ("small", "large")}


def test_a_rate_that_is_not_measured_reaches_no_level():
    rates = {"a": {"x": rate(1.3, 1.2, 1.4), "y": rate(2.6, 2.2, 3.0, "too few events", 4, "Capable")},
             "b": {"x": rate(0.9, 0.85, 0.95, "not a power law"), "y": rate(1.1, 1.0, 1.2)}}
    found, counted = study.levels(rates), study.level_counts(rates)
    assert found == {"a": {"x": "Limited", "y": None}, "b": {"x": None, "y": "Limited"}}
    assert counted == {"Limited": 2, "Capable": 0, "Autonomous": 0, "unmeasured": 2}


def test_measured_rates_decide_the_language_claims_and_a_flat_control_does_not():
    ours = {"small": {n: rate(0.9, 0.85, 0.95) for n in ("x", "y")},
            "large": {n: rate(1.35, 1.3, 1.4) for n in ("x", "y")}}
    for item_id in LANGUAGE_ITEMS:
        assert judged_record(item_id, ours, FLAT)["verdict"] == verdicts.REPRODUCED, item_id
    slower = {"small": ours["large"], "large": ours["small"]}  # the larger model decays more slowly
    assert judged_record("fig09", slower, FLAT)["verdict"] == verdicts.NOT_REPRODUCED


@pytest.mark.parametrize("status,events,words", [
    ("not a power law", 400, "truncated alternative"), ("too few events", 7, "at least 50 events")])
def test_a_rate_that_is_not_measured_makes_the_claim_inconclusive_never_contradicted(status, events, words):
    # the larger model's rate on y is not measured, and the point estimates would contradict the claim
    ours = {"small": {"x": rate(1.2, 1.15, 1.25), "y": rate(1.2, 1.15, 1.25)},
            "large": {"x": rate(1.0, 0.95, 1.05), "y": rate(3.5, 2.0, 5.0, status, events, "Autonomous")}}
    for item_id in LANGUAGE_ITEMS:
        record = judged_record(item_id, ours, FLAT)
        assert record["verdict"] == verdicts.INCONCLUSIVE and words in record["reason"], item_id
        assert "Autonomous" not in record["reason"]
    statistics = study.claim_statistics({"small": 1, "large": 2}, {"small": 2048, "large": 2048}, ["x", "y"], ours)
    # y decides nothing: the share's point counts it as not faster, its interval leaves it open
    assert statistics["larger_faster_sets"] == [] and statistics["larger_faster_interval"] == [0.0, 0.5]
    assert statistics["measured"]["statuses"] == {"measured": 3, status: 1}


def test_comparison_counts_limited_pairs_and_where_the_larger_model_decays_faster(monkeypatch):
    models = {"small": FakeModel("small", 10), "large": FakeModel("large", 1000)}
    def row(alpha, level):
        return {key: 0 for key in SHOWN_KEYS} | {"alpha": alpha, "level": level, "k_min": 5, "k_max": 2047,
                                                      "support": 2048, "status": "measured", "bound": None,
                                                      "events_in_range": 60,
                                                      "ci_low": alpha - 0.05, "ci_high": alpha + 0.05}

    rates = {"small": {"x": row(1.2, "Limited"), "y": row(1.5, "Limited")},
             "large": {"x": row(1.4, "Limited"), "y": row(2.5, "Capable")}}
    sets = {"x": study.TestSet("x", "X", "answers", ()), "y": study.TestSet("y", "Y", "answers", ())}
    counts = {m: {"x": np.zeros(3), "y": np.zeros(4)} for m in models}
    monkeypatch.setattr(study, "model_rows", lambda models: {label: {} for label in models})
    monkeypatch.setattr(study, "candidates", lambda models: {label: 2048 for label in models})
    result = study.comparison(models, sets, counts, rates)
    assert result["larger_model"] == "large" and result["larger_faster_sets"] == ["x", "y"]
    assert result["level_counts"] == {"Limited": 3, "Capable": 1, "Autonomous": 0, "unmeasured": 0}
    assert result["all_limited"] is False and result["larger_faster_share"] == 1.0
    assert result["subjects"] == {"pretrained": "small", "ours": "large"}
    assert result["by_subject"]["ours"]["rates"]["y"]["alpha"] == 2.5
    # x: intervals [1.15, 1.25] and [1.35, 1.45] apart; y: apart too: the share's interval is [1, 1]
    assert result["larger_faster_interval"] == [1.0, 1.0] and result["larger_faster_apart"] == ["x", "y"]
    # every first guess wrong (first_try 0): not above chance; every rate measured, each interval above 0
    assert result["measured"]["above_chance"] is False and result["measured"]["measured"] is True
    assert "range_inside_candidates" not in result["measured"] and result["all_decaying"] is True
    summary = result["by_subject"]["ours"]["rates"]["x"]["summary"]
    assert summary == "α = 1.40 [1.35, 1.45], measured, Limited (60 events in [5, 2047])"
    assert result["by_subject"]["ours"]["unmeasured"] == 0


def test_fit_quality_of_a_clean_power_law_is_near_perfect():
    from intellimetry.survival.fit_quality import line_fit_quality

    counts = sample_bounded_power_law(2.0, 200000, 1, 2047, np.random.default_rng(2))
    quality = line_fit_quality({"m": {"s": counts}}, {"m": 2048}, 1, 100, 10, 50)
    assert quality["lowest_r2"] > 0.98
    assert abs(quality["fits"]["m"]["s"]["mle_alpha"] - 2.0) < 0.05
    assert quality["fits"]["m"]["s"]["bounded"]["status"] == "measured"


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
