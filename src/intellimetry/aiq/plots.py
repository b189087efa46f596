"""Drawing helpers shared by the AIQ notebooks (one look for every MCCP, mixing and heat-map panel)."""
from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D

from intellimetry.aiq.measures import diagonal, hull_faces
from intellimetry.plotting import COLORS

SOURCE_COLORS = {"observed": COLORS["ours"], "nearest": COLORS["limited"], "neighbour": COLORS["capable"],
                 "fit": COLORS["autonomous"], "interpolated": COLORS["accent"]}


def draw_mccp_curve(ax, curve, pool, title: str = "") -> None:
    """The pool (size vs accuracy), the minimal-size bins coloured by how each was filled, the area shaded."""
    ax.scatter([a.accuracy for a in pool], [a.size for a in pool], s=14, color=COLORS["neutral"], alpha=0.5,
               label="trained networks", zorder=3)
    ax.fill_between(curve.edges.repeat(2)[1:-1], 0, curve.sizes.repeat(2), color=COLORS["ours"], alpha=0.12,
                    label=f"MCCP = area = {curve.area:,.0f}")
    for source, color in SOURCE_COLORS.items():
        mask = curve.source == source
        if mask.any():
            ax.bar(curve.centres[mask], curve.sizes[mask], width=curve.width * 0.9, color=color, alpha=0.55,
                   label=f"bin: {source}")
    ax.set_xlabel("performance (test accuracy)")
    ax.set_ylabel("policy size (trainable parameters)")
    ax.set_yscale("log")
    ax.set_xlim(curve.edges[0], curve.edges[-1])
    ax.legend(fontsize=7, loc="upper left")
    if title:
        ax.set_title(title)


def draw_mccp_series(ax, x, complexities, label: str = "MCCP (ours, 95 % interval over pools)",
                     color: str = COLORS["ours"], trend: bool = True) -> dict:
    """MCCP with its interval against a swept parameter; returns the least-squares trend line's numbers."""
    est = np.array([c.interval.estimate for c in complexities])
    low = np.array([c.interval.low for c in complexities])
    high = np.array([c.interval.high for c in complexities])
    ax.errorbar(x, est, yerr=[est - low, high - est], fmt="x", color=color, capsize=3, label=label)
    out = {}
    if trend and len(x) > 2:
        slope, intercept = np.polyfit(np.asarray(x, float), est, 1)
        r = float(np.corrcoef(x, est)[0, 1])
        ax.plot(x, slope * np.asarray(x, float) + intercept, "--", color=color, lw=1,
                label=f"linear trend (R = {r:.2f})")
        out = {"slope": float(slope), "intercept": float(intercept), "r": r}
    ax.set_ylabel("MCCP complexity")
    return out


def draw_entropy(ax, x, entropy, label: str = "entropy (bits)") -> None:
    """Entropy on a twin axis, in the paper's red solid line."""
    twin = ax.twinx()
    twin.plot(x, entropy, "-", color=COLORS["paper"], label=label)
    twin.set_ylabel(label, color=COLORS["paper"])
    lines, labels = ax.get_legend_handles_labels()
    more, more_labels = twin.get_legend_handles_labels()
    ax.legend(lines + more, labels + more_labels, fontsize=8, loc="best")


def draw_mixing(ax, mixing, first: str, second: str, per_agent: bool = True, legend_size: float = 7) -> None:
    """V_O(p), the diagonal between the two single-domain performances, and the area between them (DS)."""
    p, v = mixing.p, mixing.performance
    line = diagonal(p, mixing.v_first, mixing.v_second)
    if per_agent:
        for k in range(mixing.per_agent.shape[1]):
            ax.plot(p, mixing.per_agent[:, k], ".", color=COLORS["limited"], ms=4,
                    label="single networks" if k == 0 else None)
    ax.plot(p, v, "o-", color=COLORS["ours"], label="$V_O(p)$: trained on the mixture")
    ax.plot(p, line, "--", color=COLORS["neutral"], label="$V_d(p)$: diagonal")
    ax.fill_between(p, v, line, color=COLORS["limited"], alpha=0.35, label=f"DS = {mixing.dissimilarity:.4f}")
    ax.axhline(mixing.v_first, color=COLORS["capable"], lw=0.8, label=f"{first} alone")
    ax.axhline(mixing.v_second, color=COLORS["autonomous"], lw=0.8, label=f"{second} alone")
    ax.set_xlabel(f"p (share of samples from {first})")
    ax.set_ylabel("performance (test accuracy)")
    ax.legend(fontsize=legend_size, loc="best")


