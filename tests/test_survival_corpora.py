"""The language corpora: troff stripping, cutting into pieces, the train/test split, manifests, caching,
skipping what cannot be had, and the real standard-library corpus (no network except one skippable test)."""
from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from intellimetry.survival.language import corpora, debian, readers
from intellimetry.survival.language.corpora import (
    Corpus,
    compare_manifest,
    documents,
    folder_source,
    manifest,
    split_of,
    split_text,
    strip_troff,
)

# ----------------------------------------------------------------------------- troff


def test_comments_and_macro_only_lines_go_and_headings_stay():
    page = '.\\" a comment\n\'\\" t\n.TH LS 1 2020 GNU\n.SH NAME\nls \\- list files\n.PP\n.nr X 2\nMore.\n'
    assert strip_troff(page) == "NAME\n\nls - list files\n\nMore."


def test_font_macros_keep_their_words_and_alternating_ones_join_them():
    page = "See\n.BR ls (1)\nand\n.B \"two words\"\nor\n.IR file .\n"
    assert strip_troff(page) == "See ls(1) and two words or file."


def test_escapes_become_characters_or_nothing():
    page = "\\fBbold\\fR \\- dash\\(em\\[em] \\e \\*(lqq\\*(rq a\\&b \\[u00E4] \\(:o \\s-1small\\s0 x\\|y\n"
    assert strip_troff(page) == "bold - dash—— \\ “q” ab ä ö small xy"


def test_text_after_an_inline_comment_is_dropped():
    assert strip_troff('kept \\" dropped\n') == "kept"


def test_quoted_arguments_and_item_tags():
    assert readers._macro_arguments('"SEE ALSO" x  "a ""b"""') == ["SEE ALSO", "x", 'a "b"']
    assert strip_troff('.SH "SEE ALSO"\n.IP "\\(bu" 4\nitem\n') == "SEE ALSO\n\n• item"


def test_tables_definitions_and_conditional_blocks_are_dropped():
    page = ("before\n.TS\nl l.\na\tb\n.TE\n.de XX\nmacro body\n..\n.if n \\{\\\nnroff only\n.\\}\n"
            ".if t .sp\nafter\n")
    assert strip_troff(page) == "before\n\nafter"


def test_filled_lines_join_and_no_fill_blocks_keep_their_lines():
    page = "one\ntwo\n\nthree\n.nf\nint a;\n  int b;\n.fi\nfour\n"
    assert strip_troff(page) == "one two\n\nthree\n\nint a;\n  int b;\n\nfour"


def test_japanese_lines_join_without_a_space():
    assert strip_troff("表示する\n要素\nls\n") == "表示する要素 ls"


def test_translation_credits_are_cut_from_a_page():
    text = "NAME\n\nx\n\nSEE ALSO\n\ny(1)\n\nÜBERSETZUNG\n\nDie deutsche Übersetzung ..."
    assert readers._without_credits(text) == "NAME\n\nx\n\nSEE ALSO\n\ny(1)"
    assert readers._without_credits("NAME\n\nx") == "NAME\n\nx"


def test_alias_pages_are_recognised(tmp_path):
    alias, page = tmp_path / "a.3.gz", tmp_path / "b.3.gz"
    alias.write_bytes(gzip.compress(b'.\\" comment\n.so man3/b.3\n'))
    page.write_bytes(gzip.compress(b".TH B 3\n.SH NAME\nb\n"))
    assert corpora._is_alias(alias) and not corpora._is_alias(page)


# ----------------------------------------------------------------------------- splitting


TEXT = "Alpha beta gamma.\nDelta epsilon zeta eta.\n\nTheta iota kappa lambda mu nu xi omicron pi rho.\n" * 7


@pytest.mark.parametrize("max_chars", [1, 7, 30, 64, 1000])
def test_pieces_are_bounded_and_lose_nothing(max_chars):
    pieces = split_text(TEXT, max_chars)
    assert "".join(pieces) == TEXT
    assert all(0 < len(piece) <= max_chars for piece in pieces)
    assert split_text(TEXT, max_chars) == pieces


