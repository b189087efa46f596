"""Figure 15's panels: avalanche-size distributions and the exponent against dimension, degree and size."""
from __future__ import annotations

import numpy as np

from intellimetry.plotting import COLORS
from intellimetry.stats import PowerLawFit, log_binned_frequency

SIZE_LABEL = "avalanche size s (topplings)"
TAU_LABEL = "fitted exponent τ"


def plot_size_distributions(ax, rows: list[dict], label_key: str = "system") -> None:
    """Log-binned P(s) of each row's avalanches, with its fitted power law over the fitted range."""
    colours = [f"C{i}" for i in range(len(rows))]
    for row, colour in zip(rows, colours):
        sizes = row["sizes"][row["sizes"] > 0]
        centres, frequency = log_binned_frequency(sizes, 1, int(sizes.max()), bins_per_decade=8)
        described = f"τ = {row['tau']:.2f}" if row["power_law"] else "no power law"
        ax.plot(centres, frequency / sizes.size, "o", ms=3, color=colour, label=f"{row[label_key]}: {described}")
        if not row["power_law"]:
            continue
        fit = PowerLawFit(alpha=row["tau"], sigma=row["tau_se"], n=row["avalanches_in_range"],
                          k_min=row["s_min"], k_max=row["s_max"])
        s = np.geomspace(row["s_min"], row["s_max"], 30)
        ax.plot(s, fit.expected_count(s) / sizes.size, "-", color=colour, lw=1.2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(SIZE_LABEL)
    ax.set_ylabel("P(s) (log-binned)")


def plot_tau_vs_dimension(ax, rows: list[dict], literature: dict) -> None:
    """Our tau per dimension (interval bars) beside the literature range for each dimension."""
    for entry in literature.values():
        if entry["low"] is not None:
            d = entry["dimension"]
            ax.fill_between([d - 0.25, d + 0.25], entry["low"] - 0.005, entry["high"] + 0.005,
                            color=COLORS["paper"], alpha=0.35, lw=0)
    ax.fill_between([], [], color=COLORS["paper"], alpha=0.35, label="literature (BTW)")
    fitted = [r for r in rows if r["power_law"]]
    _errorbars(ax, [r["d"] for r in fitted], fitted, label="ours (MLE, 95% interval)")
    ax.set_xticks([r["d"] for r in rows])
    ax.set_xlabel("lattice dimension d")
    ax.set_ylabel(TAU_LABEL)


def plot_tau_vs_degree(ax, rows: list[dict], mean_field: float) -> None:
    """tau against the measured mean degree, one series per network kind."""
    styles = {"random_regular": ("o", COLORS["ours"]), "erdos_renyi": ("s", COLORS["accent"])}
    for offset, kind in zip((-0.08, 0.08), sorted({r["kind"] for r in rows})):
        chosen = [r for r in rows if r["kind"] == kind]
        marker, colour = styles[kind]
        _errorbars(ax, [r["measured_degree"] + offset for r in chosen], chosen, label=kind.replace("_", " "),
                   marker=marker, colour=colour, line=True)
    ax.axhline(mean_field, ls="--", color=COLORS["paper"], lw=1, label=f"mean field τ = {mean_field:g}")
    ax.set_xlabel("mean degree")
    ax.set_ylabel(TAU_LABEL)


def plot_finite_size(ax, rows: list[dict], literature: dict) -> None:
    """tau against lattice side for each dimension present, with the literature range as a band."""
    for d in sorted({r["d"] for r in rows}):
        chosen = sorted((r for r in rows if r["d"] == d), key=lambda r: r["side"])
        colour = COLORS["ours"] if d == 2 else COLORS["capable"]
        _errorbars(ax, [r["side"] for r in chosen], chosen, label=f"d = {d} (ours)", colour=colour, line=True)
        entry = literature[f"d{d}"]
        ax.axhspan(entry["low"] - 0.005, entry["high"] + 0.005, color=colour, alpha=0.15, lw=0,
                   label=f"d = {d} literature")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("lattice side L")
    ax.set_ylabel(TAU_LABEL)


def _errorbars(ax, x, rows, label, colour=None, marker="o", line=False) -> None:
    tau = np.array([r["tau"] for r in rows])
    errors = np.array([[t - r["ci_low"], r["ci_high"] - t] for t, r in zip(tau, rows)]).T
    ax.errorbar(x, tau, yerr=np.clip(errors, 0, None), fmt=marker + ("-" if line else ""), ms=4,
                color=colour or COLORS["ours"], label=label, capsize=2)
