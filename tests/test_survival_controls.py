"""The survival chapter's controls and measured conditions (issue 32): the random ranker's counts, the
measurement and interval helpers, the paper's own numbers, and each kind of control failing its
claim's criterion on a known case, through the chapter's items.yaml."""
from __future__ import annotations

import numpy as np
import pytest

from intellimetry import verdicts
from intellimetry.stats.bounded_power_law import sample_bounded_power_law
from intellimetry.survival import controls
from intellimetry.survival.fit_quality import attainable_r2, line_fit_quality
from intellimetry.survival.language import study as language
from intellimetry.survival.rates import decay_rates
from intellimetry.survival.study import chance_control, judged_statistics, paper_family_line, paper_prediction
from intellimetry.survival.vision import study as vision

ITEMS = {item["id"]: item for item in verdicts.load_items("survival")["items"]}


def row(alpha, low, high, events=100, level="Limited"):
    return {"alpha": alpha, "ci_low": low, "ci_high": high, "events_in_range": events, "level": level}


# --------------------------------------------------------------------------- the random ranker

def test_a_random_rankers_failure_counts_are_uniform_over_the_candidates():
    counts = controls.random_ranker_counts(10, np.random.default_rng(0), n_events=20000)
    assert counts.min() == 0 and counts.max() == 9
    shares = np.bincount(counts, minlength=10) / counts.size
    assert np.abs(shares - 0.1).max() < 0.01  # each count about a tenth of the events
    again = controls.random_ranker_counts(10, np.random.default_rng(0), n_events=20000, block_elements=30)
    np.testing.assert_array_equal(counts, again)  # blocks change nothing


def test_a_random_ranker_never_counts_excluded_candidates():
    mask = [[1, 2, 3]] * 500  # three of eight candidates excluded for every event
    counts = controls.random_ranker_counts(8, np.random.default_rng(1), reference=np.zeros(500, dtype=int), mask=mask)
    assert counts.max() == 4 and counts.min() == 0  # at most the other four unexcluded candidates
    with pytest.raises(ValueError, match="n_events or reference"):
        controls.random_ranker_counts(8, np.random.default_rng(1))


def test_a_random_rankers_decay_rate_is_about_zero_limited_measured_and_not_decaying():
    counts = controls.random_ranker_counts(2048, np.random.default_rng(2), n_events=2000)
    fitted = decay_rates({"s": counts}, 5, 2048, 50, np.random.default_rng(0))["s"]
    assert abs(fitted["alpha"]) < 0.1 and fitted["level"] == "Limited" and fitted["status"] == "measured"
    assert not controls.all_decaying([fitted]) and controls.measurement([fitted])["measured"]



def test_a_set_a_random_ranker_leaves_unfittable_gets_no_rate():
    rows = controls.null_decay_rates({"few": np.array([0, 40000]), "many": np.arange(0, 400)}, 5, 40001, 10,
                                     np.random.default_rng(0))
    # one distinct count in range, at its top: no rate, a bound (alpha <= -5)
    assert rows["few"]["alpha"] is None and rows["few"]["status"] == "bound" and controls.fitted(rows["many"])
    assert not controls.all_limited(rows.values()) and not controls.all_decaying(rows.values())
    assert controls.measurement(rows.values())["unfitted"] == 1



# --------------------------------------------------------------------------- measured, intervals, margins

def test_measurement_counts_events_and_statuses():
    found = controls.measurement([{**row(1.4, 1.3, 1.5, 120), "status": "measured"},
                                  {**row(0.9, 0.8, 1.0, 60), "status": "not a power law"}])
    assert found["fewest_events_in_range"] == 60 and found["not_power_law"] == 1 and not found["measured"]
    assert found["statuses"] == {"measured": 1, "not a power law": 1}
    assert controls.measurement([{**row(1.4, 1.3, 1.5, 49), "status": "too few events"}])["enough_events"] is False
    assert controls.measurement([{**row(1.4, 1.3, 1.5, 50), "status": "measured"}])["measured"] is True



def test_the_faster_share_counts_only_sets_whose_intervals_are_apart():
    faster = {"a": row(1.5, 1.4, 1.6), "b": row(1.3, 1.1, 1.5), "c": row(1.1, 1.05, 1.15)}
    slower = {"a": row(1.2, 1.1, 1.3), "b": row(1.2, 1.1, 1.3), "c": row(1.3, 1.2, 1.4)}
    share = controls.faster_share(faster, slower)
    assert share["share"] == pytest.approx(2 / 3) and share["sets"] == ["a", "b"]
    # a apart upwards, c apart downwards, b undecided: between 1/3 and 2/3
    assert share["interval"] == pytest.approx([1 / 3, 2 / 3])


