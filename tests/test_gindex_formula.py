"""The g-index formula: domain distance, generalisation difficulty, weights, experience and TC."""
from __future__ import annotations

import math

import numpy as np
import pytest

from intellimetry.gindex import (
    curriculum_weights,
    divergence,
    domain_distance_matrix,
    experience,
    g_index,
    generalisation_difficulty,
    parse_flow,
    task_contributions,
)


def fn(func, **extra):
    """A one-node flow holding a function node."""
    return parse_flow([{"id": "f", "type": "function", "wires": [], "func": func, **extra}])


def test_g_index_two_domain_toy_case():
    # θ = (0.5, 1.0); Ω = [[0, 0.1], [0.2, 0]]; samples (1, 4) -> W = (1/(1+0), 1/(1+2)) = (1, 1/3);
    # compute 16 PF -> E = log2 16 = 4; ρ = 1e-4 -> ρ + E = 4.0001; GD = exp(10 Ω) = [[1, e], [e^2, 1]]
    # TC_1 = sqrt(e^6  · (1 + e/3)     / 4.0001) = sqrt(403.42879 · 1.906094 / 4.0001) = sqrt(192.2385) = 13.86501
    # TC_2 = sqrt(e^12 · (e^2 + 1/3)   / 4.0001) = sqrt(162754.79 · 7.722389 / 4.0001) = sqrt(314206.6) = 560.54091
    # g = (13.86501 + 560.54091) / 2 = 287.20296
    theta, omega, samples = [0.5, 1.0], [[0.0, 0.1], [0.2, 0.0]], [1, 4]
    e = experience(16.0)
    assert e == 4.0
    tc = task_contributions(theta, omega, samples, e)
    expected = [math.sqrt(math.exp(6) * (1 + math.e / 3) / 4.0001),
                math.sqrt(math.exp(12) * (math.exp(2) + 1 / 3) / 4.0001)]
    np.testing.assert_allclose(tc, expected, rtol=1e-12)
    np.testing.assert_allclose(tc, [13.86501, 560.54091], rtol=1e-6)
    assert g_index(theta, omega, samples, e) == pytest.approx(287.20296, rel=1e-6)


def test_task_contribution_parameters_are_used():
    base = dict(theta=[1.0], omega=[[0.0]], samples=[1], experience=1.0)
    # one domain, Ω = 0, W = 1: TC = sqrt(exp(θ_scale · θ) / (ρ + E))
    assert task_contributions(**base, prior=1.0, theta_scale=2.0)[0] == pytest.approx(math.sqrt(math.e**2 / 2))
    assert task_contributions(**base | {"omega": [[0.5]]}, prior=0.0, theta_scale=0.0, gd_scale=2.0)[0] == \
        pytest.approx(math.sqrt(math.e))


def test_generalisation_difficulty():
    np.testing.assert_allclose(generalisation_difficulty([0.0, 0.1, 1.0]), [1.0, math.e, math.exp(10)])
    assert generalisation_difficulty(0.5, scale=2.0) == pytest.approx(math.e)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        generalisation_difficulty([1.2])


def test_curriculum_weights():
    np.testing.assert_allclose(curriculum_weights([1, 2, 4, 1024, 0]), [1.0, 0.5, 1 / 3, 1 / 11, 0.0])
    for bad in ([-1], [2.5], [float("nan")]):
        with pytest.raises(ValueError, match="non-negative integers"):
            curriculum_weights(bad)


def test_experience_modes():
    assert experience(8.0) == 3.0
    assert experience(7.0, mode="log2_1p") == 3.0
    assert experience(5.0, mode="raw") == 5.0
    assert experience(0.5) == -1.0  # the spec's caveat: log2 is negative below 1 PF
    assert experience(0.0, mode="log2_1p") == 0.0
    with pytest.raises(ValueError, match="log2_1p"):
        experience(0.0)
    with pytest.raises(ValueError, match=">= 0"):
        experience(-1.0, mode="raw")
    with pytest.raises(ValueError, match="log2, log2_1p, raw"):
        experience(1.0, mode="ln")


def test_input_validation():
    ok = dict(theta=[0.5, 0.5], omega=np.zeros((2, 3)), samples=[1, 2, 3], experience=2.0)
    assert task_contributions(**ok).shape == (2,)
    with pytest.raises(ValueError, match="θ"):
        task_contributions(**ok | {"theta": [0.5, 1.5]})
    with pytest.raises(ValueError, match="θ"):
        task_contributions(**ok | {"theta": []})
    with pytest.raises(ValueError, match="shape"):
        task_contributions(**ok | {"omega": np.zeros((3, 2))})
    with pytest.raises(ValueError, match="non-negative"):
        task_contributions(**ok | {"samples": [1, -2, 3]})
    with pytest.raises(ValueError, match=r"ρ \+ E"):
        g_index(**ok | {"experience": experience(0.25)})  # log2(0.25) = -2: undefined g-index


