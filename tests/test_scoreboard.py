"""The scoreboard: rows and totals from items.yaml and sidecar verdicts; every registry is well formed."""
from __future__ import annotations

import importlib
import json
import re

import pytest
from docutils import nodes
from docutils.core import publish_doctree
from myst_parser.parsers.docutils_ import Parser

from intellimetry import CHAPTERS, PAPERS, STUDIES, paths, verdicts
from intellimetry.book import records, scoreboard
from intellimetry.book.check import plain_text_maths
from intellimetry.pipeline.project import Project

# Every chapter's registry that exists (a study's items.yaml may come after its subpackage).
REGISTRIES = [c for c in CHAPTERS if (paths.REFERENCE_DIR / c / verdicts.ITEMS_FILE).is_file()]
PAPER_REGISTRIES = [c for c in REGISTRIES if c in PAPERS]


def fake_sidecars(verdict_by_figure: dict[str, dict]):
    return lambda fig_id: {"verdicts": verdict_by_figure[fig_id]} if fig_id in verdict_by_figure else None


def test_rows_take_verdicts_from_sidecars_and_count_claims_apart_from_checks(monkeypatch):
    registry = {"paper": "Demo paper", "items": [
        {"id": "fig01", "label": "Fig. 1", "claim": "a claim", "figure": "survival-fig01-levels", "kind": "claim",
         "in_words": "it works", "criterion": {"test": "is_true", "ours": "ok"},
         "control": {"values": "null", "subject": "a coin"}},
        {"id": "fig02", "label": "Fig. 2", "claim": "costs $5 | more", "figure": "survival-fig02-mnist-decay",
         "kind": "claim", "criterion": {"test": "is_true", "ours": "ok"}, "no_control": "nothing to shuffle"},
        {"id": "fig03", "label": "Fig. 3", "claim": "later", "not_yet": "issue 16", "kind": "claim"},
        {"id": "fig04", "label": "Fig. 4", "claim": "a drawing", "not_a_result": "a schematic", "kind": "check"},
        {"id": "fig05", "label": "Fig. 5", "claim": "a sum", "figure": "survival-fig05-recommendation",
         "kind": "check", "in_words": "the parts add up", "criterion": {"test": "is_true", "ours": "ok"}},
    ]}
    monkeypatch.setattr(scoreboard, "CHAPTERS", ("survival",))
    monkeypatch.setattr(verdicts, "load_items", lambda paper: registry)
    values = {"ok": True, "null": {"ok": False}}
    sidecars = {"survival-fig01-levels": {"fig01": verdicts.verdict(registry["items"][0], values)},
                "survival-fig05-recommendation": {"fig05": verdicts.verdict(registry["items"][4], values)}}
    full = {"figures": {"survival-fig01-levels": {"verdicts": {"fig01": "not reproduced"}, "kinds": {"fig01": "claim"},
                                                  "up_to_date_when_recorded": True}}}
    rows = scoreboard.collect(fake_sidecars(sidecars), full)
    assert [row.status for row in rows] == ["reproduced", scoreboard.NOT_RUN, "not yet", "not a result", "holds"]
    assert rows[0].control == "a coin: no; the criterion fails" and rows[0].full == "not reproduced"
    counts = scoreboard.totals(rows)["Demo paper"]
    assert counts == {"items": 3, "reproduced": 1, scoreboard.NOT_RUN: 1, "not yet": 1,
                      "checks": {"items": 2, "not a result": 1, "holds": 1}}
    table = "\n".join(scoreboard.tables_markdown(rows))
    assert "costs \\$5 \\| more" in table
    assert ("| Fig. 1<br>{ref}`ours <survival-fig01-levels>`<br>**reproduced** | a claim | it works | **Ours:** yes"
            "<br>**Control:** a coin: no; the criterion fails<br>**Full profile:** not reproduced |") in table
    assert "3 claims: 1 reproduced, 1 not yet, 1 not run. 2 implementation checks: 1 holds, 1 not a result." in table
    assert ("| Fig. 5<br>{ref}`ours <survival-fig05-recommendation>` | **holds** | a sum | the parts add up "
            "| yes |") in table
    summary = scoreboard.summary_markdown(rows)
    assert summary[2] == "| {doc}`Demo paper </survival/index>` | 3 | 1 | 0 | 0 | 0 | 1 | 0 | 1 of 2 |"
    assert summary[3] == "| **all papers** | 3 | 1 | 0 | 0 | 0 | 1 | 0 | 1 of 2 |"


