"""Whether a reader can read a figure as the book shows it, judged from the matplotlib figure when it
is saved (save_figure refuses an illegible one; see check_legible).

The book's browser check (intellimetry.book.check) measures the rendered page; this measures the same
things from the figure, so drawing code fails where it is written, not after a build. A figure is
shown at its `:width:` in the book's pages (a share of the content column), or, where the pages give
none, at its natural size capped at the column. Rules, in CSS px as shown:
  - every axes is at least MIN_AXES_PX wide where it has x tick labels, and as tall where it has y
    tick labels (colour bars aside);
  - every text is at least READABLE_PX tall;
  - no two of tick labels, axis labels, titles, the figure's own texts and legends overlap (tick
    labels of one axis, a legend on an axis label, a title on another panel's ticks), and no legend
    lies on any other text (the drawing's own labels, e.g. point names, may crowd each other: that
    is the data's business, not the layout's);
  - no axes' tick labels, axis labels, title or legend run into another axes, and no two axes overlap
    unless one holds the other (an inset, a twin).
"""
from __future__ import annotations

import re
from pathlib import Path

import matplotlib as mpl
import numpy as np
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from intellimetry import paths
from intellimetry.plotting.drawn import (
    AXIS_LABEL,
    LEGEND,
    LEGEND_TEXT,
    TEXT,
    TICK,
    Box,
    Drawn,
    figure_contents,
    overlap,
)

CONTENT_PX = 672  # the book's content column at the check's 1280 px viewport
PX_PER_PT = 4 / 3  # an image without a width is shown at 96 dpi
# The smallest readable figure text: 6 pt at 96 dpi, the usual minimum for figure text at its final
# size in journals. The book's browser check uses this value.
READABLE_PX = 8.0
# The smallest usable axes, both ways: 100 px holds four or five tick labels of 8 px text ("0.85" and
# "10⁴" are about 20-25 px wide) with gaps between them, and room to tell a handful of points apart.
# Survival Fig. 12 as issue 36 found it, nine panels in a row, had strips of about 30 px: one tick
# label each, overlapping.
MIN_AXES_PX = 100.0
# Text boxes include line spacing above and below the ink, so boxes that meet by less than this
# (shown px) do not overlap on the page.
OVERLAP_PX = 1.0
SHOWN_PROBLEMS = 12  # an error lists this many problems, then counts the rest


class IllegibleFigure(ValueError):
    """A figure a reader could not read at the width the book shows it."""


def saved_width_pt(fig) -> float:
    """The width of the figure as saved (tight bounding box plus its padding), in points."""
    return _saved_width_pt(fig.get_tightbbox(_laid_out(fig)))


def _laid_out(fig):
    """Lay `fig` out as saving does (ticks, legends, layout engines) without painting; returns the
    renderer that measured it (any canvas: a notebook kernel's may have none of its own)."""
    fig.draw_without_rendering()
    return fig._get_renderer()


def _saved_width_pt(tight) -> float:
    return 72 * (tight.width + 2 * mpl.rcParams["savefig.pad_inches"])


def shown_width_px(fig, width_fraction: float | None = None, saved_pt: float | None = None) -> float:
    """The CSS width the book shows `fig` at: `width_fraction` of the content column (a figure's
    `:width:` option, 1.0 for 100%), or without one its natural size capped at the column."""
    if width_fraction:
        return CONTENT_PX * width_fraction
    return min((saved_pt or saved_width_pt(fig)) * PX_PER_PT, CONTENT_PX)


def shown_text_px(fig, width_fraction: float | None = None) -> float:
    """The smallest drawn text of `fig` in CSS px as the book shows it (see shown_width_px)."""
    saved_pt = _saved_width_pt(fig.get_tightbbox(_laid_out(fig)))
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
             and t.get_window_extent().width > 0]
    return min(sizes) * shown_width_px(fig, width_fraction, saved_pt) / saved_pt


def book_width_fraction(fig_id: str, book_dir: Path = paths.BOOK_DIR) -> float | None:
    """The narrowest `:width:` (as a share of the content column) at which the book's pages show
    `fig_id`; None where no page gives one (the figure is then shown at its natural size, capped)."""
    shown = re.compile(rf"\b{re.escape(fig_id)}\.(?:svg|png)[ \t]*\n((?:[ \t]*:[\w-]+:.*\n)*)")
    fractions = []
    for page in sorted(book_dir.rglob("*.md")) if book_dir.is_dir() else []:
        if any(part.startswith("_") or part == paths.GENERATED for part in page.relative_to(book_dir).parts):
            continue  # builds and copies, not sources
        for match in shown.finditer(page.read_text(encoding="utf-8")):
            width = re.search(r":width:\s*([\d.]+)\s*(%|px)", match.group(1))
            if width:
                fractions.append(float(width[1]) / (100 if width[2] == "%" else CONTENT_PX))
    return min(fractions) if fractions else None


