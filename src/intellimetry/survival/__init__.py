"""The Intelligence Test (Survival Game): failure counts, decay plots, levels and the scaling prediction."""
from intellimetry.survival.decay_rate import estimate_decay_rate, frequency_table
from intellimetry.survival.failure_counts import failure_counts, failure_counts_from_embeddings
from intellimetry.survival.levels import LEVELS, THRESHOLDS, classify_interval, classify_level
from intellimetry.survival.plots import (
    draw_level_regions,
    draw_level_scale,
    draw_power_law,
    plot_decay,
    plot_decay_counts,
)
from intellimetry.survival.scaling import Hardware, ScalingFit, Timeline, fit_scaling

__all__ = ["LEVELS", "THRESHOLDS", "Hardware", "ScalingFit", "Timeline", "classify_interval", "classify_level",
           "draw_level_regions", "draw_level_scale", "draw_power_law", "estimate_decay_rate", "failure_counts",
           "failure_counts_from_embeddings", "fit_scaling", "frequency_table", "plot_decay", "plot_decay_counts"]