def test_margins_take_the_smallest_difference_and_its_interval():
    high, low = row(1.5, 1.4, 1.6), row(1.2, 1.1, 1.3)
    assert controls.difference(high, low) == {"value": pytest.approx(0.3), "interval": pytest.approx([0.1, 0.5])}
    margin = controls.smallest_margin([(high, low), (row(1.3, 1.25, 1.35), row(1.25, 1.2, 1.3))])
    assert margin["value"] == pytest.approx(0.05) and margin["interval"] == pytest.approx([-0.05, 0.15])


def test_an_exact_power_law_reaches_a_higher_r2_with_more_events():
    sample = sample_bounded_power_law(1.5, 1000, 5, 100, np.random.default_rng(0))
    assert sample.min() >= 5 and sample.max() <= 100
    rng = np.random.default_rng(1)
    few, many = (attainable_r2(1.3, n, 5, 1000, 10, 20, rng) for n in (30, 5000))
    assert few < 0.95 < many


# --------------------------------------------------------------------------- each kind of control fails its claim

def judged(item_id, values):
    return verdicts.judge(ITEMS[item_id]["criterion"], values)[0]


def test_chance_level_guessers_fail_the_digit_classifiers_claim():
    rng = np.random.default_rng(3)
    runs = {kind: (rng.integers(0, 10, size=(2, 1000)), [0.5, 0.5]) for kind in ("linear", "mlp", "cnn")}
    control = chance_control(runs, 10, 1, 50, seed=0)
    rates = control["judged"]["alpha_by_model"]
    # flat counts on the ten classes' support: alpha near 0, measured, Limited, not decaying
    assert all(abs(alpha) < 0.2 for alpha in rates.values()) and control["judged"]["measured"]["measured"]
    assert set(control["judged"]["levels"].values()) == {"Limited"} and not control["judged"]["all_decaying"]
    assert judged("fig02", control) == verdicts.FAILS
    # a known ordered case of decaying, measured rates holds
    results = {kind: {**row(a, a - 0.05, a + 0.05, 200), "status": "measured", "accuracy": 0.9}
               for kind, a in (("linear", 0.6), ("mlp", 1.5), ("cnn", 2.5))}
    values = {"judged": judged_statistics(results, 10), "control": control}
    assert verdicts.verdict(ITEMS["fig02"], values)["verdict"] == verdicts.REPRODUCED
    # a rate that is not a power law leaves the verdict inconclusive
    results["mlp"]["status"] = "not a power law"
    record = verdicts.verdict(ITEMS["fig02"], {"judged": judged_statistics(results, 10), "control": control})
    assert record["verdict"] == verdicts.INCONCLUSIVE and "every decay rate measured" in record["reason"]


def test_random_rankers_fail_the_vision_claim():
    rng = np.random.default_rng(4)
    members = {"classification": {name: {"failures": rng.integers(0, 100, 800), "params": params,
                                         "record": {"trained_now": False}}
                                  for name, params in (("w4", 1000), ("w16", 9000))},
               "retrieval": {name: {"failures": rng.integers(0, 200, 400), "params": params,
                                    "record": {"trained_now": False}}
                             for name, params in (("d4", 800), ("d16", 7000))}}
    control = vision.random_ranker_control(members, {"classification": 100, "retrieval": 200}, 20, seed=0)
    assert control["all_limited"] and not control["all_decaying"]  # Limited, but no decay to measure
    assert control["measured"]["measured"]  # alpha ~ 0, measured
    # but a random ranker learned nothing: at chance, so no size gain is taken between its members
    assert not control["trained"]["all_above_chance"] and not control["classification"]["size_gain_measured"]
    assert judged("fig03", control) == verdicts.FAILS


def test_random_rankers_fail_the_language_claims():
    sizes, vocabularies = {"small": 10**6, "large": 10**8}, {"small": 2048, "large": 2048}
    rng = np.random.default_rng(5)
    null = {label: {name: controls.random_ranker_counts(2048, rng, n_events=3000) for name in ("x", "y")}
            for label in sizes}
    rates = {label: controls.null_decay_rates(by_set, 5, 2048, 20, rng) for label, by_set in null.items()}
    control = language.claim_statistics(sizes, vocabularies, ["x", "y"], rates)
    for item_id in ("fig06", "fig07", "fig08", "fig09", "fig10"):
        assert judged(item_id, control) == verdicts.FAILS, item_id
    # a subject that decays measurably, Limited, the larger faster on both sets, holds
    ours = {"small": {n: {**row(1.2, 1.15, 1.25), "status": "measured", "first_try": 0.3} for n in ("x", "y")},
            "large": {n: {**row(1.5, 1.45, 1.55), "status": "measured", "first_try": 0.4} for n in ("x", "y")}}
    assert judged("fig09", language.claim_statistics(sizes, vocabularies, ["x", "y"], ours)) == verdicts.HOLDS


