"""Offline corpora of real, human-written text for the Intelligence Test's language experiments.

Every corpus is a fixed list of real source files turned into plain-text documents; nothing is
generated. The writing domains:

* ``code``: the running interpreter's standard-library ``.py`` sources (all of them, skipping test
  suites, idlelib, site-packages and ``pydoc_data/topics.py``, which is documentation); PSF-2.0.
* ``law``: the licence texts in ``/usr/share/common-licenses`` and the LICENSE/COPYING files shipped
  in the ``*.dist-info`` folders of the distributions listed in ``data/corpora/law-distributions.txt``
  (a fixed list, so installing a package does not change the text), identical texts kept once.
* ``literary``: Jane Austen's six novels (Debian ``r-cran-janeaustenr``, read from its R data base
  with the ``rdata`` package) and the King James Bible (Debian ``bible-kjv-text``, decoded by the
  ``bible`` program of Debian ``bible-kjv``: its data file has a compression of its own).
* ``technical``: the reStructuredText sources of the Python documentation (Debian
  ``python3.11-doc``), ``pydoc_data.topics``, and Debian ``fortunes``, ``jargon-text``, ``dict-devil``.

The languages are Debian's manual pages, stripped of their troff markup (:func:`strip_troff`):
``manpages-<lang>`` for en, de, fr, es, pl, ja on one shared set of pages (those present in all six,
so the languages say the same things), and for it and pt-br (too few translations to share that set)
on the pages they have in common with English. Each language reads its package and its ``-dev``
package (sections 2 and 3 live there).

A Debian package that cannot be had (no apt-get, offline) skips its source with a notice, returned
with the documents and logged, unless the caller asks ``strict=True``. Extracted text is cached in
``data/generated/corpora/<corpus>/`` under a key made of every source file's sha256, so a second call
only lists and hashes the files. :func:`manifest` lists those files; the expected manifests are
committed in ``data/corpora/`` and :func:`compare_manifest` says what changed since.

Command line: ``python -m intellimetry.survival.language.corpora fetch`` downloads and extracts
everything; ``... manifest [--write]`` compares the manifests with the committed ones (or rewrites them).
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import logging
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import zip_longest
from pathlib import Path
from typing import Callable, Iterable

from intellimetry import paths
from intellimetry.atomic import write_json, write_text
from intellimetry.checks import check_choice, check_float, check_int
from intellimetry.survival.language import debian
from intellimetry.survival.language.readers import (  # noqa: F401 (strip_troff and the readers: corpora's API)
    Reader,
    SourceUnavailable,
    bible_reader,
    no_documents,
    read_austen,
    read_fortunes,
    read_manpage,
    read_plain,
    read_pydoc_topics,
    read_python,
    strip_troff,
)

log = logging.getLogger(__name__)

WRITING_DOMAINS = ("code", "law", "literary", "technical")
LANGUAGES = ("en", "de", "fr", "es", "pl", "ja", "it", "pt-br")
# The languages whose common pages define the shared page set (it and pt-br translate too few).
SHARED_PAGE_LANGUAGES = ("en", "de", "fr", "es", "pl", "ja")
CORPORA = WRITING_DOMAINS + tuple(f"manpages-{lang}" for lang in LANGUAGES)
SPLITS = ("test", "train", "all")

GENERATED_DIR = paths.DATA_DIR / "generated" / "corpora"
MANIFEST_DIR = paths.DATA_DIR / "corpora"
# Bump when any reader's output changes: it is part of the cache key of the extracted texts.
EXTRACTION_VERSION = 2

# The paper truncated documents at 5,000 tokens: about 20,000 characters of English.
DEFAULT_MAX_CHARS = 20_000
DEFAULT_MIN_CHARS = 500
DEFAULT_TEST_FRACTION = 0.2
# The unit of the train/test split: a whole text, or a block of this many characters of a longer one
# (a novel, a Bible book, the Jargon File), so that every long text lands in both splits, block by block.
SPLIT_BLOCK_CHARS = 50_000

@dataclass(frozen=True)
class SourceFile:
    """One file a corpus reads; `key` names it in manifests: "<root>:<path under the root>".

    Its documents are named after `document` when given (a man page's "man:man2/open.2" in every
    language, so that every language puts the same pages in its test split), else after `key`.
    """
    key: str
    path: Path
    licence: str
    version: str
    read: Reader
    document: str = ""

    def entry(self) -> dict:
        data = self.path.read_bytes()
        return {"path": self.key, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                "licence": self.licence, "version": self.version}


@dataclass(frozen=True)
class Corpus:
    """A named list of sources; each source lists its files (raising when it cannot be had)."""
    name: str
    sources: tuple[Callable[[], list[SourceFile]], ...]
    cache_dir: Path | None = None  # default data/generated/corpora/<name>
    dedupe: bool = False  # keep one file of each sha256 (licences repeat across packages)

    @property
    def folder(self) -> Path:
        return Path(self.cache_dir) if self.cache_dir else GENERATED_DIR / self.name


@dataclass(frozen=True)
class Document:
    name: str    # "<source key or document name>[#part]@<block>.<piece>"
    text: str
    corpus: str
    source: str  # the manifest key of the file it came from


class Files(list):
    """Source files that also carry notices (a source that is complete only in part says so here)."""

    def __init__(self, items: Iterable[SourceFile] = (), notices: Iterable[str] = ()):
        super().__init__(items)
        self.notices = tuple(notices)


class Documents(list):
    """A list of documents that also carries the notices of the sources that were skipped."""

    def __init__(self, items: Iterable[Document] = (), notices: Iterable[str] = ()):
        super().__init__(items)
        self.notices = tuple(notices)


@dataclass(frozen=True)
class Built:
    """A corpus's files (manifest entries), its whole extracted texts and the skip notices."""
    corpus: str
    files: list[dict]
    texts: list[tuple[str, str, str]]  # (document name, source key, text)
    notices: list[str]


