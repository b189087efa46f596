"""The gallery page: every figure of this copy of the book as a thumbnail that links to its section,
with the verdicts of the items it judges (book/gallery.md, one directive per chapter: a paper's claims
and checks, a study's findings).

    ```{gallery} survival```

The figures are those of book/generated/build.json; the verdicts come from the scoreboard's rows
(items.yaml and the sidecars). A link is resolved through the std domain's labels (each figure's
`:name: <id>`) once every page is read, and a figure without a label is a build warning.
Thumbnails are the PNG copies: the browser check's legibility test reads SVGs shown at their width,
and a thumbnail is a preview whose legible version is the figure in its chapter.
"""
from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.util import logging

from intellimetry import STUDIES, paths
from intellimetry.book.roles import LookupFailed, load_file
from intellimetry.book.scoreboard import Row, _ScoreboardDirective
from intellimetry.pipeline.project import Project

logger = logging.getLogger(__name__)

STYLE = """<style>
.intellimetry-gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr)); gap: 1rem; }
.intellimetry-gallery-entry { border: 1px solid #ddd; border-radius: 4px; padding: 0.4rem; font-size: 0.8rem; }
.intellimetry-gallery-entry img { width: 100%; height: 9rem; object-fit: contain; }
.intellimetry-gallery-entry p { margin: 0.2rem 0; }
</style>"""


class gallery_link(nodes.General, nodes.Element):
    """Its children, linked to the section labelled `target` (replaced in doctree-resolved)."""


def verdict_lines(fig_id: str, rows: list[Row]) -> list[tuple[str, str]]:
    """('<item label>: <verdict>', '') for every item the figure judges; otherwise the unjudged item
    of the same number with its reason ('Fig. 3: not a result', why), or 'no paper item' for ours
    ('no finding' in a study, whose figures are all ours)."""
    judged = [(f"{row.label}: {row.status}", "") for row in rows if row.figure == fig_id]
    if judged:
        return judged
    match = paths.FIGURE_ID.match(fig_id)
    number = f"{match['kind']}{match['number']}"
    for row in rows:
        if row.chapter == match["paper"] and row.id == number and row.figure is None:
            return [(f"{row.label}: {row.status}", row.note)]
    if match["paper"] in STUDIES:
        return [("no finding", "a figure that judges none of the chapter's findings")]
    return [("no paper item", "a figure of our own")]


def _linked(fig_id: str, *children: nodes.Node) -> gallery_link:
    link = gallery_link("", *children)
    link["target"] = fig_id
    return link


def entry(fig_id: str, title: str, lines: list[tuple[str, str]]) -> nodes.container:
    """One figure: the thumbnail and id (both linked), its title, the verdict lines."""
    paper = paths.paper_of(fig_id)
    image = nodes.image(uri=f"/{paths.GENERATED}/{paper}/{fig_id}.png", alt=title)
    box = nodes.container(ids=[f"gallery-{fig_id}"], classes=["intellimetry-gallery-entry"])
    box += nodes.paragraph("", "", _linked(fig_id, image))
    box += nodes.paragraph("", "", _linked(fig_id, nodes.literal(fig_id, fig_id)), nodes.Text(" " + title))
    for verdict, note in lines:
        text = nodes.paragraph("", "", nodes.strong(verdict, verdict), classes=["intellimetry-gallery-verdict"])
        if note:
            text += nodes.Text(f": {note}")
        box += text
    return box


class GalleryDirective(_ScoreboardDirective):
    required_arguments = 1  # the paper

    def run(self):
        paper = self.arguments[0]
        try:
            build = load_file(Path(self.env.srcdir) / paths.GENERATED / "build.json", self.env)
        except LookupFailed as err:
            logger.warning(f"gallery: {err}", location=self.get_location())
            return []
        ids = [fig_id for fig_id in build["figures"] if paths.paper_of(fig_id) == paper]
        if not ids:
            logger.warning(f"gallery: no figure of paper {paper!r} in this build", location=self.get_location())
            return []
        figures = Project.at().figures()
        rows = self.rows()
        grid = nodes.container(classes=["intellimetry-gallery"])
        for fig_id in ids:
            self.env.note_dependency(str(figures[fig_id].spec_path))
            grid += entry(fig_id, figures[fig_id].title, verdict_lines(fig_id, rows))
        return [nodes.raw("", STYLE, format="html"), grid]


def resolve_links(app, doctree, docname) -> None:
    """Each gallery_link becomes a reference to its figure's section (the label's page and anchor)."""
    labels = app.env.get_domain("std").anonlabels
    for link in list(doctree.findall(gallery_link)):
        if link["target"] not in labels:
            logger.warning(f"gallery: no figure labelled {link['target']!r} in the book (`:name:` on its figure)",
                           location=link)
            link.replace_self(link.children)
            continue
        target_doc, anchor = labels[link["target"]]
        uri = app.builder.get_relative_uri(docname, target_doc) + "#" + anchor
        link.replace_self(nodes.reference("", "", *link.children, refuri=uri, internal=True))


def setup(app):
    app.add_node(gallery_link)
    app.add_directive("gallery", GalleryDirective)
    app.connect("doctree-resolved", resolve_links)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