def test_a_random_rankers_line_fit_fails_the_fit_quality_claim():
    rng = np.random.default_rng(6)
    null = {"m": {name: controls.random_ranker_counts(2048, rng, n_events=400) for name in ("x", "y")}}
    found = line_fit_quality(null, {"m": 2048}, 5, 1000, 10, 50)
    assert judged("fig11", {"lm_fit": found}) == verdicts.FAILS
    assert found["fits"]["m"]["x"]["bounded"]["support"] == 2048 and found["fits"]["m"]["x"]["k_max"] == 1000
    power = {"m": {"x": sample_bounded_power_law(1.5, 200000, 1, 2047, rng)}}
    fitted = line_fit_quality(power, {"m": 2048}, 5, 1000, 10, 50)
    assert judged("fig11", {"lm_fit": fitted}) == verdicts.HOLDS and fitted["measured"]["attainable"]
    assert fitted["bounded"]["measured"] and abs(fitted["fits"]["m"]["x"]["bounded"]["alpha"] - 1.5) < 0.02


def test_the_line_on_a_flat_decay_plot_is_measured_now_that_rates_below_one_are_values():
    # a decay slower than k^-1 used to sit at the package's floor (1.0001) and leave Fig. 11 unmeasured;
    # the bounded MLE on the line's range is a value, and the attainable R² is simulated at it
    rng = np.random.default_rng(7)
    slow = {"m": {"x": sample_bounded_power_law(0.6, 50000, 1, 49151, rng)}}
    fitted = line_fit_quality(slow, {"m": 49152}, 5, 1000, 10, 50)
    row = fitted["fits"]["m"]["x"]
    assert abs(row["mle_alpha"] - 0.6) < 0.05 and abs(row["bounded"]["alpha"] - 0.6) < 0.02
    assert row["ls_alpha"] == pytest.approx(0.6, abs=0.1) and fitted["measured"]["attainable"]


# --------------------------------------------------------------------------- pinned estimates are inconclusive

def test_a_rate_that_is_not_a_power_law_makes_the_verdict_inconclusive():
    sizes, vocabularies = {"small": 10**6, "large": 10**8}, {"small": 2048, "large": 49152}
    ours = {"small": {n: {**row(0.9, 0.85, 0.95, 300), "status": "not a power law", "first_try": 0.05}
                      for n in ("x", "y")},
            "large": {n: {**row(1.3, 1.2, 1.4, 120), "status": "measured", "first_try": 0.5} for n in ("x", "y")}}
    flat = {n: {**row(0.0, -0.05, 0.05, 300), "status": "measured", "first_try": 0.0} for n in ("x", "y")}
    values = {**language.claim_statistics(sizes, vocabularies, ["x", "y"], ours),
              "control": language.claim_statistics(sizes, vocabularies, ["x", "y"], {"small": flat, "large": flat})}
    record = verdicts.verdict(ITEMS["fig09"], values)
    assert record["verdict"] == verdicts.INCONCLUSIVE and "every decay rate measured" in record["reason"]



def test_a_family_whose_laws_are_rejected_is_inconclusive_not_contradicted():
    line = {"measured": False, "slope": 0.009, "p": 0.004, "unmeasured": 6}
    no_line = {"measured": False, "slope": None, "p": None, "unmeasured": 0}
    values = {"family_general": line, "rising": {"share_positive": 0.0, "share_interval": [0.0, 0.0]},
              "control": {"family_general": no_line, "rising": {"share_positive": 0.0, "share_interval": [0.0, 0.0]}}}
    record = verdicts.verdict(ITEMS["fig12"], values)
    assert record["verdict"] == verdicts.INCONCLUSIVE and record["control"]["outcome"] != verdicts.HOLDS



# --------------------------------------------------------------------------- the paper's own numbers

def test_the_line_through_the_papers_digitised_rates_rises_and_predicts_its_abstract():
    line = paper_family_line()["family_general"]
    assert line["models"] == 7 and line["slope"] > 0 and line["p"] < 0.05 and line["measured"]
    autonomous = paper_prediction()["autonomous"]
    assert 10**25.5 < autonomous["params"] < 10**26.5 and abs(autonomous["years_from_base"] - 70) < 5
    assert judged("fig13", paper_prediction()) == verdicts.HOLDS
    assert judged("fig12", paper_family_line()) == verdicts.HOLDS


