"""What a drawn matplotlib figure shows, and where: every text a reader sees (with its role, its axes
and its box, rotation included), every legend and every axes, read after one `fig.canvas.draw()`.

intellimetry.plotting.legibility judges these; this module only finds them. Boxes are in display
pixels of the figure's own dpi (the legibility rules scale them to the page).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.legend import Legend
from matplotlib.table import Cell
from matplotlib.text import Text

# What a text is to the reader. Furniture (all but "text") is what the legibility rules check for
# overlaps; "text" is the drawing's own labels (annotations, node names, table cells), and
# "legend text" is inside a legend, whose box stands for it.
TICK, AXIS_LABEL, TITLE, FIGURE_TEXT, TEXT, LEGEND_TEXT = (
    "tick label", "axis label", "title", "figure text", "text", "legend text")
LEGEND = "legend"


@dataclass(frozen=True)
class Box:
    """A rectangle of width × height turned by `angle` radians about its centre (a rotated text's ink)."""
    cx: float
    cy: float
    width: float
    height: float
    angle: float = 0.0

    @classmethod
    def from_bbox(cls, bbox) -> Box:
        return cls((bbox.x0 + bbox.x1) / 2, (bbox.y0 + bbox.y1) / 2, bbox.width, bbox.height)

    def axes(self) -> tuple[np.ndarray, np.ndarray]:
        """Unit vectors along the box's width and along its height."""
        c, s = math.cos(self.angle), math.sin(self.angle)
        return np.array([c, s]), np.array([-s, c])

    def radius(self, direction: np.ndarray) -> float:
        """Half the box's extent projected on `direction` (a unit vector)."""
        along, across = self.axes()
        return self.width / 2 * abs(along @ direction) + self.height / 2 * abs(across @ direction)

    def bounds(self) -> tuple[float, float, float, float]:
        """x0, y0, x1, y1 of the upright box around this one."""
        rx, ry = self.radius(np.array([1.0, 0.0])), self.radius(np.array([0.0, 1.0]))
        return self.cx - rx, self.cy - ry, self.cx + rx, self.cy + ry


def overlap(a: Box, b: Box) -> float:
    """How far two boxes overlap (pixels): the smallest push along any separating direction that would
    part them (the separating-axis test for rectangles); 0 when they are apart."""
    offset = np.array([b.cx - a.cx, b.cy - a.cy])
    depth = math.inf
    for direction in (*a.axes(), *b.axes()):
        depth = min(depth, a.radius(direction) + b.radius(direction) - abs(offset @ direction))
        if depth <= 0:
            return 0.0
    return depth


@dataclass(frozen=True)
class Drawn:
    """One thing a reader sees: a text (role TICK ... LEGEND_TEXT) or a legend (role LEGEND)."""
    role: str
    artist: object
    axes: Axes | None  # the axes it belongs to; None for the figure's own texts and legends
    box: Box
    text: str = ""
    size_pt: float = 0.0
    group: Axis | None = None  # the axis of a tick label or axis label


def figure_contents(fig, renderer) -> tuple[list[Drawn], list[Axes]]:
    """The texts and legends drawn in `fig` (after a draw), and its visible axes."""
    found: list[Drawn] = []
    _walk(fig, None, renderer, found)
    return found, [ax for ax in fig.get_axes() if ax.get_visible()]


def _walk(artist, owner: Axes | None, renderer, found: list[Drawn]) -> None:
    for child in artist.get_children():
        if not child.get_visible():
            continue  # an invisible artist draws none of its children
        if isinstance(child, Axes):
            _walk(child, child, renderer, found)
        elif isinstance(child, Axis):
            if owner is None or owner.axison:  # an axes turned off draws no axis
                _axis(child, owner, renderer, found)
        elif isinstance(child, Legend):
            _legend(child, owner, renderer, found)
        elif isinstance(child, Cell):
            _text(child.get_text(), TEXT, owner, renderer, found)
        elif isinstance(child, Text):
            _text(child, _role(child, owner), owner, renderer, found)
        else:
            _walk(child, owner, renderer, found)


def _role(text: Text, owner: Axes | None) -> str:
    if owner is None:
        return FIGURE_TEXT
    titles = (owner.title, getattr(owner, "_left_title", None), getattr(owner, "_right_title", None))
    return TITLE if any(text is t for t in titles) else TEXT


def _axis(axis: Axis, owner: Axes, renderer, found: list[Drawn]) -> None:
    for text in (axis.label, axis.offsetText):
        if text.get_visible():
            _text(text, AXIS_LABEL, owner, renderer, found, group=axis)
    # only the ticks inside the view are drawn: the locator's list runs past the limits
    for tick in axis._update_ticks():
        if tick.get_visible():
            for text in (tick.label1, tick.label2):
                if text.get_visible():
                    _text(text, TICK, owner, renderer, found, group=axis)


def _legend(legend: Legend, owner: Axes | None, renderer, found: list[Drawn]) -> None:
    # its frame when drawn; otherwise its contents without the frame's padding
    box = legend.get_frame().get_window_extent(renderer) if legend.get_frame_on() else \
        legend._legend_box.get_window_extent(renderer)
    found.append(Drawn(LEGEND, legend, owner, Box.from_bbox(box)))
    for text in [legend.get_title(), *legend.get_texts()]:
        if text.get_visible():
            _text(text, LEGEND_TEXT, owner, renderer, found)


def _text(text: Text, role: str, owner: Axes | None, renderer, found: list[Drawn], group: Axis | None = None) -> None:
    content = text.get_text()
    if not content.strip():
        return
    box = _upright_box(text, renderer)
    if box.width <= 0 or box.height <= 0:
        return
    found.append(Drawn(role, text, owner, _text_box(text, box, renderer), content, text.get_fontsize(), group))


def _upright_box(text: Text, renderer):
    """Where the text was drawn: for an annotation its text without the arrow; for a text on a 3-D
    axes, at its projected place (its 2-D position is its data coordinates outside a draw)."""
    if not hasattr(text, "get_position_3d") or getattr(text.axes, "M", None) is None:
        return Text.get_window_extent(text, renderer)
    from mpl_toolkits.mplot3d import proj3d

    position = text.get_position()
    x, y, _ = proj3d.proj_transform(*text.get_position_3d(), text.axes.M)
    text.set_position((x, y))
    try:
        return Text.get_window_extent(text, renderer)
    finally:
        text.set_position(position)


def _text_box(text: Text, upright, renderer) -> Box:
    """A text's own box: for a slanted text the rectangle along its baseline, not the larger upright
    box around it (neighbouring 45° tick labels have overlapping upright boxes but apart ink)."""
    rotation = text.get_rotation()
    angle = rotation % 180
    if angle in (0, 90):
        return Box.from_bbox(upright)
    text.set_rotation(0)
    flat = Text.get_window_extent(text, renderer)
    text.set_rotation(rotation)
    centre = Box.from_bbox(upright)  # the turned rectangle is centred in its upright box
    return Box(centre.cx, centre.cy, flat.width, flat.height, math.radians(angle))
