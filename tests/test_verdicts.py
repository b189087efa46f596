"""Verdicts: each criterion test on hand-made values, the three verdicts, and the registry's shape."""
from __future__ import annotations

import pytest
import yaml

from intellimetry import paths, verdicts
from intellimetry.verdicts import (
    FAILS,
    HOLDS,
    INCONCLUSIVE,
    NOT_REPRODUCED,
    QUALITATIVE,
    REPRODUCED,
    UNDECIDED,
    CriterionError,
    judge,
    verdict,
)

VALUES = {"alpha": 2.4, "rho": -0.6, "p": 0.01, "ok": True, "level": "Capable", "zeros": [0, 0, 0],
          "ci": {"tight": [2.2, 2.6], "wide": [1.5, 3.3]},
          "acc": {"linear": 0.90, "mlp": 0.95, "cnn": 0.99}, "fit": {"slope": 0.5, "p": 0.2},
          "no_line": {"slope": None, "p": None},
          "acc_ci": {"linear": [0.88, 0.92], "mlp": [0.93, 0.97], "cnn": [0.975, 1.0]},
          "acc_wide": {"linear": [0.88, 0.92], "mlp": [0.93, 0.985], "cnn": [0.98, 1.0]}}


CLAIM = {"id": "fig07", "label": "Fig. 7", "figure": "aiq-fig07-force", "kind": "claim",
         "criterion": {"test": "within_factor", "ours": "alpha", "paper": 3.5, "factor": 1.2},
         "qualitative": {"test": "above", "ours": "alpha", "threshold": 2},
         "control": {"values": "null", "subject": "a random ranker"}}
NULL = {"alpha": 1.0, "ok": False, "acc": {"linear": 0.5, "mlp": 0.5, "cnn": 0.5}}


@pytest.mark.parametrize("criterion, state", [
    ({"test": "within_factor", "ours": "alpha", "paper": 2.0, "factor": 1.25}, HOLDS),   # 2.4 / 2.0 = 1.2
    ({"test": "within_factor", "ours": "alpha", "paper": 2.0, "factor": 1.1}, FAILS),
    ({"test": "within_factor", "ours": "alpha", "paper": 3.0, "factor": 1.25}, HOLDS),   # 3.0 / 2.4 = 1.25
    ({"test": "within", "ours": "alpha", "paper": 2.5, "tolerance": 0.1}, HOLDS),
    ({"test": "within", "ours": "alpha", "paper": 2.6, "tolerance": 0.1}, FAILS),
    ({"test": "between", "ours": "alpha", "low": 2, "high": 3}, HOLDS),
    ({"test": "between", "ours": "alpha", "low": 2.5}, FAILS),
    ({"test": "above", "ours": "alpha", "threshold": 2}, HOLDS),
    ({"test": "below", "ours": "alpha", "threshold": 2}, FAILS),
    # with the estimate's interval: the whole interval must be past the line
    ({"test": "above", "ours": "alpha", "threshold": 2, "interval": "ci.tight"}, HOLDS),     # [2.2, 2.6]
    ({"test": "above", "ours": "alpha", "threshold": 2, "interval": "ci.wide"}, UNDECIDED),  # [1.5, 3.3]
    ({"test": "above", "ours": "alpha", "threshold": 3, "interval": "ci.tight"}, FAILS),
    ({"test": "below", "ours": "alpha", "threshold": 3, "interval": "ci.tight"}, HOLDS),
    ({"test": "below", "ours": "alpha", "threshold": 3, "interval": "ci.wide"}, UNDECIDED),
    ({"test": "below", "ours": "alpha", "threshold": 2, "interval": "ci.tight"}, FAILS),
    ({"test": "equals", "ours": "level", "paper": "Capable"}, HOLDS),
    ({"test": "is_true", "ours": "ok"}, HOLDS),
    ({"test": "is_false", "ours": "ok"}, FAILS),
    ({"test": "same_order", "ours": "acc", "order": ["linear", "mlp", "cnn"]}, HOLDS),
    ({"test": "same_order", "ours": "acc", "order": ["mlp", "linear", "cnn"]}, FAILS),
    # 0.90 [0.88, 0.92] < 0.95 [0.93, 0.97] < 0.99 [0.975, 1.0]: each pair apart
    ({"test": "same_order", "ours": "acc", "order": ["linear", "mlp", "cnn"], "intervals": "acc_ci"}, HOLDS),
    # mlp's and cnn's intervals overlap when widened: the order is not established
    ({"test": "same_order", "ours": "acc", "order": ["linear", "mlp", "cnn"], "intervals": "acc_wide"}, UNDECIDED),
    ({"test": "same_order", "ours": "acc", "order": ["mlp", "linear", "cnn"], "intervals": "acc_ci"}, FAILS),
    ({"test": "trend", "ours": "rho", "p": "p", "sign": "negative"}, HOLDS),
    ({"test": "trend", "ours": "rho", "p": "p", "sign": "positive"}, FAILS),          # significant, other sign
    ({"test": "trend", "ours": "fit.slope", "p": "fit.p", "sign": "positive"}, UNDECIDED),  # p too large
    ({"test": "trend", "ours": "fit.slope", "p": "fit.p", "sign": "positive", "alpha": 0.25}, HOLDS),
    ({"test": "trend", "ours": "no_line.slope", "p": "no_line.p", "sign": "positive"}, UNDECIDED),  # no line fitted
    ({"test": "distinct", "ours": "acc"}, HOLDS),
    ({"test": "distinct", "ours": "zeros"}, FAILS),
    ({"all": [{"test": "above", "ours": "alpha", "threshold": 2}, {"test": "is_true", "ours": "ok"}]}, HOLDS),
    ({"all": [{"test": "above", "ours": "alpha", "threshold": 2}, {"test": "below", "ours": "alpha", "threshold": 2}]},
     FAILS),
    ({"all": [{"test": "above", "ours": "alpha", "threshold": 2, "interval": "ci.wide"},
              {"test": "is_true", "ours": "ok"}]}, UNDECIDED),
])
def test_each_criterion_on_known_values(criterion, state):
    assert judge(criterion, VALUES)[0] == state


