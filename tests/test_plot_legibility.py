"""Figure text stays readable at the width the book shows it (the browser check's 8 px rule), checked on
the shared drawing helpers with tiny synthetic inputs, in the layouts their notebooks use."""
from __future__ import annotations

import io
import json
import re
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from intellimetry.book.check import READABLE_PX as CHECK_READABLE_PX
from intellimetry.book.check import svg_text_sizes
from intellimetry.plotting.drawn import Box, figure_contents, overlap
from intellimetry.plotting.legibility import (
    CONTENT_PX,
    PX_PER_PT,
    READABLE_PX,
    IllegibleFigure,
    book_width_fraction,
    legibility_problems,
    shown_text_px,
)

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


# The save-time check (intellimetry.plotting.legibility.check_legible): synthetic figures with known answers.

def test_a_clean_one_panel_figure_passes():
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [3, 1, 2], label="ours")
    ax.set(title="a title", xlabel="x", ylabel="y")
    ax.legend()
    assert legibility_problems(fig, 1.0) == []


def test_nine_panels_in_a_row_of_6_4_inches_fail_on_size():
    fig, axes = plt.subplots(1, 9, figsize=(6.4, 4.2))
    for ax in axes:
        ax.plot([1, 2, 3])
    problems = legibility_problems(fig, 1.0)
    small = [p for p in problems if "an axes with tick labels needs at least 100 px along them" in p]
    assert len(small) == 9  # each ~50 px wide at the column's 672 px
    assert "row 1, column 5 of 1 × 9" in small[4]


def test_a_colour_bar_and_strips_with_nothing_to_read_along_them_pass():
    fig, (ax, column, key) = plt.subplots(1, 3, figsize=(7, 4), width_ratios=[6, 0.4, 1])
    image = ax.imshow(np.arange(16).reshape(4, 4))
    fig.colorbar(image, ax=ax, label="value")
    column.imshow(np.arange(10).reshape(10, 1))  # a one-column raster: labelled along its height only
    column.set_xticks([])
    key.set_axis_off()
    key.text(0, 0.5, "a note")
    assert legibility_problems(fig, 1.0) == []
    column.set_xticks([0], ["t"])  # a label to read across a strip of about 25 px: too narrow
    assert [p for p in legibility_problems(fig, 1.0) if "column 2 of 1 × 3" in p and "needs at least" in p]


def test_tick_labels_of_one_axis_overlapping_fail_and_turned_apart_pass():
    fig, ax = plt.subplots(figsize=(6.4, 4))
    labels = [f"category {i}" for i in range(12)]
    ax.set_xticks(range(12), labels)
    problems = legibility_problems(fig, 1.0)
    assert any(p.startswith('x tick labels "category 0" and "category 1"') and p.endswith("overlap")
               for p in problems)
    ax.set_xticks(range(12), labels, rotation=45, ha="right")  # their ink apart, their upright boxes not
    assert legibility_problems(fig, 1.0) == []


def test_tick_labels_of_neighbouring_axes_overlapping_fail():
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.4, 3))
    fig.subplots_adjust(wspace=0.02)  # the right panel's y tick labels sit on the left panel
    left.plot([0, 1], [0, 1000])
    right.plot([0, 1], [0, 1000])
    left.set_title("left")
    problems = legibility_problems(fig, 1.0)
    assert any(re.match(r'y tick label "\d+" of untitled axes in row 1, column 2 of 1 × 2 runs into axes "left"', p)
               for p in problems)


def test_a_legend_on_an_axis_label_fails():
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], label="a series")
    ax.set_ylabel("decay rate")
    ax.legend(loc="center right", bbox_to_anchor=(0.0, 0.5))  # out of the axes, onto the y label
    problems = legibility_problems(fig, 1.0)
    assert any(p.startswith("the legend (a series)") and 'overlaps y axis label "decay rate"' in p
               or 'y axis label "decay rate"' in p and "overlaps the legend (a series)" in p for p in problems)


def test_a_title_on_the_panel_above_fails():
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.4, 5))
    fig.subplots_adjust(hspace=0.0)
    top.set_ylabel("upper")
    bottom.set_title("the lower panel's title")
    problems = legibility_problems(fig, 1.0)
    assert any(p.startswith("title \"the lower panel's title\"") and p.endswith('runs into axes (y "upper") in '
                                                                               "row 1, column 1 of 2 × 1")
               for p in problems)


