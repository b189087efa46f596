"""The survival chapter's drawings: the decay plot (how often a subject needed exactly k failures,
on log-log axes, with level regions), decay plots per test set with one series per model, the
level scale, decay rate against model size (Figure 12) and the extrapolation to the Autonomous
level (Figure 13).

Decay-plot conventions (recovered from the authors' notebooks): raw counts for each k >= 1 (k = 0
dropped, no binning or normalisation); reference lines f(1)·k^-2 and f(1)·k^-3 anchored at the
observed count at k = 1; Limited above the k^-2 line (up to y = f(1)), Capable between the lines,
Autonomous below.
"""
from __future__ import annotations

import math
import textwrap

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FormatStrFormatter, NullFormatter

from intellimetry.plotting import COLORS
from intellimetry.survival.decay_rate import frequency_table
from intellimetry.survival.levels import LEVELS, THRESHOLDS
from intellimetry.survival.scaling import ScalingFit, Timeline

X_LABEL = "Number of Failures (log scale)"
Y_LABEL = "Frequency (log scale)"
Y_FLOOR = 0.5  # counts are integers >= 1, so the plot's floor sits just below 1
SIZE_LABEL = "non-embedding parameters N (log scale)"
RATE_LABEL = "failure decay rate α (log scale)"


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
    if regions and (k.size == 0 or k[0] != 1 or counts[0] <= 0):
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
                        textcoords="offset points", fontsize=8, color="0.25")
        ax.set_xlim(table["params"].min() / 1.5, table["params"].max() * 3)  # room for the largest models' names
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


def plot_prediction(ax, sizes, alphas, fit: ScalingFit | None, timeline: Timeline, x_max: float,
                    targets: dict[str, float], label: str = "models"):
    """The fitted line extended to `x_max` over the level bands, the sizes that reach each target
    decay rate, and Moore's-law years on a top axis (no line when `fit` is None). Returns the top axis."""
    x_min = 10 ** np.floor(np.log10(min(sizes)))
    lower, upper = THRESHOLDS
    bottom = min(1.0, 0.8 * min(alphas))  # a rate below one is a measured value on a bounded support
    top = max(upper * 1.25, float(fit.alpha_at(x_max)) * 1.1 if fit is not None else 0.0)
    for (low, high), level in zip(((bottom, lower), (lower, upper), (upper, top)), LEVELS):
        ax.axhspan(low, high, color=COLORS[level.lower()], alpha=0.18, lw=0, label=level)
    line = np.geomspace(x_min, x_max, 100)
    if fit is not None:
        ax.plot(line, fit.alpha_at(line), ls="--", color=COLORS["paper"], lw=1.2, label="log-log fit")
    ax.plot(sizes, alphas, "o", color=COLORS["ours"], ms=5, label=label, zorder=3)
    for name, alpha in targets.items():
        size = fit.size_for_alpha(alpha)
        if size <= x_max:
            ax.plot([size, size], [bottom, alpha], ls=":", color=COLORS["neutral"], lw=1)
            ax.annotate(f"{name}: N = {size:.1e}\n({timeline.year(size):.0f})", (size, alpha),
                        xytext=(-6, 6), textcoords="offset points", ha="right", fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_min, x_max)
    ax.set_ylim(bottom, top)
    _plain_rate_ticks(ax, rate_ticks(bottom, top))
    ax.set_xlabel(SIZE_LABEL)
    ax.set_ylabel(RATE_LABEL)
    # year(N) is linear in log N, so a linear twin axis over year(x limits) lines up exactly
    years = ax.twiny()
    years.set_xlim(*timeline.year(np.array(ax.get_xlim())))
    years.set_xlabel(f"year the size becomes trainable (Moore's law, ×2 every {timeline.doubling_years:g} years)")
    years.grid(False)
    return years


