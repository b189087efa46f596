"""Tooling that shows the figures: the book build, the Sphinx roles, the headless-browser check.

Library code (the papers' subpackages and the shared modules) never imports from here.
"""