def test_a_five_point_font_fails():
    fig, ax = plt.subplots()  # 6.4 in: shown at its width, under the column's 672 px, so 1 pt = 4/3 px
    ax.plot([1, 2, 3])
    ax.tick_params(labelsize=5)
    problems = legibility_problems(fig)
    assert problems and all("is 6.7 px tall as shown (5 pt); text needs at least 8 px" in p for p in problems)


def test_save_figure_refuses_an_illegible_figure_and_writes_nothing(tmp_path, monkeypatch):
    from intellimetry.plotting import save_figure
    from intellimetry.provenance import RUN_CONTEXT_ENV

    context = {"figure_id": "soc-fig99-test", "profile": "smoke", "parameters": {}, "hash": "x",
               "output_dir": str(tmp_path), "commit": "1"}
    monkeypatch.setenv(RUN_CONTEXT_ENV, json.dumps(context))
    fig, axes = plt.subplots(1, 9, figsize=(6.4, 4.2))
    with pytest.raises(IllegibleFigure, match=r"soc-fig99-test would not be legible in the book \(shown \d+ px wide"):
        save_figure(fig, "soc-fig99-test")
    assert list(tmp_path.iterdir()) == []


def test_survival_fig12_as_it_was_fails(monkeypatch):
    """Fig. 12 as the issue found it (issue 36): nine rate-vs-size panels in one row of the default
    6.4-inch figure, drawn by the chapter's own functions: strips of about 40 px, tick labels of
    neighbouring panels on each other, legends on the next panel's axis labels."""
    from intellimetry.survival.plots import SERIES_COLORS, plot_rate_vs_size, rate_vs_size_panel

    fig, axes = plt.subplots(1, 9, figsize=(6.4, 4.2), layout="constrained")
    with pytest.warns(UserWarning, match="constrained_layout not applied"):  # matplotlib gives up, as it did
        for index, ax in enumerate(axes[:8]):
            for k in range(2 if index >= 5 else 1):
                rate_vs_size_panel(ax, _size_line(0.01 * (k + 1)), f"panel {index}, ours", color=SERIES_COLORS[k],
                                   series=f"task {k}" if index >= 5 else None)
        mapping = plot_rate_vs_size(axes[8], _digitised_rates(), annotate=False)
        fig.colorbar(mapping, ax=axes[8], label="release year")
        problems = legibility_problems(fig, 1.0)
    assert sum("an axes with tick labels needs at least 100 px along them" in p for p in problems) == 9
    assert any(re.match(r'x tick label "\$10\^\{6\}\$" of axes "panel 0, ours".* overlaps x tick label', p)
               for p in problems)
    assert any(p.startswith("the legend") and "overlaps y tick label" in p for p in problems)
    assert any('x axis label "non-embedding parameters N" of axes "panel 0' in p and "overlaps x axis label" in p
               for p in problems)


def test_survival_fig12_in_two_columns_passes():
    """The same panels in the grid Fig. 12 uses now (survival.plots.panel_grid, two columns of 4 × 3.1
    inches, the paper's values and the loss panel last) pass."""
    from intellimetry.survival.plots import (
        SERIES_COLORS,
        panel_grid,
        plot_rate_vs_size,
        rate_vs_loss_panel,
        rate_vs_size_panel,
    )

    fig, axes = panel_grid(11, columns=2, panel_size=(4.0, 3.1))
    for index, ax in enumerate(axes[:9]):
        for k in range(3 if index >= 6 else 1):
            rate_vs_size_panel(ax, _size_line(0.01 * (k + 1)), f"panel {index}, ours", color=SERIES_COLORS[k],
                               series=f"GSM8K-like, {k}-shot" if index >= 6 else None)
    mapping = plot_rate_vs_size(axes[-2], _digitised_rates(), annotate=False, fit_label="fit")
    fig.colorbar(mapping, ax=axes[-2], label="release year", shrink=0.9)
    members = [{"general_alpha": 0.85 + 0.01 * i, "validation_loss": 6.7 - 0.1 * i, "general_ci_low": 0.8,
                "general_ci_high": 0.95, "non_embedding_params": 3e3 * 4 ** i} for i in range(6)]
    rate_vs_loss_panel(axes[-1], members, "general: α against held-out loss (labels: N)")
    assert legibility_problems(fig, 1.0) == []


