"""Shared power-law statistics: known exponents are recovered."""
import numpy as np
import pytest

from intellimetry.stats import (
    bootstrap_interval,
    fit_discrete_power_law,
    fit_log_binned,
    fit_raw_histogram,
    sample_discrete_power_law,
)


@pytest.mark.parametrize("alpha", [1.5, 2.5, 3.5])
def test_mle_recovers_alpha_on_large_synthetic_samples(alpha):
    samples = sample_discrete_power_law(alpha, 100_000, np.random.default_rng(7))
    fit = fit_discrete_power_law(samples, k_min=1)
    assert fit.alpha == pytest.approx(alpha, abs=0.05)
    assert 0 < fit.sigma < 0.05 and fit.n == samples.size


def test_truncated_fit_uses_only_the_stated_range():
    samples = sample_discrete_power_law(2.0, 50_000, np.random.default_rng(1))
    fit = fit_discrete_power_law(samples, k_min=2, k_max=100)
    assert fit.n == int(((samples >= 2) & (samples <= 100)).sum())
    assert fit.alpha == pytest.approx(2.0, abs=0.05)


def test_sampler_is_seeded_and_rejects_alpha_at_most_one():
    a = sample_discrete_power_law(2.5, 10, np.random.default_rng(3))
    b = sample_discrete_power_law(2.5, 10, np.random.default_rng(3))
    assert (a == b).all() and a.min() >= 1
    with pytest.raises(ValueError, match="alpha must be > 1"):
        sample_discrete_power_law(1.0, 10, np.random.default_rng(0))


def test_fit_needs_two_distinct_values():
    with pytest.raises(ValueError, match="two distinct values"):
        fit_discrete_power_law(np.ones(100, dtype=int))


def test_least_squares_fits_recover_an_exact_power_law():
    # an exact histogram: count(k) = round(1e6 * k^-2.5), every k present
    k = np.arange(1, 101)
    samples = np.repeat(k, np.round(1e6 * k**-2.5).astype(int))
    raw = fit_raw_histogram(samples, 1, 100)
    assert raw.alpha == pytest.approx(2.5, abs=0.01) and raw.r2 > 0.999 and raw.points == 100
    binned = fit_log_binned(samples, 1, 100, bins_per_decade=5)
    assert binned.alpha == pytest.approx(2.5, abs=0.1) and binned.r2 > 0.99


def test_raw_histogram_is_biased_low_on_a_sparse_tail_and_mle_is_not():
    samples = sample_discrete_power_law(2.5, 2_000, np.random.default_rng(4))
    assert fit_raw_histogram(samples, 1, 1000).alpha < 2.2
    assert fit_discrete_power_law(samples, 1, 1000).alpha == pytest.approx(2.5, abs=0.15)


def test_bootstrap_interval_covers_the_truth_and_is_seeded():
    samples = np.random.default_rng(5).normal(3.0, 1.0, 400)
    a = bootstrap_interval(samples, np.mean, 300, np.random.default_rng(0))
    b = bootstrap_interval(samples, np.mean, 300, np.random.default_rng(0))
    assert a == b and a.low < a.estimate < a.high
    assert a.low < 3.0 < a.high and a.high - a.low == pytest.approx(2 * 1.96 / 20, rel=0.2)
    with pytest.raises(ValueError, match="level"):
        bootstrap_interval(samples, np.mean, 10, np.random.default_rng(0), level=1.5)


def test_expected_counts_sum_to_the_events_in_range():
    samples = sample_discrete_power_law(2.5, 5_000, np.random.default_rng(2))
    fit = fit_discrete_power_law(samples, k_min=2, k_max=50)
    assert fit.expected_count(np.arange(2, 51)).sum() == pytest.approx(fit.n)
    line = fit_raw_histogram(samples, 1, 50)
    assert line.expected_count(1) == pytest.approx(10**line.intercept)


