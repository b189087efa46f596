"""Verdicts: each criterion test on hand-made values, the three verdicts, and the registry's shape."""
from __future__ import annotations

import pytest
import yaml

from intellimetry import paths, verdicts
from intellimetry.verdicts import NOT_REPRODUCED, QUALITATIVE, REPRODUCED, CriterionError, judge, verdict

VALUES = {"alpha": 2.4, "rho": -0.6, "p": 0.01, "ok": True, "level": "Capable",
          "acc": {"linear": 0.90, "mlp": 0.95, "cnn": 0.99}, "fit": {"slope": 0.5, "p": 0.2}}


@pytest.mark.parametrize("criterion, holds", [
    ({"test": "within_factor", "ours": "alpha", "paper": 2.0, "factor": 1.25}, True),   # 2.4 / 2.0 = 1.2
    ({"test": "within_factor", "ours": "alpha", "paper": 2.0, "factor": 1.1}, False),
    ({"test": "within_factor", "ours": "alpha", "paper": 3.0, "factor": 1.25}, True),   # 3.0 / 2.4 = 1.25
    ({"test": "within", "ours": "alpha", "paper": 2.5, "tolerance": 0.1}, True),
    ({"test": "within", "ours": "alpha", "paper": 2.6, "tolerance": 0.1}, False),
    ({"test": "between", "ours": "alpha", "low": 2, "high": 3}, True),
    ({"test": "between", "ours": "alpha", "low": 2.5}, False),
    ({"test": "above", "ours": "alpha", "threshold": 2}, True),
    ({"test": "below", "ours": "alpha", "threshold": 2}, False),
    ({"test": "equals", "ours": "level", "paper": "Capable"}, True),
    ({"test": "is_true", "ours": "ok"}, True),
    ({"test": "same_order", "ours": "acc", "order": ["linear", "mlp", "cnn"]}, True),
    ({"test": "same_order", "ours": "acc", "order": ["mlp", "linear", "cnn"]}, False),
    ({"test": "trend", "ours": "rho", "p": "p", "sign": "negative"}, True),
    ({"test": "trend", "ours": "rho", "p": "p", "sign": "positive"}, False),
    ({"test": "trend", "ours": "fit.slope", "p": "fit.p", "sign": "positive"}, False),  # right sign, p too large
    ({"test": "trend", "ours": "fit.slope", "p": "fit.p", "sign": "positive", "alpha": 0.25}, True),
    ({"all": [{"test": "above", "ours": "alpha", "threshold": 2}, {"test": "is_true", "ours": "ok"}]}, True),
    ({"all": [{"test": "above", "ours": "alpha", "threshold": 2}, {"test": "below", "ours": "alpha", "threshold": 2}]},
     False),
])
def test_each_criterion_on_known_values(criterion, holds):
    assert judge(criterion, VALUES)[0] is holds


def test_the_three_verdicts_and_the_record():
    item = {"id": "fig07", "label": "Fig. 7", "figure": "aiq-fig07-force",
            "criterion": {"test": "within_factor", "ours": "alpha", "paper": 3.5, "factor": 1.2},
            "qualitative": {"test": "above", "ours": "alpha", "threshold": 2}}
    record = verdict(item, VALUES)
    assert record["verdict"] == QUALITATIVE and record["ours"] == 2.4 and record["label"] == "Fig. 7"
    assert "3.5" in record["criterion"] and "> 2" in record["qualitative_criterion"]
    assert verdict({**item, "qualitative": {"test": "above", "ours": "alpha", "threshold": 3}},
                   VALUES)["verdict"] == NOT_REPRODUCED
    assert verdict({**item, "criterion": {**item["criterion"], "paper": 2.5}}, VALUES)["verdict"] == REPRODUCED


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
        {"id": "fig01", "label": "Fig. 1", "figure": "survival-fig01-levels",
         "criterion": {"test": "is_true", "ours": "ok"}},
        {"id": "fig02", "label": "Fig. 2", "figure": "survival-fig02-mnist-decay",
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
    # the row no longer holds; the ranking (the item's qualitative criterion) still does
    assert record["verdict"] == QUALITATIVE
