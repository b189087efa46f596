"""Load every page of the rendered book in headless Chromium and report what a reader would see broken.

    python -m intellimetry.book check book/_build/html [--screenshot PAGE.html OUT.png]

Fails (exit 1) on: an image that did not load, a resource request that failed (script, style, font,
MathJax), an internal link to a missing page or anchor, a Python traceback in a notebook output,
role syntax a reader would see (`{paper}`...`), a value that measured nothing or Python syntax in
prose or a table (nan, inf, None, [1, 2], {'a': 1}), TeX that MathJax left unrendered or could not parse,
maths typed as plain text in prose, a table, a caption or an SVG figure's labels (k^-2, 2^70, k_min:
write $k^{-2}$), and a figure whose text is smaller than READABLE_PX as shown at the page width.
It also runs a search (search.html?q=sandpile, from file://) and checks the gallery page: an entry
per figure, each thumbnail loaded and linked to its figure's anchor.
"""
from __future__ import annotations

import argparse
import html
import multiprocessing
import os
import re
import shutil
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from urllib.parse import unquote, urlparse

from intellimetry import CHAPTERS, paths

# The smallest text a figure may show, in CSS px at its shown width (defined beside the drawing code).
from intellimetry.plotting.legibility import READABLE_PX

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

VIEWPORT = {"width": 1280, "height": 900}

# Text a reader should never see: a role that was not rendered, or TeX that MathJax did not typeset.
VISIBLE_SOURCE = re.compile(r"\{(?:result|paper|build|verdict|ref|doc|math)\}`|(?<!\\)\$\$|\\\(|\\\[|"
                            r"\\(?:frac|alpha|le|ge|times|sum|mathrm|text)\b")

# Values a reader should never see in prose or a table: a number that is not one, Python's None
# (not "None of ..."), a list of strings or of three or more numbers, or a mapping, in Python's syntax.
# A two-number interval [low, high] is notation, and a parameter shown as typed (`widths = [4, 8]`) is input.
UNPRINTABLE = re.compile(r"\b(?:nan|NaN|inf|-inf)\b|\bNone\b(?!\s+of\b)|\[\s*['\"]|\{\s*['\"]\w+['\"]\s*:"
                         r"|(?<!= )\[\s*-?\d[\d.e+-]*\s*(?:,\s*-?\d[\d.e+-]*\s*){2,}\]")

# Maths typed as plain text, which a reader sees raw (issue 36): a caret exponent (k^-2, 2^70, s^2,
# 10^26.5, k^{-α}) or a one-letter symbol with a short subscript (k_min, x_i, α_fit, k_{min}). Written as
# MyST maths ($k^{-2}$, $k_{min}$) MathJax typesets it, and its output is not in the text checked.
# Not maths: identifiers, whose stem or tail is longer (alpha_fit, learning_rate, k_max_lm, Q4_1) or
# which are part of a path, URL, file name or option (fig_a.svg, /x_i, PARAMS=k_min=3); and a name set
# to a value (k_min = 5), which is a parameter as the run records list them, not a formula.
CARET_MATHS = re.compile(r"(?:[^\W_]+|[)\]}])\^(?:\{[^{}\s]*\}|\([^()\s]*\)|[-+−]?[^\W_]+(?:\.\d+)?)")
SUBSCRIPT_MATHS = re.compile(r"(?<![\w.\-/=@\\])[^\W\d_]_(?:\{[^{}\s]*\}|[^\W_]{1,3})"
                             r"(?![\w\-/=@]|\.\w)(?!\s*=(?!=))")
URL = re.compile(r"\b(?:https?|file|ftp)://\S+|\bwww\.\S+")

# MathJax typesets after the load event: wait for it before reading what the reader sees.
MATHJAX_DONE = ("() => (window.MathJax && MathJax.startup && MathJax.startup.promise)"
                " ? MathJax.startup.promise.then(() => 1) : 1")