def test_a_cut_falls_after_whitespace_preferring_a_line_end():
    assert split_text("aaa bbb ccc", 9) == ["aaa bbb ", "ccc"]
    assert split_text("aaaa bb\ncc dd ee", 12) == ["aaaa bb\n", "cc dd ee"]
    assert split_text("abcdefghij", 4) == ["abcd", "efgh", "ij"]  # one long token: a hard cut


def test_split_is_stable_and_about_the_asked_fraction():
    assert [split_of(name) for name in "abcd"] == ["train", "train", "test", "test"]
    names = [f"doc-{i}" for i in range(4000)]
    share = sum(split_of(name, 0.25) == "test" for name in names) / len(names)
    assert 0.23 < share < 0.27
    with pytest.raises(ValueError, match="test_fraction"):
        split_of("a", 1.0)


# ----------------------------------------------------------------------------- a corpus in a tmp folder


def tmp_corpus(tmp_path: Path, name: str = "tmp", **texts: str) -> Corpus:
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    for file, text in texts.items():
        (root / f"{file}.txt").write_text(text, encoding="utf-8")
    return Corpus(name, (folder_source("tmp:", root, ["*.txt"], "CC0", "1"),), cache_dir=tmp_path / "cache" / name)


WORDS = " ".join(f"word{i}" for i in range(3000))  # 26,890 characters


def test_documents_cover_the_text_and_splits_are_disjoint(tmp_path):
    corpus = tmp_corpus(tmp_path, **{f"f{i}": f"file {i}: {WORDS}" for i in range(12)})
    everything = documents(corpus, "all", max_chars=5000, min_chars=0)
    by_file = {}
    for document in sorted(everything, key=lambda d: [int(n) for n in d.name.split("@")[1].split(".")]):
        by_file.setdefault(document.source, []).append(document.text)
    assert all(" ".join(texts).split() == f"file {k[5:-4]}: {WORDS}".split() for k, texts in by_file.items())
    test, train = (documents(corpus, split, max_chars=5000, min_chars=0) for split in ("test", "train"))
    assert test and train and not {d.name for d in test} & {d.name for d in train}
    assert {d.name for d in test} | {d.name for d in train} == {d.name for d in everything}
    assert [d.name for d in documents(corpus, "test", max_chars=5000, min_chars=0)] == [d.name for d in test]
    assert all(len(d.text) <= 5000 and d.corpus == "tmp" for d in everything)


def test_the_split_does_not_depend_on_the_piece_size(tmp_path):
    corpus = tmp_corpus(tmp_path, **{f"f{i}": WORDS * 3 for i in range(8)})
    def blocks(max_chars):
        return {d.name.rsplit(".", 1)[0] for d in documents(corpus, "test", max_chars=max_chars, min_chars=0)}
    assert blocks(3000) == blocks(20000)


def test_short_pieces_are_dropped_and_max_documents_takes_the_first(tmp_path):
    corpus = tmp_corpus(tmp_path, long="x " * 600, short="tiny text")
    pieces = documents(corpus, "all", max_chars=1000, min_chars=200)
    assert [len(d.text) for d in pieces] == [999]  # the 199-character tail and the short file are gone
    assert documents(corpus, "all", max_chars=1000, min_chars=0, max_documents=2) == \
        documents(corpus, "all", max_chars=1000, min_chars=0)[:2]


def test_bad_arguments_are_refused(tmp_path):
    corpus = tmp_corpus(tmp_path, a="text")
    with pytest.raises(ValueError, match="split"):
        documents(corpus, "dev")
    with pytest.raises(ValueError, match="min_chars"):
        documents(corpus, max_chars=10, min_chars=11)
    with pytest.raises(ValueError, match="corpus"):
        documents("poetry")