def rate_ticks(bottom: float, top: float, most: int = 12) -> np.ndarray:
    """Decay-rate ticks between `bottom` and `top`: every 0.5 on a short range; on a long one (a line
    extended far beyond the measured sizes) 1, 2 and 5 times the powers of ten, so a panel never asks
    for thousands of tick labels."""
    halves = np.arange(np.ceil(bottom * 2) / 2, top, 0.5)
    if len(halves) <= most:
        return halves
    decades = 10.0 ** np.arange(np.floor(np.log10(bottom)), np.ceil(np.log10(top)) + 1)
    ticks = np.outer(decades, (1, 2, 5)).ravel()
    return ticks[(ticks >= bottom) & (ticks <= top)]


def _plain_rate_ticks(ax, ticks) -> None:
    """Decimal tick labels on the log-scaled decay-rate axis (the range is too short for powers of ten)."""
    ax.yaxis.set_major_locator(mpl.ticker.FixedLocator(ticks))
    ax.yaxis.set_major_formatter(mpl.ticker.FuncFormatter(lambda v, _: f"{v:.2f}" if v < 10 else f"{v:g}"))
    ax.yaxis.set_minor_formatter(mpl.ticker.NullFormatter())


MIN_RATE_SPAN = 0.1  # smallest decay-rate range a size panel shows
# Okabe-Ito sky blue after the named colours, so five models (e.g. the recommenders) stay apart
SERIES_COLORS = (COLORS["ours"], COLORS["paper"], COLORS["accent"], COLORS["neutral"], "#56B4E9")


def panel_grid(n_panels: int, columns: int = 3, panel_size: tuple[float, float] = (3.3, 2.9)):
    """A figure with n panels in rows of `columns`; unused axes removed."""
    columns = min(columns, n_panels)
    rows = math.ceil(n_panels / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(panel_size[0] * columns, panel_size[1] * rows),
                             layout="constrained", squeeze=False)
    for ax in axes.flat[n_panels:]:
        ax.remove()
    return fig, list(axes.flat[:n_panels])


def panel_title(*lines: str, width: int = 44) -> str:
    """A panel's title with each line wrapped at `width` characters: about what a panel of a
    three-column grid holds at 9 pt, so neighbouring titles do not run into each other."""
    return "\n".join(textwrap.fill(line, width) for line in lines)


def decay_panels(counts_by_model: dict, test_sets: dict, rates: dict, k_max: int, columns: int = 3):
    """One decay plot per test set, one series per model; level regions anchored at the first model."""
    fig, axes = panel_grid(len(test_sets), columns)
    for ax, (name, test_set) in zip(axes, test_sets.items()):
        decay_panel(ax, counts_by_model, name, test_set.label, rates, k_max, explain_levels=ax is axes[0])
    return fig


def decay_panel(ax, counts_by_model: dict, name: str, title: str, rates: dict, k_max: int,
                explain_levels: bool = True) -> None:
    """One test set's decay plot with one series per model (`counts_by_model[model][name]`); the level
    regions are anchored at the first model, and named in the legend only where `explain_levels`."""
    highest = 0.0
    for index, (model, by_set) in enumerate(counts_by_model.items()):
        alpha = rates[model][name]["alpha"]
        k, counts = plot_decay(ax, by_set[name], k_max, label=f"{model}: α = {alpha:.2f}",
                               color=SERIES_COLORS[index % len(SERIES_COLORS)], regions=index == 0)
        highest = max(highest, float(counts[k <= k_max].max(initial=0)))
    low, high = ax.get_ylim()
    ax.set_ylim(low, max(high, 1.5 * highest))  # a model above the anchor's f(1) stays in view
    ax.set_title(title)
    handles, labels = ax.get_legend_handles_labels()
    if not explain_levels:  # the level regions are explained once, in the first panel
        kept = [i for i, label in enumerate(labels) if label.split(":")[0] in counts_by_model]
        handles, labels = [handles[i] for i in kept], [labels[i] for i in kept]
    ax.legend(handles, labels, loc="upper right", fontsize=8, handlelength=1)
    if ax.get_subplotspec().colspan.start > 0:  # scales differ per panel: keep ticks, drop repeated labels
        ax.set_ylabel("")