# ----------------------------------------------------------------------------- splitting


def split_text(text: str, max_chars: int) -> list[str]:
    """Consecutive pieces of at most `max_chars` whose concatenation is `text`.

    Each cut falls just after whitespace: after the last newline of the window when that lies in its
    second half (whole lines and paragraphs stay together), else after its last whitespace; a window
    without whitespace (one enormous token) is cut at `max_chars`.
    """
    max_chars = check_int("max_chars", max_chars, 1)
    pieces, start = [], 0
    while len(text) - start > max_chars:
        window = text[start:start + max_chars]
        newline = window.rfind("\n") + 1
        space = max(window.rfind(" "), window.rfind("\t"), window.rfind("\n")) + 1
        cut = newline if newline > max_chars // 2 else space or max_chars
        pieces.append(text[start:start + cut])
        start += cut
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def split_of(name: str, test_fraction: float = DEFAULT_TEST_FRACTION) -> str:
    """"test" or "train" for a document, from the sha256 of its name: stable across runs and machines."""
    test_fraction = check_float("test_fraction", test_fraction, 0.0, 1.0, low_open=True, high_open=True)
    return "test" if _unit_hash(name) < test_fraction else "train"


def _unit_hash(name: str) -> float:
    return int(hashlib.sha256(name.encode("utf-8")).hexdigest()[:15], 16) / 16 ** 15


# ----------------------------------------------------------------------------- sources


def _everything(path: Path) -> bool:
    return True


def folder_source(prefix: str, root: Path, patterns: Iterable[str], licence: str, version: str = "",
                  read: Reader = read_plain, keep: Callable[[Path], bool] = _everything
                  ) -> Callable[[], list[SourceFile]]:
    """The regular files (not symlinks) under `root` matching a glob of `patterns` and `keep`,
    keyed "<prefix><path under root>" (prefix "stdlib:", "debian:fortunes/", ...)."""
    patterns = tuple(patterns)

    def files() -> list[SourceFile]:
        found = sorted({p for pattern in patterns for p in Path(root).glob(pattern)
                        if p.is_file() and not p.is_symlink() and keep(p)})
        return [SourceFile(f"{prefix}{p.relative_to(root).as_posix()}", p, licence, version, read) for p in found]
    return files


