"""Sandpile kernel speed: topplings per second of the numba kernel against the same algorithm in C.

The C version (parallel waves over CSR neighbour lists, exactly as intellimetry.soc.kernels) is
compiled here with the system C compiler (-O2) and called through ctypes on the same relaxed
lattice and the same dropped sites; the results must be identical. Goal: numba reaches at least
half the C speed, for d = 2, L = 256 and d = 4, L = 16.

    .venv/bin/python benchmarks/bench_sandpile.py [--grains 20000]
"""
from __future__ import annotations

import argparse
import ctypes
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from intellimetry.soc.kernels import drive
from intellimetry.soc.sandpile import lattice
from intellimetry.soc.simulate import relax_to_stationary

GOAL_RATIO = 0.5
C_SOURCE = r"""
#include <stdlib.h>
typedef long long i64;
i64 drive_c(i64 n, const i64 *indptr, const i64 *indices, const i64 *threshold, i64 *heights,
            i64 n_grains, const i64 *sites, i64 *size, i64 *area, i64 *duration) {
    i64 *current = malloc(n * sizeof(i64)), *candidates = malloc(n * sizeof(i64));
    i64 *queued = malloc(n * sizeof(i64)), *toppled = malloc(n * sizeof(i64));
    for (i64 i = 0; i < n; i++) { queued[i] = -1; toppled[i] = -1; }
    i64 lost = 0, wave_id = 0;
    for (i64 g = 0; g < n_grains; g++) {
        i64 site = sites[g];
        if (++heights[site] < threshold[site]) continue;
        current[0] = site;
        i64 n_current = 1;
        while (n_current > 0) {
            wave_id++;
            i64 n_candidates = 0;
            for (i64 c = 0; c < n_current; c++) {
                i64 i = current[c];
                heights[i] -= threshold[i];
                size[g]++;
                if (toppled[i] != g) { toppled[i] = g; area[g]++; }
                i64 start = indptr[i], stop = indptr[i + 1];
                lost += threshold[i] - (stop - start);
                if (queued[i] != wave_id) { queued[i] = wave_id; candidates[n_candidates++] = i; }
                for (i64 e = start; e < stop; e++) {
                    i64 j = indices[e];
                    heights[j]++;
                    if (queued[j] != wave_id) { queued[j] = wave_id; candidates[n_candidates++] = j; }
                }
            }
            duration[g]++;
            n_current = 0;
            for (i64 c = 0; c < n_candidates; c++) {
                i64 j = candidates[c];
                if (heights[j] >= threshold[j]) current[n_current++] = j;
            }
        }
    }
    free(current); free(candidates); free(queued); free(toppled);
    return lost;
}
"""


def compile_c(workdir: Path) -> ctypes.CDLL:
    source, library = workdir / "sandpile.c", workdir / "sandpile.so"
    source.write_text(C_SOURCE)
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    lib = ctypes.CDLL(str(library))
    lib.drive_c.restype = ctypes.c_longlong
    return lib


def run_c(lib, pile, sites) -> tuple[dict, float]:
    pointer = lambda a: a.ctypes.data_as(ctypes.POINTER(ctypes.c_longlong))  # noqa: E731
    size, area, duration = (np.zeros(sites.size, dtype=np.int64) for _ in range(3))
    started = time.perf_counter()
    lost = lib.drive_c(ctypes.c_longlong(pile.n_sites), pointer(pile.indptr), pointer(pile.indices),
                       pointer(pile.threshold), pointer(pile.heights), ctypes.c_longlong(sites.size),
                       pointer(sites), pointer(size), pointer(area), pointer(duration))
    return {"size": size, "area": area, "duration": duration, "lost": lost}, time.perf_counter() - started


def compare(lib, d: int, side: int, grains: int) -> float:
    rng = np.random.default_rng(0)
    pile = lattice(d, side)
    relax_to_stationary(pile, rng)
    drive(pile, np.array([0]))  # compile outside the timing
    sites = rng.integers(0, pile.n_sites, grains).astype(np.int64)
    c_pile, numba_pile = pile.copy(), pile.copy()
    c_result, c_seconds = run_c(lib, c_pile, sites)
    started = time.perf_counter()
    numba_result = drive(numba_pile, sites)
    numba_seconds = time.perf_counter() - started
    assert all((c_result[k] == numba_result[k]).all() for k in ("size", "area", "duration"))
    assert (c_pile.heights == numba_pile.heights).all(), "C and numba kernels disagree"
    topplings = int(numba_result["size"].sum())
    ratio = c_seconds / numba_seconds
    print(f"d = {d}, L = {side}: {grains:,} grains, {topplings:,} topplings; "
          f"numba {topplings / numba_seconds / 1e6:.1f} M/s, C {topplings / c_seconds / 1e6:.1f} M/s, "
          f"numba at {ratio:.2f} × the C speed (goal ≥ {GOAL_RATIO})")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--grains", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        lib = compile_c(Path(workdir))
        ratios = [compare(lib, 2, 256, args.grains), compare(lib, 4, 16, args.grains * 5)]
    return 0 if min(ratios) >= GOAL_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
