"""The gallery page (a thumbnail per figure, linked to its section, with its verdicts) and offline
search: the entries' verdict lines with known answers, then the built book in headless Chromium."""
from __future__ import annotations

import re

import pytest

from intellimetry import CHAPTERS, paths, verdicts
from intellimetry.book.check import find_chromium
from intellimetry.book.gallery import entry, gallery_link, verdict_lines
from intellimetry.book.scoreboard import collect

# figure id -> the ids of the items that name it
JUDGED: dict[str, list[str]] = {}
for _chapter in CHAPTERS:
    if not (paths.REFERENCE_DIR / _chapter / verdicts.ITEMS_FILE).is_file():  # a study's may come later
        continue
    for _item in verdicts.load_items(_chapter)["items"]:
        if _item.get("figure"):
            JUDGED.setdefault(_item["figure"], []).append(_item["id"])

NEEDS_CHROMIUM = pytest.mark.skipif(find_chromium() is None, reason="Chromium is not installed")


def rows_with(overrides: dict[str, str], unrun: tuple[str, ...] = ()):
    """Scoreboard rows where every judged item is reproduced, but for `overrides` {item id: verdict}
    and the figures in `unrun`, which have no sidecar."""
    def sidecar_for(fig_id):
        if fig_id in unrun:
            return None
        return {"verdicts": {item: {"verdict": overrides.get(item, "reproduced"), "ours": 1, "criterion": "c"}
                             for item in JUDGED.get(fig_id, ())}}
    return collect(sidecar_for)


def test_a_figure_shows_each_item_it_judges_with_its_verdict():
    rows = rows_with({"fig17": "not reproduced"})
    assert verdict_lines("aiq-fig16-suite", rows) == [
        ("Fig. 16: reproduced", ""), ("Fig. 17: not reproduced", ""), ("Fig. 18: reproduced", ""),
        ("Fig. 19: reproduced", "")]
    assert verdict_lines("survival-fig01-levels", rows_with({}, unrun=("survival-fig01-levels",))) == [
        ("Fig. 1: not run", "")]


def test_a_figure_judging_no_item_says_why():
    rows = rows_with({})
    ((verdict, why),) = verdict_lines("aiq-fig03-mixing", rows)
    assert verdict == "Fig. 3: not a result" and why.startswith("a pictorial definition of dissimilarity")
    assert verdict_lines("combined-fig01-rpm-item", rows)[0][0] == "Fig. 1: not a result"
    assert verdict_lines("agitb-fig00-search-space", rows) == [("no paper item", "a figure of our own")]
    assert verdict_lines("aiq-fig00-noise-floor", rows) == [("no paper item", "a figure of our own")]


def test_an_entry_shows_the_png_thumbnail_linked_to_the_figure():
    box = entry("soc-fig15-avalanches", "Avalanches", [("Fig. 15: reproduced", "")])
    assert box["ids"] == ["gallery-soc-fig15-avalanches"]
    images = [node["uri"] for node in box.findall(lambda n: n.tagname == "image")]
    assert images == ["/generated/soc/soc-fig15-avalanches.png"]  # not the SVG: see gallery's docstring
    links = list(box.findall(gallery_link))
    assert [link["target"] for link in links] == ["soc-fig15-avalanches"] * 2
    assert "Fig. 15: reproduced" in box.astext()


def test_the_gallery_page_has_every_chapter_with_figures():
    """A directive per chapter, papers' and studies', in the book's order, once the chapter has notebooks."""
    text = (paths.BOOK_DIR / "gallery.md").read_text(encoding="utf-8")
    chapters = [chapter for chapter in CHAPTERS if list((paths.NOTEBOOKS_DIR / chapter).glob("*.yaml"))]
    assert re.findall(r"^```\{gallery\} (\w+)$", text, re.M) == chapters


def test_a_study_figure_shows_its_findings_and_never_says_paper_item():
    from intellimetry.book.scoreboard import Row

    rows = [Row("Five measures", "agreement", "rank", "Finding 1", "c", "supported", kind="finding",
                figure="agreement-fig02-agreement")]
    assert verdict_lines("agreement-fig02-agreement", rows) == [("Finding 1: supported", "")]
    assert verdict_lines("agreement-fig01-matrix", rows) == [
        ("no finding", "a figure that judges none of the chapter's findings")]


class FakeApp:
    """What resolve_links reads: the std domain's anonymous labels and the builder's relative URIs."""
    def __init__(self, labels):
        std = type("Std", (), {"anonlabels": labels})()
        self.env = type("Env", (), {"get_domain": lambda _self, name: std})()
        self.builder = type("Builder", (), {"get_relative_uri": lambda _self, a, b: f"../{b}.html"})()


def test_links_resolve_to_the_figure_label_and_a_missing_label_is_a_warning(caplog):
    from docutils import nodes
    from docutils.utils import new_document

    from intellimetry.book.gallery import resolve_links

    doctree = new_document("gallery")
    doctree += entry("soc-fig15-avalanches", "Avalanches", [])
    doctree += entry("soc-fig14-concept-network", "Network", [])
    resolve_links(FakeApp({"soc-fig15-avalanches": ("soc/index", "soc-fig15-avalanches")}), doctree, "gallery")
    refs = [node["refuri"] for node in doctree.findall(nodes.reference)]
    assert refs == ["../soc/index.html#soc-fig15-avalanches"] * 2
    assert not list(doctree.findall(gallery_link))  # the unlabelled figure's entry is left unlinked
    assert "no figure labelled 'soc-fig14-concept-network'" in caplog.text
