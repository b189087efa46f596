"""Drawings of the language figures: decay plots per test set with one series per model (Figs. 6-10),
fit quality on language-model counts (Fig. 11), and decay rate against size per test set (Fig. 12)."""
from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FormatStrFormatter, NullFormatter

from intellimetry.plotting import COLORS
from intellimetry.survival.plots import plot_decay

MIN_RATE_SPAN = 0.1  # smallest decay-rate range a size panel shows
SERIES_COLORS = (COLORS["ours"], COLORS["paper"], COLORS["accent"], COLORS["neutral"])


def panel_grid(n_panels: int, columns: int = 3, panel_size: tuple[float, float] = (3.3, 2.9)):
    """A figure with n panels in rows of `columns`; unused axes removed."""
    columns = min(columns, n_panels)
    rows = math.ceil(n_panels / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(panel_size[0] * columns, panel_size[1] * rows),
                             layout="constrained", squeeze=False)
    for ax in axes.flat[n_panels:]:
        ax.remove()
    return fig, list(axes.flat[:n_panels])


def decay_panels(counts_by_model: dict, test_sets: dict, rates: dict, k_max: int, columns: int = 3):
    """One decay plot per test set, one series per model; level regions anchored at the first model."""
    fig, axes = panel_grid(len(test_sets), columns)
    for ax, (name, test_set) in zip(axes, test_sets.items()):
        for index, (model, by_set) in enumerate(counts_by_model.items()):
            alpha = rates[model][name]["alpha"]
            plot_decay(ax, by_set[name], k_max, label=f"{model}: α = {alpha:.2f}",
                       color=SERIES_COLORS[index % len(SERIES_COLORS)], regions=index == 0)
        ax.set_title(test_set.label)
        handles, labels = ax.get_legend_handles_labels()
        if ax is not axes[0]:  # the level regions are explained once, in the first panel
            kept = [i for i, label in enumerate(labels) if label.split(":")[0] in counts_by_model]
            handles, labels = [handles[i] for i in kept], [labels[i] for i in kept]
        ax.legend(handles, labels, loc="upper right", fontsize=7, handlelength=1)
        if ax.get_subplotspec().colspan.start > 0:  # scales differ per panel: keep ticks, drop repeated labels
            ax.set_ylabel("")
    return fig


def rate_vs_size_panel(ax, line: dict, title: str, color: str = COLORS["ours"], series: str | None = None) -> None:
    """Our family's decay rates against non-embedding size on one test set, with the log-log line
    (legend: the line's slope and p-value)."""
    sizes, alphas = np.asarray(line["sizes"]), np.asarray(line["alphas"])
    ax.plot(sizes, alphas, "o", color=color, ms=4)
    grid = np.geomspace(sizes.min(), sizes.max(), 20)
    name = f"{series}: " if series else ""
    ax.plot(grid, 10 ** (line["intercept"] + line["slope"] * np.log10(grid)), "--", color=color, lw=1,
            label=f"{name}{line['slope']:+.3f} (p {line['p']:.2f})")
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(FormatStrFormatter("%.2f"))
    low, high = ax.get_ylim()
    if high - low < MIN_RATE_SPAN:  # rates pinned at the estimator's bound differ by round-off: show them flat
        middle = (low + high) / 2
        ax.set_ylim(middle - MIN_RATE_SPAN / 2, middle + MIN_RATE_SPAN / 2)
    ax.set_title(title)
    ax.set_xlabel("non-embedding parameters N")
    ax.set_ylabel("decay rate α")
    ax.legend(loc="upper left", fontsize=9, handlelength=1.2, title="slope of log α on log N", title_fontsize=9)