def test_an_inconclusive_row_says_why_and_what_would_conclude_it():
    item = {"id": "fig12", "label": "Fig. 12", "figure": "survival-fig12-model-size", "kind": "claim",
            "criterion": {"test": "above", "ours": "alpha", "threshold": 2}, "conclusive_with": "the full profile",
            "measured": [{"test": "above", "ours": "alpha", "threshold": 1.0001, "means": "alpha off its floor"}],
            "control": {"values": "null", "subject": "a random ranker"}}
    row = scoreboard.Row("P", "survival", "fig12", "Fig. 12", "c", "")
    scoreboard._fill(row, verdicts.verdict(item, {"alpha": 1.0001, "null": {"alpha": 0.5}}))
    assert row.status == "inconclusive"
    assert row.reason == "not measured: alpha off its floor (ours: 1). Conclusive with: the full profile"


def _typeset(markdown: str) -> nodes.document:
    """The scoreboard's Markdown as the book parses it (MyST with dollarmath, book/_config.yml)."""
    return publish_doctree(markdown, parser=Parser(), settings_overrides={
        "myst_enable_extensions": ["dollarmath"], "report_level": 4})


def test_maths_in_a_claim_criterion_and_reason_is_typeset_and_a_dollar_sign_is_not(monkeypatch):
    r"""items.yaml's text is MyST: `$...$` becomes a math node in the table (issue 36), `\$` and a `$`
    that pairs with nothing stay dollar signs, and a pipe inside maths does not split the cell."""
    registry = {"paper": "Demo paper", "items": [
        {"id": "fig01", "label": "Fig. 1", "claim": r"counts decay as $k^{-\alpha}$, not \$5 | $6",
         "figure": "survival-fig01-levels", "kind": "claim", "in_words": "events in $[k_{min}, K-1]$",
         "criterion": {"test": "is_true", "ours": "ok"}, "no_control": "none",
         "measured": [{"test": "is_true", "ours": "ok", "means": "$|x| > 1$ holds"}]}]}
    monkeypatch.setattr(scoreboard, "CHAPTERS", ("survival",))
    monkeypatch.setattr(verdicts, "load_items", lambda paper: registry)
    record = verdicts.verdict(registry["items"][0], {"ok": False})
    rows = scoreboard.collect(fake_sidecars({"survival-fig01-levels": {"fig01": record}}))
    table = "\n".join(scoreboard.tables_markdown(rows)).replace("{ref}`ours <survival-fig01-levels>`", "ours")
    assert r"counts decay as $k^{-\alpha}$, not \$5 \| \$6" in table
    doc = _typeset(table)
    assert [m.astext() for m in doc.findall(nodes.math)] == [r"\vert x\vert  > 1", r"k^{-\alpha}", "[k_{min}, K-1]"]
    cells = [entry.astext() for entry in doc.findall(nodes.entry)]
    assert r"counts decay as k^{-\alpha}, not $5 | $6" in cells


PROSE_KEYS = ("claim", "in_words", "not_yet", "not_a_result", "conclusive_with")


def _shown_text(item: dict):
    """The text of an item that the scoreboard shows (the `means` of a `measured` condition in the reason)."""
    yield from (str(item[key]) for key in PROSE_KEYS if item.get(key))
    yield from (str(condition["means"]) for condition in item.get("measured", []))


@pytest.mark.parametrize("chapter", REGISTRIES)
def test_the_scoreboards_text_writes_maths_as_myst_maths(chapter):
    r"""What the browser check would find on the scoreboard (issue 36), caught in the source: no caret or
    subscript maths outside `$...$`, and every `$` paired (a lone one is written `\$`)."""
    for item in verdicts.load_items(chapter)["items"]:
        for text in _shown_text(item):
            outside = scoreboard.MATH_SPAN.sub(" ", text)
            assert not plain_text_maths(outside), f"{chapter} {item['id']}: {plain_text_maths(outside)}"
            assert "$" not in outside.replace(r"\$", ""), f"{chapter} {item['id']}: an unpaired $ in {text!r}"