def test_the_multiples_window_is_the_paper_size_converted_by_the_papers_assumptions():
    from intellimetry.paths import load_reference
    from intellimetry.survival.scaling import Hardware

    stated = load_reference("survival/scaling-claims.yaml")["assumptions"]
    hardware = Hardware(bytes_per_parameter=stated["bytes_per_parameter"],
                        gpu_memory_bytes=stated["gpu_memory_gb"] * 1e9, gpu_price=stated["gpu_price_usd"],
                        market_value=stated["market_value_usd"])
    converted = hardware.cost_of(1e26)["market_value_multiple"]
    part = ITEMS["fig13"]["criterion"]["all"][1]
    assert part["ours"] == "autonomous.market_value_multiple" and part["paper"] == pytest.approx(converted, rel=1e-3)


def test_random_rankers_fail_the_search_claim():
    from intellimetry.survival.search import study as search
    from intellimetry.survival.search.tasks import Collection

    def toy(name, n_documents, n_queries, seed):
        reference = np.random.default_rng(seed).integers(0, n_documents, n_queries)
        return Collection(name, name, tuple(f"doc {i}" for i in range(n_documents)),
                          tuple(f"d{i}" for i in range(n_documents)), tuple(f"q{i}" for i in range(n_queries)),
                          reference)

    collections = {"python-titles": toy("python-titles", 300, 400, 0), "python-faq": toy("python-faq", 300, 400, 1)}
    counts = {model: {task: np.zeros(400, dtype=int) for task in collections} for model in ("BM25", "small", "large")}
    control = search.random_ranker_control(collections, counts, 1, 20, seed=0)
    # fitted on each task's 300 documents: flat counts, alpha near 0, measured, Limited and not decaying
    assert control["measured"]["tasks_present"] and control["measured"]["measured"]
    assert control["all_limited"] and not control["all_decaying"]
    assert all(abs(alpha) < 0.2 for alpha in control["alpha_max"].values())
    assert judged("fig04", control) == verdicts.FAILS
    # retrievers whose measured rates (below 1 allowed) rise along the model order, the titles fastest, hold
    ours = {model: {"python-titles": {**row(0.8 + step, 0.75 + step, 0.85 + step), "status": "measured"},
                    "python-faq": {**row(0.5 + step, 0.45 + step, 0.55 + step), "status": "measured"}}
            for model, step in (("BM25", 0.0), ("small", 0.2), ("large", 0.4))}
    assert judged("fig04", search.claims(ours, collections)) == verdicts.HOLDS


def test_random_rankers_fail_the_recommendation_claim():
    from intellimetry.survival.recommendation import logs
    from intellimetry.survival.recommendation import study as recommendation

    rng = np.random.default_rng(7)
    sequences = tuple(rng.choice(2000, size=6, replace=False) for _ in range(600))
    log = logs.InteractionLog("hand", "hand-made", "test", logs.REAL, sequences, np.arange(2000))
    splits = {"hand": logs.leave_one_out(log)}
    counts = {model: {"hand": np.zeros(600, dtype=int)} for model in ("popularity", "sasrec_16")}
    control = recommendation.random_ranker_control(splits, counts, 5, 20, seed=0)
    # fitted on the 2,000-item catalogue: flat counts, alpha near 0, measured; Limited and far from Capable,
    # but not decaying
    assert control["all_limited"] and not control["all_decaying"] and control["measured"]["measured"]
    assert abs(control["alpha_min"]) < 0.2 and abs(control["alpha_max"]) < 0.2
    assert not control["all_above_chance"] and 0 < control["chance_alpha"]["hand"] < 0.01  # 5 of 2,000 items seen
    assert judged("fig05", control) == verdicts.FAILS
    # recommenders whose rates (below 1, measured) sit above chance and far below 2 hold
    ours = {model: {"hand": {**row(0.6, 0.55, 0.65, 500), "status": "measured", "log_binned_alpha": 0.5}}
            for model in counts}
    assert judged("fig05", recommendation.claim_statistics(ours, splits, control["chance_alpha"])) == verdicts.HOLDS


def test_a_family_of_random_rankers_fails_the_size_claim():
    from types import SimpleNamespace

    def member(name, params):
        head = SimpleNamespace(weight=np.zeros((512, 1)))
        return SimpleNamespace(name=name, non_embedding_params=params,
                               model=SimpleNamespace(get_output_embeddings=lambda: head))

    ours = [member("a", 10**4), member("b", 10**5), member("c", 10**6)]
    rates = {lm.name: {name: {"events": 400} for name in ("code", "law", "facts")} for lm in ours}
    control = language.family_control(ours, rates, k_min=5, resamples=10, seed=0)
    general = control["family_general"]
    # pooled: 800 flat counts each on the 512-token support, alpha about 0: no log-log line, nothing measured
    assert all(abs(alpha) < 0.2 for alpha in general["alphas"]) and general["measured"] is False
    assert judged("fig12", control) == verdicts.FAILS
