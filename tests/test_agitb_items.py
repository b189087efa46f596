"""The AGITB item registry: every figure and table of the paper, in order, and criteria that judge
what the notebooks record (a value that contradicts the paper's claim flips the verdict). The three
figure and table items are implementation checks; the central claim is judged on the verdict table
(tests/test_agitb_study.py)."""
import pytest

from intellimetry.verdicts import CHECK, FAILS, HOLDS, judge_figure, load_items

# What each notebook records for the items it covers, as a run that agrees with the paper would.
AGREEING = {
    "agitb-fig01-inputs": {"bits": 10, "input_bits_set": 4, "cyclic_admissible": True},
    "agitb-fig02-adaptation": {"bits_gained": 12},
    "agitb-tab01-benchmarks": {"all_code_rows_match": True},
}
# One change per figure that contradicts the paper's claim.
CONTRADICTING = {
    "agitb-fig01-inputs": {"cyclic_admissible": False},
    "agitb-fig02-adaptation": {"bits_gained": 0},
    "agitb-tab01-benchmarks": {"all_code_rows_match": False},
}


@pytest.fixture(scope="module")
def registry():
    return load_items("agitb")


def test_every_paper_item_in_order(registry):
    assert [item["id"] for item in registry["items"]] == ["fig01", "fig02", "tab01", "central"]
    assert {item["figure"] for item in registry["items"]} == {*AGREEING, "agitb-tab00-verdicts"}


@pytest.mark.parametrize("fig_id", sorted(AGREEING))
def test_verdict_flips_when_the_run_contradicts_the_claim(registry, fig_id):
    agreeing = judge_figure(fig_id, AGREEING[fig_id], registry)
    assert agreeing and all(r["verdict"] == HOLDS and r["kind"] == CHECK for r in agreeing.values())
    contradicting = judge_figure(fig_id, {**AGREEING[fig_id], **CONTRADICTING[fig_id]}, registry)
    assert all(r["verdict"] == FAILS for r in contradicting.values())


def test_figures_that_cover_no_item_get_no_verdict(registry):
    assert judge_figure("agitb-fig00-search-space", {}, registry) == {}
