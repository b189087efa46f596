"""The citations of the five papers and of this book: each fact kept once, rendered everywhere from there.

    {cite-paper}`survival`   Zhan et al. (2025), “Evaluating Intelligence via Trial and Error”, arXiv:2502.18858
    {cite-paper}`soc`        the same: a chapter's name cites the paper that the chapter re-implements
    ```{cite-papers}```      every paper in full (all its authors); the flag :chapters: adds links to the
                             chapters that re-implement it, :bibtex: a BibTeX block of all five
    ```{cite-book}```        how to cite this book: CITATION.cff's title and authors, the package's version
                             and the repository setting's URL, as text and as BibTeX

The papers' facts are data/reference/papers.yaml, each with its source. Every page's footer names the
package's version (intellimetry.__version__, never typed into the book) and links to the repository and
to the How-to-cite page. An unknown paper or a malformed entry is a Sphinx warning, so the -W build fails.
"""
from __future__ import annotations

import html
import unicodedata
from pathlib import Path

import yaml
from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

import intellimetry
from intellimetry import paths
from intellimetry.book.build import repository_settings

logger = logging.getLogger(__name__)

PAPERS_FILE = "papers.yaml"  # in data/reference
CITATION_FILE = paths.REPO_ROOT / "CITATION.cff"
CITE_PAGE = "cite"  # the How-to-cite page's docname, which every footer links to
REQUIRED = ("chapters", "authors", "year", "title", "kind", "venue", "source")
KINDS = ("preprint", "article", "conference-paper")


class CitationError(ValueError):
    pass


# ---- the papers ----------------------------------------------------------------------------------

def load_papers() -> dict[str, dict]:
    """data/reference/papers.yaml's papers by key, each checked (CitationError names the bad entry)."""
    papers = (paths.load_reference(PAPERS_FILE) or {}).get("papers") or {}
    for key, paper in papers.items():
        check_paper(key, paper)
    return papers


def check_paper(key: str, paper: dict) -> None:
    missing = [field for field in REQUIRED if not paper.get(field)]
    if missing:
        raise CitationError(f"{PAPERS_FILE}: paper {key!r} lacks {', '.join(missing)}")
    if paper["kind"] not in KINDS:
        raise CitationError(f"{PAPERS_FILE}: paper {key!r} has kind {paper['kind']!r}; allowed: {', '.join(KINDS)}")
    if paper["kind"] == "preprint" and not paper.get("arxiv"):
        raise CitationError(f"{PAPERS_FILE}: paper {key!r} is a preprint without its arxiv id")
    nameless = [author for author in paper["authors"] if not isinstance(author, dict) or not author.get("family")]
    if nameless:
        raise CitationError(f"{PAPERS_FILE}: paper {key!r} has authors without a family name: {nameless}")


def resolve(papers: dict[str, dict], name: str) -> str:
    """The key of the paper `name` names: a key of papers.yaml, or a chapter that re-implements it."""
    name = name.strip()
    if name in papers:
        return name
    for key, paper in papers.items():
        if name in paper["chapters"]:
            return key
    chapters = sorted({chapter for paper in papers.values() for chapter in paper["chapters"]})
    raise CitationError(f"unknown paper {name!r}: name one of {', '.join(papers)} or a chapter "
                        f"({', '.join(chapters)}) listed in data/reference/{PAPERS_FILE}")


def short_authors(authors: list[dict]) -> str:
    """'Šprogar', 'Pereyda & Holder', 'Zhan et al.': how the chapters name a paper's authors."""
    families = [author["family"] for author in authors]
    if len(families) == 1:
        return families[0]
    if len(families) == 2:
        return f"{families[0]} & {families[1]}"
    return f"{families[0]} et al."


def all_authors(authors: list[dict]) -> str:
    names = [" ".join(filter(None, (author.get("given"), author["family"]))) for author in authors]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def title(paper: dict) -> str:
    return " ".join(str(paper["title"]).split())  # a folded YAML title may carry line breaks


def venue(paper: dict) -> str:
    """'AI 6(12), 313'; '' for a preprint, whose arXiv id names where it is."""
    if paper["kind"] == "preprint":
        return ""
    text = paper["venue"]
    if paper.get("volume"):
        text += f" {paper['volume']}" + (f"({paper['issue']})" if paper.get("issue") else "")
    if paper.get("article"):
        text += f", {paper['article']}"
    if paper.get("pages"):
        text += f", pp. {paper['pages']}"
    return text


