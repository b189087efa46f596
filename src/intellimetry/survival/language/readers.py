"""Reading the corpora's source files into plain text: plain and gzipped text, Python sources, troff
manual pages (:func:`strip_troff`), fortune files, pydoc's help topics, Jane Austen's novels from an R
data base and the King James Bible through Debian's ``bible`` program. Each reader turns a file into
(part name, text) pairs; :mod:`intellimetry.survival.language.corpora` lists the files and builds the
corpora from them."""
from __future__ import annotations

import ast
import gzip
import re
import subprocess
import tokenize
import warnings
import zlib
from collections.abc import Callable
from pathlib import Path

Reader = Callable[[Path], list[tuple[str, str]]]  # a file -> (part name, text) pairs; "" = whole file


class SourceUnavailable(RuntimeError):
    """A source other than a Debian package could not be read (a missing program or Python package)."""


# ----------------------------------------------------------------------------- troff


_GLYPHS = {
    "em": "—", "en": "–", "hy": "-", "mi": "−", "aq": "'", "dq": '"', "lq": "“", "rq": "”", "oq": "‘",
    "cq": "’", "Fo": "«", "Fc": "»", "fo": "‹", "fc": "›", "bu": "•", "co": "©", "rg": "®", "tm": "™",
    "mu": "×", "di": "÷", "+-": "±", "<=": "≤", ">=": "≥", "!=": "≠", "==": "≡", "->": "→", "<-": "←",
    "ua": "↑", "da": "↓", "de": "°", "ti": "~", "ha": "^", "rs": "\\", "sl": "/", "ga": "`", "aa": "´",
    "ba": "|", "or": "|", "pl": "+", "eq": "=", "sc": "§", "ps": "¶", "dg": "†", "ss": "ß", "ct": "¢",
    "Eu": "€", "eu": "€", "Po": "£", "Ye": "¥", "lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "⟨",
    "ra": "⟩", "sq": "□", "ci": "○", "at": "@", "sh": "#", "Do": "$", "ul": "_", "ru": "_",
    ":a": "ä", ":o": "ö", ":u": "ü", ":A": "Ä", ":O": "Ö", ":U": "Ü", "'e": "é", "`e": "è", "^e": "ê",
    "'a": "á", "`a": "à", "^a": "â", "'o": "ó", "'i": "í", "'u": "ú", "~n": "ñ", ",c": "ç", "!!": "¡", "?:": "¿",
}
_STRINGS = {"lq": "“", "rq": "”", "R": "®", "Tm": "™", "Aq": "'", "dq": '"', "S": "", "Lq": "“", "Rq": "”"}
_CHARACTERS = {"-": "-", "e": "\\", "\\": "\\", "0": " ", " ": " ", "~": " ", "t": "\t", ".": ".", "'": "´",
               "`": "`"}  # every other one-character escape (\& \^ \| \c \% \: \/ \, ...) prints nothing
_SILENT = set("&^|c%:/,!?{}pdurzaEjy")

_ESCAPE = re.compile(r"""\\(?:
      (?P<comment>["\#].*)
    | \*(?P<string>\[[^\]]*\]|\(..|.)
    | (?P<named>[fFgkmMnVYO])(?:\[[^\]]*\]|\(..|.)
    | s(?:\[[^\]]*\]|[-+]?\(..|[-+]?'[^']*'|[-+]?\d{1,2})
    | N'(?P<code>\d+)'
    | [bBDhHlLoRSvwxXZ]'[^']*'
    | \((?P<glyph2>..)
    | \[(?P<glyph>[^\]]*)\]
    | (?P<char>.)
)""", re.X)

_ALTERNATING = {"BR", "BI", "IB", "IR", "RB", "RI"}  # fonts alternate between arguments: no spaces
_SPACED = {"B", "I", "SM", "SB", "UE", "ME", "OP"}  # arguments are words of the running text
_HEADINGS = {"SH", "SS"}
_PARAGRAPH = {"PP", "P", "LP", "TP", "TQ", "IP", "HP", "sp", "RS", "RE", "in", "TH", "SY", "YS"}
_NO_FILL = {"nf": False, "EX": False, "fi": True, "EE": True}


def _unescape(text: str) -> str:
    return _ESCAPE.sub(_replace_escape, text)


