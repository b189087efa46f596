"""One avalanche experiment per system: relax, record, fit; the rows the chapter's figures draw."""
from __future__ import annotations

import time

import numpy as np

from intellimetry.parallel import parallel_map, task_seed
from intellimetry.soc.sandpile import Sandpile, graph, lattice
from intellimetry.soc.simulate import fit_avalanche_exponent, record_avalanches, relax_to_stationary

NETWORK_KINDS = ("random_regular", "erdos_renyi")
TAU_FLOOR = 1.01  # a fit this close to the estimator's lower bound means "no power law"
# A power law needs a range to hold over: at least two decades of sizes, the largest avalanche at
# least 100 times the smallest fitted size (the usual minimum, e.g. Stumpf & Porter 2012, Science 335, 665).
DECADES = 2
# The negative control's bulk dissipation: grains every toppling loses to the sink (a subcritical pile).
CONTROL_DISSIPATION = 1


def make_network(kind: str, mean_degree: int, nodes: int, seed: int):
    """A random regular graph, or the largest connected component of an Erdős–Rényi graph."""
    import networkx as nx

    if kind == "random_regular":
        return nx.random_regular_graph(mean_degree, nodes, seed=seed)
    if kind == "erdos_renyi":
        # the same G(n, p) model as gnp_random_graph, drawn in O(n + m): gnp_random_graph tries all
        # n²/2 pairs, 270 s per graph at the full profile's 100,000 nodes
        g = nx.fast_gnp_random_graph(nodes, mean_degree / (nodes - 1), seed=seed)
        return nx.convert_node_labels_to_integers(g.subgraph(max(nx.connected_components(g), key=len)).copy())
    raise ValueError(f"unknown network kind {kind!r}; allowed: {', '.join(NETWORK_KINDS)}")


def avalanche_experiment(pile: Sandpile, grains: int, s_min: int, s_max_fraction: float, resamples: int,
                         rng: np.random.Generator, kernel: str = "numba", workers: int = 1) -> dict:
    """Relax `pile` to its stationary state, record `grains` avalanches and fit tau on
    [s_min, max(10 s_min, s_max_fraction × largest avalanche)]: the fit stays below the
    finite-size cutoff, where the distribution bends down. ``workers`` refit the bootstrap resamples
    of a wide fit range (see fit_avalanche_exponent); the values do not depend on it."""
    started = time.monotonic()
    warm = relax_to_stationary(pile, rng, kernel=kernel)
    avalanches = record_avalanches(pile, grains, rng, kernel=kernel)
    sizes = avalanches["size"]
    s_max = max(10 * s_min, int(s_max_fraction * sizes.max()))
    fit = fit_avalanche_exponent(sizes, s_min, s_max, resamples, rng, workers=workers)
    return {
        "system": pile.description, "sites": pile.n_sites, **fit, "power_law": fit["tau"] > TAU_FLOOR,
        "warmup_grains": warm["grains"], "mean_height": warm["mean_height"],
        "largest": int(sizes.max()), "topplings": int(sizes.sum()), "mean_size": float(sizes.mean()),
        "seconds": time.monotonic() - started, "sizes": sizes,
    }


def lattice_experiment(d: int, side: int, dissipation: int = 0, **kwargs) -> dict:
    return {"d": d, "side": side, "dissipation": dissipation,
            **avalanche_experiment(lattice(d, side, dissipation), **kwargs)}


def network_experiment(kind: str, mean_degree: int, nodes: int, dissipative_fraction: float, seed: int,
                       **kwargs) -> dict:
    g = make_network(kind, mean_degree, nodes, seed)
    pile = graph(g, dissipative_fraction, np.random.default_rng(seed), name=f"{kind}, mean degree {mean_degree}")
    measured_degree = 2 * g.number_of_edges() / g.number_of_nodes()
    return {"kind": kind, "mean_degree": mean_degree, "measured_degree": measured_degree,
            **avalanche_experiment(pile, **kwargs)}