# Runs in the page after load: broken images, internal links, traceback text in outputs, element ids,
# the prose as the reader sees it (code, its outputs and math left out), MathJax errors, SVG figures' shown widths.
PAGE_SCRIPT = """() => ({
  brokenImages: [...document.images].filter(i => !i.complete || i.naturalWidth === 0)
                 .map(i => i.getAttribute('src')),
  links: [...document.querySelectorAll('a[href]')].map(a => a.href),
  tracebacks: [...document.querySelectorAll('.cell_output, .output')]
                 .map(o => o.innerText).filter(t => /Traceback \\(most recent call last\\)|Error: /.test(t)
                 && /Traceback|^\\w+Error: /m.test(t)).map(t => t.slice(0, 300)),
  ids: [...document.querySelectorAll('[id]')].map(e => e.id),
  prose: (() => {
    const main = document.querySelector('main') || document.body;
    const copy = main.cloneNode(true);
    // a detached copy has no layout, so textContent runs blocks and cells together ("all" "2^70" -> "all2^70")
    copy.querySelectorAll('p, li, td, th, dt, dd, div, figcaption, caption, h1, h2, h3, h4, h5, h6, br')
        .forEach(e => e.after('\\n'));
    copy.querySelectorAll('pre, code, kbd, samp, mjx-container, script, style, .cell_input, .cell_output')
        .forEach(e => e.remove());
    return copy.textContent;
  })(),
  mathErrors: [...document.querySelectorAll('mjx-merror, .MathJax_Error')].map(e => e.textContent.slice(0, 120)),
  mathSources: (window.MathJax && MathJax.startup && MathJax.startup.document)
                 ? Array.from(MathJax.startup.document.math).map(m => m.math) : [],
  svgFigures: [...document.images].filter(i => /\\.svg$/i.test(i.src))
                 .map(i => [i.getAttribute('src'), i.src, i.getBoundingClientRect().width]),
  height: document.documentElement.scrollHeight,
  // a table wider than the column whose overflow nothing scrolls: the reader loses its right-hand columns
  clippedTables: [...document.querySelectorAll('main table')].filter(t => {
    for (let box = t.parentElement; box && box.tagName !== 'MAIN'; box = box.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) return false;
    }
    return t.getBoundingClientRect().right > document.querySelector('main').getBoundingClientRect().right + 1;
  }).map(t => (t.querySelector('th, td') || t).innerText.slice(0, 60)),
})"""


# A chapter's pages (the overview, a figure's page) stay readable in one sitting: at most this tall at the
# check's 1280 px viewport. The survival chapter was one page of 40,404 px before issue 36 split it.
CHAPTER_PAGE_MAX_PX = 12_000


def page_too_long(name: str, height: float) -> list[str]:
    """A chapter page (<chapter>/*.html) taller than CHAPTER_PAGE_MAX_PX; other pages are not chapters."""
    if name.split("/")[0] not in CHAPTERS or height <= CHAPTER_PAGE_MAX_PX:
        return []
    return [f"page is {height:,.0f} px tall at {VIEWPORT['width']} px, over {CHAPTER_PAGE_MAX_PX:,} "
            "(split it: a page per figure)"]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


PAGES_PER_EXTRA_BROWSER = 20


def check_book(html_dir: Path, chromium: str | None = None, only: list[str] | None = None,
               workers: int | None = None) -> list[str]:
    """Problems found in the rendered book (an empty list means it is fine); `only` limits the check to
    these pages (paths relative to `html_dir`, e.g. "intro.html"), whose links are still followed.
    The pages are shared among `workers` browsers (default: two on a book of 20 pages or more)."""
    html_dir = Path(html_dir).resolve()
    pages = sorted(p for p in html_dir.rglob("*.html")
                   if not {"_static", "_sources", "_images"} & set(p.relative_to(html_dir).parts)
                   and p.name not in ("search.html", "genindex.html"))
    if only is not None:
        missing = sorted(set(only) - {p.relative_to(html_dir).as_posix() for p in pages})
        if missing:
            raise ValueError(f"no such page under {html_dir}: {', '.join(missing)}")
        pages = [p for p in pages if p.relative_to(html_dir).as_posix() in only]
    if not pages:
        return [f"no HTML pages under {html_dir} (build the book first: make book)"]
    if workers is None:  # a second browser pays for its start-up on a whole book, not on a few pages
        workers = min(2, os.cpu_count() or 1) if len(pages) >= PAGES_PER_EXTRA_BROWSER else 1
    workers = max(1, min(workers, len(pages)))
    shares = [(html_dir, chromium, pages[i::workers]) for i in range(workers)]
    if workers == 1:
        results = [_check_pages(*shares[0])]
    else:  # a browser per process: each page's check is independent, and links are judged at the end
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            results = list(pool.map(_check_pages, *zip(*shares, strict=True)))
    problems, links, ids = [], {}, {}
    for share_problems, share_links, share_ids in results:
        problems += share_problems
        links.update(share_links)
        ids.update(share_ids)
    return sorted(problems, key=lambda problem: problem.split(":")[0]) + _broken_links(links, ids)


