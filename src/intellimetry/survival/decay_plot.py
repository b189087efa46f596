"""The decay plot: how often a subject needed exactly k failures, on log-log axes, with level regions.

Conventions (recovered from the authors' notebooks): raw counts for each k >= 1 (k = 0 dropped, no
binning or normalisation); reference lines f(1)·k^-2 and f(1)·k^-3 anchored at the observed count
at k = 1; Limited above the k^-2 line (up to y = f(1)), Capable between the lines, Autonomous below.
"""
from __future__ import annotations

import numpy as np

from intellimetry.plotting import COLORS

X_LABEL = "Number of Failures (log scale)"
Y_LABEL = "Frequency (log scale)"
Y_FLOOR = 0.5  # counts are integers >= 1, so the plot's floor sits just below 1


def frequency_table(failures) -> tuple[np.ndarray, np.ndarray]:
    """(k, count) for every k >= 1 that occurs; k = 0 (success at the first try) is dropped."""
    values, counts = np.unique(np.asarray(failures, dtype=np.int64), return_counts=True)
    keep = values >= 1
    return values[keep], counts[keep]


def draw_level_regions(ax, f1: float, k_max: int, labels: bool = True) -> None:
    """Shade Limited / Capable / Autonomous and draw f(1)·k^-2 and f(1)·k^-3 up to k_max."""
    k = np.geomspace(1, k_max, 200)
    line2, line3 = f1 * k**-2.0, f1 * k**-3.0
    floor = np.full_like(k, Y_FLOOR)
    ax.fill_between(k, line2, np.full_like(k, f1), color=COLORS["limited"], alpha=0.18, lw=0,
                    label="Limited" if labels else None)
    ax.fill_between(k, np.maximum(line3, Y_FLOOR), np.maximum(line2, Y_FLOOR), color=COLORS["capable"],
                    alpha=0.18, lw=0, label="Capable" if labels else None)
    ax.fill_between(k, floor, np.maximum(line3, Y_FLOOR), color=COLORS["autonomous"], alpha=0.18, lw=0,
                    label="Autonomous" if labels else None)
    ax.plot(k, line2, ls="--", color=COLORS["capable"], lw=1.2, label=r"$f(1)\,k^{-2}$" if labels else None)
    ax.plot(k, line3, ls="-.", color=COLORS["autonomous"], lw=1.2, label=r"$f(1)\,k^{-3}$" if labels else None)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1, k_max)
    ax.set_ylim(Y_FLOOR, f1 * 1.5)
    ax.set_xlabel(X_LABEL)
    ax.set_ylabel(Y_LABEL)


def plot_decay(ax, failures, k_max: int, label: str | None = None, color: str | None = None,
               regions: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """One subject's decay plot (points for k <= k_max); returns its frequency table."""
    k, counts = frequency_table(failures)
    if k.size == 0 or k[0] != 1:
        raise ValueError("the decay plot is anchored at f(1): the sample needs events with exactly one failure")
    if regions:
        draw_level_regions(ax, float(counts[0]), k_max)
    shown = k <= k_max
    ax.plot(k[shown], counts[shown], "o", ms=3, color=color or COLORS["ours"], label=label)
    return k, counts
