"""Test collections for the search figure: documents, queries and the right document of each query.

All built offline from real text the language chapter already fetches (see
:mod:`intellimetry.survival.language.corpora`; nothing is downloaded again):

* ``python-titles``: the sections of the Python 3.11 documentation (the reStructuredText sources of
  Debian's ``python3.11-doc``); the query is a section's title, the right document its body. The
  stand-in for the paper's synthetic Wikipedia title -> document set.
* ``python-faq``: the questions of the Python FAQ (the ``faq/`` pages of the same sources) -> their
  answers, searched among the same pool of sections: real questions with real answers.
* ``manpages``: Debian's English manual pages (``manpages``, ``manpages-dev``); the query is the
  command or function names of the NAME line, the right document the DESCRIPTION section.

A title shared by two sections (``Examples``, ``Notes``) names no single document, so every title
that occurs twice is left out. So is a query none of whose words occurs in any document: BM25 would
score every document 0, and as ties count in the subject's favour it would count as found at the
first try; such queries are left out for every model, and counted (`Collection.unmatched`).
A BEIR-style folder (``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``) loads with
:func:`load_beir` for the paper's real data sets.
"""
from __future__ import annotations

import csv
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from intellimetry.checks import check_choice, check_int
from intellimetry.survival.language import corpora
from intellimetry.survival.search.retrievers import lexical_terms

PYTHON_DOCS_PACKAGE = "python3.11-doc"
_PYTHON_SOURCES = "usr/share/doc/python3.11/html/_sources/"
MANPAGE_PACKAGES = ("manpages", "manpages-dev")
TASKS = ("python-titles", "python-faq", "manpages")
DEFAULT_MIN_CHARS = 100
DEFAULT_MAX_CHARS = 2000


@dataclass(frozen=True)
class Collection:
    """One search test set: every query's right document is `documents[reference[i]]`.

    `excluded[i]` lists other documents that also answer query i (they are masked, never counted
    as failures); empty when each query has one right document. Collections built from one pool
    share the same `documents` tuple, so a dense model encodes the pool once.
    """
    name: str
    label: str
    documents: tuple[str, ...]
    document_ids: tuple[str, ...]
    queries: tuple[str, ...]
    reference: np.ndarray
    excluded: tuple[tuple[int, ...], ...] = ()
    source: str = ""
    unmatched: int = 0  # queries left out because none of their words occurs in any document

    def __post_init__(self):
        if len(self.documents) != len(self.document_ids):
            raise ValueError(f"{self.name}: {len(self.documents)} documents but {len(self.document_ids)} ids")
        if len(self.queries) != len(self.reference):
            raise ValueError(f"{self.name}: {len(self.queries)} queries but {len(self.reference)} references")
        if not self.queries:
            raise ValueError(f"collection {self.name!r} has no queries: use more documents")
        if self.excluded and len(self.excluded) != len(self.queries):
            raise ValueError(f"{self.name}: excluded needs one entry per query")

    @property
    def mask(self):
        """Per query, the indices of other right documents (None when there are none)."""
        return [list(e) for e in self.excluded] if any(self.excluded) else None

    def summary(self) -> dict:
        return {"label": self.label, "queries": len(self.queries), "documents": len(self.documents),
                "unmatched": self.unmatched, "source": self.source}


@dataclass(frozen=True)
class Section:
    """A titled piece of a document: `key` names it uniquely ("<file>#<title>")."""
    key: str
    title: str
    body: str


# ----------------------------------------------------------------------------- reStructuredText

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+\s*$")  # one punctuation character, repeated
_EXPLICIT = re.compile(r"^(\s*)\.\.(?:\s+(.*))?$")  # a directive, comment, target or substitution
_DIRECTIVE = re.compile(r"^([\w:.-]+)::\s*(.*)$")
_OPTION = re.compile(r"^\s+:[\w. -]+:(\s.*)?$")
# Directives whose whole block is not running text (navigation, markup control, index entries).
_DROPPED = {"index", "toctree", "contents", "highlight", "only", "sectionauthor", "moduleauthor",
            "testsetup", "testcleanup", "include", "literalinclude", "image", "figure", "raw",
            "tabularcolumns", "currentmodule", "module", "audit-event", "audit-event-table", "cssclass"}