def _replace_escape(match: re.Match) -> str:
    if match["string"] is not None:
        return _STRINGS.get(match["string"].strip("[]").lstrip("("), "")
    if match["code"] is not None:
        return chr(int(match["code"]))
    name = match["glyph2"] or match["glyph"]
    if name is not None:
        if re.fullmatch(r"u[0-9A-Fa-f]{4,6}", name):
            return chr(int(name[1:], 16))
        return _GLYPHS.get(name, "")
    char = match["char"]
    if char is None or char in _SILENT:
        return ""  # comments, fonts, sizes, registers, motions
    return _CHARACTERS.get(char, char)


def _macro_arguments(rest: str) -> list[str]:
    """troff's argument split: spaces separate, double quotes group ("" inside quotes is a quote)."""
    arguments, i = [], 0
    while i < len(rest):
        if rest[i] in " \t":
            i += 1
        elif rest[i] == '"':
            j, word = i + 1, []
            while j < len(rest) and not (rest[j] == '"' and rest[j + 1:j + 2] != '"'):
                word.append(rest[j])
                j += 2 if rest[j] == '"' else 1
            arguments.append("".join(word))
            i = j + 1
        else:
            j = i
            while j < len(rest) and rest[j] not in " \t":
                j += 1
            arguments.append(rest[i:j])
            i = j
    return arguments


class _Page:
    """Running text collected from a man page: filled paragraphs joined, no-fill lines kept."""

    def __init__(self):
        self.blocks: list[str] = []
        self.lines: list[str] = []
        self.fill = True

    def add(self, text: str) -> None:
        text = _unescape(text)
        if not self.fill:
            self.lines.append(text.rstrip())
        elif text.strip():
            self.lines.append(text.strip())
        else:
            self.flush()  # a blank line in filled text ends the paragraph

    def words(self, text: str) -> None:
        """Text from a macro's arguments: part of the running text, never a paragraph break."""
        if text.strip():
            self.add(text)

    def flush(self) -> None:
        if self.lines:
            self.blocks.append(_join_filled(self.lines) if self.fill else "\n".join(self.lines))
        self.lines = []

    def text(self) -> str:
        self.flush()
        return "\n\n".join(block for block in self.blocks if block.strip())


_CJK = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")


def _join_filled(lines: list[str]) -> str:
    """Filled lines joined by a space, except between two CJK characters (Japanese uses none)."""
    joined = lines[0]
    for line in lines[1:]:
        joined += ("" if _CJK.match(joined[-1]) and _CJK.match(line[0]) else " ") + line
    return joined


def strip_troff(source: str) -> str:
    """The plain running text of a man page written in troff (man macros).

    Comment lines and macro-only lines go; the text arguments of font and heading macros (.B, .I,
    .BR, .SH, ...) stay; escapes become their characters (\\- -> -, \\(em -> —, \\e -> \\) or nothing
    (\\fB, \\s-1, \\&). Tables (.TS/.TE), macro definitions (.de/..) and conditional blocks are
    dropped. Filled paragraphs are joined into single lines; .nf/.EX blocks keep their lines.
    """
    page, skip_until = _Page(), None
    for line in source.splitlines():
        if skip_until is not None:
            if skip_until(line):
                skip_until = None
            continue
        if line[:1] not in (".", "'"):
            page.add(line)
            continue
        skip_until = _control_line(page, line[1:].lstrip())
    return page.text()


def _control_line(page: _Page, request: str) -> Callable[[str], bool] | None:
    """Apply one control line to `page`; returns a test for the line that ends a skipped block."""
    name, _, rest = request.partition(" ")
    name = name.strip()
    if name.startswith('\\"') or not name:
        return None
    if name in ("de", "de1", "am", "ig"):
        return lambda line: line.strip() == ".."
    if name == "TS":
        page.flush()
        return lambda line: line.strip() in (".TE", "'TE")
    if "\\{" in request and "\\}" not in request:  # a conditional block: drop up to its closing \}
        return lambda line: "\\}" in line
    arguments = _macro_arguments(rest)
    if name in _HEADINGS:
        page.flush()
        page.words(" ".join(arguments))
        page.flush()
    elif name in _NO_FILL:
        page.flush()
        page.fill = _NO_FILL[name]
    elif name in _ALTERNATING:
        page.words("".join(arguments))
    elif name in _SPACED:
        page.words(" ".join(arguments))
    elif name in _PARAGRAPH or name == "br":
        page.flush()
        if name in ("IP", "SY") and arguments:  # an item's tag, a synopsis's command
            page.words(arguments[0] if name == "IP" else " ".join(arguments))
    return None


# ----------------------------------------------------------------------------- readers