def lattice_series(dims, sides) -> list[tuple[int, int]]:
    """(d, side) for every dimension of the lattice panel: one side per dimension, checked before
    any simulation starts."""
    if len(sides) != len(dims):
        raise ValueError(f"sides needs one lattice side per dimension in dims: {len(sides)} sides for dims {dims}")
    return list(zip(dims, sides))


def control_series(dims, sides, dissipation: int = CONTROL_DISSIPATION) -> list[tuple]:
    """The negative control's systems: the lattices of the dimension panel with d >= 2, each losing
    ``dissipation`` grains per toppling (``("lattice", d, side, dissipation)``)."""
    return [("lattice", d, side, dissipation) for d, side in lattice_series(dims, sides) if d >= 2]


# What one experiment's settings hold (besides the system): the fit, the networks' size and the base seed.
SETTING_KEYS = ("grains", "s_min", "s_max_fraction", "resamples", "network_nodes", "dissipative_fraction", "seed")


def run_system(settings: dict, system: tuple) -> dict:
    """One system's experiment: ``("lattice", d, side)``, ``("lattice", d, side, dissipation)`` (grains
    lost per toppling: the negative control) or ``("network", kind, mean_degree)``.

    Its random stream is seeded by the base seed and the system itself, so its values do not depend
    on which other systems run, in which order, or in which process."""
    rng = np.random.default_rng(task_seed("soc", settings["seed"], *system))
    fit = {key: settings[key] for key in ("grains", "s_min", "s_max_fraction", "resamples")}
    if system[0] == "lattice":
        return lattice_experiment(*system[1:], rng=rng, **fit)
    if system[0] == "network":
        return network_experiment(system[1], system[2], settings["network_nodes"], settings["dissipative_fraction"],
                                  settings["seed"], rng=rng, **fit)
    raise ValueError(f"unknown system {system!r}; allowed: ('lattice', d, side) or ('network', kind, mean_degree)")


def _topplings_per_grain(system: tuple, settings: dict) -> float:
    """A rough guess of a system's mean avalanche size, only to start the longest experiments first:
    a lattice's grows as L² (L²/12 in d = 1, L²/28 in d = 2, L²/46 in d = 3 at the full profile's
    sides), a network's is about 1/dissipative_fraction (the topplings a grain survives on average).
    Ordering by sites instead started the full profile's longest system, d = 2 at L = 256 (a third of
    the work), after nine others, and a second worker idled at the end."""
    if system[0] == "lattice":
        return 1.0 if system[3:] and system[3] else system[2] ** 2 / (12 * system[1])
    return 1 / settings["dissipative_fraction"]


def run_systems(systems: list[tuple], settings: dict, workers: int = 1) -> dict[tuple, dict]:
    """Every distinct system's experiment (a lattice shared by two panels runs once), by system.

    The longest (by :func:`_topplings_per_grain`) start first, in ``workers`` processes or on the Dask cluster in use
    (:func:`intellimetry.parallel.parallel_map`); the values do not depend on where they ran."""
    missing = sorted(set(SETTING_KEYS) - set(settings))
    if missing:
        raise ValueError(f"settings lack {missing}; an experiment needs {list(SETTING_KEYS)}")
    distinct = sorted(dict.fromkeys(systems), key=lambda system: -_topplings_per_grain(system, settings))
    rows = parallel_map(run_system, distinct, shared=settings, workers=workers, desc="systems")
    return dict(zip(distinct, rows))


# what the book quotes of one experiment (the raw avalanche sizes stay out of the sidecar)
SUMMARY_KEYS = ("tau", "ci_low", "ci_high", "s_min", "s_max", "avalanches_in_range", "power_law", "sites",
                "warmup_grains", "mean_height", "largest", "mean_size", "seconds")


def lattice_rows(runs: dict[tuple, dict]) -> list[dict]:
    """The runs of critical lattices (every lattice system but the dissipative controls), in run order."""
    return [row for system, row in runs.items() if system[0] == "lattice" and not system[3:]]


def row_summary(row: dict, *keys: str) -> dict:
    """One experiment's quoted numbers (SUMMARY_KEYS) plus the keys that name the system."""
    return {k: row[k] for k in (*SUMMARY_KEYS, *keys)}


