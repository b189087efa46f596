"""No number in the book's prose is typed by hand: every result, paper value and run time comes from a role.

The scan strips what may carry digits (roles, inline code, math, fenced blocks, directive options,
link targets, URLs, comments, HTML tags) and the allow-list below, then fails on any numeral left.
"""
from __future__ import annotations

import re

import pytest

from intellimetry import paths

# What may carry a number without a role, and why.
ALLOWED = [
    # the paper's own figure, table, section and equation numbers, and our issue numbers: names, not results
    r"(?:\b(?:Figs?\.|Figures?|Tables?|Sections?|Eqs?\.|[Ii]ssues?|[Tt]ests?|[Pp]art)|§)\s*\d+(?:\.\d+)*"
    r"(?:\s*(?:[–,-]|and|to)\s*\d+(?:\.\d+)*)*",
    # years in citations: "Zhan et al. (2025)", "Pereyda & Holder 2025", "arXiv:2502.18858"
    r"\((?:19|20)\d\d\)",
    r"(?<=et al\. )(?:19|20)\d\d\b",
    r"(?<=& Holder )(?:19|20)\d\d\b",
    r"arXiv:\d+\.\d+",
]

# Numbers glued to letters are identifiers (H100, SmolLM2, fig07, 3-RPM, CartPole3D): not numerals.
NUMERAL = re.compile(r"(?<![\w.])[-+−]?\d[\d,]*(?:\.\d+)?(?![\w]|-[A-Za-z])")

# dollarmath's inline math: within one paragraph, not escaped
INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)((?:[^$\n]|\n(?!\s*\n))+?)(?<!\\)\$")
FENCE = re.compile(r"^\s*(`{3,}|:{3,})")
ROLE = re.compile(r"\{[\w:-]+\}`[^`]*`")
STRIPPED = [
    re.compile(r"<!--.*?-->", re.S),  # HTML comments
    re.compile(r"\$\$.*?\$\$", re.S),  # display math
    INLINE_MATH,
    ROLE,  # {result}`...`, {paper}`...`, {ref}`...`, {math}`...`, ...
    re.compile(r"`[^`]*`"),  # inline code
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"https?://\S+"),
    re.compile(r"<[^>\n]+>"),  # HTML tags
    *[re.compile(pattern) for pattern in ALLOWED],
]
TEX_NAMES = re.compile(r"\\(?:text|mathrm|operatorname|mbox)\{[^}]*\}|\\[A-Za-z]+")
PROSE_WORDS = re.compile(r"[A-Za-z]{3,}\W+[A-Za-z]{3,}\W+[A-Za-z]{3,}")


def prose_in_math(text: str) -> list[str]:
    """Inline-math spans that hold prose or a role: two `$` amounts in a paragraph that dollarmath
    paired into a formula (the reader sees italic gibberish instead of "\\$30,000 per GPU")."""
    joined = "\n".join(line for _, line in prose_lines(text))
    return [m.group(0) for m in INLINE_MATH.finditer(joined)
            if "`" in m.group(1) or PROSE_WORDS.search(TEX_NAMES.sub(" ", m.group(1)))]


def book_pages() -> list:
    return sorted(p for p in paths.BOOK_DIR.rglob("*.md")
                  if not {paths.GENERATED, "_build", "_vendor"} & set(p.relative_to(paths.BOOK_DIR).parts)
                  and p.name != "README.md")


def prose_lines(text: str):
    """(line number, text) of the prose: fenced code, math blocks, directive headers and options dropped."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if match:
            marker = match.group(1)
            if fence is None:
                header = line.strip()[len(marker):]
                # a directive whose body is prose (figure captions, admonitions) stays scanned
                prose_body = header.startswith("{") and not header.startswith(("{code", "{math", "{provenance"))
                fence = (marker[0], len(marker), prose_body, number - 1)
            elif marker[0] == fence[0] and len(marker) >= fence[1] and line.strip() == marker:
                fence = None
            continue
        if fence is not None and not fence[2]:
            continue
        if fence is not None and re.match(r"^\s*:[\w-]+:", line):
            continue  # directive option (:width: 100%)
        if fence is not None and line.startswith("- ") and "{value-table}" in text.splitlines()[fence[3]]:
            line = line.partition("|")[2]  # a value-table row: its key looks a value up, its labels are prose
        yield number, line


def hand_typed(text: str) -> list[tuple[int, str, str]]:
    """(line, numeral, line text) for every numeral left in the prose once roles etc. are stripped."""
    joined = "\n".join(line for _, line in prose_lines(text))
    numbers = [n for n, _ in prose_lines(text)]
    for pattern in STRIPPED:
        joined = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), joined)
    found = []
    for index, line in enumerate(joined.split("\n")):
        found += [(numbers[index], m.group(0), line.strip()) for m in NUMERAL.finditer(line)]
    return found


def test_the_scan_catches_hand_typed_numbers_and_spares_roles_and_names():
    text = "\n".join([
        "The classifier reaches about 92 % on MNIST.",  # caught
        "Ours is {result}`survival-fig02-mnist-decay:accuracy%.2f`, the paper's {paper}`survival/x.yaml:a`.",
        "See Fig. 7, Figs. 11–12, Table 1 and §4.5 of Zhan et al. (2025); issue 16 will test it.",
        "An H100 costs \\$ and SmolLM2 on 3-RPM; $\\alpha > 2$ and `k_max = 1000`.",
        "```python", "x = 5", "```",
        ":::{figure} /generated/a.svg", ":width: 100%", "", "A caption with 3 subjects.", ":::",
        "It took 5 minutes.",  # caught
        "```{value-table}", "| Novelty | Ticks |", "| <1> | {result}`table.<key>.ticks` |",
        "- 0 | without novelty", "- 16 | 7 blocks", "```",  # keys spared, labels scanned
    ])
    assert [(line, numeral) for line, numeral, _ in hand_typed(text)] == [
        (1, "92"), (11, "3"), (13, "5"), (18, "7")]


@pytest.mark.parametrize("page", book_pages(), ids=lambda p: p.relative_to(paths.BOOK_DIR).as_posix())
def test_no_hand_typed_numbers_in_the_book(page):
    found = hand_typed(page.read_text(encoding="utf-8"))
    assert not found, (f"{page.relative_to(paths.REPO_ROOT)}: numbers typed by hand (use a role: {{result}}, "
                       "{paper}, {build}, or spell out a definition):\n"
                       + "\n".join(f"  line {line}: {numeral!r} in: {text[:140]}" for line, numeral, text in found))


def test_prose_paired_into_math_is_found():
    text = ("Costs ${paper}`a.yaml:price` per GPU, and\nApple's ${paper}`a.yaml:value`; "
            "but $1 \\le k \\le$ 5 and $\\text{per unit} x$.")
    assert prose_in_math(text) == ["${paper}`a.yaml:price` per GPU, and\nApple's $"]
    assert prose_in_math("Costs \\$30 per GPU and \\$12 per hour.") == []


@pytest.mark.parametrize("page", book_pages(), ids=lambda p: p.relative_to(paths.BOOK_DIR).as_posix())
def test_no_prose_turned_into_math(page):
    spans = prose_in_math(page.read_text(encoding="utf-8"))
    assert not spans, (f"{page.name}: text between two `$` becomes a formula under dollarmath; write a currency "
                       "amount as \\$ or US$:\n" + "\n".join(f"  {span[:140]!r}" for span in spans))
