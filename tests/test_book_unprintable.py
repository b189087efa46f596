"""Words from numbers: a role never prints nan, inf, None or Python syntax, direction words come
from a value's sign, and a page that would show such a value fails the build (issue 32, rule 7)."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from intellimetry.book.check import visible_source
from intellimetry.book.roles import LookupFailed, Unprintable, format_value

SIDECAR = {"values": {"rho": -0.6, "alpha": 2.4, "missing": float("nan"), "none": None, "ranks": [1, 2, 3],
                      "table": {"a": 1}}}


@pytest.mark.parametrize("value", [None, math.nan, math.inf, -math.inf, [1, 2], {"a": 1}, (1, 2)])
def test_format_value_refuses_what_a_reader_cannot_use(value):
    with pytest.raises(Unprintable):
        format_value(value)


def _build(tmp_path, text: str) -> tuple[int, str]:
    """A one-page Sphinx project with the book's roles, built with warnings as errors."""
    src = tmp_path / "src"
    (src / "generated" / "aiq").mkdir(parents=True)
    (src / "generated" / "aiq" / "aiq-fig08-gravity.json").write_text(json.dumps(SIDECAR))
    (src / "conf.py").write_text("extensions = ['myst_parser', 'intellimetry.book.roles']\n")
    (src / "index.md").write_text(f"# Page\n\n{text}\n")
    warnings = tmp_path / "warnings.txt"
    # in a process of its own: -W leaves Sphinx's logging raising on warnings in the process that built
    code = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-W", "-w", str(warnings), "-b", "html", str(src),
                           str(tmp_path / "out")], capture_output=True).returncode
    html = (tmp_path / "out" / "index.html").read_text() if code == 0 else ""
    return code, warnings.read_text() + html


def test_a_direction_word_comes_from_the_value(tmp_path):
    code, html = _build(tmp_path, "The MCCP {direction}`aiq-fig08-gravity:rho%rises/falls` with gravity; "
                                  "alpha is {direction}`aiq-fig08-gravity:alpha>2%above/below` two, "
                                  "{direction}`aiq-fig08-gravity:alpha>2.4%above/below/at` the line.")
    assert code == 0, html
    assert "falls</span> with gravity" in html and "above</span> two" in html and "at</span> the line" in html


@pytest.mark.parametrize("key", ["missing", "none", "ranks", "table"])
def test_a_page_that_would_print_nan_none_or_a_list_fails_the_build(tmp_path, key):
    code, output = _build(tmp_path, f"Ours: {{result}}`aiq-fig08-gravity:{key}`.")
    assert code != 0 and ("cannot be printed" in output or "not a number a reader can use" in output)


def test_a_direction_with_no_sign_is_refused():
    from intellimetry.book.roles import lookup_direction

    class Env:
        srcdir = "/nonexistent"

        def note_dependency(self, path):
            pass
    with pytest.raises(LookupFailed, match="two words"):
        lookup_direction(Env(), "aiq-fig08-gravity:rho%rises")


@pytest.mark.parametrize("text, bad", [
    ("the fit gives nan for the slope", True), ("a table cell: None", True), ("ranks [1, 2, 3] here", True),
    ("a dict {'a': 1}", True), ("alpha = inf", True),
    ("None of the models passes", False), ("None\nof them", False), ("Figs. [12] and 13", False),
    ("a finance dataset", False),
    ("alpha 1.44 [1.29, 1.65]", False), ("widths = [4, 8, 16, 32]", False), ("the names ['a', 'b']", True),
    ("the rates 1.2, [1.3, 2.5, 3.5]", True),
])
def test_the_rendered_page_check_finds_unprintable_values(text, bad):
    assert bool([p for p in visible_source(text) if p.startswith("unprintable")]) is bad


def test_a_browser_check_of_pages_the_book_lacks_names_them(tmp_path):
    from intellimetry.book.check import check_book

    (tmp_path / "intro.html").write_text("<html><body><p>text</p></body></html>")
    with pytest.raises(ValueError, match="no such page under .*: survival/index.html"):
        check_book(tmp_path, only=["intro.html", "survival/index.html"])
