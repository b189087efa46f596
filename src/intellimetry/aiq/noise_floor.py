"""The noise floor of the dissimilarity measure: DS(mu, mu) of a domain against itself (issue 17).

A domain mixed with itself has no true dissimilarity, so whatever DS it shows is measurement noise,
and any DS between two domains below it cannot be told from zero. The floor is measured over a grid
of test-set sizes n (generated domains of several sizes) x networks per mixing proportion m, with
independent repeats per cell, and fitted two ways:

* log-log slopes of the cell means in n and in m (sampling noise of one accuracy falls as
  (n m)^-1/2, i.e. slopes of -0.5 each);
* the variance of the mean performance at one p split into its sources,
  DS^2 ~ a/n + b/m + c/(n m): test-set draws the m networks share (a), training seeds and training
  draws (b) and each network's own test errors (c). Where b dominates, more test images cannot
  bring the floor down, only more networks can; the model says which size and count would reach a
  target such as the paper's 1.7e-4.

The m networks of a cell are the first m of one mixture pool of max(m) networks (so the cells of
one repeat share networks and the model cache); repeats use their own mixtures and seeds.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls

from intellimetry.aiq import domains as dom
from intellimetry.aiq.measures import dissimilarity
from intellimetry.aiq.study import MixSpec, mixing_curve, suite_domain
from intellimetry.checks import check_int
from intellimetry.stats import Interval, mean_interval

GENERATED = ("shapes10", "shapes100")  # domains whose number of images is a generator option
ROUND_OFF = 1e-12  # a DS this small is the trapezoid's round-off on a flat curve: recorded as 0


def sized_domain(name: str, seed: int = 0, n_images: int = 0) -> dom.Domain:
    """A suite domain with ``n_images`` generated images (a quarter of them the test set); 0 keeps the
    domain's own size, so the figures share the cache with the others at the default."""
    n_images = check_int("n_images", n_images, 0)
    if n_images == 0:
        return suite_domain(name, seed)
    if name not in GENERATED:
        raise ValueError(f"n_images: only generated domains can change their size ({', '.join(GENERATED)}), "
                         f"got domain {name!r} with n_images {n_images}; use 0 for its own size")
    return dom.load_domain(name, seed=seed, n_images=n_images)


def _check_counts(name: str, values) -> np.ndarray:
    """Distinct positive integers in increasing order."""
    values = [check_int(f"{name}[{i}]", v, 1) for i, v in enumerate(values)]
    if not values or values != sorted(set(values)):
        raise ValueError(f"{name} must be distinct positive integers in increasing order, got {values}")
    return np.array(values)


@dataclass(frozen=True)
class FloorModel:
    """DS^2 ~ shared_test / n + training / m + own_test / (n m), non-negative least squares on the
    squared cell means (n = test-set size, m = networks per proportion)."""

    shared_test: float
    training: float
    own_test: float

    def floor(self, test_size, agents) -> np.ndarray:
        n, m = np.asarray(test_size, dtype=float), np.asarray(agents, dtype=float)
        return np.sqrt(self.shared_test / n + self.training / m + self.own_test / (n * m))

    def test_size_for(self, target: float, agents: float) -> float:
        """Test-set size that brings the floor to ``target`` with ``agents`` networks (inf: the
        training term alone is above it)."""
        room = target ** 2 - self.training / agents
        need = self.shared_test + self.own_test / agents
        return math.inf if room <= 0 else need / room

    def agents_for(self, target: float, test_size: float) -> float:
        """Networks per proportion that bring the floor to ``target`` at this test-set size (inf: the
        shared test term alone is above it)."""
        room = target ** 2 - self.shared_test / test_size
        need = self.training + self.own_test / test_size
        return math.inf if room <= 0 else need / room