def debian_source(package: str, patterns: Iterable[str], licence: str, read: Reader = read_plain,
                  keep: Callable[[Path], bool] = _everything) -> Callable[[], list[SourceFile]]:
    """Files of Debian `package` (fetched on first use), keyed "debian:<package>/<path>"."""
    def files() -> list[SourceFile]:
        fetched = debian.fetch(package)
        return folder_source(f"debian:{package}/", fetched.root, patterns, licence, fetched.version, read, keep)()
    return files


_STDLIB_SKIPPED = {"test", "tests", "idle_test", "idlelib", "site-packages", "dist-packages", "__pycache__"}
_TOPICS = Path("pydoc_data/topics.py")


def _stdlib_root() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def stdlib_code() -> list[SourceFile]:
    root = _stdlib_root()
    return [SourceFile(f"stdlib:{p.relative_to(root).as_posix()}", p, "PSF-2.0", platform.python_version(),
                       read_python)
            for p in sorted(root.rglob("*.py"))
            if not _STDLIB_SKIPPED & set(p.relative_to(root).parts) and p.relative_to(root) != _TOPICS]


def pydoc_topics() -> list[SourceFile]:
    path = _stdlib_root() / _TOPICS
    return [SourceFile(f"stdlib:{_TOPICS.as_posix()}", path, "PSF-2.0", platform.python_version(),
                       read_pydoc_topics)]


def common_licenses() -> list[SourceFile]:
    """/usr/share/common-licenses (Debian's base-files); its symlinked aliases are left out."""
    root = Path("/usr/share/common-licenses")
    return folder_source("common-licenses:", root, ["*"], "licence text (verbatim copies allowed)",
                         _installed_version("base-files"))()


def _installed_version(package: str) -> str:
    if shutil.which("dpkg-query") is None:
        return ""
    done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


_LICENCE_NAME = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE)", re.I)


LAW_DISTRIBUTIONS = "data/corpora/law-distributions.txt"


def law_distributions(path: Path | None = None) -> list[str]:
    """The distribution names (normalised: lower case, '_' for '-' and '.') whose licences are law text
    (default: the committed list, read as a hashed project file)."""
    path = paths.project_file(LAW_DISTRIBUTIONS) if path is None else Path(path)
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [_normalised(line) for line in lines if line and not line.startswith("#")]


def _normalised(distribution: str) -> str:
    return re.sub(r"[-_.]+", "_", distribution).lower()


def site_package_licences(distributions: Iterable[str] | None = None) -> Files:
    """LICENSE/COPYING/NOTICE files in the *.dist-info folders of the listed distributions (default:
    ``law_distributions()``) in this interpreter's site-packages; a listed one that is not installed
    is named in a notice."""
    wanted = set(law_distributions() if distributions is None else map(_normalised, distributions))
    root = Path(sysconfig.get_paths()["purelib"])
    files, found = [], set()
    for info in sorted(root.glob("*.dist-info")):
        name, _, version = info.name[:-len(".dist-info")].partition("-")
        if _normalised(name) not in wanted:
            continue
        found.add(_normalised(name))
        for path in sorted(info.rglob("*")):  # PEP 639 puts them in licenses/, older wheels at the top
            if path.is_file() and _LICENCE_NAME.match(path.name):
                files.append(SourceFile(f"site-packages:{path.relative_to(root).as_posix()}", path,
                                        "licence text (verbatim copies allowed)", version, read_plain))
    missing = sorted(wanted - found)
    notices = [f"not installed, so their licences are left out: {', '.join(missing)}"] if missing else []
    return Files(files, notices)


