"""Decay rate against size over a family (Figs. 12-13): lines through rate rows, what counts as measured,
and the extrapolation that only a measured, rising line gets."""
import numpy as np
import pytest

from intellimetry.survival.language import study
from intellimetry.survival.rates import alpha_span, decay_rates, rising_share, size_scaling
from intellimetry.survival.scaling import Hardware, Timeline, fit_scaling


def row(alpha, status="measured", half_width=0.02, events=500):
    return {"alpha": alpha, "ci_low": None if alpha is None else alpha - half_width,
            "ci_high": None if alpha is None else alpha + half_width, "status": status,
            "events_in_range": events, "level": None if alpha is None else "Limited"}


SIZES = {f"m{i}": n for i, n in enumerate([1e3, 1e4, 1e5, 1e6])}


def test_size_lines_recover_a_known_log_log_slope_with_its_interval():
    rates = {m: {"a": row(1.1 * n**0.05), "b": row(2.0 * n**-0.01)} for m, n in SIZES.items()}
    lines = size_scaling(rates, SIZES)
    assert lines["a"]["slope"] == pytest.approx(0.05) and lines["a"]["rises"] and lines["a"]["measured"]
    assert lines["b"]["slope"] == pytest.approx(-0.01) and not lines["b"]["rises"]
    assert lines["a"]["decades"] == pytest.approx(3.0) and lines["a"]["fewest_events_in_range"] == 500
    assert lines["a"]["intervals"][0] == pytest.approx([1.1 * 1e3**0.05 - 0.02, 1.1 * 1e3**0.05 + 0.02])
    # exact points: the slope's interval closes on the slope
    assert lines["a"]["slope_interval"] == pytest.approx([0.05, 0.05], abs=1e-9)
    # one slope significantly positive, one significantly negative: the share is 0.5 whatever the noise
    assert rising_share(lines) == {"sets": 2, "measured": 2, "positive": 1, "significant": 1,
                                   "significantly_negative": 1, "share_positive": 0.5, "share_interval": [0.5, 0.5]}


def test_the_slope_interval_covers_a_noisy_lines_slope():
    rng = np.random.default_rng(4)
    sizes = np.geomspace(1e3, 1e6, 8)
    alphas = 1.1 * sizes**0.02 * np.exp(rng.normal(0, 0.01, sizes.size))
    fit = fit_scaling(sizes, alphas)
    low, high = fit.slope_interval
    assert low < 0.02 < high and low < fit.slope < high
    assert fit_scaling([1e3, 1e4], [1.0, 1.1]).slope_interval is None  # two points leave no residual


def test_a_line_through_a_rejected_law_is_drawn_but_not_measured():
    rates = {m: {"a": row(1.1 * n**0.05)} for m, n in SIZES.items()}
    rates["m2"]["a"] = row(1.3, status="not a power law")
    line = size_scaling(rates, SIZES)["a"]
    assert line["slope"] is not None and line["measured"] is False and line["rises"] is False
    assert line["unmeasured"] == 1 and line["statuses"][2] == "not a power law"
    assert rising_share({"a": line})["measured"] == 0


def test_rates_at_or_below_zero_or_without_a_value_make_no_log_log_line():
    flat = {m: {"a": row(a)} for m, a in zip(SIZES, [0.01, -0.02, 0.0, 0.03])}  # a random ranker's
    no_line = size_scaling(flat, SIZES)["a"]
    assert no_line["slope"] is None and not no_line["measured"] and no_line["models"] == 4  # a page can say so
    missing = {m: {"a": row(1.2)} for m in SIZES} | {"m0": {"a": row(None, status="too few events", events=3)}}
    line = size_scaling(missing, SIZES)["a"]
    assert line["slope"] is None and line["alphas"][0] is None and line["fewest_events_in_range"] == 3


def line_of(alphas, statuses=None):
    rates = {m: {"g": row(a, s)} for m, a, s in zip(["s", "l"], alphas, statuses or ["measured"] * 2)}
    return size_scaling(rates, {"s": 1e3, "l": 1e5})["g"]


def test_family_prediction_extrapolates_only_a_measured_rising_line():
    timeline, hardware = Timeline(), Hardware()
    fit, values = study.family_prediction(line_of([1.1, 1.1 * 100**0.05]), timeline, hardware)
    size = 10 ** (np.log10(3 / 1.1) / 0.05 + 3)
    assert values["autonomous"]["params"] == pytest.approx(size, rel=1e-6)
    assert values["autonomous"]["decades_extrapolated"] == pytest.approx(np.log10(size / 1e5))
    assert "α = 3 at N ≈" in values["summary"] and "decades beyond our largest member" in values["summary"]
    _, flat = study.family_prediction(line_of([1.2, 1.1]), timeline, hardware)
    assert flat["reaches_levels"] is False and "autonomous" not in flat
    assert flat["summary"].startswith("α does not rise with size")
    _, rejected = study.family_prediction(line_of([1.1, 1.3], ["measured", "not a power law"]), timeline, hardware)
    assert rejected["reaches_levels"] is False and "not a power law" in rejected["summary"]
    _, none = study.family_prediction(line_of([0.0, 0.01]), timeline, hardware)
    assert none["fit"] is None and "no log-log line" in none["summary"]


def test_alpha_span_counts_the_rates_that_were_not_measured():
    rows = {"a": row(0.9, "not a power law"), "b": row(1.4), "c": row(None, "too few events")}
    assert alpha_span(rows) == {"alpha_min": 0.9, "alpha_max": 1.4, "sets": 3, "unmeasured": 2}


def test_decay_rates_fit_on_the_support_and_refuse_counts_beyond_it():
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 50, 2000)
    fitted = decay_rates({"s": counts}, 1, 50, 50, rng)["s"]
    # uniform counts: alpha 0 within about three standard errors (1 / (sqrt(n) sd(log k)) ≈ 0.025 here)
    assert fitted["support"] == 50 and fitted["k_max"] == 49 and abs(fitted["alpha"]) < 0.08
    assert fitted["level"] == "Limited" and fitted["status"] == "measured"
    with pytest.raises(ValueError, match=r"must lie in \[0, 39\] for a support of 40"):
        decay_rates({"s": counts}, 1, 40, 50, rng)
    empty = decay_rates({"s": np.zeros(30, dtype=int)}, 5, 1000, 10, rng)["s"]
    assert empty["alpha"] is None and empty["status"] == "too few events" and empty["level"] is None


def test_a_rate_in_words_gives_a_value_only_where_one_was_fitted_and_bounds_as_bounds():
    from intellimetry.survival.decay_rate import describe_rate

    base = {"events_in_range": 140, "k_min": 5, "k_max": 49151, "bound": None}
    assert describe_rate({**base, "alpha": 1.234, "ci_low": 1.1, "ci_high": 1.35, "status": "measured",
                          "level": "Limited"}) == "α = 1.23 [1.10, 1.35], measured, Limited (140 events in [5, 49151])"
    # an unmeasured rate gets no level; an interval end at the search range's end is a bound
    assert describe_rate({**base, "alpha": 2.01, "ci_low": 1.42, "ci_high": 20.0, "status": "too few events",
                          "level": "Capable"}) == "α = 2.01 [1.42, ≥ 20], too few events (140 events in [5, 49151])"
    assert describe_rate({**base, "alpha": None, "ci_low": None, "ci_high": None, "status": "bound",
                          "bound": "alpha >= 20"}) == "no rate: bound, alpha >= 20 (140 events in [5, 49151])"