@pytest.mark.parametrize("chapter", REGISTRIES)
def test_every_registry_is_well_formed(chapter):
    registry = verdicts.load_items(chapter)
    figures = Project.at().figures()
    ids = [item["id"] for item in registry["items"]]
    assert len(ids) == len(set(ids)), f"duplicate item ids in {chapter}/items.yaml"
    if chapter in STUDIES:  # no paper: its title, no citation; findings (and checks) of its own, no claims
        assert registry["title"] and not {"paper", "citation"} & set(registry), \
            f"{chapter}/items.yaml: a study has a `title:` and no `paper:` or `citation:`"
        allowed = {verdicts.FINDING, verdicts.CHECK}
    else:
        assert registry["paper"] and registry["citation"]
        allowed = {verdicts.CLAIM, verdicts.CHECK}
    for item in registry["items"]:
        assert item["label"] and item["claim"] and item["source"], f"{chapter} {item['id']}: label, claim, source"
        kind = verdicts.item_kind(item)
        assert kind in allowed, f"{chapter} {item['id']}: kind {kind!r} in this chapter; allowed: {sorted(allowed)}"
        assert item.get("kind_reason"), f"{chapter} {item['id']}: kind_reason (why a claim or a check)"
        if verdicts.item_status(item) == verdicts.COVERED:
            assert item.get("in_words"), f"{chapter} {item['id']}: in_words (the criterion for a reader)"
            if kind in (verdicts.CLAIM, verdicts.FINDING):
                assert ("control" in item) != bool(item.get("no_control")), \
                    f"{chapter} {item['id']}: a claim needs a control or no_control (why none), not both"
            assert item["figure"] in figures, f"{chapter} {item['id']}: no notebook for {item['figure']}"
            assert paths.paper_of(item["figure"]) == chapter, f"{item['figure']} is not a {chapter} figure"
            assert "criterion" in item and item.get("criterion_reason"), f"{chapter} {item['id']}: criterion + reason"
            for criterion in (item["criterion"], item.get("qualitative"), *item.get("measured", [])):
                if criterion:
                    _check_shape(criterion)
            if kind in (verdicts.CLAIM, verdicts.FINDING):
                _orderings_carry_intervals(item)


def _check_shape(criterion):
    """Every test name known (values are checked when the figure runs)."""
    for part in criterion.get("all", [criterion]):
        assert part.get("test") in verdicts.TESTS, f"unknown test {part.get('test')!r}"


def _orderings_carry_intervals(item):
    """Issue 32, rule 6: a claim's ordering uses the intervals its statistics carry (bootstrap,
    permutation, or the spread over at least three seeds), unless the values are exact (`exact: why`)."""
    for criterion in (item["criterion"], item.get("qualitative")):
        for part in (criterion or {}).get("all", [criterion] if criterion else []):
            if part["test"] == "same_order":
                assert "intervals" in part or part.get("exact"), \
                    f"{item['id']}: same_order on {part['ours']} needs `intervals` (or `exact: why`)"


def _paper_items():
    for chapter in REGISTRIES:
        for item in verdicts.load_items(chapter)["items"]:
            if item.get("paper_values"):
                yield pytest.param(chapter, item, id=f"{chapter}-{item['id']}")


@pytest.mark.parametrize("chapter, item", list(_paper_items()))
def test_the_papers_own_numbers_pass_their_criteria(chapter, item):
    """Where data/reference holds the paper's numbers for an item, the item's criterion (and every
    `measured` condition) must hold for them: a criterion the paper itself fails is a wrong criterion."""
    module, _, function = item["paper_values"].partition(":")
    values = getattr(importlib.import_module(module), function)()
    state, ours, words = verdicts.judge(item["criterion"], values)
    assert state == verdicts.HOLDS, f"{chapter} {item['id']}: the paper's own numbers give {state}: {words}; {ours}"
    for condition in item.get("measured", []):
        if all(_has(values, key) for key in verdicts.keys_read(condition)):  # what the paper reports of it
            state = verdicts.judge(condition, values)[0]
            assert state == verdicts.HOLDS, f"{chapter} {item['id']}: {condition['means']}"


