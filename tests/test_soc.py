"""Sandpile known answers: conservation, the abelian property, exact 1-D behaviour, kernels agree; the
chapter's summaries (soc.study) on hand-made rows."""
import networkx as nx
import numpy as np
import pytest

from intellimetry.soc import study
from intellimetry.soc.kernels import drive, drive_numba
from intellimetry.soc.sandpile import Sandpile, graph, lattice
from intellimetry.soc.simulate import fit_avalanche_exponent, record_avalanches, relax_to_stationary
from intellimetry.stats import sample_discrete_power_law


def test_lattice_topology_counts_neighbours_and_sink_grains():
    pile = lattice(2, 3)
    assert pile.n_sites == 9 and (pile.threshold == 4).all()
    assert np.diff(pile.indptr).tolist() == [2, 3, 2, 3, 4, 3, 2, 3, 2]  # corners, edges, centre
    assert pile.sink_grains.sum() == 4 * 3  # 3 sites per side, one grain leaves per side per toppling
    with pytest.raises(ValueError, match="side >= 2"):
        lattice(2, 1)


@pytest.mark.parametrize("d, side", [(1, 20), (2, 9), (3, 5), (4, 4), (5, 3)])
def test_grains_are_conserved_and_kernels_agree(d, side):
    fast, reference = lattice(d, side), lattice(d, side)
    sites = np.random.default_rng(d).integers(0, fast.n_sites, 4 * fast.n_sites * d)
    a, b = drive(fast, sites, "numba"), drive(reference, sites, "numpy")
    for key in ("size", "area", "duration"):
        assert (a[key] == b[key]).all(), key
    assert a["lost"] == b["lost"] and (fast.heights == reference.heights).all()
    assert sites.size == fast.heights.sum() + a["lost"]          # added = stored + dissipated
    assert (fast.heights < fast.threshold).all() and (fast.heights >= 0).all()
    assert (a["area"] <= a["size"]).all() and (a["duration"] <= a["size"]).all()


def test_kernels_agree_on_a_graph_with_sinks():
    g = nx.random_regular_graph(4, 60, seed=2)
    fast = graph(g, 0.05, np.random.default_rng(0))
    reference = fast.copy()
    sites = np.random.default_rng(1).integers(0, 60, 3000)
    a, b = drive(fast, sites, "numba"), drive(reference, sites, "numpy")
    assert all((a[k] == b[k]).all() for k in ("size", "area", "duration"))
    assert sites.size == fast.heights.sum() + a["lost"]


def test_wave_stamps_start_again_instead_of_overflowing():
    # The kernel stamps sites with a wave number in the pile's index type. With int8 arrays the
    # stamps pass the type's largest value many times in 100 grains on a stationary 1-D pile; the
    # avalanches must still match the int64 run's exactly.
    pile = lattice(1, 12)
    relax_to_stationary(pile, np.random.default_rng(0))
    sites = np.random.default_rng(1).integers(0, pile.n_sites, 100)
    runs = {}
    for dtype in (np.int8, np.int64):
        arrays = [a.astype(dtype) for a in (pile.indptr, pile.indices, pile.threshold, pile.heights)]
        out = [np.zeros(sites.size, np.int64) for _ in range(3)]
        lost = drive_numba(*arrays, sites, *out)
        runs[dtype] = (lost, *out, arrays[3])
    assert runs[np.int8][2].sum() > 5 * np.iinfo(np.int8).max  # the waves: the stamps started again
    for small, wide in zip(runs[np.int8], runs[np.int64]):
        assert np.array_equal(small, wide)


def test_sandpile_stores_int32_and_refuses_what_does_not_fit():
    pile = lattice(2, 4)
    assert {a.dtype for a in (pile.indptr, pile.indices, pile.threshold, pile.heights)} == {np.dtype(np.int32)}
    with pytest.raises(ValueError, match="edges"):
        Sandpile(np.array([0, 2**31]), np.zeros(1), np.ones(1), np.zeros(1), "huge")


def test_abelian_final_configuration_does_not_depend_on_toppling_order():
    # Relax one overloaded configuration by the parallel waves and by toppling one site at a time in
    # a random order: the final heights and the number of topplings of each site are the same.
    rng = np.random.default_rng(3)
    pile = lattice(2, 6)
    start = rng.integers(0, 12, pile.n_sites)
    pile.heights[:] = start
    waves = drive(pile, np.array([0]), "numpy")
    serial = start.copy()
    serial[0] += 1
    topplings = 0
    while (unstable := np.flatnonzero(serial >= pile.threshold)).size:
        i = rng.choice(unstable)
        serial[i] -= pile.threshold[i]
        serial[pile.indices[pile.indptr[i]:pile.indptr[i + 1]]] += 1
        topplings += 1
    assert (serial == pile.heights).all() and topplings == waves["size"][0]


