"""Every notebook executes (smoke profile), the book renders with warnings as errors, and a real
browser finds no missing image, broken internal link or traceback."""
from __future__ import annotations

import json
import re
import shutil

import pytest
import yaml

from intellimetry import PAPERS, paths
from intellimetry.book.check import check_book, check_figure_block, check_gallery, check_search, find_chromium
from intellimetry.pipeline.registry import discover

FIGURES = discover(paths.NOTEBOOKS_DIR)
pytestmark = pytest.mark.slow
NEEDS_CHROMIUM = pytest.mark.skipif(find_chromium() is None,
                                    reason="Chromium is not installed (apt-get install chromium)")


@pytest.mark.parametrize("fig_id", FIGURES)
def test_notebook_executes_and_publishes_its_figure(smoke_figures, fig_id):
    figure = FIGURES[fig_id]
    folder = smoke_figures.output_dir("smoke", figure.paper)
    sidecar = json.loads((folder / f"{fig_id}.json").read_text())
    assert sidecar["figure_id"] == fig_id and sidecar["values"]
    for name in sidecar["files"]:
        assert (folder / name).stat().st_size > 1000
    assert (folder / sidecar["executed_notebook"]).exists()


def test_book_builds_with_warnings_as_errors(built_book):
    page = (built_book / "survival" / "survival-fig01-levels.html").read_text()
    assert "survival-fig01-levels.svg" in page
    for html in built_book.rglob("*.html"):  # every {result} and {paper} role resolved, on every page
        assert "problematic" not in html.read_text(), html


@pytest.mark.browser
@pytest.mark.skipif(find_chromium() is None, reason="Chromium is not installed (apt-get install chromium)")
def test_browser_finds_no_broken_images_links_or_tracebacks(built_book):
    assert check_book(built_book) == []


@pytest.mark.browser
@pytest.mark.skipif(find_chromium() is None, reason="Chromium is not installed (apt-get install chromium)")
def test_browser_check_catches_a_missing_image(built_book, tmp_path):
    broken = tmp_path / "html"
    shutil.copytree(built_book, broken)
    for image in (broken / "_images").glob("survival-fig01-levels*"):
        image.unlink()
    problems = check_book(broken, only=["survival/survival-fig01-levels.html"])
    assert any("image did not load" in p and "survival-fig01-levels" in p for p in problems)


@pytest.mark.browser
@pytest.mark.skipif(find_chromium() is None, reason="Chromium is not installed (apt-get install chromium)")
def test_browser_check_catches_what_a_reader_should_not_see(built_book, tmp_path):
    """Role syntax left in the text, a currency amount typeset as a formula, and figure text too small."""
    broken = tmp_path / "html"
    shutil.copytree(built_book, broken)
    page = broken / "intro.html"
    html = page.read_text()
    marker = "<h1>"
    formula = r'<span class="math notranslate nohighlight">\(30,000 per GPU and a market value of\)</span>'
    html = html.replace(marker, f"<p>Costs {{paper}}`survival/x.yaml:price` here, and {formula}</p>{marker}", 1)
    page.write_text(html)
    for svg in (broken / "_images").glob("survival-fig01-levels*.svg"):
        svg.write_text(re.sub(r"font-size: [\d.]+px", "font-size: 3px", svg.read_text()))
    problems = check_book(broken, only=["intro.html", "survival/survival-fig01-levels.html"])
    assert any("intro.html: visible source text" in p and "{paper}`" in p for p in problems)
    assert any("intro.html: prose or a role typeset as a formula" in p and "per GPU" in p for p in problems)
    assert any("figure text too small to read" in p and "survival-fig01-levels" in p for p in problems)


@pytest.mark.browser
@pytest.mark.skipif(find_chromium() is None, reason="Chromium is not installed (apt-get install chromium)")
def test_browser_finds_the_figure_block_and_misses_its_removed_parts(built_book, tmp_path):
    """Parameter table, reproduce command, .ipynb download, source link and Binder button of a
    multi-panel figure; then a copy without the table, the download file and the full-size link."""
    fig_id = "survival-fig02-mnist-decay"
    assert check_figure_block(built_book, f"survival/{fig_id}.html", fig_id) == []
    broken = tmp_path / "html"
    shutil.copytree(built_book, broken)
    page = broken / "survival" / f"{fig_id}.html"
    html = re.sub(r'<details class="intellimetry-parameters-details">.*?</details>', "", page.read_text(), flags=re.S)
    html = re.sub(r'<a class="reference internal image-reference" href="[^"]*">(<img[^>]*>)\s*</a>', r"\1", html)
    page.write_text(html)
    for download in (broken / "_downloads").glob(f"*/{fig_id}.ipynb"):
        download.unlink()
    problems = check_figure_block(broken, f"survival/{fig_id}.html", fig_id)
    assert any("parameter table rows []" in p for p in problems)
    assert any("download link points to a missing file" in p for p in problems)
    assert any("does not open full size on click" in p for p in problems)
    assert len(problems) == 3  # the command, source link and Binder button are still there