def test_a_claim_is_reproduced_only_when_its_control_fails():
    values = {**VALUES, "null": NULL}
    record = verdict({**CLAIM, "criterion": {**CLAIM["criterion"], "paper": 2.5}}, values)
    assert record["verdict"] == REPRODUCED and record["kind"] == "claim"
    assert record["control"] == {"subject": "a random ranker", "outcome": FAILS, "ours": 1.0}
    # the null reaches the paper's value too: the criterion cannot tell them apart
    passing_null = {**values, "null": {**NULL, "alpha": 2.45}}
    record = verdict({**CLAIM, "criterion": {**CLAIM["criterion"], "paper": 2.5}}, passing_null)
    assert record["verdict"] == INCONCLUSIVE and record["reason"] == verdicts.CANNOT_TELL


def test_qualitative_and_not_reproduced_with_a_failing_control():
    values = {**VALUES, "null": NULL}
    record = verdict(CLAIM, values)
    assert record["verdict"] == QUALITATIVE and record["ours"] == 2.4 and record["label"] == "Fig. 7"
    assert "3.5" in record["criterion"] and "> 2" in record["qualitative_criterion"]
    assert verdict({**CLAIM, "qualitative": {"test": "above", "ours": "alpha", "threshold": 3}},
                   values)["verdict"] == NOT_REPRODUCED
    # the qualitative reading holds for the null as well: inconclusive, not qualitative
    weak = verdict({**CLAIM, "qualitative": {"test": "above", "ours": "alpha", "threshold": 0.5}}, values)
    assert weak["verdict"] == INCONCLUSIVE and "qualitative" in weak["reason"]
    # the claim's criterion fails outright; its weaker reading cannot be decided: not reproduced, noted
    undecided = verdict({**CLAIM, "qualitative": {"test": "above", "ours": "alpha", "threshold": 2,
                                                  "interval": "ci.wide"}}, values)
    assert undecided["verdict"] == NOT_REPRODUCED and "includes no difference" in undecided["qualitative_note"]


def test_a_pinned_estimate_is_inconclusive_with_what_would_make_it_conclusive():
    item = {**CLAIM, "criterion": {"test": "below", "ours": "alpha", "threshold": 3},
            "measured": [{"test": "above", "ours": "alpha", "threshold": 1.0001,
                          "means": "the decay rate is above the fit's floor"}],
            "conclusive_with": "the full profile"}
    values = {**VALUES, "alpha": 1.0001, "null": {**NULL, "alpha": 5.0}}
    record = verdict(item, values)
    assert record["verdict"] == INCONCLUSIVE
    assert record["reason"] == "not measured: the decay rate is above the fit's floor (ours: 1)"
    assert record["conclusive_with"] == "the full profile"
    assert verdict(item, {**values, "alpha": 2.4})["verdict"] == REPRODUCED