@pytest.mark.parametrize("side", [5, 8])
def test_one_dimension_matches_the_exact_solution(side):
    # From the all-ones configuration, a grain at site i (1-based) causes i (L + 1 - i) topplings,
    # every site topples, and the final configuration is all ones with a hole at L + 1 - i.
    for i in range(1, side + 1):
        pile = lattice(1, side)
        pile.heights[:] = 1
        result = drive(pile, np.array([i - 1]))
        assert result["size"][0] == i * (side + 1 - i) and result["area"][0] == side
        expected = np.ones(side, dtype=int)
        expected[side - i] = 0
        assert (pile.heights == expected).all() and result["lost"] == 2


def test_one_dimension_visits_only_the_l_plus_one_recurrent_configurations():
    rng = np.random.default_rng(0)
    pile = lattice(1, 6)
    relax_to_stationary(pile, rng)
    seen = {}
    for site in rng.integers(0, 6, 7000):
        drive(pile, np.array([site]))
        seen[tuple(pile.heights)] = seen.get(tuple(pile.heights), 0) + 1
    assert len(seen) == 7 and all(sum(c) >= 5 for c in seen)  # at most one hole
    frequencies = np.array(list(seen.values())) / 7000
    assert np.allclose(frequencies, 1 / 7, atol=0.02)  # uniform over recurrent configurations


def test_stationarity_is_detected_from_the_mean_height():
    pile = lattice(2, 16)
    result = relax_to_stationary(pile, np.random.default_rng(0))
    assert result["stationary"] and 2.0 < result["mean_height"] < 2.2  # 2-D BTW: about 2.125
    with pytest.raises(RuntimeError, match="max_batches"):
        relax_to_stationary(lattice(2, 16), np.random.default_rng(0), max_batches=3)


def test_exponent_fit_recovers_a_synthetic_power_law():
    sizes = sample_discrete_power_law(1.5, 50_000, np.random.default_rng(2))
    fit = fit_avalanche_exponent(sizes, 1, 10_000, 30, np.random.default_rng(0))
    assert fit["ci_low"] < 1.5 < fit["ci_high"] and abs(fit["tau"] - 1.5) < 0.03


def test_recorded_avalanches_are_seeded():
    a, b = lattice(2, 10), lattice(2, 10)
    ra = record_avalanches(a, 2000, np.random.default_rng(5), chunk=300)
    rb = record_avalanches(b, 2000, np.random.default_rng(5))
    assert (ra["size"] == rb["size"]).all() and ra["size"].size == 2000
    with pytest.raises(ValueError, match="allowed: numba, numpy"):
        drive(a, np.array([0]), "c")


# ---------------------------------------------------------------- the chapter's summaries (soc.study)

TINY = dict(grains=400, s_min=1, s_max_fraction=0.5, resamples=5, network_nodes=60, dissipative_fraction=0.05, seed=3)


CALLS: list = []


def record_system(settings, system):  # top level: parallel_map sends only importable functions
    CALLS.append(system)
    return {"system": system}


def test_each_distinct_system_runs_once_longest_first(monkeypatch):
    calls = CALLS
    calls.clear()
    monkeypatch.setattr(study, "run_system", record_system)
    systems = [("lattice", 2, 16), ("network", "random_regular", 3), ("lattice", 3, 8), ("lattice", 2, 16)]
    runs = study.run_systems(systems, TINY)
    # expected topplings per grain: 1 / 0.05 = 20 on the network, 16² / 24 = 10.7 and 8² / 36 = 1.8 on the
    # lattices (by sites, 512, 256 and 60, the order would be the reverse)
    assert calls == [("network", "random_regular", 3), ("lattice", 2, 16), ("lattice", 3, 8)]
    assert runs[("lattice", 2, 16)] == {"system": ("lattice", 2, 16)} and len(runs) == 3
    with pytest.raises(ValueError, match="settings lack \\['seed'\\]"):
        study.run_systems(systems, {k: v for k, v in TINY.items() if k != "seed"})


def test_a_system_s_values_do_not_depend_on_the_others_or_their_order():
    systems = [("lattice", 2, 8), ("network", "erdos_renyi", 4)]
    together = study.run_systems(systems, TINY)
    alone = study.run_systems(systems[1:], TINY)
    for system in systems[1:]:
        assert (together[system]["sizes"] == alone[system]["sizes"]).all()
        assert together[system]["tau"] == alone[system]["tau"]
    other_seed = study.run_systems(systems[:1], {**TINY, "seed": 4})[systems[0]]
    assert not np.array_equal(other_seed["sizes"], together[systems[0]]["sizes"])
    with pytest.raises(ValueError, match="unknown system"):
        study.run_system(TINY, ("torus", 2, 8))


