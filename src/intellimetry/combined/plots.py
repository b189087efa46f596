"""Drawing for the combined-tests figures: an RPM problem as a person and as the agent sees it, score
against handicap, score against the amount of training, weight convergence, and the tables beside the
paper's numbers."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.patches import Circle, Polygon, Rectangle

from intellimetry.plotting import COLORS

# A 3-RPM cell [colour, size, shape] drawn for a person; the paper's example answer [2, 2, 0] is a small
# green circle, so value 2 of the colour is green, value 2 of the size small and value 0 of the shape a circle.
CELL_COLOURS = ("#D55E00", "#0072B2", "#009E73")  # red-orange, blue, green (Okabe-Ito)
COLOUR_NAMES = ("red", "blue", "green")
CELL_SIZES = (0.40, 0.28, 0.16)  # large, medium, small (radius as a share of the cell)
SIZE_NAMES = ("large", "medium", "small")
SHAPE_NAMES = ("circle", "square", "triangle")


def _shape(kind: int, centre: tuple[float, float], radius: float, colour: str):
    x, y = centre
    if kind == 0:
        return Circle(centre, radius, color=colour)
    if kind == 1:
        return Rectangle((x - radius, y - radius), 2 * radius, 2 * radius, color=colour)
    return Polygon([(x - radius, y - radius), (x + radius, y - radius), (x, y + radius)], color=colour)


def draw_rpm_human(ax, grid: np.ndarray, show_answer: bool = False) -> None:
    """A 3-RPM problem (grid 3 x 3 x 3: colour, size, shape) as shapes; the missing cell shows '?'."""
    for row in range(3):
        for col in range(3):
            y = 2 - row
            ax.add_patch(Rectangle((col, y), 1, 1, fill=False, lw=1.2, color=COLORS["neutral"]))
            if (row, col) == (2, 2) and not show_answer:
                ax.text(col + 0.5, y + 0.5, "?", ha="center", va="center", fontsize=20)
                continue
            colour, size, shape = (int(v) for v in grid[row, col])
            ax.add_patch(_shape(shape, (col + 0.5, y + 0.5), CELL_SIZES[size], CELL_COLOURS[colour]))
    ax.set(xlim=(-0.05, 3.05), ylim=(-0.05, 3.05), aspect="equal")
    ax.axis("off")


def draw_rpm_text(ax, grid: np.ndarray) -> None:
    """The same problem as the agent receives it: '[v1,v2,...]' per cell, the missing cell '?'."""
    for row in range(3):
        for col in range(3):
            y = 2 - row
            ax.add_patch(Rectangle((col, y), 1, 1, fill=False, lw=1.2, color=COLORS["neutral"]))
            label = "?" if (row, col) == (2, 2) else "[" + ",".join(str(int(v)) for v in grid[row, col]) + "]"
            ax.text(col + 0.5, y + 0.5, label, ha="center", va="center", fontsize=11, family="monospace")
    ax.set(xlim=(-0.05, 3.05), ylim=(-0.05, 3.05), aspect="equal")
    ax.axis("off")


def describe_cell(cell) -> str:
    colour, size, shape = (int(v) for v in cell)
    return f"a {SIZE_NAMES[size]} {COLOUR_NAMES[colour]} {SHAPE_NAMES[shape]}"


def plot_handicap(ax, summary: Mapping, label: str, colour: str, marker: str) -> None:
    """Mean score ± 1 s.d. against nodes removed from every hidden layer."""
    ax.errorbar(summary["removed"], summary["mean"], yerr=summary["sd"], fmt=marker + "-", color=colour,
                capsize=3, label=label)
    ax.set_xlabel("nodes removed from every hidden layer of 16")
    ax.set_ylabel("score")
    ax.set_ylim(-0.02, 1.05)


def plot_training_share(ax, summary: Mapping, counts: Sequence[int], label: str, colour: str) -> None:
    """Mean score ± 1 s.d. against the share of the problem set trained on, with a logarithmic trend line
    (as the paper's Fig. 3) through the shares above zero."""
    shares = np.asarray(summary["shares"]) * 100
    ax.errorbar(shares, summary["mean"], yerr=summary["sd"], fmt="o", color=colour, capsize=3,
                label=f"{label} (up to {max(counts):,} problems)")
    positive = shares > 0
    if positive.sum() >= 2:
        slope, intercept = np.polyfit(np.log(shares[positive]), np.asarray(summary["mean"])[positive], 1)
        grid = np.linspace(shares[positive].min(), shares.max(), 100)
        ax.plot(grid, slope * np.log(grid) + intercept, "--", color=colour, lw=1, label=f"{label}: logarithmic trend")
    ax.set_xlabel("share of the problem set trained on (%)")
    ax.set_ylabel("score on the test problems")
    ax.set_ylim(-0.02, 1.05)


def plot_convergence(ax, scaled: Sequence[float], label: str, style: str, colour: str, window: int) -> None:
    """Weight change per epoch scaled by its maximum (thin), and its moving average over ``window`` epochs
    (the trend line)."""
    scaled = np.asarray(scaled, dtype=float)
    epochs = np.arange(1, len(scaled) + 1)
    ax.plot(epochs, scaled, color=colour, lw=0.5, alpha=0.35)
    window = max(1, min(window, len(scaled)))
    trend = np.convolve(scaled, np.ones(window) / window, mode="valid")
    ax.plot(epochs[window - 1:], trend, style, color=colour, lw=2, label=label)
    ax.set_xlabel("epoch")
    ax.set_ylabel("weight change (scaled by its maximum)")


def plot_table(ax, ours: Mapping, paper: Mapping, agents: Sequence[str], tests: Sequence[str]) -> None:
    """Grouped bars: per agent and test, ours (mean ± 1 s.d.) and the paper's value."""
    width = 0.8 / (2 * len(tests))
    shades = [COLORS["ours"], COLORS["capable"], COLORS["accent"], COLORS["autonomous"]]
    for t, test in enumerate(tests):
        offset = (2 * t - len(tests)) * width + width / 2
        x = np.arange(len(agents)) + offset
        ax.bar(x, [ours[a][test] for a in agents], width, yerr=[ours[a]["sd"][test] for a in agents],
               color=shades[t % len(shades)], capsize=2, label=f"{test}: ours")
        ax.bar(x + width, [paper[a][test] for a in agents], width, color=shades[t % len(shades)], alpha=0.35,
               hatch="//", edgecolor=COLORS["neutral"], lw=0.3, label=f"{test}: paper")
    ax.set_xticks(np.arange(len(agents)))
    ax.set_xticklabels([f"{a} agent" for a in agents])
    ax.set_ylabel("score")
    ax.set_ylim(0, 1.1)


def plot_reading_curves(ax, summary: Mapping, title: str, paper_score: float) -> None:
    """One reading: the held-out score after each epoch for 3-RPM (dashed) and 6-RPM (solid), mean with its
    95 % interval over agents (band), each test's chance, and the paper's 6-RPM agent's score (Table 2)."""
    lines = (("rpm3", "3-RPM", "--", COLORS["ours"]), ("rpm6", "6-RPM", "-", COLORS["capable"]))
    for key, label, style, colour in lines:
        curve = summary[key]
        epochs = np.arange(1, len(curve["mean"]) + 1)
        low, high = np.asarray(curve["interval"], dtype=float).T
        ax.fill_between(epochs, np.clip(low, 0, 1), np.clip(high, 0, 1), color=colour, alpha=0.2, lw=0)
        ax.plot(epochs, curve["mean"], style, color=colour, lw=1.6, label=label)
        ax.axhline(curve["chance"], color=colour, ls=":", lw=0.8)
    ax.axhline(paper_score, color=COLORS["paper"], ls="-.", lw=1, label=f"paper's 6-RPM agent ({paper_score})")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("epoch")
    ax.set_ylabel("score on the test problems")
    ax.set_ylim(0, 1.04)
