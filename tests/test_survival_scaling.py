"""Scaling prediction: the solver inverts its own fit, the timeline and hardware arithmetic."""
import numpy as np
import pytest

from intellimetry.survival import Hardware, Timeline, classify_interval, fit_scaling


def test_fit_recovers_an_exact_power_law_and_the_solver_inverts_it():
    sizes = np.array([1e8, 1e9, 1e10, 1e11])
    alpha = 0.5 * sizes**0.02
    fit = fit_scaling(sizes, alpha)
    assert fit.slope == pytest.approx(0.02) and fit.intercept == pytest.approx(np.log10(0.5))
    assert fit.r2 == pytest.approx(1.0)
    for target in (2.0, 3.0):
        size = fit.size_for_alpha(target)
        assert fit.alpha_at(size) == pytest.approx(target, rel=1e-12)
        assert size == pytest.approx((target / 0.5) ** 50, rel=1e-9)


def test_slope_p_value_known_answers():
    # a flat line has no trend (p = 1); an exact line has no doubt (p = 0); three points at
    # log10 N = 1, 2, 3 with log10 α = 0, 0.1, 0.3: r = 0.9820, t = 5.196 on 1 degree of freedom, p = 0.121
    assert fit_scaling([10, 100, 1000], [1.2, 1.5, 1.2]).p == pytest.approx(1.0)
    assert fit_scaling([1e8, 1e9, 1e10], [1.0, 1.1, 1.21]).p == pytest.approx(0.0, abs=1e-6)
    fit = fit_scaling([10, 100, 1000], [1.0, 10**0.1, 10**0.3])
    assert fit.slope == pytest.approx(0.15) and fit.p == pytest.approx(0.121, abs=5e-4)
    assert fit.as_dict()["p"] == fit.p


def test_flat_or_falling_scaling_has_no_solution():
    fit = fit_scaling([1e8, 1e9], [2.0, 1.9])
    with pytest.raises(ValueError, match="does not grow"):
        fit.size_for_alpha(3.0)


def test_timeline_base_year_and_doubling():
    timeline = Timeline()
    assert timeline.year(1e12) == pytest.approx(2025.0)
    assert timeline.year(2e12) == pytest.approx(2026.5)
    assert timeline.size(timeline.year(3.3e20)) == pytest.approx(3.3e20)


def test_hardware_arithmetic_by_hand():
    hardware = Hardware()
    cost = hardware.cost_of(4e12)  # 8 TB of 16-bit weights
    assert cost["gpus"] == pytest.approx(100.0)
    assert cost["cost"] == pytest.approx(3e6)
    assert cost["market_value_multiple"] == pytest.approx(3e6 / 3.7e12)
    assert cost["human_neuron_multiple"] == pytest.approx(4e12 / (8.6e10 * 8e9))


@pytest.mark.parametrize("field", ["gpu_price", "gpu_memory_bytes", "bytes_per_parameter", "market_value"])
def test_hardware_rejects_non_positive_values(field):
    with pytest.raises(ValueError, match=f"{field} must be positive"):
        Hardware(**{field: -1.0})


def test_interval_that_straddles_a_threshold_is_reported():
    assert classify_interval(2.5, 2.2, 2.8) == {"level": "Capable", "low_level": "Capable",
                                                "high_level": "Capable", "straddles": False}
    call = classify_interval(2.9, 2.7, 3.2)
    assert call["level"] == "Capable" and call["high_level"] == "Autonomous" and call["straddles"]


def test_prediction_figure_rejects_a_negative_gpu_price_before_running():
    from intellimetry import paths
    from intellimetry.pipeline.registry import ParameterError, discover

    figure = discover(paths.NOTEBOOKS_DIR)["survival-fig13-prediction"]
    with pytest.raises(ParameterError, match="gpu_price_usd"):
        figure.resolve("quick", {"gpu_price_usd": "-30000"})
    assert figure.resolve("quick", {"gpu_price_usd": "25000"})["gpu_price_usd"] == 25000.0


def test_rate_ticks_every_half_on_a_short_range_and_1_2_5_per_decade_on_a_long_one():
    from intellimetry.survival.plots import rate_ticks

    assert rate_ticks(0.8, 3.75).tolist() == [1.0, 1.5, 2.0, 2.5, 3.0, 3.5]
    # a line with slope 0.136 extended to 1e30 parameters ends near α = 1,900: 3,900 half steps before
    assert rate_ticks(0.8, 1947.0).tolist() == [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]


def test_a_prediction_panel_extended_far_beyond_its_sizes_draws_a_few_ticks():
    import matplotlib.pyplot as plt

    from intellimetry.survival.plots import plot_prediction

    sizes = np.array([1e3, 1e4, 1e5])
    fit = fit_scaling(sizes, 0.147 * sizes**0.136)
    fig, ax = plt.subplots()
    plot_prediction(ax, sizes, 0.147 * sizes**0.136, fit, Timeline(2025.0, 1e12, 1.5), 1e30, targets={})
    assert len(ax.get_yticks()) <= 12
    plt.close(fig)
