"""The text a reader sees on each page of a rendered book, to prove that a change of the sources
changed no word of the output (the role migration of issue 36 was checked this way).

    python -m intellimetry.book.pagetext OLD_HTML_DIR NEW_HTML_DIR   exit 1 and the first differences
"""
from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup

SKIPPED = ("_static", "_sources", "_images", "_downloads", "generated", "search.html", "genindex.html")


def article_text(html: str) -> str:
    """The page's article (what the source page wrote), whitespace collapsed; no navigation or footer."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.find("article") or soup.body or soup
    for node in article.find_all(["script", "style"]):
        node.decompose()
    return re.sub(r"\s+", " ", article.get_text(" ")).strip()


def book_texts(html_dir: Path) -> dict[str, str]:
    """page path (relative to html_dir) -> its article text, for every page the sources wrote."""
    pages = {}
    for path in sorted(Path(html_dir).rglob("*.html")):
        relative = path.relative_to(html_dir).as_posix()
        if not relative.startswith(SKIPPED):
            pages[relative] = article_text(path.read_text(encoding="utf-8"))
    return pages


def differences(old: dict[str, str], new: dict[str, str], context_words: int = 8) -> list[str]:
    """One line per page that is missing, added or whose text differs (with the first differing words)."""
    lines = [f"{page}: only in the old build" for page in sorted(set(old) - set(new))]
    lines += [f"{page}: only in the new build" for page in sorted(set(new) - set(old))]
    for page in sorted(set(old) & set(new)):
        if old[page] != new[page]:
            lines.append(f"{page}: {_first_change(old[page].split(), new[page].split(), context_words)}")
    return lines


def _first_change(old: list[str], new: list[str], context: int) -> str:
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            before = " ".join(old[max(0, i1 - context):i1])
            return (f"…{before} [{' '.join(old[i1:i2][:context])}] became "
                    f"[{' '.join(new[j1:j2][:context])}]")
    return "differs in whitespace only"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: python -m intellimetry.book.pagetext OLD_HTML_DIR NEW_HTML_DIR", file=sys.stderr)
        return 2
    old, new = (book_texts(Path(folder)) for folder in argv)
    lines = differences(old, new)
    for line in lines:
        print(line)
    print(f"{len(old)} pages before, {len(new)} after; {len(lines)} differ")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