def bible() -> list[SourceFile]:
    """The KJV text and the Debian program that decodes it (both listed: either changes the text)."""
    program = debian.fetch("bible-kjv")
    text = debian.fetch("bible-kjv-text")
    licence = "public domain (KJV; Crown patent in the UK)"
    return [SourceFile("debian:bible-kjv-text/usr/lib/bible.data", text.root / "usr/lib/bible.data", licence,
                       text.version, bible_reader(program.root / "usr/bin/bible")),
            SourceFile("debian:bible-kjv/usr/bin/bible", program.root / "usr/bin/bible", "GPL-2+",
                       program.version, no_documents)]


_AUSTEN = "usr/lib/R/site-library/janeaustenr/data/Rdata"
_AUSTEN_LICENCE = "public domain novels (Project Gutenberg); janeaustenr MIT"


def austen() -> list[SourceFile]:
    files = debian_source("r-cran-janeaustenr", [f"{_AUSTEN}.rdb", f"{_AUSTEN}.rdx"], _AUSTEN_LICENCE)()
    return [replace(f, read=read_austen if f.key.endswith(".rdb") else no_documents) for f in files]


# ----------------------------------------------------------------------------- man pages


_MANPAGE_LICENCES = {
    "en": "Linux man-pages licences, per page (verbatim copying, GPL-2+, BSD, Expat)",
    "ja": "JM Project translation, under the original page's licence",
}
_TRANSLATION_LICENCE = "GPL-3+ (manpages-l10n translation)"


def _manpage_packages(language: str) -> tuple[str, str]:
    base = "manpages" if language == "en" else f"manpages-{language}"
    return base, f"{base}-dev"


def _language_pages(language: str) -> dict[str, SourceFile]:
    """The real pages of a language's two packages: "man2/open.2" -> its file."""
    licence = _MANPAGE_LICENCES.get(language, _TRANSLATION_LICENCE)
    pages = {}
    for package in _manpage_packages(language):
        fetched = debian.fetch(package)
        for relative in _real_pages(fetched.root):
            path = fetched.root / relative
            page = f"{path.parent.name}/{path.name[:-3]}"
            pages[page] = SourceFile(f"debian:{package}/{relative}", path, licence, fetched.version, read_manpage,
                                     document=f"man:{page}")
    return pages


@lru_cache(maxsize=None)
def _real_pages(root: Path) -> tuple[str, ...]:
    """Pages under an unpacked package's usr/share/man, without symlinks and `.so` aliases.

    Cached per process: an unpacked package never changes in place (a new version is a new folder).
    """
    found = sorted(p for p in root.glob("usr/share/man/**/man[0-9]/*.gz") if p.is_file() and not p.is_symlink())
    return tuple(p.relative_to(root).as_posix() for p in found if not _is_alias(p))


def _is_alias(path: Path) -> bool:
    """A page that only says `.so other-page` (checked on small files only: aliases are tiny)."""
    if path.stat().st_size > 300:
        return False
    lines = [line for line in gzip.decompress(path.read_bytes()).decode("latin-1").splitlines()
             if line.strip() and not line.startswith(('.\\"', "'\\\""))]
    return len(lines) == 1 and lines[0].startswith(".so ")


def manpage_source(language: str) -> Callable[[], list[SourceFile]]:
    """The pages of `language` in the shared page set (it, pt-br: the pages they share with English).

    The shared set is the intersection over SHARED_PAGE_LANGUAGES; a language whose packages cannot
    be had is left out of it, with a notice.
    """
    check_choice("language", language, LANGUAGES)

    def files() -> Files:
        own = _language_pages(language)
        others = SHARED_PAGE_LANGUAGES if language in SHARED_PAGE_LANGUAGES else ("en",)
        shared, notices = set(own), []
        for other in others:
            if other == language:
                continue
            try:
                shared &= set(_language_pages(other))
            except debian.PackageUnavailable as error:
                notices.append(f"the shared page set leaves out {other!r}: {error}")
        return Files(sorted((own[name] for name in shared), key=lambda f: f.key), notices)
    return files