def grows(values) -> bool:
    """Whether a sequence strictly increases (the exponent with dimension, with degree)."""
    return bool(np.all(np.diff(values) > 0))


def dimension_claim(by_dimension: list) -> dict:
    """What the paper's Figure 15 item is judged on, from the lattice rows of one series: τ and its
    bootstrap interval by dimension, whether every lattice with d >= 2 shows a power law (τ clear of
    the estimator's lower bound) over at least DECADES decades of sizes (largest avalanche >= 10^DECADES
    × s_min), and the fewest avalanches in any d >= 2 fitted range."""
    from_d2 = [row for row in by_dimension if row["d"] >= 2]
    if not from_d2:
        raise ValueError("dimension_claim needs at least one lattice with d >= 2")
    return {
        "tau_by_dimension": {f"d{row['d']}": row["tau"] for row in by_dimension},
        "tau_interval_by_dimension": {f"d{row['d']}": [row["ci_low"], row["ci_high"]] for row in by_dimension},
        "power_law_from_d2": all(row["power_law"] for row in from_d2),
        "two_decades_from_d2": all(row["largest"] >= 10**DECADES * row["s_min"] for row in from_d2),
        "fewest_in_range_from_d2": min(int(row["avalanches_in_range"]) for row in from_d2),
    }


def avalanche_summary(by_dimension: list, networks: list, finite_size: list, network_kinds, lattices: list,
                      control: list | None = None) -> dict:
    """The avalanche chapter's numbers: every system's fit, the Figure 15 claim's statistics
    (:func:`dimension_claim`), the d = 3 finite-size trend (smallest and largest side), whether τ grows
    with degree per network kind, and the simulation time over the distinct lattices (`lattices`) and
    the networks. ``control``: the same lattices with bulk dissipation, whose rows give the same claim
    statistics under ``control`` (with each system's fit under ``control.dimensions``)."""
    d3_rows = [row for row in finite_size if row["d"] == 3]
    summary = {
        "dimensions": {f"d{row['d']}": row_summary(row, "d", "side") for row in by_dimension},
        "networks": {f"{row['kind']}_k{row['mean_degree']}": row_summary(row, "kind", "mean_degree", "measured_degree")
                     for row in networks},
        "finite_size": {f"d{row['d']}_L{row['side']}": row_summary(row, "d", "side") for row in finite_size},
        "d3_trend": {end: row_summary(row, "side") for end, row in
                     zip(("smallest", "largest"), (min(d3_rows, key=lambda r: r["side"]),
                                                   max(d3_rows, key=lambda r: r["side"])))},
        **dimension_claim(by_dimension),
        "tau_grows_with_degree": {kind: grows([r["tau"] for r in networks if r["kind"] == kind])
                                  for kind in network_kinds},
        "total_seconds": sum(r["seconds"] for r in list(lattices) + networks),
    }
    if control is not None:
        summary["control"] = {**dimension_claim(control), "dissipation": control[0]["dissipation"],
                              "dimensions": {f"d{row['d']}": row_summary(row, "d", "side") for row in control},
                              "seconds": sum(r["seconds"] for r in control)}
    return summary


def literature_values() -> dict:
    """The Figure 15 claim's statistics from the literature's exponents (data/reference/soc/btw-exponents.yaml):
    τ (the middle of each stated range) with the range as its interval, and a power law over an
    unbounded range in every dimension d >= 2 that has an exponent (d = 1 has none)."""
    from intellimetry.paths import load_reference

    dims = load_reference("soc/btw-exponents.yaml")["dimensions"]
    stated = {name: row for name, row in dims.items() if row["low"] is not None}
    return {
        "tau_by_dimension": {name: (row["low"] + row["high"]) / 2 for name, row in stated.items()},
        "tau_interval_by_dimension": {name: [row["low"], row["high"]] for name, row in stated.items()},
        "power_law_from_d2": all(dims[name]["low"] is not None for name in dims if dims[name]["dimension"] >= 2),
        "two_decades_from_d2": True,  # the literature's exponents are those of the infinite lattice
    }