def check_legible(fig, fig_id: str, width_fraction: float | None = None) -> None:
    """Raise IllegibleFigure naming every problem of `fig` shown at `width_fraction` (see the module's rules)."""
    problems, page = _problems(fig, width_fraction)
    if problems:
        listed = problems[:SHOWN_PROBLEMS] + ([f"... and {len(problems) - SHOWN_PROBLEMS} more"]
                                              if len(problems) > SHOWN_PROBLEMS else [])
        raise IllegibleFigure(
            f"{fig_id} would not be legible in the book (shown {page.width:.0f} px wide; "
            "rules in intellimetry.plotting.legibility):\n  - " + "\n  - ".join(listed) +
            "\nFix its drawing: fewer panels per row, a larger figsize, legends outside the axes, fewer ticks "
            "or larger fonts.")


def legibility_problems(fig, width_fraction: float | None = None) -> list[str]:
    """Every rule `fig` breaks as the book shows it, in words (an empty list: legible)."""
    return _problems(fig, width_fraction)[0]


def _problems(fig, width_fraction: float | None) -> tuple[list[str], _Page]:
    renderer = _laid_out(fig)
    page = _Page(fig, renderer, width_fraction)
    drawn, axes = figure_contents(fig, renderer)
    problems = (_small_axes(axes, drawn, page) + _small_text(drawn, page) + _overlapping_texts(drawn, page)
                + _texts_on_other_axes(drawn, axes, page) + _overlapping_axes(axes, page))
    return problems, page


class _Page:
    """Converts the figure's display pixels to CSS px as the book shows it, and names axes."""

    def __init__(self, fig, renderer, width_fraction: float | None):
        tight, pad = fig.get_tightbbox(renderer), mpl.rcParams["savefig.pad_inches"]
        saved_pt = _saved_width_pt(tight)
        self.width = shown_width_px(fig, width_fraction, saved_pt)
        self.px_per_pt = self.width / saved_pt
        self.scale = self.px_per_pt * 72 / fig.dpi  # display px -> shown px
        self.left, self.top = (tight.x0 - pad) * fig.dpi, (tight.y1 + pad) * fig.dpi

    def axes_name(self, ax, where: bool = False) -> str:
        if getattr(ax, "_colorbar", None) is not None:
            name = f'colour bar "{ax._colorbar.ax.get_ylabel() or ax._colorbar.ax.get_xlabel()}"'
        elif title := ax.get_title() or ax.get_title("left") or ax.get_title("right"):
            name = f'axes "{_short(title)}"'
        else:
            labels = [f'{axis} "{_short(label)}"' for axis, label in (("x", ax.get_xlabel()), ("y", ax.get_ylabel()))
                      if label]
            name = f"axes ({', '.join(labels)})" if labels else "untitled axes"
        spec = ax.get_subplotspec() if hasattr(ax, "get_subplotspec") else None
        if spec is not None:
            rows, columns = spec.get_geometry()[:2]
            name += f" in row {spec.rowspan.start + 1}, column {spec.colspan.start + 1} of {rows} × {columns}"
        if where:
            box = ax.get_window_extent()
            name += f" at {(box.x0 - self.left) * self.scale:.0f} px from the left, " \
                    f"{(self.top - box.y1) * self.scale:.0f} px from the top"
        return name

    def describe(self, item: Drawn) -> str:
        owner = f" of {self.axes_name(item.axes)}" if item.axes is not None else ""
        if item.role == LEGEND:
            entries = [t.get_text() for t in item.artist.get_texts()][:2]
            return f"the legend ({', '.join(_short(e) for e in entries)}){owner}" if owner else \
                f"the figure's legend ({', '.join(_short(e) for e in entries)})"
        if item.role in (TICK, AXIS_LABEL):
            return f'{item.group.axis_name} {item.role} "{_short(item.text)}"{owner}'
        return f'{item.role} "{_short(item.text)}"{owner}'


def _short(text: str, most: int = 40) -> str:
    text = " ".join(re.sub(r"\\mathdefault\{(.*)\}", r"\1", text).split())
    return text if len(text) <= most else text[:most - 1] + "…"