# ----------------------------------------------------------------------------- corpora


def corpus(name: str) -> Corpus:
    """The definition of a named corpus (see CORPORA)."""
    check_choice("corpus", name, CORPORA)
    if name.startswith("manpages-"):
        return Corpus(name, (manpage_source(name[len("manpages-"):]),))
    return Corpus(name, _DOMAIN_SOURCES[name], dedupe=name == "law")


def _not_an_index(path: Path) -> bool:
    return path.suffix != ".dat"


_DOMAIN_SOURCES = {
    "code": (stdlib_code,),
    "law": (common_licenses, site_package_licences),
    "literary": (austen, bible),
    "technical": (
        debian_source("python3.11-doc", ["usr/share/doc/python3.11/html/_sources/**/*.rst.txt"], "PSF-2.0"),
        pydoc_topics,
        debian_source("fortunes", ["usr/share/games/fortunes/*"],
                      "BSD (fortune-mod, The Regents of the University of California)", read_fortunes,
                      keep=_not_an_index),
        debian_source("jargon-text", ["usr/share/doc/jargon-text/jargon.txt.gz"], "public domain"),
        debian_source("dict-devil", ["usr/share/dictd/devil.dict.dz"], "public domain"),
    ),
}


def _resolve(name_or_corpus: str | Corpus) -> Corpus:
    return name_or_corpus if isinstance(name_or_corpus, Corpus) else corpus(name_or_corpus)


def _collect(definition: Corpus, strict: bool) -> tuple[list[SourceFile], list[str]]:
    """Every source's files; a source that cannot be had becomes a notice (or raises when strict)."""
    files, notices = [], []
    for source in definition.sources:
        try:
            listed = source()
        except (debian.PackageUnavailable, SourceUnavailable) as error:
            if strict:
                raise
            notices.append(f"skipped a source: {error}")
            continue
        files.extend(listed)
        notices.extend(getattr(listed, "notices", ()))
    if strict and notices:
        raise SourceUnavailable(f"corpus {definition.name!r} is incomplete: {'; '.join(notices)}")
    files = _unique(files) if definition.dedupe else sorted(files, key=lambda f: f.key)
    return files, [f"{definition.name}: {notice}" for notice in notices]


def _unique(files: list[SourceFile]) -> list[SourceFile]:
    """One file per content (sha256), the first by key."""
    seen, kept = set(), []
    for file in sorted(files, key=lambda f: f.key):
        digest = hashlib.sha256(file.path.read_bytes()).hexdigest()
        if digest not in seen:
            seen.add(digest)
            kept.append(file)
    return kept


def build(name_or_corpus: str | Corpus, strict: bool = False) -> Built:
    """The corpus's files and whole texts, extracted once and then read from the cache.

    The cache key is the extraction version and every file's path and sha256, so a changed source
    file, or a changed reader (with EXTRACTION_VERSION bumped), extracts again.
    """
    definition = _resolve(name_or_corpus)
    files, notices = _collect(definition, strict)
    entries = [file.entry() for file in files]
    key = hashlib.sha256(json.dumps([EXTRACTION_VERSION, [(e["path"], e["sha256"]) for e in entries]])
                         .encode()).hexdigest()
    cache = definition.folder / "texts.json"
    texts = _load_texts(cache, key)
    if texts is None:
        texts, failed = _extract(files, strict)
        notices += [f"{definition.name}: skipped {reason}" for reason in failed]
        if not failed:  # a failed reader is tried again next time
            write_json(cache, {"key": key, "texts": texts})
    for notice in notices:
        log.warning(notice)
    return Built(definition.name, entries, [tuple(text) for text in texts], notices)


def _load_texts(cache: Path, key: str) -> list | None:
    try:
        stored = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return stored["texts"] if stored.get("key") == key else None