def _has(values, key: str) -> bool:
    """The paper reports this value (None: the paper's numbers say nothing of it, e.g. a sample size)."""
    try:
        return verdicts.value_at(values, key) is not None
    except KeyError:
        return False


def test_the_scoreboard_totals_match_a_plain_count_of_items_and_sidecars(tmp_path):
    """The headline's totals against an independent count: claims by their sidecar verdict, checks apart."""
    project = Project.at()
    figures = project.figures()
    sidecars = {fig_id: json.loads(path.read_text()) for fig_id in figures
                if (path := project.sidecar("quick", figures[fig_id])).is_file()}
    expected: dict[str, dict] = {}
    for chapter in PAPER_REGISTRIES:  # 'all papers' counts the papers' items, never a study's
        for item in verdicts.load_items(chapter)["items"]:
            status = verdicts.item_status(item)
            if status == verdicts.COVERED:
                record = sidecars.get(item["figure"], {}).get("verdicts", {}).get(item["id"])
                status = record["verdict"] if record else scoreboard.NOT_RUN
            group = "claims" if item["kind"] == "claim" else "checks"
            expected.setdefault(group, {}).setdefault(status, 0)
            expected[group][status] += 1
    counts = scoreboard.totals(scoreboard.collect(lambda fig_id: sidecars.get(fig_id)))["all papers"]
    checks = counts.pop(scoreboard.CHECKS)
    assert counts.pop("items") == sum(expected["claims"].values()) and counts == expected["claims"]
    assert checks.pop("items") == sum(expected["checks"].values()) and checks == expected["checks"]


def test_the_registries_list_every_item_of_the_five_papers():
    """Intelligence Test 15 figures; AIQ 29 + Table 1; combined 6 + 2; g-index 12 + 3; AGITB 2 + 1; beside
    them, items added to test a claim the figures leave out (`added: why`), such as a central claim or
    a statement split off a figure's item."""
    counts, added = {}, []
    for chapter in PAPER_REGISTRIES:
        registry = verdicts.load_items(chapter)
        for item in registry["items"]:
            if item.get("added"):
                added.append(item["id"])
            else:
                counts[registry["paper"]] = counts.get(registry["paper"], 0) + 1
    if len(PAPER_REGISTRIES) < len(PAPERS):
        pytest.skip(f"registries so far: {PAPER_REGISTRIES}")
    assert sum(counts.values()) == 71, counts
    assert {"central", "tab01-rank", "fig09-entropy", "fig10-entropy", "fig11-recovery"} <= set(added), added


def verdicts_quoted(text: str) -> set[tuple[str, str]]:
    """(figure, item) of every {verdict} role on a page: its own figure id, or the {figure-values} above."""
    quoted, current = set(), None
    for line in text.split("\n"):
        if line.startswith("```{figure-values}"):
            current = line.split()[-1]
        for body in re.findall(r"\{verdict\}`([^`]*)`", line):
            figure, _, item = body.rpartition(":")
            quoted.add((figure or current, item))
    return quoted


def test_verdicts_quoted_reads_the_pages_figure():
    page = "{verdict}`a-fig01-x:one`\n```{figure-values} b-fig02-y\n```\n**{verdict}`two`**"
    assert verdicts_quoted(page) == {("a-fig01-x", "one"), ("b-fig02-y", "two")}


@pytest.mark.parametrize("chapter", REGISTRIES)
def test_every_covered_item_shows_its_verdict_in_its_chapter(chapter):
    """The chapter states each verdict where it explains it (and, where not reproduced, why)."""
    quoted = set().union(*(verdicts_quoted(page.read_text(encoding="utf-8"))
                           for page in (paths.BOOK_DIR / chapter).glob("*.md")))
    missing = [item["id"] for item in verdicts.load_items(chapter)["items"]
               if item.get("figure") and (item["figure"], item["id"]) not in quoted]
    assert not missing, f"no page of book/{chapter}/ shows a {{verdict}} role for items {missing}"