# Directives whose argument is a language name or a flag, not text.
_NO_ARGUMENT = {"code-block", "sourcecode", "code", "doctest", "testcode", "testoutput", "csv-table",
                "list-table", "table", "productionlist", "class-body"}
_ROLE = re.compile(r"(?::[\w.+-]+)+:`([^`]*)`")
_TARGETED = re.compile(r"^\s*(.*?)\s*<[^<>]*>\s*$", re.S)  # "title <target>" inside a role or link


def _is_adornment(line: str) -> bool:
    return bool(_ADORNMENT.match(line))


def rst_sections(text: str) -> list[tuple[str, str]]:
    """(title, body) of every section of a reStructuredText source, in order.

    A title is a line underlined (and maybe overlined) by one repeated punctuation character at least
    as long as it; a section's body runs to the next title, whatever its level (so a chapter's body
    is its introduction). Titles and bodies are cleaned to plain text (:func:`rst_to_text`).
    """
    lines = text.splitlines()
    found = []  # (title, first line of its adornment, first body line)
    i = 0
    while i < len(lines):
        heading = _heading_at(lines, i)
        if heading is None:
            i += 1
            continue
        title, end = heading
        found.append((title, i, end))
        i = end
    sections = []
    for number, (title, _, start) in enumerate(found):
        stop = found[number + 1][1] if number + 1 < len(found) else len(lines)
        sections.append((rst_inline(title), rst_to_text(lines[start:stop])))
    return sections


def _heading_at(lines: list[str], i: int) -> tuple[str, int] | None:
    """(title, the line after the heading) when a section heading starts at line i."""
    line = lines[i]
    if i + 2 < len(lines) and _is_adornment(line) and lines[i + 1].strip() and not _is_adornment(lines[i + 1]) \
            and lines[i + 2].rstrip() == line.rstrip() and (i == 0 or not lines[i - 1].strip()):
        return lines[i + 1].strip(), i + 3  # overlined and underlined
    if i + 1 < len(lines) and line.strip() and not line[0].isspace() and not _is_adornment(line) \
            and not line.startswith("..") and _is_adornment(lines[i + 1]) \
            and len(lines[i + 1].rstrip()) >= len(line.rstrip()) and (i == 0 or not lines[i - 1].strip()):
        return line.strip(), i + 2
    return None


def rst_to_text(lines: list[str]) -> str:
    """Plain running text of reStructuredText lines, whitespace collapsed.

    Comments, targets, substitutions and the blocks of non-text directives (index, toctree, ...)
    go; a kept directive leaves its argument (a function's signature, "3.2" of versionadded) and its
    content, without its options; inline markup leaves its text (:func:`rst_inline`).
    """
    kept, block_indent, after_directive = [], None, False
    for line in lines:
        if block_indent is not None:
            if not line.strip() or _indent(line) > block_indent:
                continue
            block_indent = None
        if after_directive and _OPTION.match(line):
            continue
        after_directive = False
        explicit = _EXPLICIT.match(line)
        if explicit is None:
            if line.strip() != "::":
                kept.append(line)
            continue
        directive = _DIRECTIVE.match(explicit[2] or "")
        if directive is None or directive[1] in _DROPPED:
            block_indent = len(explicit[1])  # a comment or a dropped directive: its indented block goes
            continue
        after_directive = True
        if directive[2] and directive[1] not in _NO_ARGUMENT:
            kept.append(directive[2])
    return " ".join(rst_inline("\n".join(kept)).split())


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def rst_inline(text: str) -> str:
    """Inline markup to its text: :func:`~os.open` -> os.open, ``x`` -> x, `a <url>`_ -> a, **b** -> b."""
    text = _ROLE.sub(lambda m: _target_text(m[1]).lstrip("~!"), text)
    text = re.sub(r"``(.+?)``", r"\1", text, flags=re.S)
    text = re.sub(r"`([^`]+)`_{1,2}", lambda m: _target_text(m[1]), text)
    text = re.sub(r"`([^`]+)`", r"\1", text)
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text, flags=re.S)
    text = re.sub(r"\|([\w -]+)\|", r"\1", text)
    text = re.sub(r"::(?=\s|$)", ":", text)
    return re.sub(r"\\(.)", r"\1", text)