def _extract(files: list[SourceFile], strict: bool) -> tuple[list[list[str]], list[str]]:
    texts, failed = [], []
    for file in files:
        try:
            parts = file.read(file.path)
        except SourceUnavailable as error:
            if strict:
                raise
            failed.append(f"{file.key}: {error}")
            continue
        name = file.document or file.key
        texts += [[f"{name}#{part}" if part else name, file.key, text] for part, text in parts if text]
    return texts, failed


# ----------------------------------------------------------------------------- documents


def documents(name_or_corpus: str | Corpus, split: str = "test", max_documents: int | None = None,
              max_chars: int = DEFAULT_MAX_CHARS, min_chars: int = DEFAULT_MIN_CHARS,
              test_fraction: float = DEFAULT_TEST_FRACTION, strict: bool = False) -> Documents:
    """The corpus's documents of one split, cut into pieces of at most `max_chars` characters.

    Each text is cut into blocks of SPLIT_BLOCK_CHARS (most texts are one block); a block goes to
    "test" or "train" by the hash of its name, whatever `max_chars`, so the splits never share text.
    Blocks are cut into pieces of at most `max_chars` (never across a block), and pieces shorter than
    `min_chars` are dropped. The order is fixed and pseudo-random (sha256 of each piece's name), so the
    first `max_documents` spread over the corpus. Skip notices of missing sources ride along as `.notices`.
    """
    check_choice("split", split, SPLITS)
    max_chars = check_int("max_chars", max_chars, 1)
    min_chars = check_int("min_chars", min_chars, 0, max_chars)
    if max_documents is not None:
        max_documents = check_int("max_documents", max_documents, 1)
    check_float("test_fraction", test_fraction, 0.0, 1.0, low_open=True, high_open=True)
    built = build(name_or_corpus, strict)
    chosen = []
    for name, source, text in built.texts:
        for block_number, block in enumerate(split_text(text, SPLIT_BLOCK_CHARS)):
            block_name = f"{name}@{block_number}"
            if split != "all" and split_of(block_name, test_fraction) != split:
                continue
            for number, piece in enumerate(split_text(block, max_chars)):
                if len(piece.strip()) >= min_chars:
                    chosen.append(Document(f"{block_name}.{number}", piece.strip(), built.corpus, source))
    chosen.sort(key=lambda document: _unit_hash(document.name))
    return Documents(chosen[:max_documents], built.notices)


def training_text(corpora: Iterable[str | Corpus], max_chars: int, piece_chars: int = DEFAULT_MAX_CHARS,
                  test_fraction: float = DEFAULT_TEST_FRACTION) -> str:
    """The train split of `corpora`, one piece from each in turn, joined by blank lines and cut at
    whitespace to at most `max_chars` characters."""
    max_chars = check_int("max_chars", max_chars, 1)
    queues = [documents(c, "train", max_chars=piece_chars, min_chars=0, test_fraction=test_fraction)
              for c in corpora]
    taken, length = [], 0
    for turn in zip_longest(*queues):
        for document in turn:
            if document is not None and length <= max_chars:
                taken.append(document.text)
                length += len(document.text) + 2
    text = "\n\n".join(taken)
    return split_text(text, max_chars)[0].rstrip() if text else ""


# ----------------------------------------------------------------------------- manifests


def manifest(name_or_corpus: str | Corpus, strict: bool = False) -> dict:
    """Every source file of the corpus (path, bytes, sha256, licence, version) and its totals."""
    built = build(name_or_corpus, strict)
    texts = [text for _, _, text in built.texts]
    return {
        "corpus": built.corpus,
        "extraction_version": EXTRACTION_VERSION,
        "files": built.files,
        "skipped": built.notices,
        "totals": {"files": len(built.files), "bytes": sum(f["bytes"] for f in built.files),
                   "texts": len(texts), "characters": sum(map(len, texts)),
                   "words": sum(len(text.split()) for text in texts)},
    }


def manifest_json(data: dict) -> str:
    """The manifest as JSON, one line per file (diffs stay readable, the file stays small)."""
    head = json.dumps({k: v for k, v in data.items() if k != "files"}, indent=1, sort_keys=True,
                      ensure_ascii=False)
    files = ",\n".join("  " + json.dumps(entry, sort_keys=True, ensure_ascii=False) for entry in data["files"])
    return f'{head[:-2]},\n "files": [\n{files}\n ]\n}}\n'


