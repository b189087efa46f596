"""Figures 12 and 13: decay rate against model size, and the extrapolation to the Autonomous level."""
from __future__ import annotations

import matplotlib as mpl
import numpy as np

from intellimetry.plotting import COLORS
from intellimetry.survival.levels import LEVELS, THRESHOLDS
from intellimetry.survival.scaling import ScalingFit, Timeline

SIZE_LABEL = "non-embedding parameters N (log scale)"
RATE_LABEL = "failure decay rate α (log scale)"


def plot_rate_vs_size(ax, table, fit: ScalingFit | None = None, fit_label: str = "fit", highlight=None,
                      highlight_label: str | None = None, cmap: str = "viridis", annotate: bool = True):
    """Each model's decay rate against its size, coloured by release date; returns the colour mapping."""
    norm = mpl.colors.Normalize(table["release_year"].min(), table["release_year"].max())
    mapping = mpl.cm.ScalarMappable(norm=norm, cmap=cmap)
    ax.scatter(table["params"], table["alpha"], c=mapping.to_rgba(table["release_year"]), s=28,
               edgecolors="black", linewidths=0.4, zorder=3)
    if annotate:
        for _, row in table.iterrows():
            ax.annotate(row["model"], (row["params"], row["alpha"]), xytext=(3, 2),
                        textcoords="offset points", fontsize=5.5, color="0.25")
    if fit is not None:
        sizes = np.geomspace(table["params"].min(), table["params"].max(), 20)
        ax.plot(sizes, fit.alpha_at(sizes), ls="--", color=COLORS["paper"], lw=1.2, label=fit_label)
    if highlight is not None:
        ax.scatter(highlight["params"], highlight["alpha"], s=90, facecolors="none",
                   edgecolors=COLORS["paper"], linewidths=1.2, zorder=4, label=highlight_label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    _plain_rate_ticks(ax, np.arange(1.15, 1.55, 0.05))
    ax.set_xlabel(SIZE_LABEL)
    ax.set_ylabel(RATE_LABEL)
    return mapping


def plot_prediction(ax, sizes, alphas, fit: ScalingFit, timeline: Timeline, x_max: float,
                    targets: dict[str, float], label: str = "models"):
    """The fitted line extended to `x_max` over the level bands, the sizes that reach each target
    decay rate, and Moore's-law years on a top axis. Returns the top axis."""
    x_min = 10 ** np.floor(np.log10(min(sizes)))
    lower, upper = THRESHOLDS
    top = max(upper * 1.25, float(fit.alpha_at(x_max)) * 1.1)
    for (low, high), level in zip(((1.0, lower), (lower, upper), (upper, top)), LEVELS):
        ax.axhspan(low, high, color=COLORS[level.lower()], alpha=0.18, lw=0, label=level)
    line = np.geomspace(x_min, x_max, 100)
    ax.plot(line, fit.alpha_at(line), ls="--", color=COLORS["paper"], lw=1.2, label="log-log fit")
    ax.plot(sizes, alphas, "o", color=COLORS["ours"], ms=5, label=label, zorder=3)
    for name, alpha in targets.items():
        size = fit.size_for_alpha(alpha)
        if size <= x_max:
            ax.plot([size, size], [1.0, alpha], ls=":", color=COLORS["neutral"], lw=1)
            ax.annotate(f"{name}: N = {size:.1e}\n({timeline.year(size):.0f})", (size, alpha),
                        xytext=(-6, 6), textcoords="offset points", ha="right", fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_min, x_max)
    ax.set_ylim(1.0, top)
    _plain_rate_ticks(ax, np.arange(1.0, top, 0.5))
    ax.set_xlabel(SIZE_LABEL)
    ax.set_ylabel(RATE_LABEL)
    # year(N) is linear in log N, so a linear twin axis over year(x limits) lines up exactly
    years = ax.twiny()
    years.set_xlim(*timeline.year(np.array(ax.get_xlim())))
    years.set_xlabel(f"year the size becomes trainable (Moore's law, ×2 every {timeline.doubling_years:g} years)")
    years.grid(False)
    return years


def _plain_rate_ticks(ax, ticks) -> None:
    """Decimal tick labels on the log-scaled decay-rate axis (the range is too short for powers of ten)."""
    ax.yaxis.set_major_locator(mpl.ticker.FixedLocator(ticks))
    ax.yaxis.set_major_formatter(mpl.ticker.FormatStrFormatter("%.2f"))
    ax.yaxis.set_minor_formatter(mpl.ticker.NullFormatter())
