"""Rasters of 10-bit inputs over time (AGITB Figures 1 and 2)."""
from __future__ import annotations

import numpy as np

from intellimetry.agitb.inputs import BITS
from intellimetry.plotting import COLORS


def bit_matrix(inputs) -> np.ndarray:
    """bits × time array; row i is bit i (value 2^i)."""
    inputs = np.asarray(list(inputs), dtype=np.int64)
    return (inputs[None, :] >> np.arange(BITS)[:, None]) & 1


def draw_raster(ax, inputs, title: str = "", colour: str | None = None, aspect: str = "equal") -> None:
    """Set bits as filled cells, one column per time step, bit 0 at the bottom."""
    matrix = bit_matrix(inputs)
    from matplotlib.colors import ListedColormap

    ax.imshow(matrix, cmap=ListedColormap(["white", colour or COLORS["ours"]]), origin="lower", aspect=aspect,
              vmin=0, vmax=1)
    ax.set_xticks(range(matrix.shape[1]), [str(t + 1) for t in range(matrix.shape[1])] if matrix.shape[1] > 1 else [""])
    ax.set_yticks(range(BITS), [str(b) for b in range(BITS)], fontsize=9)
    ax.set_xticks(np.arange(-0.5, matrix.shape[1]), minor=True)
    ax.set_yticks(np.arange(-0.5, BITS), minor=True)
    ax.grid(which="minor", color="0.6", lw=0.5)
    ax.grid(which="major", visible=False)
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel("time step" if matrix.shape[1] > 1 else "")
    ax.set_ylabel("bit")
    ax.set_title(title, fontsize=10)


VERDICT_COLOURS = {"pass": COLORS["capable"], "fail": COLORS["autonomous"], "not reached": "0.85"}


def draw_verdicts(ax, results: dict) -> None:
    """Candidates × tests: green pass, orange fail, grey not reached; seconds in each cell."""
    from matplotlib.patches import Rectangle

    names = list(results)
    for row, name in enumerate(names):
        for result in results[name]:
            column = result.number - 1
            ax.add_patch(Rectangle((column, row), 1, 1, facecolor=VERDICT_COLOURS[result.verdict], edgecolor="white"))
            ax.text(column + 0.5, row + 0.5, f"{result.seconds:.1f}s", ha="center", va="center", fontsize=8)
    ax.set_xlim(0, 12)
    ax.set_ylim(len(names), 0)
    ax.set_xticks(np.arange(12) + 0.5, [str(n) for n in range(1, 13)])
    ax.set_yticks(np.arange(len(names)) + 0.5, names)
    ax.set_xlabel("test (green: pass, orange: fail; time per test)")
    ax.grid(False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def draw_liveness(ax, liveness: dict) -> None:
    """Median and largest per-batch feed time, blank and experienced, per candidate, with Wilcoxon z."""
    names = list(liveness)
    for row, name in enumerate(names):
        m = liveness[name]
        for offset, key, colour in ((-0.15, "blank", COLORS["ours"]), (0.15, "complex", COLORS["paper"])):
            times = np.asarray(m[key]) * 1e6
            ax.plot([times.min(), times.max()], [row + offset] * 2, color=colour, lw=1)
            ax.plot(np.median(times), row + offset, "o", color=colour, ms=4,
                    label=("blank" if key == "blank" else "experienced") if row == 0 else None)
        ax.text(1.01, row, f"z = {m['z']:.1f}", transform=ax.get_yaxis_transform(), va="center", fontsize=9)
    ax.set_xscale("log")
    ax.set_yticks(range(len(names)), names)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set_xlabel("feed time per batch (µs): median and range")
    ax.legend(fontsize=9, loc="lower left", bbox_to_anchor=(0, 1), ncol=2)  # above the axes: never on the data