def _target_text(inner: str) -> str:
    titled = _TARGETED.match(inner)
    return titled[1] if titled and titled[1] else inner


def title_key(title: str) -> str:
    """A title compared case- and punctuation-blind: "os.path — Common ..." -> "os path common ..."."""
    return " ".join(re.findall(r"\w+", title.lower()))


# ----------------------------------------------------------------------------- the Python docs

def python_doc_sections(min_chars: int = DEFAULT_MIN_CHARS, max_chars: int = DEFAULT_MAX_CHARS,
                        texts=None) -> list[Section]:
    """Every section of the Python documentation with a title used once and a body of at least
    `min_chars` characters (cut at whitespace to at most `max_chars`), in a fixed order.

    `texts` is a list of (file key, reStructuredText) pairs; by default the Python documentation's
    sources in the language chapter's ``technical`` corpus (the Debian package ``python3.11-doc``).
    """
    min_chars, max_chars = _check_lengths(min_chars, max_chars)
    texts = _python_doc_texts() if texts is None else texts
    sections = [Section(f"{key}#{title}", title, body) for key, text in texts for title, body in rst_sections(text)]
    counts: dict[str, int] = {}
    for section in sections:
        counts[title_key(section.title)] = counts.get(title_key(section.title), 0) + 1
    return [Section(s.key, s.title, _cut(s.body, max_chars)) for s in sections
            if counts[title_key(s.title)] == 1 and title_key(s.title) and len(s.body) >= min_chars]


def _python_doc_texts() -> list[tuple[str, str]]:
    prefix = f"debian:{PYTHON_DOCS_PACKAGE}/{_PYTHON_SOURCES}"
    built = corpora.build("technical")
    texts = [(source[len(prefix):], text) for _, source, text in built.texts if source.startswith(prefix)]
    if not texts:
        raise RuntimeError(f"the Python documentation ({PYTHON_DOCS_PACKAGE}) is not available: "
                           f"run `make language-data`; notices: {'; '.join(built.notices) or 'none'}")
    return texts


def is_faq_question(section: Section) -> bool:
    return section.key.startswith("faq/") and section.title.rstrip().endswith("?")


