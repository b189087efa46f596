"""Shared power-law statistics: known exponents are recovered."""
import numpy as np
import pytest

from intellimetry.stats import fit_discrete_power_law, sample_discrete_power_law


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
