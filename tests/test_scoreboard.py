"""The scoreboard: rows and totals from items.yaml and sidecar verdicts; every registry is well formed."""
from __future__ import annotations

import pytest

from intellimetry import PAPERS, paths, verdicts
from intellimetry.book import scoreboard
from intellimetry.pipeline.project import Project

REGISTRIES = [p for p in PAPERS if (paths.REFERENCE_DIR / p / verdicts.ITEMS_FILE).is_file()]


def fake_sidecars(verdict_by_figure: dict[str, dict]):
    return lambda fig_id: {"verdicts": verdict_by_figure[fig_id]} if fig_id in verdict_by_figure else None


def test_rows_take_verdicts_from_sidecars_and_count_every_item(monkeypatch):
    registry = {"paper": "Demo paper", "items": [
        {"id": "fig01", "label": "Fig. 1", "claim": "a claim", "figure": "survival-fig01-levels",
         "criterion": {"test": "is_true", "ours": "ok"}},
        {"id": "fig02", "label": "Fig. 2", "claim": "costs $5 | more", "figure": "survival-fig02-mnist-decay",
         "criterion": {"test": "is_true", "ours": "ok"}},
        {"id": "fig03", "label": "Fig. 3", "claim": "later", "not_yet": "issue 16"},
        {"id": "fig04", "label": "Fig. 4", "claim": "a drawing", "not_a_result": "a schematic"},
    ]}
    monkeypatch.setattr(scoreboard, "PAPERS", ("survival",))
    monkeypatch.setattr(verdicts, "load_items", lambda paper: registry)
    record = verdicts.verdict(registry["items"][0], {"ok": True})
    rows = scoreboard.collect(fake_sidecars({"survival-fig01-levels": {"fig01": record}}))
    assert [row.status for row in rows] == ["reproduced", scoreboard.NOT_RUN, "not yet", "not a result"]
    assert scoreboard.totals(rows)["Demo paper"] == {"items": 4, "reproduced": 1, scoreboard.NOT_RUN: 1,
                                                    "not yet": 1, "not a result": 1}
    table = "\n".join(scoreboard.tables_markdown(rows))
    assert "costs \\$5 \\| more" in table
    assert ("| Fig. 1<br>{ref}`ours <survival-fig01-levels>` | **reproduced** | a claim "
            "| yes<br>*criterion:* ok holds (yes) |") in table
    summary = scoreboard.summary_markdown(rows)
    assert summary[2] == "| {doc}`Demo paper </survival/index>` | 4 | 1 | 0 | 0 | 1 | 1 |"
    assert summary[3] == "| **all papers** | 4 | 1 | 0 | 0 | 1 | 1 |"


@pytest.mark.parametrize("chapter", REGISTRIES)
def test_every_registry_is_well_formed(chapter):
    registry = verdicts.load_items(chapter)
    figures = Project.at().figures()
    ids = [item["id"] for item in registry["items"]]
    assert len(ids) == len(set(ids)), f"duplicate item ids in {chapter}/items.yaml"
    assert registry["paper"] and registry["citation"]
    for item in registry["items"]:
        assert item["label"] and item["claim"] and item["source"], f"{chapter} {item['id']}: label, claim, source"
        if verdicts.item_status(item) == verdicts.COVERED:
            assert item["figure"] in figures, f"{chapter} {item['id']}: no notebook for {item['figure']}"
            assert paths.paper_of(item["figure"]) == chapter, f"{item['figure']} is not a {chapter} figure"
            assert "criterion" in item and item.get("criterion_reason"), f"{chapter} {item['id']}: criterion + reason"
            for criterion in (item["criterion"], item.get("qualitative")):
                if criterion:
                    _check_shape(criterion)


def _check_shape(criterion):
    """Every test name known (values are checked when the figure runs)."""
    for part in criterion.get("all", [criterion]):
        assert part.get("test") in verdicts.TESTS, f"unknown test {part.get('test')!r}"


def test_the_registries_list_every_item_of_the_five_papers():
    """Intelligence Test 15 figures; AIQ 29 + Table 1; combined 6 + 2; g-index 12 + 3; AGITB 2 + 1."""
    counts = {}
    for chapter in REGISTRIES:
        registry = verdicts.load_items(chapter)
        counts[registry["paper"]] = counts.get(registry["paper"], 0) + len(registry["items"])
    if len(REGISTRIES) < len(PAPERS):
        pytest.skip(f"registries so far: {REGISTRIES}")
    assert sum(counts.values()) == 71, counts


@pytest.mark.parametrize("chapter", REGISTRIES)
def test_every_covered_item_shows_its_verdict_on_its_chapter_page(chapter):
    """The chapter states each verdict where it explains it (and, where not reproduced, why)."""
    page = (paths.BOOK_DIR / chapter / "index.md").read_text(encoding="utf-8")
    missing = [item["id"] for item in verdicts.load_items(chapter)["items"]
               if item.get("figure") and f"{{verdict}}`{item['figure']}:{item['id']}`" not in page]
    assert not missing, f"book/{chapter}/index.md shows no {{verdict}} role for items {missing}"
