"""Two kernels that drop grains one at a time and relax each avalanche in parallel waves.

`drive_numba` is the compiled kernel used for every simulation; `drive_numpy` is a short
vectorised reference (a full scan per wave, so only for small systems) that the tests compare
against: for the same dropped sites both give identical avalanche sizes, areas, durations, final
heights and lost grains.
"""
from __future__ import annotations

import numba
import numpy as np

from intellimetry.checks import check_choice
from intellimetry.soc.sandpile import Sandpile

KERNELS = ("numba", "numpy")


def drive(pile: Sandpile, sites: np.ndarray, kernel: str = "numba") -> dict:
    """Drop one grain on each of `sites` in turn, relaxing after each; heights change in place.

    Returns {"size", "area", "duration"} (one int64 per grain) and "lost" (grains to the sink).
    """
    check_choice("kernel", kernel, KERNELS)
    sites = np.ascontiguousarray(sites, dtype=np.int64)
    if sites.size and (sites.min() < 0 or sites.max() >= pile.n_sites):
        raise ValueError(f"sites must lie in [0, {pile.n_sites - 1}]")
    if sites.size > np.iinfo(pile.indices.dtype).max:  # the kernel stamps sites with the grain's number
        raise ValueError(f"at most {np.iinfo(pile.indices.dtype).max} grains per call, got {sites.size}")
    if kernel == "numba":
        return _drive_numba_wrapper(pile, sites)
    return drive_numpy(pile, sites)


def _drive_numba_wrapper(pile: Sandpile, sites: np.ndarray) -> dict:
    size, area, duration = (np.zeros(sites.size, dtype=np.int64) for _ in range(3))
    lost = drive_numba(pile.indptr, pile.indices, pile.threshold, pile.heights, sites, size, area, duration)
    return {"size": size, "area": area, "duration": duration, "lost": int(lost)}


# nogil: on a Dask worker the kernel runs in a task thread; holding the GIL for minutes starves the
# worker's other threads (heartbeats, the papermill thread of a figure it runs: "Autosave too slow")
@numba.njit(cache=True, nogil=True)
def drive_numba(indptr, indices, threshold, heights, sites, size, area, duration):  # pragma: no cover - compiled
    # the work arrays share the pile's index type (int32: see sandpile.INDEX_DTYPE)
    n = threshold.size
    current = np.empty(n, dtype=indices.dtype)     # sites unstable at the start of this wave
    candidates = np.empty(n, dtype=indices.dtype)  # sites that may be unstable after it
    queued = np.full(n, -1, dtype=indices.dtype)   # wave stamp: a site enters `candidates` once per wave
    toppled = np.full(n, -1, dtype=indices.dtype)  # avalanche stamp: counts each site once for the area
    last_stamp = np.iinfo(indices.dtype).max - 1
    lost = 0
    wave_id = 0
    for grain in range(sites.size):
        site = sites[grain]
        heights[site] += 1
        if heights[site] < threshold[site]:
            continue
        current[0] = site
        n_current = 1
        while n_current > 0:
            if wave_id == last_stamp:  # stamps would overflow: start them again (every stamp is then stale)
                queued[:] = -1
                wave_id = 0
            wave_id += 1
            n_candidates = 0
            for c in range(n_current):
                i = current[c]
                heights[i] -= threshold[i]
                size[grain] += 1
                if toppled[i] != grain:
                    toppled[i] = grain
                    area[grain] += 1
                start, stop = indptr[i], indptr[i + 1]
                lost += threshold[i] - (stop - start)
                if queued[i] != wave_id:
                    queued[i] = wave_id
                    candidates[n_candidates] = i
                    n_candidates += 1
                for e in range(start, stop):
                    j = indices[e]
                    heights[j] += 1
                    if queued[j] != wave_id:
                        queued[j] = wave_id
                        candidates[n_candidates] = j
                        n_candidates += 1
            duration[grain] += 1
            n_current = 0
            for c in range(n_candidates):  # decided after the whole wave, as in the parallel update
                j = candidates[c]
                if heights[j] >= threshold[j]:
                    current[n_current] = j
                    n_current += 1
    return lost


def drive_numpy(pile: Sandpile, sites: np.ndarray, first_wave: np.ndarray | None = None) -> dict:
    """The reference: each wave topples every unstable site once, found by scanning all sites.

    With `first_wave` (an int array over sites, -1 = never), the wave at which each site first
    toppled in the last avalanche is written into it: the cascade Figure 14 draws."""
    h, z = pile.heights, pile.threshold
    sources = np.repeat(np.arange(pile.n_sites), np.diff(pile.indptr))  # edge e runs sources[e] -> indices[e]
    sink = pile.sink_grains
    size, area, duration = (np.zeros(sites.size, dtype=np.int64) for _ in range(3))
    lost = 0
    for grain, site in enumerate(sites):
        h[site] += 1
        ever = np.zeros(pile.n_sites, dtype=bool)
        if first_wave is not None:
            first_wave[:] = -1
        while (unstable := h >= z).any():
            h -= z * unstable
            h += np.bincount(pile.indices, weights=unstable[sources], minlength=pile.n_sites).astype(h.dtype)
            size[grain] += unstable.sum()
            lost += int(sink[unstable].sum())
            if first_wave is not None:
                first_wave[unstable & ~ever] = duration[grain]
            ever |= unstable
            duration[grain] += 1
        area[grain] = ever.sum()
    return {"size": size, "area": area, "duration": duration, "lost": lost}