def test_a_chapter_slice_lists_each_item_with_its_verdict_and_figure():
    Row = scoreboard.Row
    rows = [Row("Demo paper", "survival", "fig01", "Fig. 1", "a claim", "reproduced", figure="survival-fig01-x"),
            Row("Demo paper", "survival", "fig02", "Fig. 2", "a diagram", "not a result", note="a drawing")]
    lines = scoreboard.slice_markdown(rows)
    assert lines[0].startswith("2 claims: 1 reproduced, 1 not a result.")
    assert lines[-2:] == ["| Fig. 1 | claim | **reproduced** | {doc}`/survival/survival-fig01-x` |",
                          "| Fig. 2 | claim | **not a result** | a drawing |"]


STUDY_REGISTRY = {"title": "Five measures, one set of subjects", "items": [
    {"id": "rank-agreement", "label": "Finding 1", "claim": "the measures rank the learners alike",
     "figure": "agreement-fig02-agreement", "kind": "finding", "in_words": "Kendall's tau above 0.3",
     "criterion": {"test": "is_true", "ours": "ok"}, "control": {"values": "null", "subject": "shuffled scores"}},
    {"id": "scale-agreement", "label": "Finding 2", "claim": "the measures agree on scale",
     "figure": "agreement-fig02-agreement", "kind": "finding", "in_words": "ratios within 2",
     "criterion": {"test": "is_true", "ours": "bad"}, "no_control": "none to shuffle"},
    {"id": "fig01", "label": "Fig. 1", "claim": "the matrix of scores", "figure": "agreement-fig01-matrix",
     "kind": "check", "in_words": "every cell measured", "criterion": {"test": "is_true", "ours": "ok"}},
    {"id": "later", "label": "Finding 3", "claim": "a later finding", "not_yet": "issue 40", "kind": "finding"},
]}
PAPER_REGISTRY = {"paper": "Demo paper", "citation": "Someone (2025)", "items": [
    {"id": "fig01", "label": "Fig. 1", "claim": "a claim", "figure": "survival-fig01-levels", "kind": "claim",
     "in_words": "it works", "criterion": {"test": "is_true", "ours": "ok"}, "no_control": "none"}]}


def study_rows(monkeypatch):
    """Rows of a paper (one reproduced claim) and of a study (one supported finding, one not supported,
    one not yet, and a check), from synthetic registries and sidecars."""
    registries = {"survival": PAPER_REGISTRY, "agreement": STUDY_REGISTRY}
    monkeypatch.setattr(scoreboard, "CHAPTERS", ("survival", "agreement"))
    monkeypatch.setattr(paths, "reference_exists", lambda name: True)
    monkeypatch.setattr(verdicts, "load_items", lambda chapter: registries[chapter])
    values = {"ok": True, "bad": False, "null": {"ok": False}}
    items = {item["id"]: item for item in STUDY_REGISTRY["items"]}
    sidecars = {"survival-fig01-levels": {"fig01": verdicts.verdict(PAPER_REGISTRY["items"][0], values)},
                "agreement-fig02-agreement": {key: verdicts.verdict(items[key], values)
                                              for key in ("rank-agreement", "scale-agreement")},
                "agreement-fig01-matrix": {"fig01": verdicts.verdict(items["fig01"], values)}}
    return scoreboard.collect(fake_sidecars(sidecars))


def test_a_studys_findings_are_counted_apart_and_never_as_reproductions(monkeypatch):
    rows = study_rows(monkeypatch)
    assert [(row.paper, row.kind, row.status) for row in rows] == [
        ("Demo paper", "claim", "reproduced"),
        ("Five measures, one set of subjects", "finding", "supported"),
        ("Five measures, one set of subjects", "finding", "not supported"),
        ("Five measures, one set of subjects", "check", "holds"),
        ("Five measures, one set of subjects", "finding", "not yet")]
    counts = scoreboard.totals(rows)
    assert counts["all papers"] == counts["Demo paper"] == {"items": 1, "reproduced": 1, "checks": {"items": 0}}
    assert counts["Five measures, one set of subjects"] == {
        "items": 0, "checks": {"items": 1, "holds": 1},
        "findings": {"items": 3, "supported": 1, "not supported": 1, "not yet": 1}}


