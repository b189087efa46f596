"""One plotting style for the whole book, and save_figure: SVG + PNG + a JSON sidecar per figure."""
from intellimetry.plotting.save import save_figure
from intellimetry.plotting.style import COLORS, apply_style

apply_style()

__all__ = ["COLORS", "apply_style", "save_figure"]
