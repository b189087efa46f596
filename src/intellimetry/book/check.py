"""Load every page of the rendered book in headless Chromium and report what a reader would see broken.

    python -m intellimetry.book check book/_build/html [--screenshot PAGE.html OUT.png]

Fails (exit 1) on: an image that did not load, a resource request that failed (script, style, font,
MathJax), an internal link to a missing page or anchor, or a Python traceback in a notebook output.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# Runs in the page after load: broken images, internal links, traceback text in outputs, element ids.
PAGE_SCRIPT = """() => ({
  brokenImages: [...document.images].filter(i => !i.complete || i.naturalWidth === 0)
                 .map(i => i.getAttribute('src')),
  links: [...document.querySelectorAll('a[href]')].map(a => a.href),
  tracebacks: [...document.querySelectorAll('.cell_output, .output')]
                 .map(o => o.innerText).filter(t => /Traceback \\(most recent call last\\)|Error: /.test(t)
                 && /Traceback|^\\w+Error: /m.test(t)).map(t => t.slice(0, 300)),
  ids: [...document.querySelectorAll('[id]')].map(e => e.id),
})"""


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def check_book(html_dir: Path, chromium: str | None = None) -> list[str]:
    """Problems found in the rendered book (an empty list means it is fine)."""
    from playwright.sync_api import sync_playwright

    html_dir = Path(html_dir).resolve()
    pages = sorted(p for p in html_dir.rglob("*.html")
                   if not {"_static", "_sources", "_images"} & set(p.relative_to(html_dir).parts)
                   and p.name not in ("search.html", "genindex.html"))
    if not pages:
        return [f"no HTML pages under {html_dir} (build the book first: make book)"]
    problems, links, ids = [], {}, {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium or find_chromium(), args=CHROMIUM_ARGS)
        page = browser.new_page()
        failed = []
        page.on("requestfailed", lambda request: failed.append(request.url))
        for path in pages:
            failed.clear()
            name = path.relative_to(html_dir).as_posix()
            page.goto(path.as_uri(), wait_until="networkidle")
            found = page.evaluate(PAGE_SCRIPT)
            problems += [f"{name}: image did not load: {src}" for src in found["brokenImages"]]
            problems += [f"{name}: request failed: {url}" for url in failed if url.startswith("file:")]
            problems += [f"{name}: traceback in output: {text!r}" for text in found["tracebacks"]]
            links[path], ids[path] = found["links"], set(found["ids"])
        browser.close()
    return problems + _broken_links(links, ids)


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


def screenshot(page_path: Path, out: Path, chromium: str | None = None, width: int = 1280) -> Path:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium or find_chromium(), args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": width, "height": 900})
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
    problems = check_book(args.html_dir)
    for problem in problems:
        print(problem)
    if args.screenshot:
        print(f"screenshot: {screenshot(args.html_dir / args.screenshot[0], Path(args.screenshot[1]))}")
    print(f"{len(problems)} problem(s) found" if problems else "book check passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
