"""The book's matplotlib style (applied when intellimetry.plotting is imported)."""
from __future__ import annotations

import matplotlib as mpl

# Colour-blind-safe (Okabe-Ito); named by meaning so every chapter uses the same colour for the same thing.
COLORS = {
    "limited": "#999999",
    "capable": "#009E73",
    "autonomous": "#E69F00",
    "ours": "#0072B2",
    "paper": "#D55E00",
    "accent": "#CC79A7",
    "neutral": "#000000",
}

STYLE = {
    "figure.figsize": (6.4, 4.2),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "legend.fontsize": 9,
    "svg.fonttype": "none",  # text stays text in SVG: searchable, and no font download needed
    "svg.hashsalt": "intellimetry",  # stable element ids, so unchanged figures give identical files
    "axes.prop_cycle": mpl.cycler(color=[COLORS[k] for k in ("ours", "paper", "capable", "autonomous", "accent")]),
}


def apply_style() -> None:
    mpl.rcParams.update(STYLE)