def identifier(paper: dict) -> tuple[str, str] | None:
    """(text, URL) of the paper's arXiv id or DOI, or None when it has neither."""
    if paper.get("arxiv"):
        return f"arXiv:{paper['arxiv']}", f"https://arxiv.org/abs/{paper['arxiv']}"
    if paper.get("doi"):
        return f"doi:{paper['doi']}", f"https://doi.org/{paper['doi']}"
    return None


def citation_parts(paper: dict, full: bool = False) -> list[tuple[str, str | None]]:
    """(text, URL or None) pieces of a citation, short (the chapters' first line) or with all authors."""
    authors = all_authors(paper["authors"]) if full else short_authors(paper["authors"])
    parts: list[tuple[str, str | None]] = [(f"{authors} ({paper['year']}), “{title(paper)}”", None)]
    if venue(paper):
        parts.append((f", {venue(paper)}", None))
    ident = identifier(paper)
    if ident:
        parts += [(", ", None), ident]
    return parts


def citation_text(paper: dict, full: bool = False) -> str:
    return "".join(text for text, _ in citation_parts(paper, full))


def citation_markdown(paper: dict, full: bool = False) -> str:
    return "".join(f"[{text}]({url})" if url else text for text, url in citation_parts(paper, full))


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def bibtex(key: str, paper: dict) -> str:
    """One BibTeX entry: @misc for a preprint (eprint), @article, @inproceedings."""
    entry_type = {"preprint": "misc", "article": "article", "conference-paper": "inproceedings"}[paper["kind"]]
    fields = {"author": " and ".join(f"{a['family']}, {a['given']}" if a.get("given") else a["family"]
                                     for a in paper["authors"]),
              "title": f"{{{title(paper)}}}", "year": paper["year"]}
    if paper["kind"] == "preprint":
        fields.update(eprint=paper["arxiv"], archivePrefix="arXiv")
    elif paper["kind"] == "article":
        fields.update(journal=paper["venue"], volume=paper.get("volume"), number=paper.get("issue"),
                      pages=paper.get("article") or paper.get("pages"))
    else:
        fields.update(booktitle=paper["venue"], pages=str(paper.get("pages") or "").replace("–", "--"))
    fields["doi"] = paper.get("doi")
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields.items() if value not in (None, ""))
    return f"@{entry_type}{{{_ascii(paper['authors'][0]['family'])}{paper['year']}{key},\n{body}\n}}"


# ---- the book ------------------------------------------------------------------------------------

def load_citation_file(path: Path = CITATION_FILE) -> dict:
    if not path.is_file():
        raise CitationError(f"{path} does not exist: it holds the book's title and authors (CFF 1.2.0)")
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def book_authors(cff: dict) -> str:
    names = [author.get("name") or " ".join(filter(None, (author.get("given-names"), author.get("family-names"))))
             for author in cff.get("authors") or []]
    return ", ".join(names)


def book_citation(cff: dict, version: str, year: str, url: str) -> str:
    """The book as a reader cites it: CITATION.cff's authors and title, this version, the year, the URL."""
    return f"{book_authors(cff)} ({year}), {cff['title']}, version {version}, {url}"


def book_bibtex(cff: dict, version: str, year: str, url: str) -> str:
    return "\n".join(["@software{intellimetry,", f"  author = {{{{{book_authors(cff)}}}}},",
                      f"  title = {{{{{cff['title']}}}}},", f"  version = {{{version}}},",
                      f"  year = {{{year}}},", f"  url = {{{url}}}", "}"])


# ---- Sphinx --------------------------------------------------------------------------------------

def _papers(env) -> dict[str, dict]:
    env.note_dependency(str(paths.reference_file(PAPERS_FILE)))  # the page is rebuilt when the file changes
    return load_papers()


def cite_paper_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    env = inliner.document.settings.env
    try:
        papers = _papers(env)
        paper = papers[resolve(papers, text)]
    except (CitationError, FileNotFoundError) as err:
        logger.warning(f"{{{name}}}`{text}`: {err}", location=(env.docname, lineno))
        return [nodes.problematic(rawtext, rawtext)], []
    return _citation_nodes(paper), []