def test_a_degenerate_output_is_inconclusive_not_a_contradiction():
    item = {**CLAIM, "criterion": {"test": "above", "ours": "theta_mean", "threshold": 0.2}, "qualitative": None,
            "measured": [{"test": "distinct", "ours": "theta", "means": "the thetas are not all identical"}]}
    item = {key: value for key, value in item.items() if value is not None}
    values = {"theta": [0.0, 0.0, 0.0], "theta_mean": 0.0, "null": {"theta_mean": 0.0}}
    record = verdict(item, values)
    assert record["verdict"] == INCONCLUSIVE and "not all identical" in record["reason"]
    values = {"theta": [0.1, 0.0, 0.2], "theta_mean": 0.1, "null": {"theta_mean": 0.0}}
    assert verdict(item, values)["verdict"] == NOT_REPRODUCED


def test_an_interval_that_straddles_the_line_is_inconclusive():
    item = {**CLAIM, "criterion": {"test": "above", "ours": "alpha", "threshold": 2, "interval": "ci.wide"}}
    record = verdict(item, {**VALUES, "null": {**NULL, "ci": {"wide": [0.5, 1.5]}}})
    assert record["verdict"] == INCONCLUSIVE and record["reason"].startswith("the interval includes no difference")


def test_checks_hold_or_fail_and_are_never_reproductions():
    check = {"id": "fig01", "label": "Fig. 1", "figure": "x", "kind": "check",
             "criterion": {"test": "is_true", "ours": "ok"}}
    assert verdict(check, VALUES)["verdict"] == HOLDS
    assert verdict(check, {**VALUES, "ok": False})["verdict"] == FAILS


# A finding: a claim of this book's own (a study chapter), judged as a claim is, in its own words.
FINDING = {"id": "rank-agreement", "label": "Finding 1", "figure": "agreement-fig02-agreement", "kind": "finding",
           "criterion": {"test": "above", "ours": "tau", "threshold": 0.3, "interval": "tau_ci"},
           "measured": [{"test": "above", "ours": "n_subjects", "threshold": 4, "means": "at least five subjects"}],
           "control": {"values": "shuffled", "subject": "the measures' scores shuffled across subjects"},
           "conclusive_with": "the full profile's twelve subjects"}
FINDING_VALUES = {"tau": 0.6, "tau_ci": [0.45, 0.75], "n_subjects": 8,
                  "shuffled": {"tau": 0.02, "tau_ci": [-0.3, 0.3], "n_subjects": 8}}


def test_a_finding_is_supported_when_its_criterion_holds_and_its_control_fails():
    record = verdict(FINDING, FINDING_VALUES)
    assert record["verdict"] == verdicts.SUPPORTED == "supported" and record["kind"] == verdicts.FINDING
    assert record["control"] == {"subject": "the measures' scores shuffled across subjects", "outcome": FAILS,
                                 "ours": 0.02}
    assert record["verdict"] in verdicts.FINDING_VERDICTS and record["verdict"] not in verdicts.VERDICTS


def test_a_finding_whose_criterion_fails_on_a_working_measurement_is_not_supported():
    record = verdict(FINDING, {**FINDING_VALUES, "tau": 0.1, "tau_ci": [-0.05, 0.25]})
    assert record["verdict"] == verdicts.NOT_SUPPORTED == "not supported"


@pytest.mark.parametrize("change, reason", [
    ({"shuffled": {"tau": 0.5, "tau_ci": [0.4, 0.6]}}, verdicts.CANNOT_TELL),  # the control holds too
    ({"n_subjects": 3}, "not measured: at least five subjects (ours: 3)"),      # unmeasured
    ({"tau_ci": [0.1, 0.9]}, "the interval includes no difference"),            # undecided
])
def test_a_finding_is_inconclusive_as_a_claim_would_be(change, reason):
    record = verdict(FINDING, {**FINDING_VALUES, **change})
    assert record["verdict"] == INCONCLUSIVE and record["reason"].startswith(reason)
    assert record["conclusive_with"] == "the full profile's twelve subjects"


@pytest.mark.parametrize("change, message", [
    ({"qualitative": {"test": "above", "ours": "tau", "threshold": 0}},
     "finding 'rank-agreement' has a `qualitative` criterion"),
    ({"control": None}, "finding 'rank-agreement' needs a `control`"),
])
def test_a_malformed_finding_says_what_is_wrong(change, message):
    item = {key: value for key, value in {**FINDING, **change}.items() if value is not None}
    with pytest.raises(CriterionError) as err:
        verdict(item, FINDING_VALUES)
    assert message in str(err.value)


def test_a_finding_is_judged_from_its_figure_like_any_item():
    assert verdicts.judge_figure("agreement-fig02-agreement", FINDING_VALUES, {"items": [FINDING]}) == {
        "rank-agreement": verdict(FINDING, FINDING_VALUES)}