def _tidy(text: str) -> str:
    """Plain text with Unix newlines, no trailing spaces, and at most one blank line in a row."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # old licence files and fortunes: every byte is a character


def read_plain(path: Path) -> list[tuple[str, str]]:
    data = path.read_bytes()
    return [("", _tidy(_decode(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)))]


def read_python(path: Path) -> list[tuple[str, str]]:
    with tokenize.open(path) as source:  # honours a coding cookie
        return [("", _tidy(source.read()))]


def read_manpage(path: Path) -> list[tuple[str, str]]:
    return [("", _without_credits(_tidy(strip_troff(_decode(gzip.decompress(path.read_bytes()))))))]


# The closing section a translation project appends to every page (who translated it, its licence,
# where to report errors): the same words on every page, not the page's text.
_CREDIT_HEADINGS = ("ÜBERSETZUNG", "TRADUCTION", "TRADUCCIÓN", "TŁUMACZENIE", "TRADUZIONE", "TRADUÇÃO",
                    "この文書について", "COLOPHON")


def _without_credits(text: str) -> str:
    """`text` up to a final translation-credits section, when it has one."""
    cut = max(text.rfind(f"\n\n{heading}\n\n") for heading in _CREDIT_HEADINGS)
    return text[:cut] if cut >= 0 else text


def read_fortunes(path: Path) -> list[tuple[str, str]]:
    """A fortune file: the "%" lines between fortunes become blank lines."""
    _, text = read_plain(path)[0]
    return [("", _tidy(re.sub(r"(?m)^%$", "", text)))]


def read_pydoc_topics(path: Path) -> list[tuple[str, str]]:
    """pydoc_data/topics.py is one dict literal `topics = {...}`: one document per help topic."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["topics"]:
            topics = ast.literal_eval(node.value)
            return [(name, _tidy(topics[name])) for name in sorted(topics)]
    raise SourceUnavailable(f"{path} holds no `topics = {{...}}` dict")


def read_austen(path: Path) -> list[tuple[str, str]]:
    """The six novels in janeaustenr's lazy-load R data base (Rdata.rdb, indexed by Rdata.rdx).

    Each object is stored as a 4-byte length and a zlib stream of R's serialisation; `rdata` parses
    the index and each novel (a character vector, one element per line of the book).
    """
    try:
        import rdata
    except ImportError:
        raise SourceUnavailable("the Python package rdata is not installed") from None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rdata warns that an .rdx is not named .rds
        index = rdata.conversion.convert(rdata.parser.parse_file(path.with_suffix(".rdx")))
        blob = path.read_bytes()
        novels = []
        for name in sorted(index["variables"]):
            offset, length = (int(v) for v in index["variables"][name])
            lines = rdata.conversion.convert(rdata.parser.parse_data(zlib.decompress(blob[offset + 4:offset + length])))
            novels.append((str(name), _tidy("\n".join(str(line) for line in lines))))
    return novels


def no_documents(path: Path) -> list[tuple[str, str]]:
    """For files a corpus needs but does not read as text (an index, a decoder)."""
    return []


def bible_reader(program: Path) -> Reader:
    """Reads bible.data with Debian's `bible` program: one document per book, a blank line per chapter."""
    def read(path: Path) -> list[tuple[str, str]]:
        try:
            done = subprocess.run([str(program), "-f", "-p", str(path.parent), "Gen1:1-Rev22:21"],
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise SourceUnavailable(f"the bible program cannot run: {error}") from None
        if done.returncode != 0 or not done.stdout:
            raise SourceUnavailable(f"the bible program failed: {done.stderr.decode(errors='replace').strip()}")
        return _bible_books(done.stdout.decode("utf-8", errors="replace"))
    return read


def _bible_books(output: str) -> list[tuple[str, str]]:
    """'Ge1:1 In the beginning ...' lines -> [("01-Ge", text), ...] in the Bible's order."""
    books: dict[str, list[tuple[str, str]]] = {}
    for line in output.splitlines():
        verse = re.match(r"(\d?[A-Za-z]+)(\d+):\d+ (.*)", line)
        if verse:
            books.setdefault(verse[1], []).append((verse[2], verse[3].strip()))
    documents = []
    for number, (book, verses) in enumerate(books.items(), start=1):
        chapters: dict[str, list[str]] = {}
        for chapter, text in verses:
            chapters.setdefault(chapter, []).append(text)
        documents.append((f"{number:02d}-{book}", "\n\n".join("\n".join(v) for v in chapters.values())))
    return documents
