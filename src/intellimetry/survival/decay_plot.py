"""The decay plot: how often a subject needed exactly k failures, on log-log axes, with level regions.

Conventions (recovered from the authors' notebooks): raw counts for each k >= 1 (k = 0 dropped, no
binning or normalisation); reference lines f(1)·k^-2 and f(1)·k^-3 anchored at the observed count
at k = 1; Limited above the k^-2 line (up to y = f(1)), Capable between the lines, Autonomous below.
"""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import NullFormatter

from intellimetry.plotting import COLORS
from intellimetry.survival.levels import LEVELS, THRESHOLDS

X_LABEL = "Number of Failures (log scale)"
Y_LABEL = "Frequency (log scale)"
Y_FLOOR = 0.5  # counts are integers >= 1, so the plot's floor sits just below 1


def frequency_table(failures) -> tuple[np.ndarray, np.ndarray]:
    """(k, count) for every k >= 1 that occurs; k = 0 (success at the first try) is dropped."""
    values, counts = np.unique(np.asarray(failures, dtype=np.int64), return_counts=True)
    keep = values >= 1
    return values[keep], counts[keep]


def draw_level_regions(ax, f1: float, k_max: int, labels: bool = True, y_floor: float = Y_FLOOR) -> None:
    """Shade Limited / Capable / Autonomous and draw f(1)·k^-2 and f(1)·k^-3 up to k_max."""
    k = np.geomspace(1, k_max, 200)
    line2, line3 = f1 * k**-2.0, f1 * k**-3.0
    floor = np.full_like(k, y_floor)
    ax.fill_between(k, line2, np.full_like(k, f1), color=COLORS["limited"], alpha=0.18, lw=0,
                    label="Limited" if labels else None)
    ax.fill_between(k, np.maximum(line3, y_floor), np.maximum(line2, y_floor), color=COLORS["capable"],
                    alpha=0.18, lw=0, label="Capable" if labels else None)
    ax.fill_between(k, floor, np.maximum(line3, y_floor), color=COLORS["autonomous"], alpha=0.18, lw=0,
                    label="Autonomous" if labels else None)
    ax.plot(k, line2, ls="--", color=COLORS["capable"], lw=1.2, label=r"$f(1)\,k^{-2}$" if labels else None)
    ax.plot(k, line3, ls="-.", color=COLORS["autonomous"], lw=1.2, label=r"$f(1)\,k^{-3}$" if labels else None)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1, k_max)
    ax.set_ylim(y_floor, f1 * 1.5)
    if k_max <= 20:  # less than a decade and a half: label every integer k instead of powers of ten
        ax.set_xticks(range(1, k_max + 1), [str(v) for v in range(1, k_max + 1)])
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(X_LABEL)
    ax.set_ylabel(Y_LABEL)


def plot_decay(ax, failures, k_max: int, label: str | None = None, color: str | None = None,
               regions: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """One subject's decay plot (points for k <= k_max); returns its frequency table."""
    k, counts = frequency_table(failures)
    plot_decay_counts(ax, k, counts, k_max, label=label, color=color, regions=regions)
    return k, counts


def plot_decay_counts(ax, k, counts, k_max: int, label: str | None = None, color: str | None = None,
                      regions: bool = True) -> None:
    """The decay plot from a frequency table (e.g. counts averaged over seeds, so not integers)."""
    k, counts = np.asarray(k), np.asarray(counts, dtype=float)
    if k.size == 0 or k[0] != 1 or counts[0] <= 0:
        raise ValueError("the decay plot is anchored at f(1): the sample needs events with exactly one failure")
    shown = (k <= k_max) & (counts > 0)
    if regions:  # averaged counts can fall below 1, so the floor follows the smallest shown
        draw_level_regions(ax, float(counts[0]), k_max, y_floor=min(Y_FLOOR, 0.7 * counts[shown].min()))
    ax.plot(k[shown], counts[shown], "o", ms=3, color=color or COLORS["ours"], label=label)


def draw_power_law(ax, fit, label: str | None = None, color: str | None = None, scale: float = 1.0) -> None:
    """A fitted power law (anything with k_min, k_max and expected_count(k)) over its fitted range;
    `scale` converts its counts to the plotted ones (e.g. 1 / seeds for averaged distributions)."""
    k = np.geomspace(fit.k_min, fit.k_max, 50)
    ax.plot(k, scale * fit.expected_count(k), color=color or COLORS["accent"], lw=1.4, label=label)


def draw_level_scale(ax, subjects: dict[str, tuple[float, float, float]], alpha_top: float = 4.0) -> None:
    """Decay rates on the level scale: bands for Limited / Capable / Autonomous, and for each subject
    {name: (alpha_drawn_or_reference, alpha_fitted, standard_error)} a hollow and a filled marker."""
    lower, upper = THRESHOLDS
    top = max(alpha_top, *(max(a, b) + 0.3 for a, b, _ in subjects.values()))
    for (low, high), level in zip(((1.0, lower), (lower, upper), (upper, top)), LEVELS):
        ax.axhspan(low, high, color=COLORS[level.lower()], alpha=0.18, lw=0)
        ax.text(-0.45, low + 0.05, level, ha="left", va="bottom", fontsize=8)
    x = np.arange(len(subjects))
    drawn, fitted, errors = (np.array(v) for v in zip(*subjects.values()))
    ax.plot(x, drawn, "o", mfc="none", color=COLORS["neutral"], label="α drawn")
    ax.errorbar(x, fitted, yerr=errors, fmt="o", ms=4, color=COLORS["ours"], label="α fitted (ours)")
    ax.set_xticks(x, list(subjects))
    ax.set_xlim(-0.5, len(subjects) - 0.4)
    ax.set_ylim(1.0, top)
    ax.set_ylabel("decay rate α")
    ax.grid(axis="x", visible=False)
    ax.legend(loc="lower right", fontsize=8)
