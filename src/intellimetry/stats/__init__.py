"""Shared statistics: power-law sampling and fitting, bootstrap intervals, rank correlations; used by
several chapters."""
from intellimetry.stats.bootstrap import Interval, bootstrap_interval, mean_interval
from intellimetry.stats.correlation import rank_correlation
from intellimetry.stats.powerlaw_fit import (
    LineFit,
    PowerLawFit,
    fit_discrete_power_law,
    fit_log_binned,
    fit_raw_histogram,
    fit_with_interval,
    log_binned_frequency,
    sample_discrete_power_law,
)

__all__ = ["Interval", "LineFit", "mean_interval", "PowerLawFit", "bootstrap_interval",
           "fit_discrete_power_law", "fit_log_binned", "fit_raw_histogram", "fit_with_interval",
           "log_binned_frequency", "rank_correlation", "sample_discrete_power_law"]