def test_training_text_takes_train_pieces_from_each_corpus_in_turn(tmp_path):
    one = tmp_corpus(tmp_path, "one", **{f"a{i}": f"alpha{i} " * 300 for i in range(10)})
    two = tmp_corpus(tmp_path, "two", **{f"b{i}": f"beta{i} " * 300 for i in range(10)})
    text = corpora.training_text([one, two], max_chars=6000, piece_chars=1000)
    assert len(text) <= 6000 and "alpha" in text and "beta" in text
    test_words = {w for d in documents(one, "test", min_chars=0) + documents(two, "test", min_chars=0)
                  for w in d.text.split()}
    assert not test_words & set(text.split())


def test_a_second_build_reads_the_cache_until_a_file_changes(tmp_path):
    calls = []

    def counting(path):
        calls.append(path.name)
        return corpora.read_plain(path)
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.txt").write_text("first text", encoding="utf-8")
    corpus = Corpus("tmp", (folder_source("tmp:", root, ["*.txt"], "CC0", read=counting),), tmp_path / "cache")
    assert corpora.build(corpus).texts == corpora.build(corpus).texts == [("tmp:a.txt", "tmp:a.txt", "first text")]
    assert calls == ["a.txt"]
    (root / "a.txt").write_text("second text", encoding="utf-8")
    assert corpora.build(corpus).texts[0][2] == "second text" and calls == ["a.txt", "a.txt"]


def test_a_missing_package_is_a_notice_unless_strict(tmp_path):
    def offline():
        raise debian.PackageUnavailable("fortunes", "apt-get download failed (offline)")
    corpus = Corpus("mixed", (offline, tmp_corpus(tmp_path, a="some text").sources[0]), tmp_path / "c2")
    found = documents(corpus, "all", min_chars=0)
    assert [d.text for d in found] == ["some text"]
    assert len(found.notices) == 1 and "'fortunes'" in found.notices[0] and "offline" in found.notices[0]
    with pytest.raises(debian.PackageUnavailable, match="fortunes"):
        documents(corpus, strict=True)


def test_the_shared_page_set_is_the_intersection_over_the_shared_languages(monkeypatch):
    pages = {"en": ["a", "b", "c", "d"], "de": ["a", "b", "c", "x"], "fr": ["a", "b", "c"], "es": ["a", "b", "c"],
             "pl": ["a", "b", "c"], "ja": ["b", "c"], "it": ["a", "d", "y"]}

    def language_pages(language):
        if language not in pages:
            raise debian.PackageUnavailable(f"manpages-{language}", "offline")
        return {name: corpora.SourceFile(f"{language}:{name}", Path(name), "", "", corpora.read_plain)
                for name in pages[language]}
    monkeypatch.setattr(corpora, "_language_pages", language_pages)
    assert [f.key for f in corpora.manpage_source("de")()] == ["de:b", "de:c"]
    assert [f.key for f in corpora.manpage_source("it")()] == ["it:a", "it:d"]  # its pages shared with English
    pages["ja"] = None
    del pages["ja"]
    listed = corpora.manpage_source("de")()
    assert [f.key for f in listed] == ["de:a", "de:b", "de:c"] and "'ja'" in listed.notices[0]


def test_man_pages_are_named_alike_in_every_language_so_the_splits_agree(tmp_path, monkeypatch):
    def fake_fetch(package):
        root = tmp_path / package
        folder = root / "usr/share/man" / ("" if package.startswith("manpages-dev") else "de") / "man3"
        folder.mkdir(parents=True, exist_ok=True)
        if package.endswith("-dev"):
            (folder / "memset.3.gz").write_bytes(gzip.compress(b".SH NAME\nmemset\n"))
            (folder / "bzero.3.gz").write_bytes(gzip.compress(b".so man3/memset.3\n"))  # an alias
        return debian.Package(package, "1.0", root)
    monkeypatch.setattr(corpora.debian, "fetch", fake_fetch)
    english, german = corpora._language_pages("en"), corpora._language_pages("de")
    assert list(english) == list(german) == ["man3/memset.3"]
    assert english["man3/memset.3"].document == german["man3/memset.3"].document == "man:man3/memset.3"
    assert german["man3/memset.3"].key == "debian:manpages-de-dev/usr/share/man/de/man3/memset.3.gz"


