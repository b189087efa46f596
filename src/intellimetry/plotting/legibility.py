"""How large a figure's text appears in the book, computed from the figure before any build.

The book's browser check (intellimetry.book.check) measures the rendered page: a figure fails when its
smallest text, scaled to the width the page shows the SVG at, is below 8 CSS px. This gives the same
number from a matplotlib figure, so drawing code can be checked without building the book.
"""
from __future__ import annotations

import matplotlib as mpl
from matplotlib.text import Text

CONTENT_PX = 672  # the book's content column at the check's 1280 px viewport
PX_PER_PT = 4 / 3  # an image without a width is shown at 96 dpi
# The smallest readable figure text: 6 pt at 96 dpi, the usual minimum for figure text at its final
# size in journals. The book's browser check uses this value.
READABLE_PX = 8.0


def saved_width_pt(fig) -> float:
    """The width of the figure as saved (tight bounding box plus its padding), in points."""
    bbox = fig.get_tightbbox(fig.canvas.get_renderer())
    return 72 * (bbox.width + 2 * mpl.rcParams["savefig.pad_inches"])


def shown_text_px(fig, width_fraction: float | None = None) -> float:
    """The smallest drawn text of `fig` in CSS px as the book shows it: scaled to `width_fraction` of the
    content column (a figure's `:width:` option, 1.0 for 100%), or without one shown at its natural
    size capped at the column's width."""
    fig.canvas.draw()  # lays out ticks and legends, as saving does
    width = saved_width_pt(fig)
    shown = CONTENT_PX * width_fraction if width_fraction else min(width * PX_PER_PT, CONTENT_PX)
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
             and t.get_window_extent().width > 0]
    return min(sizes) * shown / width
