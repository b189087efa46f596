"""Driving a sandpile to its stationary state, recording avalanches, and fitting their exponent."""
from __future__ import annotations

import numpy as np

from intellimetry.soc.kernels import drive
from intellimetry.soc.sandpile import Sandpile
from intellimetry.stats import fit_with_interval


def relax_to_stationary(pile: Sandpile, rng: np.random.Generator, batch: int | None = None, window: int = 5,
                        tolerance: float = 2e-3, max_batches: int = 10_000, kernel: str = "numba") -> dict:
    """Add grains in batches until the mean height stops growing, judged from the heights themselves.

    After each batch (default: one grain per site) the mean height is recorded; the pile counts as
    stationary when the mean over the last `window` batches differs from the mean over the
    `window` before by less than `tolerance` (relative). Returns the trace and the grains added.
    """
    batch = batch or pile.n_sites
    trace = [float(pile.heights.mean())]
    for n_batches in range(1, max_batches + 1):
        drive(pile, rng.integers(0, pile.n_sites, batch), kernel)
        trace.append(float(pile.heights.mean()))
        if n_batches >= 2 * window:
            recent, before = np.mean(trace[-window:]), np.mean(trace[-2 * window:-window])
            if abs(recent - before) <= tolerance * recent:
                return {"stationary": True, "grains": n_batches * batch, "batches": n_batches,
                        "mean_height": recent, "trace": trace}
    raise RuntimeError(f"{pile.description}: the mean height still changed after {max_batches} batches of "
                       f"{batch} grains; raise max_batches or tolerance")


def record_avalanches(pile: Sandpile, n_grains: int, rng: np.random.Generator, kernel: str = "numba",
                      chunk: int = 100_000, progress: bool = False) -> dict:
    """Drop `n_grains` more grains at random sites; size, area and duration of each avalanche."""
    parts = []
    chunks = range(0, n_grains, chunk)
    if progress:
        from tqdm import tqdm
        chunks = tqdm(chunks, desc=pile.description, leave=False)
    for start in chunks:
        parts.append(drive(pile, rng.integers(0, pile.n_sites, min(chunk, n_grains - start)), kernel))
    return {key: np.concatenate([p[key] for p in parts]) for key in ("size", "area", "duration")} | {
        "lost": sum(p["lost"] for p in parts)}


def fit_avalanche_exponent(sizes, s_min: int, s_max: int, resamples: int, rng: np.random.Generator,
                           level: float = 0.95, workers: int = 1) -> dict:
    """tau of P(s) ∝ s^-tau by discrete MLE on [s_min, s_max], with a percentile bootstrap interval
    (``workers``: see :func:`intellimetry.stats.fit_with_interval`; the values do not depend on it)."""
    sizes = np.asarray(sizes)
    fit, interval = fit_with_interval(sizes, s_min, s_max, resamples, rng, level, workers)
    return {"tau": fit.alpha, "tau_se": fit.sigma, "ci_low": interval.low, "ci_high": interval.high,
            "s_min": s_min, "s_max": s_max, "avalanches_in_range": fit.n,
            "avalanches": int(sizes.size), "nonzero": int((sizes > 0).sum())}