@dataclass(frozen=True)
class NoiseFloor:
    """DS of a domain with itself: ``values[i, j, r]`` at test size ``test_sizes[i]``, ``agents[j]``
    networks per proportion, repeat r."""

    test_sizes: np.ndarray
    agents: np.ndarray
    values: np.ndarray

    @property
    def mean(self) -> np.ndarray:
        return self.values.mean(axis=2)

    def intervals(self, level: float = 0.95) -> list[list[Interval]]:
        """A t interval of the mean per cell, over the repeats."""
        return [[mean_interval(cell, level) for cell in row] for row in self.values]

    def slopes(self) -> dict:
        """Least-squares plane log DS = k + s_n log n + s_m log m through the cell means; NaN when a
        mean is 0 (a deterministic measurement has no floor to scale)."""
        mean = self.mean
        if (mean <= 0).any() or len(self.test_sizes) < 2 or len(self.agents) < 2:
            return {"test_size": math.nan, "agents": math.nan, "intercept": math.nan}
        n, m = np.meshgrid(self.test_sizes, self.agents, indexing="ij")
        design = np.column_stack([np.ones(n.size), np.log(n.ravel()), np.log(m.ravel())])
        (k, s_n, s_m), *_ = np.linalg.lstsq(design, np.log(mean.ravel()), rcond=None)
        return {"test_size": float(s_n), "agents": float(s_m), "intercept": float(k)}

    def model(self) -> FloorModel:
        """The variance model fitted in relative terms (each cell's squared mean weighs 1), so the
        small floors of the large cells count as much as the large ones; cells at 0 are left out."""
        n, m = np.meshgrid(self.test_sizes.astype(float), self.agents.astype(float), indexing="ij")
        squared = self.mean.ravel() ** 2
        kept = squared > 0
        if not kept.any():
            return FloorModel(0.0, 0.0, 0.0)
        design = np.column_stack([1 / n.ravel(), 1 / m.ravel(), 1 / (n * m).ravel()])[kept]
        coefficients, _ = nnls(design / squared[kept, None], np.ones(kept.sum()))
        return FloorModel(*map(float, coefficients))

    def summary(self, target: float) -> dict:
        """What the figure records: the grid, each cell's mean and interval, the slopes, the model,
        the smallest floor measured, and the test size / network count that would reach ``target``
        (at the grid's largest network count / test size, and "balanced": enough networks for the
        training term to take half the target's square, and the test size for the other half)."""
        model, slopes = self.model(), self.slopes()
        cells = {f"n{n}_m{m}": {"mean": iv.estimate, "low": iv.low, "high": iv.high,
                                "values": self.values[i, j].tolist()}
                 for i, (n, row) in enumerate(zip(self.test_sizes, self.intervals()))
                 for j, (m, iv) in enumerate(zip(self.agents, row))}
        lowest = np.unravel_index(self.mean.argmin(), self.mean.shape)
        largest_n, largest_m = int(self.test_sizes[-1]), int(self.agents[-1])
        balanced_agents = max(1.0, 2 * model.training / target ** 2)  # half the target's square to training
        balanced = {"agents": balanced_agents,
                    "test_size": _finite(model.test_size_for(target, balanced_agents))}
        return {"test_sizes": self.test_sizes.tolist(), "agents": self.agents.tolist(),
                "repeats": int(self.values.shape[2]), "cells": cells,
                "slope_test_size": slopes["test_size"], "slope_agents": slopes["agents"],
                "model": {"shared_test": model.shared_test, "training": model.training,
                          "own_test": model.own_test},
                "lowest_floor": float(self.mean[lowest]),
                "lowest_floor_at": {"test_size": int(self.test_sizes[lowest[0]]),
                                    "agents": int(self.agents[lowest[1]])},
                "target": target, "lowest_floor_ratio": float(self.mean[lowest] / target),
                "test_size_for_target": _finite(model.test_size_for(target, largest_m)),
                "test_size_for_target_at_agents": largest_m,
                "agents_for_target": _finite(model.agents_for(target, largest_n)),
                "agents_for_target_at_test_size": largest_n,
                "balanced_for_target": balanced}


def _finite(value: float) -> float | None:
    """JSON has no infinity: an unreachable target is recorded as None."""
    return None if math.isinf(value) else float(value)


def noise_floor(performances: Callable[[int, int], np.ndarray], test_sizes: Sequence[int],
                agent_counts: Sequence[int], repeats: int, p_grid: Sequence[float]) -> NoiseFloor:
    """The floor over the grid from ``performances(size_index, repeat)``: an array (len(p_grid),
    max(agent_counts)) of each network's performance at each p on the domain of ``test_sizes[size_index]``
    mixed with itself. A cell's DS uses the mean of the first m networks."""
    test_sizes = _check_counts("test_sizes", test_sizes)
    agent_counts = _check_counts("agent_counts", agent_counts)
    repeats = check_int("repeats", repeats, 2)
    p_grid = np.asarray(p_grid, dtype=float)
    values = np.empty((len(test_sizes), len(agent_counts), repeats))
    for i in range(len(test_sizes)):
        for r in range(repeats):
            per_agent = np.asarray(performances(i, r), dtype=float)
            if per_agent.shape != (len(p_grid), agent_counts[-1]):
                raise ValueError(f"performances must return an array (p values, networks) = "
                                 f"({len(p_grid)}, {agent_counts[-1]}), got {per_agent.shape}")
            ds = np.array([dissimilarity(p_grid, per_agent[:, :m].mean(axis=1)) for m in agent_counts])
            values[i, :, r] = np.where(ds > ROUND_OFF, ds, 0.0)
    return NoiseFloor(test_sizes, agent_counts, values)


def self_dissimilarity_floor(domains: Sequence[dom.Domain], agent_counts: Sequence[int], spec: MixSpec,
                             repeats: int = 3, progress: bool = True) -> NoiseFloor:
    """DS of each domain with itself (shared labels, ``spec``'s networks and p grid) for every network
    count, repeat r using mixture seed ``spec.seed + r`` (repeat 0 is the self-mixture the other
    figures train). The domains must differ in test-set size, smallest first."""
    from tqdm import tqdm

    largest = max(check_int(f"agent_counts[{i}]", m, 1) for i, m in enumerate(agent_counts))
    settings = {**spec.to_dict(), "agents": largest, "workers": spec.workers}
    bar = tqdm(total=len(domains) * repeats, desc="self-mixtures", disable=not progress, leave=False)

    def performances(i: int, r: int) -> np.ndarray:
        curve = mixing_curve(domains[i], domains[i], MixSpec(**{**settings, "seed": spec.seed + r}), labels="shared")
        bar.update(1)
        return curve.per_agent

    try:
        return noise_floor(performances, [len(d.y_test) for d in domains], agent_counts, repeats, spec.p_grid())
    finally:
        bar.close()