def _small_axes(axes, drawn: list[Drawn], page: _Page) -> list[str]:
    labelled = {id(d.group) for d in drawn if d.role == TICK}
    problems = []
    for ax in axes:
        if getattr(ax, "_colorbar", None) is not None:
            continue  # a colour bar is a strip by design
        box = ax.get_window_extent()
        width, height = box.width * page.scale, box.height * page.scale
        # the minimum holds along an axis with tick labels to read; a strip with none along it (a
        # one-column raster, an image or drawing without axes) may be as narrow as its content
        short = id(ax.xaxis) in labelled and width < MIN_AXES_PX or id(ax.yaxis) in labelled and height < MIN_AXES_PX
        if short:
            problems.append(f"{page.axes_name(ax, where=True)} is {width:.0f} × {height:.0f} px as shown; "
                            f"an axes with tick labels needs at least {MIN_AXES_PX:.0f} px along them")
    return problems


def _small_text(drawn: list[Drawn], page: _Page) -> list[str]:
    problems = []
    for item in drawn:
        shown = item.size_pt * page.px_per_pt
        if item.role != LEGEND and shown < READABLE_PX - 1e-9:
            problems.append(f"{page.describe(item)} is {shown:.1f} px tall as shown ({item.size_pt:g} pt); "
                            f"text needs at least {READABLE_PX:g} px")
    return problems


def _overlapping_texts(drawn: list[Drawn], page: _Page) -> list[str]:
    items = [d for d in drawn if d.role != LEGEND_TEXT]
    problems = []
    for i, j in _touching_pairs([d.box for d in items]):
        a, b = items[i], items[j]
        if a.role == TEXT and b.role == TEXT or LEGEND not in (a.role, b.role) and TEXT in (a.role, b.role):
            continue  # the drawing's own labels are judged only against legends
        if overlap(a.box, b.box) * page.scale > OVERLAP_PX:
            if a.role == b.role == TICK and a.group is b.group:
                problems.append(f'{a.group.axis_name} tick labels "{_short(a.text)}" and "{_short(b.text)}" '
                                f"of {page.axes_name(a.axes)} overlap")
            else:
                problems.append(f"{page.describe(a)} overlaps {page.describe(b)}")
    return problems


def _texts_on_other_axes(drawn: list[Drawn], axes, page: _Page) -> list[str]:
    problems = []
    for item in drawn:
        if item.role in (TEXT, LEGEND_TEXT):
            continue
        bounds = Bbox.from_extents(*item.box.bounds())
        for ax in axes:
            area = ax.get_window_extent()
            if ax is item.axes or not _intersect(bounds, area):
                continue
            if item.axes is not None and _intersect(area, item.axes.get_window_extent()):
                continue  # an axes that holds its own or lies on it (an inset, a twin)
            if overlap(item.box, Box.from_bbox(area)) * page.scale > OVERLAP_PX:
                problems.append(f"{page.describe(item)} runs into {page.axes_name(ax)}")
    return problems


def _overlapping_axes(axes, page: _Page) -> list[str]:
    problems = []
    for i, a in enumerate(axes):
        for b in axes[i + 1:]:
            box_a, box_b = a.get_window_extent(), b.get_window_extent()
            if _contains(box_a, box_b) or _contains(box_b, box_a):
                continue  # an inset or a twin
            if overlap(Box.from_bbox(box_a), Box.from_bbox(box_b)) * page.scale > OVERLAP_PX:
                problems.append(f"{page.axes_name(a)} and {page.axes_name(b)} overlap")
    return problems


def _intersect(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _contains(outer, inner, slack: float = 1.0) -> bool:
    return (outer.x0 - slack <= inner.x0 and inner.x1 <= outer.x1 + slack
            and outer.y0 - slack <= inner.y0 and inner.y1 <= outer.y1 + slack)


def _touching_pairs(boxes: list[Box]) -> list[tuple[int, int]]:
    """Index pairs (i < j) whose upright bounds meet: the few pairs worth the exact test."""
    if len(boxes) < 2:
        return []
    x0, y0, x1, y1 = np.array([b.bounds() for b in boxes]).T
    meet = (x0[:, None] < x1[None, :]) & (x0[None, :] < x1[:, None]) & \
           (y0[:, None] < y1[None, :]) & (y0[None, :] < y1[:, None])
    i, j = np.nonzero(np.triu(meet, k=1))
    return list(zip(i.tolist(), j.tolist()))