def _citation_nodes(paper: dict, full: bool = False) -> list[nodes.Node]:
    return [nodes.reference(text, text, refuri=url) if url else nodes.Text(text)
            for text, url in citation_parts(paper, full)]


class _MarkdownDirective(SphinxDirective):
    def parse(self, lines: list[str], css_class: str) -> list[nodes.Node]:
        container = nodes.container(classes=[css_class])
        self.state.nested_parse(StringList(lines, source=self.env.docname), self.content_offset, container)
        return [container]


class CitePapersDirective(_MarkdownDirective):
    """Every paper in full, numbered; :chapters: links each to its chapters, :bibtex: adds BibTeX."""
    option_spec = {"chapters": directives.flag, "bibtex": directives.flag}

    def run(self):
        try:
            papers = _papers(self.env)
        except (CitationError, FileNotFoundError) as err:
            logger.warning(f"cite-papers: {err}", location=self.get_location())
            return []
        lines = []
        for number, paper in enumerate(papers.values(), 1):
            line = f"{number}. {citation_markdown(paper, full=True)}."
            if "chapters" in self.options:
                links = " and ".join(f"{{doc}}`/{chapter}/index`" for chapter in paper["chapters"])
                line += f" Re-implemented in {links}."
            lines.append(line)
        if "bibtex" in self.options:
            lines += ["", "```bibtex", *"\n\n".join(bibtex(key, paper) for key, paper in papers.items()).split("\n"),
                      "```"]
        return self.parse(lines, "intellimetry-papers")


class CiteBookDirective(_MarkdownDirective):
    """This book's citation: CITATION.cff's authors and title, the package's version, the copyright year
    of _config.yml and the repository the book links to."""

    def run(self):
        self.env.note_dependency(str(CITATION_FILE))
        try:
            cff = load_citation_file()
        except CitationError as err:
            logger.warning(f"cite-book: {err}", location=self.get_location())
            return []
        version, year = intellimetry.__version__, str(self.config.copyright)
        url = repository_url(Path(self.env.srcdir))
        lines = [f"> {book_citation(cff, version, year, url)}", "", "```bibtex",
                 *book_bibtex(cff, version, year, url).split("\n"), "```"]
        return self.parse(lines, "intellimetry-cite-book")


def repository_url(book_dir: Path) -> str:
    """The repository setting of the book at book_dir ($INTELLIMETRY_REPOSITORY_URL, else its _config.yml);
    '' for a Sphinx project without a _config.yml."""
    try:
        return repository_settings(book_dir)["repository_url"]
    except FileNotFoundError:
        return ""


def footer_html(version: str, repository_url: str, cite_href: str | None) -> str:
    """The line under every page: the version, the repository and the How-to-cite page."""
    links = [f'<a href="{html.escape(repository_url)}">source</a>'] if repository_url else []
    if cite_href:
        links.append(f'<a href="{html.escape(cite_href)}">how to cite</a>')
    return " · ".join([f'<span class="intellimetry-version">intellimetry {html.escape(version)}</span>', *links])


def _set_version(app, config) -> None:
    # Config values with rebuild="html": when the version or the repository changes, Sphinx rewrites
    # every page, so no page keeps an old footer.
    config.intellimetry_version = intellimetry.__version__
    config.intellimetry_repository_url = repository_url(Path(app.srcdir))


def _add_footer(app, pagename, templatename, context, doctree) -> None:
    cite = context["pathto"](CITE_PAGE) if CITE_PAGE in app.env.found_docs else None
    context["theme_extra_footer"] = footer_html(app.config.intellimetry_version,
                                                app.config.intellimetry_repository_url, cite)


def setup(app):
    app.add_config_value("intellimetry_version", "", "html")
    app.add_config_value("intellimetry_repository_url", "", "html")
    app.connect("config-inited", _set_version)
    app.connect("html-page-context", _add_footer)
    app.add_role("cite-paper", cite_paper_role)
    app.add_directive("cite-papers", CitePapersDirective)
    app.add_directive("cite-book", CiteBookDirective)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
