"""Levels and the decay plot of the Intelligence Test."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest

from intellimetry.survival import classify_level, draw_level_regions, draw_level_scale, frequency_table, plot_decay


@pytest.mark.parametrize("alpha, level", [
    (1.2, "Limited"), (2.0, "Limited"), (2.0001, "Capable"), (3.0, "Capable"), (3.01, "Autonomous")])
def test_levels_follow_the_papers_thresholds(alpha, level):
    assert classify_level(alpha) == level


def test_frequency_table_drops_zero_and_counts_each_k():
    k, counts = frequency_table([0, 0, 1, 1, 1, 2, 5, 5])
    assert k.tolist() == [1, 2, 5] and counts.tolist() == [3, 1, 2]


def test_reference_lines_are_anchored_at_f1():
    fig, ax = plt.subplots()
    draw_level_regions(ax, f1=1000.0, k_max=100)
    dashed = next(line for line in ax.lines if line.get_linestyle() == "--")
    dashdot = next(line for line in ax.lines if line.get_linestyle() == "-.")
    k = dashed.get_xdata()
    assert np.allclose(dashed.get_ydata(), 1000.0 * k**-2.0)
    assert np.allclose(dashdot.get_ydata(), 1000.0 * k**-3.0)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.get_xlabel() == "Number of Failures (log scale)"
    plt.close(fig)


def test_plot_decay_shows_points_up_to_k_max_and_needs_k1():
    fig, ax = plt.subplots()
    k, counts = plot_decay(ax, [1, 1, 2, 3, 50], k_max=10)
    points = ax.lines[-1]
    assert points.get_xdata().tolist() == [1, 2, 3] and points.get_ydata().tolist() == [2, 1, 1]
    with pytest.raises(ValueError, match="anchored at f\\(1\\)"):
        plot_decay(ax, [2, 3, 3], k_max=10)
    plt.close(fig)


def test_level_scale_marks_each_subject_at_its_rates():
    fig, ax = plt.subplots()
    draw_level_scale(ax, {"A": (1.5, 1.52, 0.01), "B": (3.5, 3.4, 0.02)})
    drawn = ax.lines[0]
    assert drawn.get_ydata().tolist() == [1.5, 3.5]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["A", "B"]
    assert [t.get_text() for t in ax.texts] == ["Limited", "Capable", "Autonomous"]
    plt.close(fig)


def test_decay_rate_estimate_covers_a_known_alpha_and_names_the_level():
    from intellimetry.stats.bounded_power_law import sample_bounded_power_law
    from intellimetry.survival import estimate_decay_rate

    # a subject ranking 1,000 candidates: 3,000 successes at the first try, 20,000 counts on [1, 999]
    failures = np.concatenate([np.zeros(3000, int), sample_bounded_power_law(2.5, 20_000, 1, 999,
                                                                                np.random.default_rng(3))])
    result = estimate_decay_rate(failures, 1, 1000, resamples=40, rng=np.random.default_rng(0))
    assert result["ci_low"] < 2.5 < result["ci_high"] and result["ci_high"] - result["ci_low"] < 0.1
    assert result["level"] == "Capable" and not result["straddles"] and result["status"] == "measured"
    assert result["events"] == 23_000 and result["events_in_range"] == 20_000
    assert result["support"] == 1000 and result["k_max"] == 999
    assert abs(result["log_binned_alpha"] - 2.5) < 0.2 and result["log_binned_r2"] > 0.95


def test_a_count_outside_the_support_is_refused():
    from intellimetry.survival import estimate_decay_rate

    with pytest.raises(ValueError, match="must lie in \\[0, 9\\]"):
        estimate_decay_rate(np.array([0, 3, 10]), 1, 10, resamples=10, rng=np.random.default_rng(0))


def test_the_levels_of_the_synthetic_subjects_need_a_measured_rate():
    from intellimetry.survival.study import level_rows, levels_match, simulate_subjects

    true_alpha = {"limited": 1.5, "capable": 2.5, "autonomous": 3.5}
    reference = {level: {"condition": level} for level in true_alpha}
    failures, fits = simulate_subjects(true_alpha, 5000, 1000, 50, np.random.default_rng(0))
    assert all(sample.min() >= 1 and sample.max() <= 1000 for sample in failures.values())
    rows = level_rows(true_alpha, fits, reference)
    assert levels_match(rows) and rows["capable"]["support"] == 1001 and rows["capable"]["level_fit"] == "Capable"
    unmeasured = {**rows, "capable": {**rows["capable"], "status": "not a power law", "level_fit": None}}
    assert not levels_match(unmeasured)  # a rate the fit refuses places no subject at its level
