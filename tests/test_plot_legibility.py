"""Figure text stays readable at the width the book shows it (the browser check's 8 px rule), checked on
the shared drawing helpers with tiny synthetic inputs, in the layouts their notebooks use."""
from __future__ import annotations

import io
import re
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from intellimetry.book.check import READABLE_PX as CHECK_READABLE_PX
from intellimetry.book.check import svg_text_sizes
from intellimetry.plotting.legibility import CONTENT_PX, PX_PER_PT, READABLE_PX, shown_text_px

MARGIN_PX = 8.5  # a little above the check's 8 px, so that rounding and real data cannot tip a figure over


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def check_measure(fig, width_fraction: float | None) -> float:
    """What the browser check computes from the saved SVG (intellimetry.book.check.small_figure_text)."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    svg = buffer.getvalue()
    width = float(re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+)', svg).group(1))
    shown = CONTENT_PX * width_fraction if width_fraction else min(width * PX_PER_PT, CONTENT_PX)
    return min(svg_text_sizes(svg)) * shown / width


def test_threshold_is_the_checks():
    assert READABLE_PX == CHECK_READABLE_PX


def test_a_small_figure_is_shown_at_natural_size():
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.set_title("title", fontsize=9)
    ax.tick_params(labelsize=6)
    assert shown_text_px(fig) == pytest.approx(6 * PX_PER_PT)


@pytest.mark.parametrize("width_fraction", [None, 1.0, 0.6])
def test_the_measure_agrees_with_the_browser_check(width_fraction):
    fig, ax = plt.subplots(figsize=(11, 4))
    ax.plot([1, 2, 3], label="line")
    ax.legend(fontsize=7)
    ax.set_title("a $V_O(p)$ title")
    assert shown_text_px(fig, width_fraction) == pytest.approx(check_measure(fig, width_fraction), rel=0.02)


def test_agitb_verdict_grid_and_liveness_stacked():
    from intellimetry.agitb.plots import draw_liveness, draw_verdicts

    names = ["always-zero", "complement-echo", "history-random", "online-bits-7"]
    results = {n: [SimpleNamespace(number=k, verdict="pass", seconds=1.3) for k in range(1, 13)] for n in names}
    liveness = {n: {"blank": np.array([1e-6, 1e-4]), "complex": np.array([2e-6, 1e-3]), "z": -1.1} for n in names}
    fig, axes = plt.subplots(2, 1, figsize=(8, 0.9 * len(names) + 2.4))
    draw_verdicts(axes[0], results)
    draw_liveness(axes[1], liveness)
    fig.tight_layout()
    assert shown_text_px(fig, 1.0) >= MARGIN_PX


def test_gindex_flow_and_association_graph_stacked():
    from intellimetry.gindex import association_graph, max_weight_clique, parse_flow
    from intellimetry.gindex.domains import generate_tasks
    from intellimetry.gindex.plots import draw_association, draw_flow, flow_span

    first, second = generate_tasks("youtube-play", 2, 0)
    g1, g2 = parse_flow(first.flow), parse_flow(second.flow)
    assoc = association_graph(g1, g2)
    clique, _ = max_weight_clique(assoc)
    heights = [0.65 * flow_span(g1) + 0.7, 0.65 * flow_span(g2) + 0.7, 7.5]
    fig = plt.figure(figsize=(8, sum(heights)))
    grid = fig.add_gridspec(3, 1, height_ratios=heights)
    draw_flow(fig.add_subplot(grid[0]), g1, first.spec)
    draw_flow(fig.add_subplot(grid[1]), g2, second.spec)
    draw_association(fig.add_subplot(grid[2]), assoc, clique, g1, g2)
    fig.tight_layout()
    assert shown_text_px(fig, 1.0) >= MARGIN_PX


def test_gindex_domain_distance_pair():
    from intellimetry.gindex.plots import draw_domain_distance

    names = [f"domain-number-{i}" for i in range(16)]
    omega = np.random.default_rng(0).uniform(size=(16, 16))
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.5, 5.8))
    draw_domain_distance(left, omega, names, annotate=False, font_size=9)
    image = draw_domain_distance(right, omega, names, annotate=False, font_size=9)
    right.set_yticks(range(len(names)), [])
    fig.colorbar(image, ax=[left, right], shrink=0.7, label="Ω")
    assert shown_text_px(fig, 1.0) >= MARGIN_PX


def test_aiq_heatmaps_in_the_suite_layout():
    from intellimetry.aiq.plots import draw_heatmap

    suite = ["digits", "digits-hard", "shapes10", "shapes100", "cartpole"]
    matrix = np.random.default_rng(0).uniform(0, 0.07, (5, 5))
    fig, axes = plt.subplots(2, 2, figsize=(9.5, 8.5))
    for ax in axes.flat:
        draw_heatmap(ax, matrix, suite, label="DS", fmt=".3f", tick_size=9, value_size=9)
    fig.tight_layout()
    assert shown_text_px(fig, 1.0) >= MARGIN_PX


def test_survival_rate_vs_size_with_model_names():
    from intellimetry.survival.plots import plot_rate_vs_size

    table = pd.DataFrame({"model": [f"Model-{i}B" for i in range(6)], "params": np.geomspace(1e8, 7e10, 6),
                          "alpha": np.linspace(1.2, 1.5, 6), "release_year": np.linspace(2019, 2025, 6)})
    fig, ax = plt.subplots(figsize=(7.5, 6.2))
    mapping = plot_rate_vs_size(ax, table)
    fig.colorbar(mapping, ax=ax, label="release date")
    ax.set_title("Decay rate vs model size, general domain (paper's digitised values)")
    fig.tight_layout()
    assert shown_text_px(fig, 1.0) >= MARGIN_PX