def test_findings_show_under_their_own_heading(monkeypatch):
    rows = [row for row in study_rows(monkeypatch) if row.chapter == "agreement"]
    table = "\n".join(scoreboard.tables_markdown(rows))
    assert table.startswith("## Five measures, one set of subjects\n\n3 findings of this book: 1 supported, "
                            "1 not supported, 1 not yet. 1 implementation checks: 1 holds.\n")
    assert "claims:" not in table and "reproduced" not in table
    heading = table.index(f"**{scoreboard.FINDINGS_HEADING}**")
    assert table.index("| Finding 1<br>{ref}`ours <agreement-fig02-agreement>`<br>**supported** | the measures "
                       "rank the learners alike | Kendall's tau above 0.3 | **Ours:** yes<br>**Control:** shuffled "
                       "scores: no; the criterion fails") > heading
    assert table.index("**Implementation checks**") > table.index("| Finding 3<br>**not yet** |")
    assert scoreboard.slice_markdown(rows)[0] == ("3 findings of this book: 1 supported, 1 not supported, "
                                                  "1 not yet. 1 implementation checks: 1 holds.")
    assert "| Finding 2 | finding | **not supported** | {doc}`/agreement/agreement-fig02-agreement` |" in \
        scoreboard.slice_markdown(rows)


def test_the_summary_counts_papers_apart_from_a_studys_findings(monkeypatch):
    summary = scoreboard.summary_markdown(study_rows(monkeypatch))
    assert summary[2:4] == ["| {doc}`Demo paper </survival/index>` | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 of 0 |",
                            "| **all papers** | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 of 0 |"]
    assert summary[5:] == [
        f"| {scoreboard.FINDINGS_HEADING} | Findings | Supported | Not supported | Inconclusive | Not yet "
        "| Not a result | Checks holding |", "|---|---|---|---|---|---|---|---|",
        "| {doc}`Five measures, one set of subjects </agreement/index>` | 3 | 1 | 1 | 0 | 1 | 0 | 1 of 1 |"]


def test_the_readme_block_counts_a_studys_findings_apart(monkeypatch):
    from intellimetry.book import readme

    rows = study_rows(monkeypatch)
    assert readme.totals_table(rows, "https://x.github.io/y/")[-1] == \
        "| **all papers** | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 of 0 |"
    assert readme.findings_table(rows, "https://x.github.io/y/")[2] == (
        "| [Five measures, one set of subjects](https://x.github.io/y/agreement/index.html) | 3 | 1 | 1 | 0 | 1 "
        "| 0 | 1 of 1 |")
    assert readme.findings_table([row for row in rows if row.chapter == "survival"], "") == []
    block = "\n".join(readme.block_lines("https://github.com/x/y", {"figures": {}}, rows, {}, "0.1.0"))
    assert scoreboard.FINDINGS_HEADING in block and "never counted as a reproduction" in block


def test_a_study_needs_a_title_and_a_paper_its_name(monkeypatch):
    with pytest.raises(verdicts.CriterionError, match="agreement/items.yaml needs `title:`"):
        scoreboard.group_name("agreement", {"paper": "Five measures", "items": []})
    assert scoreboard.group_name("survival", PAPER_REGISTRY) == "Demo paper"


# ---- the full profile beside this build's: every item, and where the two disagree ----------------------

DEMO_REGISTRY = {"paper": "Demo paper", "items": [
    {"id": "fig01", "label": "Fig. 1", "claim": "a claim", "figure": "survival-fig01-levels", "kind": "claim",
     "in_words": "it works", "criterion": {"test": "is_true", "ours": "ok"}, "no_control": "none"},
    {"id": "fig02", "label": "Fig. 2", "claim": "another", "figure": "survival-fig02-mnist-decay", "kind": "claim",
     "in_words": "it works", "criterion": {"test": "is_true", "ours": "ok"}, "no_control": "none"},
    {"id": "fig05", "label": "Fig. 5", "claim": "a sum", "figure": "survival-fig05-recommendation", "kind": "check",
     "in_words": "the parts add up", "criterion": {"test": "is_true", "ours": "ok"}},
]}
FULL_RECORD = {"profile": "full", "figures": {
    "survival-fig01-levels": {"commit": "abc", "verdicts": {"fig01": "not reproduced"}, "kinds": {"fig01": "claim"},
                              "statistics": {"fig01": False}, "parameters": {"n": 50, "seed": 0}},
    "survival-fig05-recommendation": {"commit": "abc", "verdicts": {"fig05": "holds"}, "kinds": {"fig05": "check"},
                                      "statistics": {"fig05": True}, "parameters": {"n": 50}}}}


