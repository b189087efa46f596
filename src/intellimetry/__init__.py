"""intellimetry: re-implementations of five papers on measuring machine intelligence."""

__version__ = "0.1.0"

# The chapters that re-implement a paper, in the book's order.
PAPERS = ("survival", "soc", "aiq", "combined", "gindex", "agitb")
# Chapters that are not papers: studies of our own across the papers' measures. A study's subpackage may
# import the papers' (listing them under `depends` in its figures' YAML); no paper imports a study.
STUDIES = ("agreement",)
# Every chapter of the book: a figure-id prefix and a folder under notebooks/, data/reference/, figures/<profile>/
# and book/.
CHAPTERS = PAPERS + STUDIES
# Library used by the studies only (the subjects every measure is applied to): no paper imports it, so a
# paper figure's hash leaves it out and editing it re-runs the studies' figures alone.
STUDY_LIBRARIES = ("subjects",)
