"""intellimetry: re-implementations of five papers on measuring machine intelligence."""

__version__ = "0.1.0"

PAPERS = ("survival", "soc", "aiq", "combined", "gindex", "agitb")