def draw_heatmap(ax, matrix, row_names, col_names=None, label: str = "", fmt: str = ".3f", cmap: str = "viridis",
                 tick_size: float = 8, value_size: float = 7):
    """A matrix with its values written in the cells (small suites) and named axes."""
    matrix = np.asarray(matrix, dtype=float)
    col_names = row_names if col_names is None else col_names
    image = ax.imshow(matrix, cmap=cmap)
    ax.set_xticks(range(len(col_names)), col_names, rotation=45, ha="right", fontsize=tick_size)
    ax.set_yticks(range(len(row_names)), row_names, fontsize=tick_size)
    if matrix.size <= 64:
        top = np.nanmax(matrix)
        for (i, j), value in np.ndenumerate(matrix):
            ax.text(j, i, format(value, fmt), ha="center", va="center", fontsize=value_size,
                    color="white" if value < 0.6 * top else "black")
    ax.figure.colorbar(image, ax=ax, shrink=0.8, label=label)
    return image


def space_3d(points) -> np.ndarray:
    """The first three coordinates of points in the intelligence space, zero-padded when the space
    has fewer dimensions: a 3-D axis needs three."""
    x = np.asarray(points, dtype=float)[:, :3]
    return np.hstack([x, np.zeros((len(x), 3 - x.shape[1]))])


def draw_hull(ax, points, color) -> bool:
    """The convex hull of the origin and ``points`` (m, 3) as translucent faces on a 3-D axis.

    A flat hull (fewer than three independent directions) has no faces: nothing is drawn and
    False is returned, so the panel still shows the points."""
    vertices, faces = hull_faces(points)
    if not len(faces):
        return False
    ax.plot_trisurf(vertices[:, 0], vertices[:, 1], vertices[:, 2], triangles=faces, color=color, alpha=0.25,
                    edgecolor=color, linewidth=0.3)
    return True


# The three policies that learn nothing (aiq.cartpole3d.survival), named and coloured as the page names them
POLICY_NAMES = {"nothing": "doing nothing", "random": "random actions", "heuristic": "controller"}
POLICY_COLORS = {"nothing": COLORS["limited"], "random": COLORS["paper"], "heuristic": COLORS["ours"]}
# a novelty's paired difference from novelty 0 (aiq.cartpole3d.survival_table's easier / harder)
EFFECT_MARKERS = {"easier": "^", "harder": "v", "no clear change": "o"}


def draw_novelty_survival(ax, survival: dict, effects: dict[int, str]) -> None:
    """Ticks the pole stays up per novelty (a row each, named by `effects`, novelty 0 on top) and
    policy (a colour each, mean with its 95 % interval), each policy's mean without novelty dashed;
    the marker says whether the novelty makes the task easier or harder for that policy (its paired
    difference's interval above or below zero). The legend sits below the axes, off the rows."""
    novelties = survival["novelties"]
    rows = np.arange(len(novelties))
    policies = survival["policies"]
    for k, policy in enumerate(policies):
        offset = (k - (len(policies) - 1) / 2) * 0.22
        cells = [survival["mean"][policy][str(n)] for n in novelties]
        ax.axvline(cells[0]["estimate"], color=POLICY_COLORS[policy], lw=0.8, ls="--")
        for row, n, cell in zip(rows, novelties, cells):
            effect = _novelty_effect(survival, policy, n)
            error = [[cell["estimate"] - cell["low"]], [cell["high"] - cell["estimate"]]]
            filled = effect != "no clear change"
            ax.errorbar(cell["estimate"], row + offset, xerr=error, fmt=EFFECT_MARKERS[effect], ms=5, capsize=2,
                        lw=1, color=POLICY_COLORS[policy], mfc=POLICY_COLORS[policy] if filled else "white")
    ax.set_yticks(rows, [f"{n}: {effects[n].rstrip('.')}" for n in novelties])
    ax.set_ylim(rows[-1] + 0.6, -0.6)  # novelty 0 on top
    ax.set_xlim(0, 205)
    ax.set_xlabel(f"ticks the pole stays up (of 200; mean and 95 % interval over {survival['episodes']} episodes)")
    ax.grid(axis="y", visible=False)
    handles = [Line2D([], [], color=POLICY_COLORS[p], marker="s", ls="", label=POLICY_NAMES[p]) for p in policies]
    handles += [Line2D([], [], color=COLORS["neutral"], marker=marker, ls="", mfc="white" if effect == "no clear change"
                       else None, label=effect if effect == "no clear change" else f"{effect} than novelty 0")
                for effect, marker in EFFECT_MARKERS.items()]
    handles.append(Line2D([], [], color=COLORS["neutral"], lw=0.8, ls="--", label="novelty 0's mean"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=4, fontsize=9)


def _novelty_effect(survival: dict, policy: str, novelty: int) -> str:
    if novelty in survival["easier"][policy]:
        return "easier"
    if novelty in survival["harder"][policy]:
        return "harder"
    return "no clear change"