def _check_pages(html_dir: Path, chromium: str | None, pages: list[Path]):
    """(problems, links per page, element ids per page) of these pages, in one headless browser."""
    from playwright.sync_api import sync_playwright

    problems, links, ids = [], {}, {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium or find_chromium(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        failed = []
        page.on("requestfailed", lambda request: failed.append(request.url))
        for path in pages:
            failed.clear()
            name = path.relative_to(html_dir).as_posix()
            page.goto(path.as_uri(), wait_until="networkidle")
            page.evaluate(MATHJAX_DONE)
            found = page.evaluate(PAGE_SCRIPT)
            problems += [f"{name}: {problem}" for problem in page_problems(name, found, failed)]
            links[path], ids[path] = found["links"], set(found["ids"])
        browser.close()
    return problems, links, ids


def page_problems(name: str, found: dict, failed: list[str]) -> list[str]:
    """What the reader of one page would trip over, from PAGE_SCRIPT's findings."""
    problems = [f"image did not load: {src}" for src in found["brokenImages"]]
    problems += [f"request failed: {url}" for url in failed if url.startswith("file:")]
    problems += [f"traceback in output: {text!r}" for text in found["tracebacks"]]
    problems += visible_source(found["prose"]) + plain_text_maths(found["prose"])
    problems += figure_text_maths(found["svgFigures"])
    problems += [f"MathJax could not typeset: {text!r}" for text in found["mathErrors"]]
    problems += [f"prose or a role typeset as a formula: {tex[:120]!r}"
                 for tex in found["mathSources"] if prose_in_tex(tex)]
    problems += small_figure_text(found["svgFigures"]) + page_too_long(name, found["height"])
    problems += [f"table cut off on the right, with nothing to scroll it: {first!r}"
                 for first in found["clippedTables"]]
    return problems


def visible_source(prose: str) -> list[str]:
    """Role syntax, TeX source, nan / None / inf or Python syntax in the text a reader sees (math and
    code already removed)."""
    return [f"{what} {prose[max(m.start() - 40, 0):m.end() + 40]!r}"
            for what, pattern in (("visible source text", VISIBLE_SOURCE), ("unprintable value", UNPRINTABLE))
            for m in pattern.finditer(prose)]


def plain_text_maths(text: str, where: str = "") -> list[str]:
    """Maths typed as plain text (CARET_MATHS, SUBSCRIPT_MATHS) in the text a reader sees, each quoted with
    40 characters either side; `where` names the place (a figure's file) in each message."""
    urls = [m.span() for m in URL.finditer(text)]
    found = []
    for pattern in (CARET_MATHS, SUBSCRIPT_MATHS):
        for m in pattern.finditer(text):
            if any(start <= m.start() < end for start, end in urls):
                continue
            context = " ".join(text[max(m.start() - 40, 0):m.end() + 40].split())
            found.append(f"maths as plain text {m.group()!r}{where} in {context!r} (write it as MyST maths, "
                         f"$...$, or mathtext in a figure; an identifier goes in code)")
    return list(dict.fromkeys(found))  # a sentence repeated on a page (a table's rows) is reported once


def svg_texts(svg: str) -> list[str]:
    """The text of every text element of a matplotlib SVG (svg.fonttype none), one string per element:
    mathtext is drawn as separate glyphs, so typeset maths holds no caret or underscore here."""
    texts = [html.unescape(re.sub(r"<[^>]+>", "", element))
             for element in re.findall(r"<text\b.*?</text>", svg, flags=re.S)]
    return [" ".join(text.split()) for text in texts if text.strip()]


def figure_text_maths(figures: list) -> list[str]:
    """Maths typed as plain text in the labels of the SVG figures a page shows ([src, url, width] each)."""
    problems = []
    for src, url, _ in figures:
        path = Path(unquote(urlparse(url).path))
        if path.is_file():
            for text in svg_texts(path.read_text(encoding="utf-8")):
                problems += plain_text_maths(text, where=f" in figure {src}")
    return list(dict.fromkeys(problems))


TEX_NAMES = re.compile(r"\\(?:text|mathrm|operatorname|mbox)\{[^}]*\}|\\[A-Za-z]+")
PROSE_WORDS = re.compile(r"[A-Za-z]{3,}\W+[A-Za-z]{3,}\W+[A-Za-z]{3,}")


def prose_in_tex(tex: str) -> bool:
    """A formula that holds a role or running words: two `$` amounts that dollarmath paired."""
    return "`" in tex or bool(PROSE_WORDS.search(TEX_NAMES.sub(" ", tex)))


def svg_text_sizes(svg: str) -> list[float]:
    """The font size of every text element of a matplotlib SVG (text kept as text: svg.fonttype none),
    in SVG units; a text's size is its largest part, so a superscript is judged with its base."""
    sizes = []
    for element in re.findall(r"<text\b.*?</text>", svg, flags=re.S):
        found = [float(x) for x in re.findall(r"font-size:\s*([\d.]+)px", element)]
        if found and re.sub(r"<[^>]+>", "", element).strip():
            sizes.append(max(found))
    return sizes


def small_figure_text(figures: list) -> list[str]:
    """Figures whose smallest text, scaled to the width the page shows them at, is below READABLE_PX."""
    problems = []
    for src, url, shown_width in figures:
        path = Path(unquote(urlparse(url).path))
        if not path.is_file() or not shown_width:
            continue
        svg = path.read_text(encoding="utf-8")
        view_box = re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+)', svg)
        sizes = svg_text_sizes(svg)
        if not view_box or not sizes:
            continue
        smallest = min(sizes) * shown_width / float(view_box.group(1))
        if smallest < READABLE_PX:
            problems.append(f"figure text too small to read: {src} shows text at {smallest:.1f} px "
                            f"(at least {READABLE_PX:g} px; enlarge the fonts or narrow the figure)")
    return problems


def _broken_links(links: dict[Path, list[str]], ids: dict[Path, set[str]]) -> list[str]:
    problems = []
    for source, hrefs in links.items():
        for href in hrefs:
            url = urlparse(href)
            if url.scheme != "file":
                continue  # external links are not followed (no network here)
            target = Path(unquote(url.path))
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                problems.append(f"{source.name}: broken link to {href}")
            elif url.fragment and target in ids and url.fragment not in ids[target]:
                problems.append(f"{source.name}: link to missing anchor #{url.fragment} in {target.name}")
    return sorted(set(problems))


# Runs in a figure's page: the figure, the block after it (intellimetry.book.figblock) and its parts.
FIGURE_BLOCK_SCRIPT = """(figId) => {
  const figure = document.getElementById(figId);
  if (!figure) return null;
  let block = figure.nextElementSibling;
  while (block && !block.classList.contains('intellimetry-figure-block') && block.tagName !== 'FIGURE')
    block = block.nextElementSibling;
  const image = figure.querySelector('img');
  const imageLink = image && image.closest('a[href]');
  if (!block || !block.classList.contains('intellimetry-figure-block'))
    return {block: false, image: image && image.src, imageLink: imageLink && imageLink.href};
  const links = [...block.querySelectorAll('a[href]')];
  return {
    block: true, image: image && image.src, imageLink: imageLink && imageLink.href,
    command: (block.querySelector('.intellimetry-reproduce') || {}).textContent || '',
    parameters: [...block.querySelectorAll('table tbody tr')].map(r => r.cells[0].textContent.trim()),
    downloads: links.filter(a => a.hasAttribute('download')).map(a => a.href),
    hrefs: links.map(a => a.href),
  };
}"""


def check_figure_block(html_dir: Path, page: str, fig_id: str, chromium: str | None = None) -> list[str]:
    """Problems with one figure's block on a page (relative to html_dir) as the browser shows it: its
    parameter table (a row per parameter of the figure's YAML), reproduce command, download link of
    the executed notebook, notebook source link, Binder launch button, and the image opening full size."""
    from playwright.sync_api import sync_playwright

    from intellimetry.book.figblock import notebook_path
    from intellimetry.pipeline.registry import load_figure

    html_dir = Path(html_dir).resolve()
    figure = load_figure(paths.figure_dir(paths.NOTEBOOKS_DIR, fig_id) / f"{fig_id}.yaml")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium or find_chromium(), args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport=VIEWPORT)
        tab.goto((html_dir / page).as_uri(), wait_until="networkidle")
        found = tab.evaluate(FIGURE_BLOCK_SCRIPT, fig_id)
        browser.close()
    where = f"{page}: {fig_id}"
    if found is None:
        return [f"{where}: no element with this id (is the figure on this page?)"]
    problems = _full_size_problems(where, found["image"], found["imageLink"])
    if not found["block"]:
        return problems + [f"{where}: no figure block after the figure (```{{provenance}} {fig_id}```)"]
    if found["parameters"] != list(figure.params):
        problems.append(f"{where}: parameter table rows {found['parameters']} are not the YAML's "
                        f"parameters {list(figure.params)}")
    if f"make fig ID={fig_id}" not in found["command"]:
        problems.append(f"{where}: no reproduce command `make fig ID={fig_id}` (found {found['command']!r})")
    notebooks = [href for href in found["downloads"] if href.endswith(f"/{fig_id}.ipynb")]
    if not notebooks:
        problems.append(f"{where}: no download link of the executed notebook {fig_id}.ipynb")
    problems += [f"{where}: the download link points to a missing file {href}"
                 for href in notebooks if not _local_file(href).is_file()]
    source = notebook_path(fig_id)
    if not any(href.startswith("http") and href.endswith("/" + source) for href in found["hrefs"]):
        problems.append(f"{where}: no link to the notebook source {source}")
    if not any(href.startswith("https://mybinder.org/") and href.endswith(f"urlpath=lab/tree/{source}")
               for href in found["hrefs"]):
        problems.append(f"{where}: no Binder launch button opening {source}")
    return problems


