"""The chapter's drawings: the measure x subject matrix, and the agreement between the measures."""
from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

from intellimetry.plotting.style import COLORS


def _short(measure: str) -> str:
    return {"decay rate": "decay\nrate", "mixed score": "mixed\nscore"}.get(measure, measure)


def _cell_text(value) -> str:
    if value is None or not np.isfinite(value):
        return "–"
    magnitude = abs(value)
    if magnitude >= 1e4:
        return f"{value:.2g}"
    return f"{value:.2f}" if magnitude < 10 else f"{value:.0f}"


def draw_matrix(ax, values: dict) -> None:
    """Subjects (rows) x measures (columns), coloured by the subject's rank within each measure (so
    the five scales compare), each cell labelled with its mean over seeds."""
    subjects, measures = values["subjects"], values["measures"]
    means = np.array([[values["matrix"][m][s]["mean"] if values["matrix"][m][s]["mean"] is not None else np.nan
                       for m in measures] for s in subjects], dtype=float)
    ranks = np.column_stack([rankdata(np.nan_to_num(col, nan=-np.inf)) / len(col) for col in means.T])
    ax.imshow(ranks, aspect="auto", cmap="viridis", vmin=0, vmax=1)
    ax.grid(False)
    for i in range(means.shape[0]):
        for j in range(means.shape[1]):
            ax.text(j, i, _cell_text(means[i, j]), ha="center", va="center", fontsize=8,
                    color="white" if ranks[i, j] < 0.6 else "black")
    ax.set_xticks(range(len(measures)), [_short(m) for m in measures])
    ax.set_yticks(range(len(subjects)), subjects)
    ax.xaxis.tick_top()
    ax.set_xlabel("colour: rank of the subject within the measure (light = best)")


def draw_tau(ax, values: dict) -> None:
    """The τ of every pair of measures, its 95 % interval under it."""
    measures = values["measures"]
    n = len(measures)
    grid = np.full((n, n), np.nan)
    for i, a in enumerate(measures):
        grid[i, i] = 1.0
        for j, b in enumerate(measures):
            key = f"{a}|{b}" if f"{a}|{b}" in values["tau"] else f"{b}|{a}"
            if i != j and values["tau"].get(key) is not None:
                grid[i, j] = values["tau"][key]
    ax.imshow(grid, cmap="RdBu", vmin=-1, vmax=1)
    ax.grid(False)
    for i, a in enumerate(measures):
        for j, b in enumerate(measures):
            if i == j or not np.isfinite(grid[i, j]):
                continue
            colour = "white" if abs(grid[i, j]) > 0.6 else "black"
            if i < j:
                low, high = values["tau_interval"][f"{a}|{b}"]
                ax.text(j, i, f"{grid[i, j]:.2f}\n[{low:.2f}, {high:.2f}]", ha="center", va="center", fontsize=8,
                        color=colour)
            else:
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=8, color=colour)
    ax.set_xticks(range(n), [_short(m) for m in measures])
    ax.set_yticks(range(n), [_short(m) for m in measures])
    ax.set_title("Kendall τ between measures (95 % interval)")


def draw_subsets(ax, values: dict) -> None:
    """Mean τ over the ten pairs per subset of subjects, with intervals; the shuffled control's level."""
    names = list(values["subsets"])
    means = [values["subsets"][n]["mean_tau"] for n in names]
    lows = [values["subsets"][n]["interval"][0] for n in names]
    highs = [values["subsets"][n]["interval"][1] for n in names]
    y = np.arange(len(names))
    ax.errorbar(means, y, xerr=[np.subtract(means, lows), np.subtract(highs, means)], fmt="o",
                color=COLORS["ours"], capsize=3)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(y, [f"{n} ({values['subsets'][n]['subjects']})" for n in names])
    ax.invert_yaxis()
    ax.set_xlim(-1, 1)
    ax.set_xlabel("mean τ over the pairs of measures")
    ax.set_title("Agreement by subjects included")


def draw_factors(ax, values: dict) -> None:
    """Eigenvalues of the measures' correlation matrix against parallel analysis's 95 % null."""
    factors = values["factors"]
    k = np.arange(1, len(factors["eigenvalues"]) + 1)
    ax.plot(k, factors["eigenvalues"], "o-", color=COLORS["ours"], label="subjects")
    ax.plot(k, factors["null_95"], "s--", color=COLORS["limited"], label="shuffled, 95th pct.")
    ax.set_xticks(k)
    ax.set_xlabel("factor")
    ax.set_ylabel("eigenvalue")
    ax.set_title(f"First factor: {factors['first_share']:.0%} of variance")
    ax.legend(loc="upper right", fontsize=8)


def draw_disagreement(ax, values: dict) -> None:
    """The subjects' ranks under the two measures that agree least; the subjects that move most named."""
    a, b = values["least_agreeing"].split("|")
    col_a = np.array([np.nan if v["mean"] is None else v["mean"] for v in values["matrix"][a].values()])
    col_b = np.array([np.nan if v["mean"] is None else v["mean"] for v in values["matrix"][b].values()])
    rank_a = rankdata(-np.nan_to_num(col_a, nan=-np.inf))
    rank_b = rankdata(-np.nan_to_num(col_b, nan=-np.inf))
    ax.scatter(rank_a, rank_b, s=14, color=COLORS["ours"])
    named = {swap["subject"] for swap in values["swaps"]}
    for name, x, y in zip(values["subjects"], rank_a, rank_b):
        if name in named:
            ax.annotate(name, (x, y), xytext=(4, 4), textcoords="offset points", fontsize=8)
    top = len(rank_a) + 1
    ax.plot([0, top], [0, top], color="grey", lw=0.8)
    ax.set_xlabel(f"rank by {a} (1 = best)")
    ax.set_ylabel(f"rank by {b}")
    ax.set_title(f"Least agreement: τ = {values['least_tau']:.2f}")