def manifest_path(name: str) -> Path:
    return MANIFEST_DIR / f"{name}.manifest.json"


def expected_manifest(name: str) -> dict | None:
    """The committed manifest of a named corpus, or None when none is committed (read as a hashed
    project file either way: committing one later makes the figures that compared with it stale)."""
    relative = manifest_path(check_choice("corpus", name, CORPORA)).relative_to(paths.REPO_ROOT).as_posix()
    if not paths.project_file_exists(relative):
        return None
    return json.loads(paths.project_file(relative).read_text(encoding="utf-8"))


def compare_manifest(expected: dict, actual: dict) -> list[dict]:
    """The files added, removed or changed (another sha256) between two manifests, by path."""
    old = {entry["path"]: entry for entry in expected["files"]}
    new = {entry["path"]: entry for entry in actual["files"]}
    changes = []
    for path in sorted(old.keys() | new.keys()):
        before, after = old.get(path), new.get(path)
        if before and after and before["sha256"] == after["sha256"]:
            continue
        change = "added" if before is None else "removed" if after is None else "changed"
        changes.append({"change": change, "path": path,
                        "old_sha256": before and before["sha256"], "new_sha256": after and after["sha256"],
                        "old_version": before and before["version"], "new_version": after and after["version"]})
    return changes


def describe_changes(changes: list[dict]) -> list[str]:
    """One sentence per change, for the book."""
    def short(sha):
        return sha[:12] if sha else "-"
    return [f"{c['change']}: {c['path']} ({short(c['old_sha256'])} -> {short(c['new_sha256'])})" for c in changes]


# ----------------------------------------------------------------------------- command line


def _fetch_all(names: list[str], strict: bool) -> None:
    for name in names:
        started = time.perf_counter()
        built = build(name, strict)  # logs a notice per skipped source
        words = sum(len(text.split()) for _, _, text in built.texts)
        print(f"{name}: {len(built.files)} files, {len(built.texts)} texts, {words:,} words "
              f"({time.perf_counter() - started:.1f} s)", flush=True)


def _manifests(names: list[str], write: bool) -> None:
    for name in names:
        actual = manifest(name)
        if write:
            write_text(manifest_path(name), manifest_json(actual))
            print(f"wrote {manifest_path(name).relative_to(paths.REPO_ROOT)}")
            continue
        expected = expected_manifest(name)
        changes = describe_changes(compare_manifest(expected, actual)) if expected else ["no committed manifest"]
        print(f"{name}: {'same as committed' if not changes else f'{len(changes)} change(s)'}")
        for line in changes[:50]:
            print(f"  {line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m intellimetry.survival.language.corpora",
                                     description="Fetch the language corpora, or check/write their manifests.")
    commands = parser.add_subparsers(dest="command", required=True)
    fetch = commands.add_parser("fetch", help="download the Debian packages and extract every corpus's text")
    fetch.add_argument("--strict", action="store_true", help="fail on a missing package instead of skipping it")
    check = commands.add_parser("manifest", help="compare each corpus with data/corpora/<corpus>.manifest.json")
    check.add_argument("--write", action="store_true", help="write the manifests instead of comparing")
    for command in (fetch, check):
        command.add_argument("corpora", nargs="*", metavar="CORPUS", help=f"default: all ({', '.join(CORPORA)})")
    arguments = parser.parse_args(argv)
    unknown = sorted(set(arguments.corpora) - set(CORPORA))
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)}; allowed: {', '.join(CORPORA)}")
    logging.basicConfig(level=logging.WARNING, format="  NOTICE %(message)s")
    names = arguments.corpora or list(CORPORA)
    if arguments.command == "fetch":
        _fetch_all(names, arguments.strict)
        return 0
    _manifests(names, arguments.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