# ----------------------------------------------------------------------------- manifests


def test_compare_manifest_finds_changed_added_and_removed_files(tmp_path):
    corpus = tmp_corpus(tmp_path, kept="same", edited="before", dropped="gone soon")
    expected = manifest(corpus)
    root = tmp_path / "root"
    (root / "edited.txt").write_text("after", encoding="utf-8")
    (root / "dropped.txt").unlink()
    (root / "new.txt").write_text("fresh", encoding="utf-8")
    changes = compare_manifest(expected, manifest(corpus))
    assert [(c["change"], c["path"]) for c in changes] == [
        ("removed", "tmp:dropped.txt"), ("changed", "tmp:edited.txt"), ("added", "tmp:new.txt")]
    sha = {name: hashlib.sha256(text.encode()).hexdigest() for name, text in [("before", "before"), ("after", "after")]}
    assert (changes[1]["old_sha256"], changes[1]["new_sha256"]) == (sha["before"], sha["after"])
    assert changes[0]["new_sha256"] is None and changes[2]["old_sha256"] is None
    assert compare_manifest(expected, expected) == []
    assert corpora.describe_changes(changes)[1].startswith("changed: tmp:edited.txt (")


def test_manifest_totals_and_its_json_has_one_line_per_file(tmp_path):
    data = manifest(tmp_corpus(tmp_path, a="one two three", b="four five"))
    assert data["totals"] == {"files": 2, "bytes": 22, "texts": 2, "characters": 22, "words": 5}
    text = corpora.manifest_json(data)
    assert json.loads(text) == data
    assert sum('"sha256"' in line for line in text.splitlines()) == 2


def test_licence_texts_are_kept_once(tmp_path):
    root = tmp_path / "licences"
    root.mkdir()
    for name, text in [("b", "MIT text"), ("a", "MIT text"), ("c", "BSD text")]:
        (root / name).write_text(text, encoding="utf-8")
    corpus = Corpus("law", (folder_source("x:", root, ["*"], "text"),), tmp_path / "cache", dedupe=True)
    assert [entry["path"] for entry in manifest(corpus)["files"]] == ["x:a", "x:c"]


def test_the_code_corpus_builds_from_the_standard_library(tmp_path):
    code = Corpus("code", corpora.corpus("code").sources, tmp_path / "code")
    data = manifest(code)
    entries = {entry["path"]: entry for entry in data["files"]}
    json_init = corpora._stdlib_root() / "json" / "__init__.py"
    assert entries["stdlib:json/__init__.py"]["sha256"] == hashlib.sha256(json_init.read_bytes()).hexdigest()
    assert entries["stdlib:json/__init__.py"]["licence"] == "PSF-2.0"
    assert not any("/test/" in path or "idlelib" in path or "topics.py" in path for path in entries)
    assert data["totals"]["words"] > 100_000 and not data["skipped"]
    sample = documents(code, "test", max_documents=3)
    assert len(sample) == 3 and all(d.source in entries for d in sample)


# ----------------------------------------------------------------------------- readers and Debian


def test_bible_program_output_becomes_one_text_per_book():
    output = "Ge1:1 In the beginning.\nGe1:2 And the earth.\nGe2:1 Thus the heavens.\n1Jn1:1 That which was.\n"
    assert readers._bible_books(output) == [
        ("01-Ge", "In the beginning.\nAnd the earth.\n\nThus the heavens."), ("02-1Jn", "That which was.")]