def demo_rows(monkeypatch, full_record=FULL_RECORD):
    """This build: Fig. 1 reproduced, Fig. 2 reproduced, Fig. 5 holds; the full record: Fig. 1 not reproduced
    (its entry no longer current), Fig. 2 not run, Fig. 5 holds (current)."""
    monkeypatch.setattr(scoreboard, "CHAPTERS", ("survival",))
    monkeypatch.setattr(verdicts, "load_items", lambda paper: DEMO_REGISTRY)
    items = {item["id"]: item for item in DEMO_REGISTRY["items"]}
    sidecars = {figure: {item: verdicts.verdict(items[item], {"ok": True})}
                for figure, item in (("survival-fig01-levels", "fig01"), ("survival-fig02-mnist-decay", "fig02"),
                                     ("survival-fig05-recommendation", "fig05"))}
    stale = records.Status(False, ["library changed: src/intellimetry/survival/levels.py"])
    return scoreboard.collect(fake_sidecars(sidecars), full_record,
                              lambda fig_id: stale if fig_id == "survival-fig01-levels" else records.Status(True, []))


def test_every_item_row_shows_the_full_verdict_marked_where_not_current(monkeypatch):
    rows = demo_rows(monkeypatch)
    assert [row.full for row in rows] == ["not reproduced, ours: no (not current: library changed)",
                                          scoreboard.NOT_RUN_FULL, "holds, ours: yes"]
    table = "\n".join(scoreboard.tables_markdown(rows))
    assert "<br>**Full profile:** not reproduced, ours: no (not current: library changed) |" in table
    assert "<br>**Full profile:** not run at full |" in table
    assert "| Item | Result | What the figure shows | What is checked | Ours | The full profile |" in table
    assert "| the parts add up | yes | holds, ours: yes |" in table


def test_a_findings_row_shows_the_full_verdict_too(monkeypatch):
    rows = [row for row in study_rows(monkeypatch) if row.chapter == "agreement"]
    table = "\n".join(scoreboard.tables_markdown(rows))
    assert table.count(f"**Full profile:** {scoreboard.NOT_RUN_FULL}") == 2  # both covered findings
    assert table.count(f"| {scoreboard.NOT_RUN_FULL} |") == 1  # the check


def test_every_covered_item_of_every_chapter_gets_a_full_profile_cell():
    """A fresh clone (no full run recorded): each covered item, claim, check or finding, reads 'not run at full'."""
    rows = scoreboard.collect(lambda fig_id: None, {"figures": {}})
    covered = [row for row in rows if row.figure]
    assert covered and all(row.full == scoreboard.NOT_RUN_FULL for row in covered)
    assert {row.kind for row in covered} == {verdicts.CLAIM, verdicts.CHECK, verdicts.FINDING}
    table = "\n".join(scoreboard.tables_markdown(rows))
    assert table.count(scoreboard.NOT_RUN_FULL) == len(covered)


