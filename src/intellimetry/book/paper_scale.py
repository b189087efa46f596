"""The reproduce page's table of paper-scale runs, built from each figure's `paper_scale` YAML key.

    ```{paper-scale-table}```   an entry per figure that can run on the paper's own data or model

A figure whose YAML takes a path or a model id (see takes_path_or_model) but has no `paper_scale`
is a build warning, so the table cannot silently miss it.
"""
from __future__ import annotations

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from intellimetry import CHAPTERS
from intellimetry.pipeline.project import Project
from intellimetry.pipeline.registry import Figure

logger = logging.getLogger(__name__)

# Free-text parameters that name neither a path nor a model (a BEIR split is a word such as "test").
NOT_PATHS = {"beir_split"}


def takes_path_or_model(figure: Figure) -> list[str]:
    """The figure's parameters that take a path or a model id: every str or list[str] parameter
    without choices (a choice is one of our own names; free text is a folder, file or hub id)."""
    return [name for name, spec in figure.params.items()
            if spec.type in ("str", "list[str]") and spec.choices is None and name not in NOT_PATHS]


def missing_paper_scale(figures: dict[str, Figure]) -> list[str]:
    """Figures that take a path or a model id but do not say how to run them at paper scale."""
    return [fig_id for fig_id, figure in figures.items() if takes_path_or_model(figure) and not figure.paper_scale]


def table_markdown(figures: dict[str, Figure]) -> list[str]:
    """One definition-list entry per figure (linked to its section): offline default, `make fig`
    commands, expected files. A list, not a table: the commands are too long for table cells."""
    lines = []
    chosen = [f for f in figures.values() if f.paper_scale]
    for figure in sorted(chosen, key=lambda f: (CHAPTERS.index(f.paper), f.id)):
        scale = figure.paper_scale
        commands = ", or ".join(f"`{command}`" for command in scale.commands(figure.id))
        lines += [f"{{ref}}`{figure.id} <{figure.id}>`", f": **Offline:** {scale.offline}", "",
                  f"  **Paper scale:** {commands}", "", f"  **Expects:** {scale.layout}", ""]
    return lines


class PaperScaleTableDirective(SphinxDirective):
    def run(self):
        figures = Project.at().figures()
        for figure in figures.values():
            self.env.note_dependency(str(figure.spec_path))
            for fragment in figure.spec_path.parent.glob("_*.yaml"):
                self.env.note_dependency(str(fragment))
        for fig_id in missing_paper_scale(figures):
            logger.warning(f"paper-scale-table: {fig_id} takes {', '.join(takes_path_or_model(figures[fig_id]))} "
                           "(a path or a model id) but its YAML has no paper_scale", location=self.get_location())
        container = nodes.container(classes=["intellimetry-paper-scale"])
        self.state.nested_parse(StringList(table_markdown(figures), source=self.env.docname),
                                self.content_offset, container)
        return [container]


def setup(app):
    app.add_directive("paper-scale-table", PaperScaleTableDirective)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
