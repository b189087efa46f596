"""Citable and findable (issue 36, item 8): each paper's citation kept once in data/reference/papers.yaml and
rendered from there, the book's own citation (CITATION.cff), the package's version on every page, and one
repository setting behind README, CITATION.cff and the book's links."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib

import pytest
import yaml

import intellimetry
from intellimetry import paths
from intellimetry.book import citations
from intellimetry.book.readme import canonical_repository, pages_url

PAPERS = citations.load_papers()

# The chapters' first lines as they read before the role (issue 36), with the year and venue the combined-tests
# and AGITB lines lacked, and the AIQ venue its {paper} role gave.
SHORT = {
    "survival": "Zhan et al. (2025), “Evaluating Intelligence via Trial and Error”, arXiv:2502.18858",
    "aiq": ("Pereyda & Holder (2025), “The Artificial Intelligence Quotient (AIQ): Measuring Machine Intelligence "
            "Based on Multi-Domain Complexity and Similarity”, AI 6(12), 313, doi:10.3390/ai6120313"),
    "combined": ("Pereyda & Holder (2018), “Toward a General-Purpose Artificial Intelligence Test by Combining "
                 "Diverse Tests”, Proceedings of the International Conference on Artificial Intelligence (ICAI), "
                 "pp. 237–243"),
    "gindex": "Venkatasubramanian et al. (2021), “Towards a Measure of General Machine Intelligence”, arXiv:2109.12075",
    "agitb": ("Šprogar (2025), “AGITB: A Signal-Level Benchmark for Evaluating Artificial General Intelligence”, "
              "arXiv:2504.04430"),
}


@pytest.mark.parametrize("key", SHORT)
def test_the_short_citation_is_the_chapters_first_line(key):
    assert citations.citation_text(PAPERS[key]) == SHORT[key]


def test_a_chapter_cites_the_paper_it_re_implements():
    # the SOC chapter re-implements the survival paper's Section 6
    assert citations.resolve(PAPERS, "soc") == "survival"
    assert {citations.resolve(PAPERS, chapter) for chapter in intellimetry.PAPERS} == set(SHORT)


def test_an_unknown_paper_is_named_with_the_known_ones():
    with pytest.raises(citations.CitationError, match=r"unknown paper 'survial'.*survival, aiq.*soc"):
        citations.resolve(PAPERS, "survial")


def test_the_full_citation_names_every_author():
    assert citations.citation_text(PAPERS["aiq"], full=True).startswith(
        "Christopher Pereyda and Lawrence Holder (2025), “The Artificial Intelligence Quotient (AIQ)")
    survival = citations.citation_text(PAPERS["survival"], full=True)
    assert survival.startswith("Jingtao Zhan, Jiahao Zhao, ") and ", Min Zhang and Shaoping Ma (2025)" in survival


def test_short_authors_follow_the_count():
    one, two, three = ({"family": name} for name in ("Šprogar", "Holder", "Kar"))
    assert citations.short_authors([one]) == "Šprogar"
    assert citations.short_authors([one, two]) == "Šprogar & Holder"
    assert citations.short_authors([one, two, three]) == "Šprogar et al."


def test_the_identifier_links_to_arxiv_or_the_doi():
    assert citations.identifier(PAPERS["gindex"]) == ("arXiv:2109.12075", "https://arxiv.org/abs/2109.12075")
    assert citations.identifier(PAPERS["aiq"]) == ("doi:10.3390/ai6120313", "https://doi.org/10.3390/ai6120313")
    assert citations.identifier(PAPERS["combined"]) is None  # it has neither: the venue and pages stand
    assert citations.citation_markdown(PAPERS["gindex"]).endswith("[arXiv:2109.12075](https://arxiv.org/abs/2109.12075)")


@pytest.mark.parametrize("change, message", [
    ({"year": None}, "'bad' lacks year"),
    ({"kind": "blog"}, "kind 'blog'; allowed: preprint, article"),
    ({"arxiv": None}, "'bad' is a preprint without its arxiv id"),
    ({"authors": [{"given": "Jingtao"}]}, "authors without a family name"),
])
def test_a_malformed_entry_is_refused_naming_it(change, message):
    with pytest.raises(citations.CitationError, match=re.escape(message)):
        citations.check_paper("bad", {**PAPERS["survival"], **change})


def test_every_paper_says_where_its_facts_come_from():
    assert all(len(paper["source"].split()) >= 8 for paper in PAPERS.values())
    assert "reference 35" in PAPERS["combined"]["source"]  # the year and venue the paper's text lacks


def test_bibtex_entries_take_the_papers_kind():
    assert citations.bibtex("survival", PAPERS["survival"]).startswith("@misc{zhan2025survival,")
    assert "eprint = {2504.04430}" in citations.bibtex("agitb", PAPERS["agitb"])
    assert citations.bibtex("agitb", PAPERS["agitb"]).startswith("@misc{sprogar2025agitb,")  # an ASCII key
    combined = citations.bibtex("combined", PAPERS["combined"])
    assert combined.startswith("@inproceedings{") and "pages = {237--243}" in combined
    aiq = citations.bibtex("aiq", PAPERS["aiq"])
    assert "journal = {AI},\n  volume = {6},\n  number = {12},\n  pages = {313}" in aiq


def test_the_footer_names_the_version_and_escapes_what_it_quotes():
    footer = citations.footer_html("0.1.0", "https://example.org/a?b=1&c=2", "../cite.html")
    assert "intellimetry 0.1.0" in footer and 'href="https://example.org/a?b=1&amp;c=2"' in footer
    assert 'href="../cite.html">how to cite' in footer
    assert "source" not in citations.footer_html("0.1.0", "", None)


# ---- one version, one repository ----------------------------------------------------------------

def test_the_version_is_the_package_s_everywhere():
    pyproject = tomllib.loads((paths.REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    cff = citations.load_citation_file()
    assert pyproject["project"]["version"] == intellimetry.__version__ == cff["version"]


@pytest.mark.parametrize("url, pages", [
    ("https://github.com/intellimetry/intellimetry", "https://intellimetry.github.io/intellimetry/"),
    ("https://github.com/You/fork", "https://you.github.io/fork/"),
    ("https://github.com/you/you.github.io", "https://you.github.io/"),
    ("https://gitlab.com/you/fork", ""),
    ("", ""),
])
def test_the_pages_address_comes_from_the_repository(url, pages):
    assert pages_url(url) == pages


def test_readme_and_citation_name_no_other_repository_than_the_setting():
    # The one setting is book/_config.yml's repository.url; README and CITATION.cff are written from it
    # (python -m intellimetry.book readme), and any GitHub address typed by hand must agree with it.
    repository, site = canonical_repository(), pages_url(canonical_repository())
    for name in ("README.md", "CITATION.cff"):
        text = (paths.REPO_ROOT / name).read_text(encoding="utf-8")
        for url in re.findall(r"https?://[^\s)>\]'\"]*github\.(?:com|io)[^\s)>\]'\"]*", text):
            assert url.rstrip(".,").startswith((repository, site)), f"{name} names {url}, not {repository}"


def test_citation_cff_holds_what_cff_1_2_0_requires():
    cff = citations.load_citation_file()
    assert cff["cff-version"] == "1.2.0" and cff["message"] and cff["title"]
    assert cff["authors"] and all(a.get("name") or a.get("family-names") for a in cff["authors"])
    assert cff["repository-code"] == canonical_repository()
    book_config = yaml.safe_load((paths.BOOK_DIR / "_config.yml").read_text(encoding="utf-8"))
    assert citations.book_authors(cff) == book_config["author"]
    assert [ref["title"] for ref in cff["references"]] == [citations.title(p) for p in PAPERS.values()]
    assert all({"type", "title", "authors"} <= set(ref) for ref in cff["references"])


# ---- in a Sphinx build ---------------------------------------------------------------------------

def _build(tmp_path, page: str) -> tuple[int, str, str]:
    """A Sphinx project with the citations extension and the book's theme, built with warnings as errors."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text("extensions = ['myst_parser', 'intellimetry.book.citations']\n"
                                 "html_theme = 'sphinx_book_theme'\ncopyright = '2026'\n")
    (src / "_config.yml").write_text("repository:\n  url: https://github.com/someone/book\n")
    chapters = ("soc", "survival", "aiq", "combined", "gindex", "agitb")
    toctree = "\n".join(["cite", *(f"{chapter}/index" for chapter in chapters)])
    (src / "index.md").write_text(f"# Page\n\n{page}\n\n```{{toctree}}\n{toctree}\n```\n")
    (src / "cite.md").write_text("# How to cite\n\n```{cite-book}\n```\n")
    for chapter in chapters:
        (src / chapter).mkdir(exist_ok=True)
        (src / chapter / "index.md").write_text(f"# The {chapter} chapter\n")
    warnings = tmp_path / "warnings.txt"
    # in a process of its own: -W leaves Sphinx's logging raising on warnings in the process that built
    code = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-W", "-w", str(warnings), "-b", "html", str(src),
                           str(tmp_path / "out")], capture_output=True,
                          env={**os.environ, "INTELLIMETRY_REPOSITORY_URL": ""}).returncode
    out = tmp_path / "out"
    pages = [(out / name).read_text(encoding="utf-8") if code == 0 else "" for name in ("index.html", "cite.html")]
    return code, warnings.read_text() + pages[0], pages[1]