def python_collections(documents: int | None = None, min_chars: int = DEFAULT_MIN_CHARS,
                       max_chars: int = DEFAULT_MAX_CHARS, sections: list[Section] | None = None
                       ) -> dict[str, Collection]:
    """The title -> section and FAQ question -> answer collections over one pool of sections.

    The pool holds every section, or `documents` of them: the FAQ answers first (at most half the
    pool, so both tasks keep queries), then the other sections, each group in a fixed pseudo-random
    order (sha256 of the section's key). The title task asks for every non-FAQ section of the pool by
    its title; the FAQ task asks every FAQ question of the pool.
    """
    sections = python_doc_sections(min_chars, max_chars) if sections is None else sections
    faq = sorted((s for s in sections if is_faq_question(s)), key=lambda s: _unit_hash(s.key))
    others = sorted((s for s in sections if not s.key.startswith("faq/")), key=lambda s: _unit_hash(s.key))
    if documents is not None:
        documents = check_int("documents", documents, 2)
        faq = faq[:documents // 2]
        others = others[:documents - len(faq)]
    pool = faq + others
    texts = tuple(s.body for s in pool)
    ids = tuple(s.key for s in pool)
    source = f"Python 3.11 documentation sources (Debian {PYTHON_DOCS_PACKAGE})"
    titles = _collection("python-titles", "Python docs: title → section", texts, ids,
                         [(s.title, i) for i, s in enumerate(pool) if not s.key.startswith("faq/")], source)
    questions = _collection("python-faq", "Python FAQ: question → answer", texts, ids,
                            [(s.title, i) for i, s in enumerate(pool) if is_faq_question(s)], source)
    return {"python-titles": titles, "python-faq": questions}


def _collection(name, label, texts, ids, pairs, source) -> Collection:
    """A collection of (query, right document index) pairs, leaving out queries no document can match."""
    vocabulary = set().union(*lexical_terms(list(texts))) if texts else set()
    matched = [(query, index) for (query, index), terms in zip(pairs, lexical_terms([q for q, _ in pairs]))
               if set(terms) & vocabulary]
    return Collection(name, label, texts, ids, tuple(q for q, _ in matched),
                      np.array([i for _, i in matched], dtype=np.int64), source=source,
                      unmatched=len(pairs) - len(matched))


# ----------------------------------------------------------------------------- manual pages

_MAN_SECTIONS = {"NAME", "LIBRARY", "SYNOPSIS", "CONFIGURATION", "DESCRIPTION", "OPTIONS", "EXIT STATUS",
                 "RETURN VALUE", "ERRORS", "ENVIRONMENT", "FILES", "ATTRIBUTES", "VERSIONS", "STANDARDS",
                 "HISTORY", "NOTES", "CAVEATS", "BUGS", "EXAMPLES", "EXAMPLE", "AUTHORS", "AUTHOR",
                 "REPORTING BUGS", "COPYRIGHT", "SEE ALSO", "CONFORMING TO", "COLOPHON"}


def manpage_parts(text: str) -> tuple[str, str] | None:
    """(names, description) of a man page's plain text (as corpora.read_manpage gives it): the names
    before the dash of the NAME line ("getgid, getegid") and the DESCRIPTION section's text."""
    sections: dict[str, list[str]] = {}
    current = None
    for paragraph in text.split("\n\n"):
        heading = paragraph.strip()
        if heading in _MAN_SECTIONS:
            current = heading
            sections.setdefault(current, [])
        elif current is not None:
            sections[current].append(paragraph.strip())
    name_line = " ".join(sections.get("NAME", []))
    names = re.split(r"\s+[-—–]\s+", name_line, maxsplit=1)[0].strip()
    description = " ".join(" ".join(sections.get("DESCRIPTION", [])).split())
    return (names, description) if names and description else None


def manpage_corpus() -> corpora.Corpus:
    """Debian's English manual pages (every page of both packages), read by the language chapter's
    troff reader and cached like its corpora (data/generated/corpora/search-manpages)."""
    licence = "Linux man-pages licences, per page (verbatim copying, GPL-2+, BSD, Expat)"
    sources = tuple(corpora.debian_source(package, ["usr/share/man/man[0-9]/*.gz"], licence, corpora.read_manpage)
                    for package in MANPAGE_PACKAGES)
    return corpora.Corpus("search-manpages", sources)


def manpage_collection(documents: int | None = None, min_chars: int = DEFAULT_MIN_CHARS,
                       max_chars: int = DEFAULT_MAX_CHARS, texts=None) -> Collection:
    """Names -> DESCRIPTION over Debian's English manual pages (`texts`: (key, plain text) pairs,
    by default read from the packages). Names used by two pages are left out, like shared titles."""
    min_chars, max_chars = _check_lengths(min_chars, max_chars)
    if texts is None:
        built = corpora.build(manpage_corpus())
        texts = [(source, text) for _, source, text in built.texts]
    pages = []
    for key, text in texts:
        parts = manpage_parts(text)
        if parts and len(parts[1]) >= min_chars:
            pages.append(Section(key, parts[0], _cut(parts[1], max_chars)))
    counts: dict[str, int] = {}
    for page in pages:
        counts[title_key(page.title)] = counts.get(title_key(page.title), 0) + 1
    pages = sorted((p for p in pages if counts[title_key(p.title)] == 1), key=lambda p: _unit_hash(p.key))
    if documents is not None:
        pages = pages[:check_int("documents", documents, 2)]
    return _collection("manpages", "Manual pages: name → description", tuple(p.body for p in pages),
                       tuple(p.key for p in pages), [(p.title, i) for i, p in enumerate(pages)],
                       "Debian manual pages (" + ", ".join(MANPAGE_PACKAGES) + ")")


# ----------------------------------------------------------------------------- all tasks

def collections(tasks, python_documents: int | None = None, manpage_documents: int | None = None,
                min_chars: int = DEFAULT_MIN_CHARS, max_chars: int = DEFAULT_MAX_CHARS) -> dict[str, Collection]:
    """The named test collections, in the order given (see TASKS); None = every document."""
    for task in tasks:
        check_choice("task", task, TASKS)
    found = {}
    if {"python-titles", "python-faq"} & set(tasks):
        found.update(python_collections(python_documents, min_chars, max_chars))
    if "manpages" in tasks:
        found["manpages"] = manpage_collection(manpage_documents, min_chars, max_chars)
    return {task: found[task] for task in tasks}


# ----------------------------------------------------------------------------- BEIR-style folders

def load_beir(folder, split: str = "test", documents: int | None = None, name: str | None = None) -> Collection:
    """A BEIR-style data set (MS MARCO, FiQA, Quora, CQADupStack ... as BEIR distributes them).

    `folder` holds ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl`` (``_id``,
    ``text``) and ``qrels/<split>.tsv`` (query-id, corpus-id, score; a header line). Every pair of
    a query and a relevant document (score > 0) is one event; the query's other relevant documents
    are masked. A document is its title and text joined. `documents` keeps every relevant document
    and fills the rest of the pool in a fixed pseudo-random order.
    """
    folder = Path(folder)
    qrels = _read_qrels(folder / "qrels" / f"{split}.tsv")
    queries = {row["_id"]: row["text"] for row in _read_jsonl(folder / "queries.jsonl")}
    corpus = {row["_id"]: " ".join(filter(None, (row.get("title", ""), row.get("text", ""))))
              for row in _read_jsonl(folder / "corpus.jsonl")}
    relevant = {doc for docs in qrels.values() for doc in docs}
    missing = sorted(relevant - corpus.keys())[:5] + sorted(set(qrels) - queries.keys())[:5]
    if missing:
        raise ValueError(f"{folder}: qrels name ids absent from corpus.jsonl / queries.jsonl: {missing}")
    ids = sorted(relevant, key=_unit_hash) + sorted(corpus.keys() - relevant, key=_unit_hash)
    if documents is not None:
        ids = ids[:max(check_int("documents", documents, 1), len(relevant))]
    index = {doc: i for i, doc in enumerate(ids)}
    events = [(query, doc) for query in sorted(qrels) for doc in qrels[query]]
    excluded = tuple(tuple(index[d] for d in qrels[query] if d != doc) for query, doc in events)
    return Collection(name or folder.name, name or folder.name, tuple(corpus[d] for d in ids), tuple(ids),
                      tuple(queries[q] for q, _ in events), np.array([index[d] for _, d in events], dtype=np.int64),
                      excluded, f"BEIR-style folder {folder} ({split} split)")


def _read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        raise FileNotFoundError(f"a BEIR-style folder needs {path.name}: {path} is missing")
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def _read_qrels(path: Path) -> dict[str, list[str]]:
    if not path.is_file():
        raise FileNotFoundError(f"a BEIR-style folder needs qrels/{path.name}: {path} is missing")
    qrels: dict[str, list[str]] = {}
    with path.open(encoding="utf-8", newline="") as rows:
        reader = csv.reader(rows, delimiter="\t")
        for row in reader:
            if len(row) < 3 or row[0] == "query-id":
                continue
            if float(row[2]) > 0:
                qrels.setdefault(row[0], [])
                if row[1] not in qrels[row[0]]:
                    qrels[row[0]].append(row[1])
    return qrels


# ----------------------------------------------------------------------------- helpers

def _check_lengths(min_chars: int, max_chars: int) -> tuple[int, int]:
    max_chars = check_int("max_chars", max_chars, 1)
    return check_int("min_chars", min_chars, 0, max_chars), max_chars


def _cut(text: str, max_chars: int) -> str:
    """At most `max_chars` characters, cut after the last whitespace within them."""
    if len(text) <= max_chars:
        return text
    window = text[:max_chars]
    space = window.rfind(" ")
    return window[:space] if space > max_chars // 2 else window


def _unit_hash(name: str) -> float:
    return int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:15], 16) / 16 ** 15