def test_mean_interval_by_hand():
    from intellimetry.stats import mean_interval
    # values 1, 2, 3: mean 2, sd 1, t_{0.975, 2} = 4.302653 -> half width 4.302653 / sqrt(3) = 2.484138
    interval = mean_interval([1.0, 2.0, 3.0])
    assert interval.estimate == 2.0 and interval.method == "t" and interval.level == 0.95
    assert interval.high - 2.0 == pytest.approx(2.484138, rel=1e-6)
    assert interval.low == pytest.approx(2.0 - 2.484138, rel=1e-6)
    percentile = mean_interval([1.0, 2.0, 3.0], level=0.5, method="percentile")
    assert (percentile.low, percentile.high) == (1.5, 2.5)
    with pytest.raises(ValueError, match="at least two"):
        mean_interval([1.0])
    with pytest.raises(ValueError, match="level"):
        mean_interval([1.0, 2.0], level=1.5)


def test_check_int_names_the_parameter():
    from intellimetry.checks import check_int
    assert check_int("steps", np.int64(3), 0) == 3 and type(check_int("steps", np.int64(3), 0)) is int
    for bad in (True, 2.0, "3", -1):
        with pytest.raises(ValueError, match=r"steps must be an integer >= 0"):
            check_int("steps", bad, 0)


def test_power_law_interval_leaves_out_resamples_without_an_estimate():
    from intellimetry.stats.powerlaw_fit import fit_with_interval

    few = np.array([5, 5, 5, 6, 9])  # many resamples hold one distinct value: no MLE there
    fit, interval = fit_with_interval(few, 5, 100, 200, np.random.default_rng(0))
    assert np.isfinite(interval.low) and np.isfinite(interval.high) and interval.low <= fit.alpha <= interval.high


@pytest.mark.parametrize("alpha,k_min,k_max", [(1.3, 5, 1000), (2.0, 1, 50), (3.0, 10, 10_000), (1.05, 1, 1000)])
def test_bootstrap_solver_matches_the_powerlaw_package(alpha, k_min, k_max):
    # both maximise the same truncated likelihood, one per resample through powerlaw, one from mean log k
    from intellimetry.stats.powerlaw_fit import _inside, truncated_mle_from_mean_log

    rng = np.random.default_rng(1)
    for n in (30, 400, 3000):
        samples = _inside(sample_discrete_power_law(alpha, 20 * n, rng), k_min, k_max)[:n]
        expected = fit_discrete_power_law(samples, k_min, k_max).alpha
        solved = truncated_mle_from_mean_log([np.log(samples).mean()], k_min, k_max)[0]
        assert solved == pytest.approx(expected, abs=5e-4)


def test_bootstrap_solver_stays_at_the_bounds_for_flat_and_steep_samples():
    from intellimetry.stats.powerlaw_fit import ALPHA_RANGE, truncated_mle_from_mean_log

    uniform_mean = np.log(np.arange(5, 1001)).mean()  # flatter than any alpha > 1 allows
    at_k_min = np.log(5.0) + 1e-9                       # nearly every event at k_min: steeper than 20
    assert truncated_mle_from_mean_log([uniform_mean, at_k_min], 5, 1000).tolist() == pytest.approx(list(ALPHA_RANGE))


def test_power_law_interval_equals_refitting_every_resample_with_powerlaw():
    from intellimetry.stats.powerlaw_fit import _alpha_or_nan, _inside, fit_with_interval

    samples = _inside(sample_discrete_power_law(1.6, 4000, np.random.default_rng(2)), 5, 1000)
    _, fast = fit_with_interval(samples, 5, 1000, 60, np.random.default_rng(3))
    slow = bootstrap_interval(samples, lambda s: _alpha_or_nan(s, 5, 1000), 60, np.random.default_rng(3))
    assert (fast.low, fast.high) == pytest.approx((slow.low, slow.high), abs=5e-4)
