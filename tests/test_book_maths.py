"""Maths renders everywhere (issue 36, item 4): the browser check fails on caret or underscore maths left
as plain text in prose, tables, captions and figure labels, and passes identifiers, code and typeset maths."""
from __future__ import annotations

import pytest

from intellimetry.book.check import check_book, find_chromium, plain_text_maths, svg_texts


def flagged(text: str) -> list[str]:
    """The offending spans the check quotes (the first quoted string of each message)."""
    return [problem.split("'")[1] for problem in plain_text_maths(text)]


@pytest.mark.parametrize("text, spans", [
    ("The reference lines f(1)·k^-2 and f(1)·k^-3 split the plot", ["k^-2", "k^-3"]),
    ("whose failure counts decay as k^-α falls in", ["k^-α"]),
    ("all 2^70 sequences", ["2^70"]),
    ("gravity (m/s^2)", ["s^2"]),
    ("about 10^26.5 parameters", ["10^26.5"]),
    ("a decay as k^{-α} on average", ["k^{-α}"]),
    ("at least 50 events in [k_min, K-1]", ["k_min"]),
    ("the mean of x_i over i", ["x_i"]),
    ("the exponent α_fit is", ["α_fit"]),
    ("from k_{min} on", ["k_{min}"]),
    ("at least 100 × s_min.", ["s_min"]),
])
def test_maths_typed_as_text_is_found(text, spans):
    assert flagged(text) == spans


@pytest.mark.parametrize("text", [
    "the fitted alpha_fit and learning_rate, k_max_lm and the GGUF Q4_1",  # identifiers: longer stem or tail
    "the figure survival-fig01-levels and its file fig_a.svg",  # an id, a file name
    "batch_size = 32, k_max = 1000, k_min = 5, x_max = 1e+30",  # parameters as a run record lists them
    "make fig ID=survival-fig04-search PARAMS=k_min=3",  # a command line's option
    "see https://example.org/a^b/x_i and www.example.org/k^2",  # URLs
    "the costs rose 2 × 10 to the sixth; α = 3, K − 1 and k ≥ 2",  # maths in words or Unicode
])
def test_identifiers_files_parameters_and_urls_pass(text):
    assert plain_text_maths(text) == []


def test_the_message_quotes_the_text_around_the_maths():
    problems = plain_text_maths("so a subject whose failure counts\n decay as k^-α falls in the region of its level")
    assert problems == ["maths as plain text 'k^-α' in 'subject whose failure counts decay as k^-α falls in "
                        "the region of its level' (write it as MyST maths, $...$, or mathtext in a figure; an "
                        "identifier goes in code)"]


def test_svg_labels_are_read_one_element_at_a_time_and_mathtext_passes():
    """A plain label keeps its caret; matplotlib draws mathtext ($k^{-2}$) as separate glyphs, no caret."""
    svg = ('<svg><text style="font-size: 10px">2^70.0</text>'
           '<text><tspan>k</tspan><tspan style="font-size: 7px">−2</tspan></text>'
           '<text>gravity 20 m/s^2 &amp; more</text></svg>')
    assert svg_texts(svg) == ["2^70.0", "k−2", "gravity 20 m/s^2 & more"]
    assert [flagged(text) for text in svg_texts(svg)] == [["2^70.0"], [], ["s^2"]]


PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head><body><main>
<h1>A page</h1>{body}</main></body></html>"""


@pytest.mark.browser
@pytest.mark.skipif(find_chromium() is None, reason="Chromium is not installed (apt-get install chromium)")
def test_the_browser_check_fails_a_page_with_maths_in_prose_and_passes_code_and_typeset_maths(tmp_path):
    pages = {
        "prose.html": "<p>The lines f(1)·k^-2 and k_min split the plot.</p>",
        "table.html": "<table><tr><td>all</td><td>2^70</td></tr></table><figure><figcaption>"
                      "<p>gravity (m/s^2)</p></figcaption></figure>",
        "code.html": "<p>The lines <code>f(1)·k^-2</code> and <code class='docutils literal'><span class='pre'>"
                     "alpha_fit</span></code> and <code>k_min</code>.</p><pre>x_i = k^-2</pre>",
        "typeset.html": "<p>The line <mjx-container class='MathJax'><mjx-math>k^-2</mjx-math>"
                        "<mjx-assistive-mml>k_min</mjx-assistive-mml></mjx-container> is typeset.</p>",
    }
    for name, body in pages.items():
        (tmp_path / name).write_text(PAGE.format(body=body), encoding="utf-8")
    problems = [p for p in check_book(tmp_path) if "maths as plain text" in p]
    assert sorted(p.split(": maths as plain text ")[0] + " " + p.split("'")[1] for p in problems) == [
        "prose.html k^-2", "prose.html k_min", "table.html 2^70", "table.html s^2"]