@pytest.mark.slow
def test_two_worker_processes_give_the_values_of_one():
    systems = [("lattice", 2, 8), ("lattice", 1, 16), ("network", "random_regular", 3)]
    one, two = study.run_systems(systems, TINY, workers=1), study.run_systems(systems, TINY, workers=2)
    for system in systems:
        assert (one[system]["sizes"] == two[system]["sizes"]).all() and one[system]["tau"] == two[system]["tau"]


def test_lattice_series_pairs_sides_with_dimensions():
    assert study.lattice_series([1, 2], [64, 16]) == [(1, 64), (2, 16)]
    with pytest.raises(ValueError, match="one lattice side per dimension"):
        study.lattice_series([1, 2, 3], [64, 16])


def _row(tau, seconds=1.0, **names):
    numbers = {k: 0 for k in study.SUMMARY_KEYS}
    return {**numbers, "tau": tau, "seconds": seconds, "sizes": np.arange(3), **names}


def test_row_summary_keeps_the_quoted_numbers_and_names():
    row = _row(1.2, d=2, side=16)
    summary = study.row_summary(row, "d", "side")
    assert list(summary) == [*study.SUMMARY_KEYS, "d", "side"] and "sizes" not in summary
    assert summary["tau"] == 1.2 and summary["side"] == 16


def test_grows_is_strict():
    assert study.grows([1.0, 1.1, 1.3]) and not study.grows([1.0, 1.3, 1.3]) and study.grows([2.0])


def test_avalanche_summary_by_hand():
    by_dimension = [_row(1.0, d=1, side=64), _row(1.2, d=2, side=16), _row(1.1, d=3, side=8)]
    networks = [_row(1.3, kind="rr", mean_degree=3, measured_degree=3.0),
                _row(1.4, kind="rr", mean_degree=4, measured_degree=4.0),
                _row(1.5, kind="er", mean_degree=3, measured_degree=2.9),
                _row(1.45, kind="er", mean_degree=4, measured_degree=3.8)]
    finite_size = [_row(1.2, d=2, side=16), _row(1.25, d=3, side=12), by_dimension[2]]
    lattices = [*by_dimension, finite_size[1]]  # d = 2, side 16 and d = 3, side 8 simulated once each
    summary = study.avalanche_summary(by_dimension, networks, finite_size, ["rr", "er"], lattices)
    assert list(summary["dimensions"]) == ["d1", "d2", "d3"]
    assert list(summary["networks"]) == ["rr_k3", "rr_k4", "er_k3", "er_k4"]
    assert list(summary["finite_size"]) == ["d2_L16", "d3_L12", "d3_L8"]
    assert summary["d3_trend"]["smallest"]["side"] == 8 and summary["d3_trend"]["largest"]["side"] == 12
    assert summary["tau_by_dimension"] == {"d1": 1.0, "d2": 1.2, "d3": 1.1}
    assert summary["power_law_from_d2"] is False  # _row leaves power_law at 0 (False)
    assert summary["tau_grows_with_degree"] == {"rr": True, "er": False}
    assert summary["total_seconds"] == 8.0  # four distinct lattices and four networks, 1 s each


def test_power_law_from_d2_ignores_the_one_dimensional_pile():
    rows = [{**_row(1.0, d=1, side=64), "power_law": False}, {**_row(1.2, d=2, side=16), "power_law": True},
            {**_row(1.3, d=3, side=8), "power_law": True}]
    summary = study.avalanche_summary(rows, [], rows[1:], [], rows)
    assert summary["power_law_from_d2"] is True
    rows[2]["power_law"] = False
    assert study.avalanche_summary(rows, [], rows[1:], [], rows)["power_law_from_d2"] is False


def test_erdos_renyi_network_is_the_giant_component_of_the_asked_mean_degree():
    # G(n, p) with mean degree c = 4: the giant component holds S of the nodes, S = 1 - exp(-c S),
    # S = 0.9802; its own mean degree is a little above c (the small components are trees)
    g = study.make_network("erdos_renyi", 4, 20000, seed=1)
    assert nx.is_connected(g) and sorted(g.nodes) == list(range(g.number_of_nodes()))
    assert abs(g.number_of_nodes() / 20000 - 0.9802) < 0.005
    assert 4.0 < 2 * g.number_of_edges() / g.number_of_nodes() < 4.2
    with pytest.raises(ValueError, match="allowed: random_regular, erdos_renyi"):
        study.make_network("scale_free", 4, 100, seed=1)


# ----------------------------------------------------------------------------- the Figure 15 claim (issue 32)