def test_fortunes_and_pydoc_topics_read_as_text(tmp_path):
    cookie = tmp_path / "cookie"
    cookie.write_bytes(b"First fortune.\n%\nSecond, caf\xe9.\n%\n")  # latin-1: not valid UTF-8
    assert corpora.read_fortunes(cookie) == [("", "First fortune.\n\nSecond, café.")]
    topics = dict(corpora.read_pydoc_topics(corpora._stdlib_root() / "pydoc_data" / "topics.py"))
    assert "assert" in topics and '"assert" statement' in topics["assert"]


def test_a_cached_package_is_reused_without_apt(tmp_path, monkeypatch):
    (tmp_path / "fortunes_1%3a1.99.1-7.3" / "usr").mkdir(parents=True)
    monkeypatch.setattr(debian.shutil, "which", lambda program: None)  # apt-get would fail now
    package = debian.fetch("fortunes", tmp_path)
    assert (package.version, package.root.name) == ("1:1.99.1-7.3", "fortunes_1%3a1.99.1-7.3")
    with pytest.raises(debian.PackageUnavailable, match="'jargon-text'.*apt-get is not installed"):
        debian.fetch("jargon-text", tmp_path)
    with pytest.raises(ValueError, match="name"):
        debian.fetch("../etc", tmp_path)


def test_a_real_download_unpacks_and_reads(tmp_path, monkeypatch):
    """The only test that needs Debian's archive: skipped with the reason when it cannot be reached."""
    monkeypatch.setattr(debian, "DEBIAN_CACHE", tmp_path)
    try:
        devil = debian.fetch("dict-devil")
        austen = debian.fetch("r-cran-janeaustenr")
    except debian.PackageUnavailable as error:
        pytest.skip(str(error))
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary folder left
    (_, text), = corpora.read_plain(devil.root / "usr/share/dictd/devil.dict.dz")
    assert "DEVIL'S DICTIONARY" in text
    novels = dict(corpora.read_austen(austen.root / f"{corpora._AUSTEN}.rdb"))
    assert sorted(novels) == ["emma", "mansfieldpark", "northangerabbey", "persuasion", "prideprejudice",
                              "sensesensibility"]
    assert "It is a truth universally acknowledged" in novels["prideprejudice"]


def _fake_site_packages(root, monkeypatch):
    """Two installed distributions with a licence file each, and a dist-info holding none."""
    for info, licence in (("alpha_pkg-1.0.dist-info", "LICENSE"), ("Beta.Pkg-2.0.dist-info", "COPYING"),
                          ("gamma-3.0.dist-info", None)):
        (root / info).mkdir(parents=True)
        (root / info / "METADATA").write_text("Name: x\n")
        if licence:
            (root / info / licence).write_text(f"terms of {info}\n")
    monkeypatch.setattr(corpora.sysconfig, "get_paths", lambda: {"purelib": str(root)})


def test_law_licences_come_only_from_the_listed_distributions(tmp_path, monkeypatch):
    _fake_site_packages(tmp_path / "site", monkeypatch)
    listed = tmp_path / "law-distributions.txt"
    listed.write_text("# comment\nalpha-pkg\nbeta_pkg\nmissing.one\n")
    files = corpora.site_package_licences(corpora.law_distributions(listed))
    assert [f.key for f in files] == ["site-packages:Beta.Pkg-2.0.dist-info/COPYING",
                                      "site-packages:alpha_pkg-1.0.dist-info/LICENSE"]
    assert files.notices == ("not installed, so their licences are left out: missing_one",)
    # installing another package with a licence leaves the corpus as it was
    (tmp_path / "site" / "delta-9.dist-info").mkdir()
    (tmp_path / "site" / "delta-9.dist-info" / "LICENSE").write_text("new\n")
    assert [f.key for f in corpora.site_package_licences(["alpha-pkg", "beta-pkg"])] == [f.key for f in files]


def test_the_committed_law_list_names_distributions_once():
    names = corpora.law_distributions()
    assert len(names) == len(set(names)) > 50
    assert "numpy" in names and "torch" in names
