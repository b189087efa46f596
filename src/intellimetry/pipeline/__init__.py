"""Tooling that decides how figures run: the registry, content hashes, locks and the runner.

Library code (the papers' subpackages and the shared modules) never imports from here.
"""