def _local_file(url: str) -> Path:
    return Path(unquote(urlparse(url).path))


def _full_size_problems(where: str, image: str | None, link: str | None) -> list[str]:
    """The figure's image must be a link to its own full-size file, which must exist."""
    if not image:
        return [f"{where}: the figure shows no image"]
    if not link or Path(urlparse(link).path).name != Path(urlparse(image).path).name:
        return [f"{where}: the image does not open full size on click (no link to {Path(image).name})"]
    return [] if _local_file(link).is_file() else [f"{where}: the full-size image link is broken: {link}"]


SEARCH_RESULT = "#search-results ul.search li a[href]"
SEARCH_WAIT_MS = 15000

# Runs in the gallery page: each entry (intellimetry.book.gallery) with its images and links.
GALLERY_SCRIPT = """() => [...document.querySelectorAll('.intellimetry-gallery-entry')].map(e => ({
  id: e.id,
  images: [...e.querySelectorAll('img')].map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0]),
  links: [...e.querySelectorAll('a[href]')].map(a => a.href),
}))"""


def check_search(html_dir: Path, query: str = "sandpile", chromium: str | None = None) -> list[str]:
    """Sphinx's search page opened from file:// (no server, no network) with ?q=query: problems if no
    result is listed within SEARCH_WAIT_MS, a result links to a missing page, or a resource failed.
    Exempt: the page's fetches of the result pages themselves, for the summary under each result,
    which a browser refuses from file:// (served over HTTP they load; the results show either way)."""
    from urllib.parse import quote

    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    search = Path(html_dir).resolve() / "search.html"
    if not search.is_file():
        return [f"no search page {search}"]
    where, failed, problems = f"search.html?q={query}", [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium or find_chromium(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        page.on("requestfailed", lambda request: failed.append((request.url, request.resource_type)))
        page.goto(f"{search.as_uri()}?q={quote(query)}", wait_until="networkidle")
        try:
            page.wait_for_selector(SEARCH_RESULT, timeout=SEARCH_WAIT_MS)
        except PlaywrightTimeout:
            problems.append(f"{where}: no result listed after {SEARCH_WAIT_MS / 1000:.0f} s")
        hrefs = page.eval_on_selector_all(SEARCH_RESULT, "links => links.map(a => a.href)")
        browser.close()
    results = {urlparse(href).path for href in hrefs}
    problems += [f"{where}: request failed: {url}" for url, kind in failed if url.startswith("file:")
                 and not (kind in ("fetch", "xhr") and urlparse(url).path in results)]
    problems += [f"{where}: result links to a missing page {href}" for href in hrefs
                 if urlparse(href).scheme == "file" and not Path(unquote(urlparse(href).path)).is_file()]
    return problems


def check_gallery(html_dir: Path, build_json: Path | None = None, chromium: str | None = None) -> list[str]:
    """The gallery page: one entry per figure of the build (build_json, by default the book's
    generated/build.json beside _build/html), each with a loaded thumbnail and links that all point
    at its own figure's anchor, which must exist on the target page."""
    import json

    from playwright.sync_api import sync_playwright

    from intellimetry import paths

    html_dir = Path(html_dir).resolve()
    gallery = html_dir / "gallery.html"
    if not gallery.is_file():
        return [f"no gallery page {gallery}"]
    build_json = Path(build_json or html_dir.parents[1] / paths.GENERATED / "build.json")
    if not build_json.is_file():
        return [f"no build record {build_json} to compare the gallery with (pass build_json)"]
    expected = list(json.loads(build_json.read_text(encoding="utf-8"))["figures"])
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium or find_chromium(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(gallery.as_uri(), wait_until="networkidle")
        entries = page.evaluate(GALLERY_SCRIPT)
        hrefs = [href for entry in entries for href in entry["links"]]
        ids = {}
        for target in {Path(unquote(urlparse(href).path)) for href in hrefs if urlparse(href).scheme == "file"}:
            if target.is_file():
                page.goto(target.as_uri(), wait_until="load")
                ids[target] = set(page.evaluate("() => [...document.querySelectorAll('[id]')].map(e => e.id)"))
        browser.close()
    return _gallery_problems(entries, expected) + _broken_links({gallery: hrefs}, ids)


def _gallery_problems(entries: list[dict], expected: list[str]) -> list[str]:
    shown = [entry["id"].removeprefix("gallery-") for entry in entries]
    problems = [f"gallery.html: no entry for {fig_id}" for fig_id in expected if fig_id not in shown]
    problems += [f"gallery.html: entry {fig_id} is not a figure of this build (or is shown twice)"
                 for fig_id in shown if fig_id not in expected or shown.count(fig_id) > 1]
    for fig_id, entry in zip(shown, entries):
        if not entry["images"]:
            problems.append(f"gallery.html: {fig_id} has no thumbnail")
        problems += [f"gallery.html: {fig_id}: thumbnail did not load: {src}" for src, ok in entry["images"] if not ok]
        if not entry["links"]:
            problems.append(f"gallery.html: {fig_id} links to nothing")
        problems += [f"gallery.html: {fig_id} links to {href}, not to its figure" for href in entry["links"]
                     if urlparse(href).fragment != fig_id]
    return list(dict.fromkeys(problems))  # the thumbnail and the id share a link: report it once


def screenshot(page_path: Path, out: Path, chromium: str | None = None, width: int = 1280) -> Path:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium or find_chromium(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={**VIEWPORT, "width": width})
        page.goto(Path(page_path).resolve().as_uri(), wait_until="networkidle")
        page.screenshot(path=str(out), full_page=True)
        browser.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m intellimetry.book check", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("html_dir", type=Path)
    parser.add_argument("--screenshot", nargs=2, metavar=("PAGE", "PNG"), help="also screenshot one page")
    args = parser.parse_args(argv)
    if find_chromium() is None:
        print("error: no Chromium found (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    problems = check_book(args.html_dir) + check_search(args.html_dir) + check_gallery(args.html_dir)
    for problem in problems:
        print(problem)
    if args.screenshot:
        print(f"screenshot: {screenshot(args.html_dir / args.screenshot[0], Path(args.screenshot[1]))}")
    print(f"{len(problems)} problem(s) found" if problems else "book check passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