def test_the_role_directives_and_footer_render(tmp_path):
    code, index, cite = _build(tmp_path, "*{cite-paper}`soc`, §6.*\n\n```{cite-papers}\n:chapters:\n```")
    assert code == 0, index
    assert ("Zhan et al. (2025), “Evaluating Intelligence via Trial and Error”, "
            '<a class="reference external" href="https://arxiv.org/abs/2502.18858">arXiv:2502.18858</a>, §6.') in index
    assert "Christopher Pereyda and Lawrence Holder (2018)" in index and "The soc chapter" in index
    assert f"intellimetry {intellimetry.__version__}</span>" in index and 'href="cite.html">how to cite' in index
    assert 'href="https://github.com/someone/book">source' in index  # the project's repository setting
    assert f"version {intellimetry.__version__}, https://github.com/someone/book" in cite
    assert "year = {2026}" in re.sub(r"<[^>]+>", "", cite)  # the BibTeX block, its highlighting removed


def test_an_unknown_paper_fails_the_build(tmp_path):
    code, output, _ = _build(tmp_path, "{cite-paper}`survial`")
    assert code != 0 and "unknown paper 'survial'" in output


def test_a_study_cites_no_paper_of_its_own():
    """papers.yaml lists only the papers' chapters; a study (a chapter that is not a paper) resolves to no
    paper, so {cite-paper}`agreement` is a build warning: a study cites the papers by their own keys."""
    assert {chapter for paper in PAPERS.values() for chapter in paper["chapters"]} == set(intellimetry.PAPERS)
    for study in intellimetry.STUDIES:
        with pytest.raises(citations.CitationError, match=f"unknown paper {study!r}"):
            citations.resolve(PAPERS, study)
