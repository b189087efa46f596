"""Shared statistics: power-law sampling and fitting used by several chapters."""
from intellimetry.stats.powerlaw_fit import PowerLawFit, fit_discrete_power_law, sample_discrete_power_law

__all__ = ["PowerLawFit", "fit_discrete_power_law", "sample_discrete_power_law"]
