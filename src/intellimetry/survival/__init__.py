"""The Intelligence Test (Survival Game): failure counts, decay plots and levels."""
from intellimetry.survival.levels import LEVELS, THRESHOLDS, classify_level
from intellimetry.survival.decay_plot import draw_level_regions, draw_level_scale, frequency_table, plot_decay

__all__ = ["LEVELS", "THRESHOLDS", "classify_level", "draw_level_regions", "draw_level_scale", "frequency_table", "plot_decay"]