def test_aiq_novelty_chart_in_the_notebooks_layout():
    """aiq-tab01-novelties: a chart of the ticks per novelty, not a table drawn as an image."""
    from intellimetry.aiq.plots import draw_novelty_survival

    policies, novelties = ["nothing", "random", "heuristic"], list(range(17))
    cell = {"estimate": 100.0, "low": 60.0, "high": 140.0}
    survival = {"novelties": novelties, "policies": policies, "episodes": 100,
                "mean": {p: {str(n): cell for n in novelties} for p in policies},
                "easier": {p: [1, 9] for p in policies}, "harder": {p: [14] for p in policies}}
    effects = {n: "Blocks move on fixed axis in plane of cartpole." for n in novelties}
    fig, ax = plt.subplots(figsize=(9, 8), layout="constrained")
    draw_novelty_survival(ax, survival, effects)
    ax.set_title("Ticks the pole stays up per novelty (easy level), three policies that learn nothing")
    assert not fig.axes[0].tables
    assert legibility_problems(fig, 1.0) == []


def _size_line(slope: float) -> dict:
    sizes = np.geomspace(3e3, 8e5, 6)
    alphas = 0.85 * (sizes / sizes[0]) ** slope
    return {"sizes": sizes.tolist(), "alphas": alphas.tolist(), "intervals": [[a - 0.04, a + 0.04] for a in alphas],
            "slope": slope, "intercept": float(np.log10(0.85) - slope * np.log10(sizes[0])), "p": 0.01}


def _digitised_rates() -> pd.DataFrame:
    return pd.DataFrame({"model": [f"m{i}" for i in range(8)], "params": np.geomspace(1e8, 7e10, 8),
                         "alpha": np.linspace(1.2, 1.5, 8), "release_year": np.linspace(2019, 2025, 8)})


def test_texts_on_a_3d_axes_are_where_they_are_drawn():
    """A 3-D text's 2-D position is its data coordinates outside a draw; its box must be its projected
    place (AIQ Fig. 25 read a point label of its 3-D panel as lying on the bar panel's legend)."""
    fig = plt.figure(figsize=(9.5, 4.5))
    bars = fig.add_subplot(1, 2, 1)
    bars.bar(range(3), [1, 2, 3], label="N1")
    bars.legend(loc="upper right")
    space = fig.add_subplot(1, 2, 2, projection="3d")
    corners = [(0, 0, 0), (1, 1, 1), (1, 0, 1)]
    space.scatter(*zip(*corners))
    for k, corner in enumerate(corners):
        space.text(*corner, f"point {k}", fontsize=9)
    assert legibility_problems(fig, 1.0) == []
    drawn, _ = figure_contents(fig, fig._get_renderer())
    area = space.get_window_extent()
    labels = [d.box for d in drawn if d.text.startswith("point")]
    assert len(labels) == 3 and all(area.x0 < b.cx < area.x1 and area.y0 < b.cy < area.y1 for b in labels)


@pytest.mark.parametrize(("offset", "angle", "depth"), [
    ((0.5, 0.0), 0.0, 0.5),  # unit squares half over each other
    ((1.5, 0.0), 0.0, 0.0),  # apart
    ((1.2, 0.0), 45.0, 1.0 / 2 + np.sqrt(2) / 2 - 1.2),  # a diamond's corner reaches into the square
])
def test_box_overlap_known_answers(offset, angle, depth):
    a = Box(0.0, 0.0, 1.0, 1.0)
    b = Box(offset[0], offset[1], 1.0, 1.0, np.radians(angle))
    assert overlap(a, b) == pytest.approx(depth)
    assert overlap(b, a) == pytest.approx(depth)


def test_book_width_fraction_reads_the_pages(tmp_path):
    (tmp_path / "aiq").mkdir()
    (tmp_path / "_build").mkdir()
    (tmp_path / "aiq" / "index.md").write_text(
        ":::{figure} /generated/aiq/aiq-fig02-curve.svg\n:name: aiq-fig02-curve\n:width: 85%\n\ncaption\n:::\n"
        ":::{figure} /generated/aiq/aiq-fig02-curve.svg\n:width: 336px\n:::\n"
        ":::{figure} /generated/aiq/aiq-fig03-other.svg\n:name: other\n:::\n", encoding="utf-8")
    (tmp_path / "_build" / "copy.md").write_text(":::{figure} aiq-fig03-other.svg\n:width: 10%\n", encoding="utf-8")
    assert book_width_fraction("aiq-fig02-curve", tmp_path) == pytest.approx(0.5)  # the narrower of the two
    assert book_width_fraction("aiq-fig03-other", tmp_path) is None  # no width; the build's copy is not a source
    assert book_width_fraction("aiq-fig04-absent", tmp_path) is None