def test_dissipative_lattice_loses_grains_at_every_toppling():
    pile = lattice(2, 3, dissipation=1)
    assert (pile.threshold == 5).all() and pile.sink_grains.sum() == 4 * 3 + 9
    assert "lost per toppling" in pile.description
    sites = np.random.default_rng(0).integers(0, 9, 500)
    lost = drive(pile, sites)["lost"]
    assert sites.size == pile.heights.sum() + lost
    with pytest.raises(ValueError, match="dissipation must be an integer >= 0"):
        lattice(2, 3, dissipation=-1)


def test_control_series_is_the_dimension_panel_from_d2_with_dissipation():
    assert study.control_series([1, 2, 3], [64, 16, 8]) == [("lattice", 2, 16, 1), ("lattice", 3, 8, 1)]


def test_dimension_claim_by_hand():
    rows = [{**_row(1.0001, d=1, side=64), "power_law": False, "largest": 500, "s_min": 10},
            {**_row(1.2, d=2, side=16), "power_law": True, "largest": 1000, "s_min": 10, "ci_low": 1.1,
             "ci_high": 1.3, "avalanches_in_range": 5000},
            {**_row(1.4, d=3, side=8), "power_law": True, "largest": 999, "s_min": 10, "ci_low": 1.35,
             "ci_high": 1.45, "avalanches_in_range": 2000}]
    claim = study.dimension_claim(rows)
    assert claim["tau_by_dimension"] == {"d1": 1.0001, "d2": 1.2, "d3": 1.4}
    assert claim["tau_interval_by_dimension"]["d3"] == [1.35, 1.45]
    assert claim["power_law_from_d2"] is True and claim["fewest_in_range_from_d2"] == 2000
    assert claim["two_decades_from_d2"] is False  # d = 3: 999 < 100 × 10
    rows[2]["largest"] = 1000
    assert study.dimension_claim(rows)["two_decades_from_d2"] is True
    with pytest.raises(ValueError, match="d >= 2"):
        study.dimension_claim(rows[:1])


def test_avalanche_summary_carries_the_control_s_claim_statistics():
    rows = [{**_row(1.2, d=2, side=16), "power_law": True}, {**_row(1.3, d=3, side=8), "power_law": True}]
    control = [{**row, "tau": tau, "dissipation": 1} for row, tau in zip(rows, (3.6, 2.6))]
    summary = study.avalanche_summary(rows, [], rows, [], rows, control=control)
    assert summary["control"]["tau_by_dimension"] == {"d2": 3.6, "d3": 2.6}
    assert summary["control"]["dissipation"] == 1 and list(summary["control"]["dimensions"]) == ["d2", "d3"]
    assert "control" not in study.avalanche_summary(rows, [], rows, [], rows)


def test_literature_exponents_rise_from_two_to_four_dimensions():
    values = study.literature_values()
    assert values["tau_interval_by_dimension"]["d2"] == [1.20, 1.29] and "d1" not in values["tau_by_dimension"]
    assert values["power_law_from_d2"] is True


def _claim_item():
    from intellimetry.verdicts import load_items
    return next(item for item in load_items("soc")["items"] if item["id"] == "fig15")


def test_the_dissipative_control_fails_the_claim():
    # a known case: small lattices losing one grain per toppling have exponents that fall with d
    from intellimetry.criteria import FAILS, HOLDS, judge
    fit = dict(grains=20000, s_min=5, s_max_fraction=0.01, resamples=5)
    rows = [study.lattice_experiment(d, side, 1, rng=np.random.default_rng(d), **fit)
            for d, side in ((2, 32), (3, 10), (4, 6))]
    claim = study.dimension_claim(rows)
    assert judge(_claim_item()["criterion"], claim)[0] == FAILS
    assert claim["two_decades_from_d2"] is False
    assert judge(_claim_item()["criterion"], study.literature_values())[0] == HOLDS


def test_lattice_rows_leave_out_networks_and_the_dissipative_controls():
    from intellimetry.soc.study import lattice_rows

    runs = {("lattice", 2, 16): {"id": 1}, ("network", "er", 4): {"id": 2}, ("lattice", 2, 16, 1): {"id": 3},
            ("lattice", 3, 8): {"id": 4}}
    assert [row["id"] for row in lattice_rows(runs)] == [1, 4]


def test_the_largest_cascade_reports_the_share_of_concepts_that_toppled():
    from intellimetry.soc.concept_network import concept_network, largest_cascade

    g = concept_network(60, 4, 0.1, seed=1)
    cascade = largest_cascade(g, 0.1, np.random.default_rng(1))
    assert cascade["share_toppled"] == cascade["area"] / 60 and 0 < cascade["share_toppled"] <= 1