def interval_errors(point, low, high) -> np.ndarray:
    """Error-bar lengths [below, above] of intervals around points, clipped at the point: a bootstrap
    percentile interval need not contain its estimate (matplotlib refuses a negative length)."""
    point, low, high = (np.asarray(v, dtype=float) for v in (point, low, high))
    return np.vstack([np.maximum(point - low, 0.0), np.maximum(high - point, 0.0)])


def rate_vs_size_panel(ax, line: dict, title: str, color: str = COLORS["ours"], series: str | None = None,
                       size_label: str = "non-embedding parameters N") -> None:
    """A model family's decay rates against size on one test set (a `rates.size_scaling` line), with
    the log-log line (legend: the line's slope and p-value)."""
    sizes = np.asarray(line["sizes"], dtype=float)
    alphas = np.array([np.nan if a is None else a for a in line["alphas"]], dtype=float)
    intervals = np.array([[np.nan, np.nan] if i[0] is None else i for i in line.get("intervals", [])]
                         or np.column_stack([alphas, alphas]), dtype=float)
    ax.errorbar(sizes, alphas, yerr=interval_errors(alphas, intervals[:, 0], intervals[:, 1]), fmt="o", color=color,
                ms=4, capsize=2, lw=1)
    name = f"{series}: " if series else ""
    if line.get("slope") is not None:
        grid = np.geomspace(sizes.min(), sizes.max(), 20)
        ax.plot(grid, 10 ** (line["intercept"] + line["slope"] * np.log10(grid)), "--", color=color, lw=1,
                label=textwrap.fill(f"{name}{line['slope']:+.3f} (p {line['p']:.2f})", 34))
    ax.set_xscale("log")
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(FormatStrFormatter("%.2f"))
    low, high = ax.get_ylim()
    if high - low < MIN_RATE_SPAN:  # rates that differ by less than the span are shown flat, not magnified
        middle = (low + high) / 2
        ax.set_ylim(middle - MIN_RATE_SPAN / 2, middle + MIN_RATE_SPAN / 2)
    ax.set_title(title)
    ax.set_xlabel(size_label)
    ax.set_ylabel("decay rate α")
    if line.get("slope") is not None:
        ax.legend(loc="upper left", fontsize=8 if series else 9, handlelength=1.2, title="slope of log α on log N",
                  title_fontsize=8 if series else 9)


def rate_vs_loss_panel(ax, members: list[dict], title: str, color: str = COLORS["ours"]) -> None:
    """Each family member's general-domain decay rate (with its interval) against its held-out loss
    (`study.member_rows`): what size bought, in both measures, side by side."""
    fitted = [m for m in members if m["general_alpha"] is not None and m["validation_loss"] is not None]
    loss = np.array([m["validation_loss"] for m in fitted], dtype=float)
    alpha = np.array([m["general_alpha"] for m in fitted], dtype=float)
    low = np.array([m["general_ci_low"] for m in fitted], dtype=float)
    high = np.array([m["general_ci_high"] for m in fitted], dtype=float)
    ax.errorbar(loss, alpha, yerr=interval_errors(alpha, low, high), fmt="o", color=color, ms=4, capsize=2, lw=1)
    for m, x, y in zip(fitted, loss, alpha):
        ax.annotate(f"{m['non_embedding_params']:.0e}".replace("e+0", "e"), (x, y), xytext=(4, 4),
                    textcoords="offset points", fontsize=8)
    ax.invert_xaxis()  # lower loss (a better model) to the right
    ax.set_xlabel("held-out loss (nats per token)")
    ax.set_ylabel("decay rate α")
    ax.set_title(title)