def test_domain_distance_matrix_by_hand():
    # domain a: funcs "x" and "y"; domain b: func "x" with an extra key; domain c: func "y".
    # Δ between one-node flows is 1 - s^2 (s = share of the first node's keys that match).
    # Ω(a, b): task "x" -> min Δ = 1 - 1^2 = 0 (its one key matches); task "y" -> 1 - 0 = 1 (no
    #          association at all); mean 0.5.
    # Ω(b, a): b's node has 2 keys; best match "x" has s = 1/2 -> Δ = 0.75.  (asymmetric, kept)
    # Ω(a, c) = mean(1, 0) = 0.5; Ω(c, a) = 0; Ω(b, c) = 1 - 0 = 1; Ω(c, b) = 1.
    flows = {"a": [fn("x"), fn("y")], "b": [fn("x", outputs=2)], "c": [fn("y")]}
    names, omega = domain_distance_matrix(flows)
    assert names == ["a", "b", "c"]
    np.testing.assert_array_equal(omega, [[0.0, 0.5, 0.5], [0.75, 0.0, 1.0], [0.0, 1.0, 0.0]])
    assert divergence(fn("x", outputs=2), fn("x")) == 0.75


def test_domain_distance_matrix_rounds_and_checks():
    # Δ between funcs with 3 keys, 1 equal: s = 1/3, Δ = 8/9 = 0.888... -> rounded to 0.889
    names, omega = domain_distance_matrix({"p": [fn("x", a=1, b=2)], "q": [fn("x", a=0, b=0)]}, rule="strict")
    assert omega[0, 1] == 0.889 and omega[1, 0] == 0.889
    with pytest.raises(ValueError, match="no flows"):
        domain_distance_matrix({"p": [fn("x")], "q": []})
    with pytest.raises(ValueError, match="either, strict"):
        domain_distance_matrix({"p": [fn("x")]}, rule="and")


# --- Ω from a directory of flow records (how the strict-rule reference matrix was made) -----------

def _record(path, domain, nodes):
    import json
    path.write_text(json.dumps({"name": domain, "text": "a task", "flow": nodes}))


def test_omega_from_flow_records_matches_the_library_and_writes_the_reference_layout(tmp_path):
    from intellimetry.gindex.omega_from_flows import load_flow_records, main
    from intellimetry.gindex.reference import load_domain_distance
    first = [{"id": "a", "type": "function", "func": "return msg;", "wires": [["b"]]},
             {"id": "b", "type": "debug", "active": True, "wires": []}]
    second = [{"id": "c", "type": "inject", "repeat": "60", "wires": [["d"]]},
              {"id": "d", "type": "debug", "active": False, "wires": []}]
    _record(tmp_path / "z-1.json", "beta", second)  # file order must not matter: domains come out sorted
    _record(tmp_path / "a-1.json", "alpha", first)
    flows = load_flow_records(tmp_path)
    assert list(flows) == ["alpha", "beta"]
    names, expected = domain_distance_matrix(flows)
    out = tmp_path / "omega.csv"
    assert main([str(tmp_path), "--out", str(out), "--source", "a test"]) == 0
    assert out.read_text().startswith("# Source: a test\n")
    import pandas as pd
    frame = pd.read_csv(out, comment="#", index_col=0)
    np.testing.assert_array_equal(frame.to_numpy(), expected)
    # by hand: Δ(first, second): the debug nodes share type, 0 of 1 key equal for either direction -> S = 0 -> Δ = 1
    assert expected[0, 1] == expected[1, 0] == 1.0
    # the shipped matrices load and differ only where the strict rule rejects a pair
    either, strict = load_domain_distance("either"), load_domain_distance("strict")
    assert list(either.index) == list(strict.index) and (strict.to_numpy() >= either.to_numpy() - 1e-12).all()
    with pytest.raises(ValueError, match="allowed: either, strict"):
        load_domain_distance("loose")


def test_omega_from_flow_records_rejects_bad_records(tmp_path):
    from intellimetry.gindex.omega_from_flows import load_flow_records
    with pytest.raises(ValueError, match="no \\*.json"):
        load_flow_records(tmp_path)
    (tmp_path / "bad.json").write_text('{"flow": []}')
    with pytest.raises(ValueError, match="needs 'name'"):
        load_flow_records(tmp_path)
    _record(tmp_path / "bad.json", "x", [{"id": "a", "type": "debug", "wires": [["nowhere"]]}])
    with pytest.raises(ValueError, match="dangling wire"):
        load_flow_records(tmp_path)