def test_scoreboard_totals_match_a_count_over_the_registries_and_sidecars(smoke_figures, built_book):
    """The intro's 'all papers' row against a count made here with plain YAML and JSON reading: claims
    by verdict, and the implementation checks that hold out of all checks."""
    claims, checks, added = {"items": 0}, {"items": 0, "holds": 0}, 0
    registries = [paths.REFERENCE_DIR / paper / "items.yaml" for paper in PAPERS]  # a study's findings: apart
    for registry in registries:
        for item in yaml.safe_load(registry.read_text())["items"]:
            added += bool(item.get("added"))
            if item.get("figure"):
                sidecar = smoke_figures.output_dir("smoke", item["figure"].split("-")[0]) / f"{item['figure']}.json"
                status = json.loads(sidecar.read_text())["verdicts"][item["id"]]["verdict"]
            else:
                status = "not yet" if item.get("not_yet") else "not a result"
            counts = claims if item["kind"] == "claim" else checks
            counts[status] = counts.get(status, 0) + 1
            counts["items"] += 1
    intro = (built_book / "intro.html").read_text()
    rows = re.findall(r"<tr[^>]*>.*?</tr>", intro, re.S)
    row = next(row for row in rows if "all papers" in row)
    cells = [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
    columns = ["items", "reproduced", "qualitative", "not reproduced", "inconclusive", "not yet", "not a result"]
    shown = dict(zip(columns, map(int, cells[1:1 + len(columns)])))
    assert shown == {key: claims.get(key, 0) for key in shown}
    assert cells[1 + len(columns)] == f"{checks['holds']} of {checks['items']}"
    assert shown["items"] + checks["items"] == 71 + added  # the papers' own items and those added beside them


# the gallery page and offline search of the built book (the gallery entries themselves: test_gallery.py)
@pytest.mark.browser
@NEEDS_CHROMIUM
def test_the_built_gallery_has_an_entry_per_figure_linked_to_its_section(built_book):
    build = json.loads((built_book.parents[1] / paths.GENERATED / "build.json").read_text())
    html = (built_book / "gallery.html").read_text()
    assert html.count('class="intellimetry-gallery-entry') == len(build["figures"])
    assert check_gallery(built_book) == []


@pytest.mark.browser
@NEEDS_CHROMIUM
def test_the_gallery_check_catches_a_missing_link_anchor_and_thumbnail(built_book, tmp_path):
    broken = tmp_path / "html"
    shutil.copytree(built_book, broken)
    page = broken / "gallery.html"
    html = page.read_text()
    # soc-fig14: its links removed; soc-fig15: pointed at an anchor that does not exist
    start = html.index('id="gallery-soc-fig14-concept-network"')
    end = html.index("</div>", start)
    unlinked = re.sub(r'<a class="reference internal" href="[^"]*">(.*?)</a>', r"\1", html[start:end], flags=re.S)
    html = html[:start] + unlinked + html[end:]
    html = html.replace("#soc-fig15-avalanches", "#no-such-figure")
    page.write_text(html)
    (broken / "_images" / "survival-fig01-levels.png").unlink()
    problems = check_gallery(broken, built_book.parents[1] / paths.GENERATED / "build.json")
    assert "gallery.html: soc-fig14-concept-network links to nothing" in problems
    assert any("soc-fig15-avalanches links to" in p and "#no-such-figure, not to its figure" in p for p in problems)
    assert any("missing anchor #no-such-figure" in p for p in problems)
    assert any("survival-fig01-levels: thumbnail did not load" in p for p in problems)


@pytest.mark.browser
@NEEDS_CHROMIUM
def test_search_finds_a_word_of_the_book_from_file_without_a_network(built_book, tmp_path):
    assert check_search(built_book, "sandpile") == []
    broken = tmp_path / "html"
    shutil.copytree(built_book, broken)
    (broken / "searchindex.js").unlink()
    problems = check_search(broken, "sandpile")
    assert any("no result listed" in p for p in problems)
    assert any("request failed" in p and p.endswith("searchindex.js") for p in problems)
