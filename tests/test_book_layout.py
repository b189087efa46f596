"""The browser check's page-length and table checks (issue 36): a chapter page stays short enough to read,
and a wide table scrolls instead of losing its right-hand columns."""
from __future__ import annotations

import pytest

from intellimetry.book.check import CHAPTER_PAGE_MAX_PX, check_book, find_chromium, page_too_long

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title>
<style>main {{ width: 600px; }}</style></head><body><main><h1>A page</h1>{body}</main></body></html>"""
WIDE_TABLE = "<table><tr>" + "".join(f"<td>column{i}&nbsp;with&nbsp;long&nbsp;text</td>" for i in range(12)) \
    + "</tr></table>"


def test_only_chapter_pages_have_a_height_limit():
    assert page_too_long("survival/index.html", CHAPTER_PAGE_MAX_PX) == []
    (problem,) = page_too_long("survival/index.html", 40_404)
    assert "40,404 px tall" in problem and "12,000" in problem
    assert page_too_long("scoreboard/aiq.html", 40_404) == []  # not a chapter page
    assert page_too_long("generated/survival/x.html", 40_404) == []


@pytest.mark.browser
@pytest.mark.skipif(find_chromium() is None, reason="Chromium is not installed (apt-get install chromium)")
def test_the_browser_check_finds_a_long_chapter_page_and_a_clipped_table(tmp_path):
    (tmp_path / "survival").mkdir()
    pages = {
        "survival/long.html": "<div style='height: 13000px'>text</div>",
        "survival/short.html": "<p>text</p>",
        "clipped.html": f"<div style='overflow: hidden'>{WIDE_TABLE}</div>",
        "scrolls.html": f"<div style='overflow-x: auto'>{WIDE_TABLE}</div>",
    }
    for name, body in pages.items():
        (tmp_path / name).write_text(PAGE.format(body=body), encoding="utf-8")
    problems = [p for p in check_book(tmp_path) if "px tall" in p or "cut off" in p]
    assert [p.split(":")[0] for p in sorted(problems)] == ["clipped.html", "survival/long.html"]
    assert "column0" in next(p for p in problems if p.startswith("clipped.html"))


@pytest.mark.browser
@pytest.mark.skipif(find_chromium() is None, reason="Chromium is not installed (apt-get install chromium)")
def test_two_browsers_find_what_one_finds(tmp_path):
    """The pages shared between two browser processes: the same problems, broken links judged across both."""
    (tmp_path / "survival").mkdir()
    pages = {"survival/long.html": "<div style='height: 13000px'>text</div>",
             "clipped.html": f"<div style='overflow: hidden'>{WIDE_TABLE}</div>",
             "link.html": "<a href='survival/long.html#nowhere'>x</a> <a href='gone.html'>y</a>",
             "fine.html": "<p>text</p>"}
    for name, body in pages.items():
        (tmp_path / name).write_text(PAGE.format(body=body), encoding="utf-8")
    one, two = check_book(tmp_path, workers=1), check_book(tmp_path, workers=2)
    assert one == two and len(one) == 4, one
    assert any("missing anchor #nowhere" in p for p in two) and any("broken link" in p for p in two)


def test_a_study_chapters_pages_have_the_height_limit_too():
    assert page_too_long("agreement/index.html", 40_404)
    assert page_too_long("scoreboard/agreement.html", 40_404) == []