@pytest.mark.parametrize("change, message", [
    ({"kind": None}, "needs kind: claim, check or finding"),
    ({"control": None}, "needs a `control`"),
    ({"control": {"values": "null"}}, "control needs `values`"),
    ({"control": {"values": "nowhere", "subject": "x"}}, "the control's values: no key 'nowhere'"),
    ({"measured": [{"test": "is_true", "ours": "ok"}]}, "needs `means`"),
])
def test_malformed_items_say_what_is_wrong(change, message):
    item = {key: value for key, value in {**CLAIM, **change}.items() if value is not None}
    with pytest.raises(CriterionError) as err:
        verdict(item, {**VALUES, "null": NULL})
    assert message in str(err.value)


@pytest.mark.parametrize("criterion, message", [
    ({"test": "nearly", "ours": "alpha"}, "unknown test 'nearly'; allowed: within_factor"),
    ({"test": "above", "threshold": 1}, "needs `ours`"),
    ({"test": "above", "ours": "beta", "threshold": 1}, "no key 'beta'"),
    ({"test": "above", "ours": "alpha"}, "above needs 'threshold'"),
    ({"test": "above", "ours": "level", "threshold": 1}, "ours must be a finite number, got 'Capable'"),
    ({"test": "trend", "ours": "rho", "p": "p", "sign": "up"}, "sign: positive or negative"),
    ({"test": "same_order", "ours": "acc", "order": ["linear", "svm"]}, "no value for ['svm']"),
    ({"test": "within_factor", "ours": "alpha", "paper": 2, "factor": 0.5}, "factor >= 1"),
])
def test_malformed_criteria_say_what_is_wrong(criterion, message):
    with pytest.raises(CriterionError, match=None) as err:
        judge(criterion, VALUES)
    assert message in str(err.value)


def test_judge_figure_names_the_item_and_skips_other_figures():
    registry = {"items": [
        {"id": "fig01", "label": "Fig. 1", "figure": "survival-fig01-levels", "kind": "check",
         "criterion": {"test": "is_true", "ours": "ok"}},
        {"id": "fig02", "label": "Fig. 2", "figure": "survival-fig02-mnist-decay", "kind": "check",
         "criterion": {"test": "is_true", "ours": "missing"}},
        {"id": "fig03", "label": "Fig. 3", "not_yet": "issue 16"},
    ]}
    assert list(verdicts.judge_figure("survival-fig01-levels", VALUES, registry)) == ["fig01"]
    with pytest.raises(CriterionError, match=r"survival-fig02-mnist-decay, item fig02 \(Fig. 2\): no key 'missing'"):
        verdicts.judge_figure("survival-fig02-mnist-decay", VALUES, registry)


@pytest.mark.parametrize("item", [
    {"id": "fig01", "label": "Fig. 1"},
    {"id": "fig01", "label": "Fig. 1", "figure": "survival-fig01-levels", "not_yet": "issue 16"},
])
def test_an_item_has_exactly_one_status(item):
    with pytest.raises(CriterionError, match="exactly one of figure, not_yet, not_a_result"):
        verdicts.item_status(item)


def test_changing_a_paper_value_in_a_copy_of_the_registry_flips_a_reproduced_verdict(tmp_path):
    """g-index Table 1 recomputed through the library (as its notebook does), judged by the real
    items.yaml, then by a copy in which one of the paper's g-index values is 10 % higher."""
    from intellimetry.gindex.study import table1_values

    values = table1_values(experience_mode="log2", prior=1e-4)  # the quick profile's parameters
    original = (paths.REFERENCE_DIR / "gindex" / verdicts.ITEMS_FILE).read_text(encoding="utf-8")
    assert verdicts.judge_figure("gindex-tab01-models", values, yaml.safe_load(original))["tab01"]["verdict"] \
        == REPRODUCED
    row = "{test: within_factor, ours: rows.GPT2-345M_2.ours, paper: 7902.972, factor: 1.05}"
    assert original.count(row) == 1
    copy = tmp_path / verdicts.ITEMS_FILE
    copy.write_text(original.replace(row, row.replace("7902.972", "8693.269")), encoding="utf-8")
    record = verdicts.judge_figure("gindex-tab01-models", values, yaml.safe_load(copy.read_text()))["tab01"]
    # the row no longer holds (the ranking is item tab01-rank now), and the random ranker fails too
    assert record["verdict"] == NOT_REPRODUCED and record["control"]["outcome"] == "fails"