def test_the_disagreement_list_shows_items_whose_verdicts_differ_with_both_statistics_and_parameters(monkeypatch):
    rows = demo_rows(monkeypatch)
    lines = scoreboard.disagreements_markdown(rows, lambda fig_id: {"n": 3, "seed": 0}, FULL_RECORD, "quick")
    assert lines[0] == ("1 of the 2 items both profiles have judged get different verdicts. 1 items have no full "
                        "verdict recorded yet.")
    assert lines[2:] == [
        "| Item | The quick profile (this build) | The full profile (recorded) | "
        "Parameters that differ (quick → full) |",
        "|---|---|---|---|",
        "| Fig. 1<br>{ref}`ours <survival-fig01-levels>` | **reproduced**<br>ours: yes | **not reproduced**<br>ours: "
        "no<br>(not current: library changed) | `n`: 3 → 50 |"]
    assert "Fig. 5" not in "\n".join(lines)  # holds on both: no disagreement
    # why the other run is inconclusive (the record's reason) stands under its verdict
    reasoned = {"profile": "full", "figures": {fig: {**entry, "reasons": {"fig01": "the control passes too"}}
                                               for fig, entry in FULL_RECORD["figures"].items()}}
    lines = scoreboard.disagreements_markdown(rows, lambda fig_id: {"n": 3, "seed": 0}, reasoned, "quick")
    assert "no<br>the control passes too<br>(not current" in lines[4]
    # an item's reason keeps its MyST maths (the table typesets it), as the chapter tables do
    rows[0].reason = "too few events above $s_{min}$"
    lines = scoreboard.disagreements_markdown(rows, lambda fig_id: {"n": 3, "seed": 0}, FULL_RECORD, "quick")
    assert "ours: yes<br>too few events above $s_{min}$ |" in lines[4]
    # a full build compares with the quick record: the same table, the other profile named
    lines = scoreboard.disagreements_markdown(rows, lambda fig_id: {"n": 50, "seed": 0}, FULL_RECORD, "full",
                                              other="quick")
    assert "no quick verdict recorded yet" in lines[0]
    assert lines[2].startswith("| Item | The full profile (this build) | The quick profile (recorded) | "
                               "Parameters that differ (full → quick) |")
    assert lines[4].endswith("| none (the same parameters as full) |")


def test_the_disagreement_list_says_so_when_the_profiles_agree_or_full_never_ran(monkeypatch):
    agreeing = {"profile": "full", "figures": {"survival-fig05-recommendation":
                                               FULL_RECORD["figures"]["survival-fig05-recommendation"]}}
    lines = scoreboard.disagreements_markdown(demo_rows(monkeypatch, agreeing), lambda fig_id: {"n": 3}, agreeing,
                                              "quick")
    assert lines == ["The quick and full profiles give the same verdict on all 1 items both have judged. 2 items "
                     "have no full verdict recorded yet."]
    assert scoreboard.disagreements_markdown(demo_rows(monkeypatch, {}), lambda fig_id: None, {}, "quick") == [
        "No item of this chapter has a verdict from both profiles yet. 3 items have no full verdict recorded yet."]
    assert scoreboard.parameter_changes({"n": 3}, {"n": 3}, "quick") == "none (the same parameters as quick)"
    assert scoreboard.parameter_changes({"data": "a", "sizes": [1, 2]}, {"sizes": [1, 2, 4]}, "quick") == \
        "`data`: a → (none)<br>`sizes`: 1,2 → 1,2,4"


@pytest.mark.parametrize("chapter", REGISTRIES)
def test_each_chapter_scoreboard_page_shows_both_profiles_and_where_they_disagree(chapter):
    text = (paths.BOOK_DIR / "scoreboard" / f"{chapter}.md").read_text(encoding="utf-8")
    assert f"```{{scoreboard}} {chapter}\n```" in text
    heading = text.index("## Where the profiles disagree")
    assert text.index(f"```{{scoreboard-disagreements}} {chapter}\n```") > heading


def test_the_scoreboard_counts_a_record_without_its_figures(tmp_path, capsys):
    """`scoreboard --from-record PATH`: the full profile's totals where figures/full/ is absent."""
    record = {"profile": "full", "figures": {"combined-fig05-handicap-6rpm": {
        "verdicts": {"fig05": "not reproduced"}, "statistics": {"fig05": [-0.1, 0.8]}}}}
    path = tmp_path / "full.json"
    path.write_text(json.dumps(record))
    assert scoreboard.main(["--profile", "full", "--from-record", str(path)]) == 0
    combined = json.loads(capsys.readouterr().out)["Combined tests"]
    registry = verdicts.load_items("combined")["items"]
    items = len(registry)
    not_results = sum(verdicts.item_status(item) != verdicts.COVERED for item in registry if item["kind"] == "claim")
    assert combined["not reproduced"] == 1
    assert combined["not run"] == combined["items"] - 1 - not_results
    assert combined["items"] + combined["checks"]["items"] == items


def test_a_missing_record_is_an_error_naming_it(tmp_path, capsys):
    missing = tmp_path / "none.json"
    assert scoreboard.main(["--profile", "full", "--from-record", str(missing)]) == 1
    assert str(missing) in capsys.readouterr().err
