"""The combined-tests claims (issue 32): statistics with intervals over agents, known answers; the paper's
own table numbers pass their items' criteria; and each kind of negative control (untrained networks,
random-guess agents, random agents in every row, shuffled epochs) fails its claim's criterion."""
from __future__ import annotations

import numpy as np
import pytest

from intellimetry.combined import claims
from intellimetry.combined.study import Sets, handicap_scores, random_scores, random_share_scores, summarise_table
from intellimetry.combined.validity import handicap_validity, mean_spread, training_validity
from intellimetry.criteria import FAILS, HOLDS, judge
from intellimetry.verdicts import REPRODUCED, load_items, verdict


@pytest.fixture(scope="module")
def items():
    return {item["id"]: item for item in load_items("combined")["items"]}


@pytest.fixture(scope="module")
def sets():
    return Sets(size_3rpm=60, size_6rpm=60)


def test_mean_spread_is_the_t_interval_and_a_single_agent_has_none():
    low, high = mean_spread([1.0, 2.0, 3.0])
    assert (low + high) / 2 == pytest.approx(2.0) and high - 2 == pytest.approx(4.302653 * 1 / np.sqrt(3), rel=1e-5)
    assert mean_spread([0.5]) == [0.5, 0.5]


def test_the_plateau_carries_its_sign_and_an_interval_over_agents():
    removed = list(range(16))
    scores = np.array([[0.8, 0.9, 1.0]] * 13 + [[0.3, 0.3, 0.3]] * 3)
    scores[12] = [0.72, 0.81, 0.9]  # every agent 10 % below its own unhandicapped score
    found = handicap_validity(removed, scores)
    assert found["plateau_shift"] == pytest.approx(-0.1) and found["plateau_change"] == pytest.approx(0.1)
    assert found["plateau_interval"][0] < -0.1 < found["plateau_interval"][1]  # the agents differ: a spread
    same = handicap_validity(removed, np.array([[0.9, 0.9]] * 13 + [[0.3, 0.3]] * 3))
    assert same["plateau_interval"] == pytest.approx([0.0, 0.0])


def test_the_score_at_ten_percent_has_an_interval():
    found = training_validity([0.0, 0.1], [[0.3, 0.3, 0.3], [0.8, 0.9, 1.0]])
    assert found["score_at_10pct"] == pytest.approx(0.9)
    assert found["score_at_10pct_interval"] == pytest.approx(mean_spread([0.8, 0.9, 1.0]))
    assert training_validity([0.0, 0.05], [[0.1], [0.2]])["score_at_10pct_interval"] is None


def test_lead_is_a_difference_of_means_with_the_interval_of_the_differences():
    value, interval = claims.lead([0.9, 0.8, 0.7], [0.5, 0.5, 0.2])
    assert value == pytest.approx(0.4) and interval == pytest.approx(mean_spread([0.4, 0.3, 0.5]))
    with pytest.raises(ValueError, match="same number of agents"):
        claims.lead([0.9, 0.8], [0.5])


def test_table_claim_by_hand():
    scores = {"3-RPM": {"3-RPM": [0.9, 0.9], "CartPole": [0.1, 0.1], "Mixed": [0.3, 0.3]},
              "CartPole": {"3-RPM": [0.4, 0.4], "CartPole": [0.8, 0.8], "Mixed": [0.7, 0.7]},
              "Random": {"3-RPM": [0.3, 0.3], "CartPole": [0.05, 0.05], "Mixed": [0.1, 0.1]}}
    found = claims.table_claim(scores, ["3-RPM", "CartPole"])
    assert found["own_lead"] == pytest.approx({"3-RPM": 0.5, "CartPole": 0.7})
    assert found["own_runner_up"] == {"3-RPM": "CartPole", "CartPole": "3-RPM"}
    assert found["mixed_lead"]["CartPole"] == pytest.approx(0.4)
    assert found["mixed_lead"]["Random"] == pytest.approx(-0.6)
    assert found["mixed_trail"]["Random"] == pytest.approx(0.2)
    assert found["mixed_trail"]["CartPole"] == pytest.approx(-0.6)
    assert found["mixed_lead_interval"]["CartPole"] == pytest.approx([0.4, 0.4])  # identical agents: no spread
    rows = {name: {t: row[t] for t in ("3-RPM", "CartPole")} for name, row in scores.items()}
    weighted = claims.table_claim_from_rows(rows, ["3-RPM", "CartPole"], {"3-RPM": 0.5, "CartPole": 0.5})
    assert weighted["mixed_lead"]["CartPole"] == pytest.approx(0.6 - 0.5)


@pytest.mark.parametrize("item_id, function", [("tab01", claims.table1_paper_values),
                                                ("tab02", claims.table2_paper_values)])
def test_the_papers_own_tables_pass_their_criteria(items, item_id, function):
    values = function()
    assert judge(items[item_id]["criterion"], values)[0] == HOLDS
    key = "table1" if item_id == "tab01" else "table2"
    assert values[key]["specialists_best_own"] is True and values[key]["worst_mixed_agent"] == "Random"


def test_training_gap_and_linear_gain():
    shares = [0.0, 0.1]
    three, six = np.array([[0.3, 0.3, 0.3], [0.9, 0.8, 0.7]]), np.array([[0.2, 0.2, 0.2], [0.5, 0.5, 0.5]])
    gap = claims.training_gap(three, six, training_validity(shares, three), training_validity(shares, six))
    assert gap["gap_to_rpm3_at_10pct"] == pytest.approx(0.3)
    assert gap["gap_interval"] == pytest.approx(mean_spread([0.4, 0.3, 0.2]))
    removed = list(range(16))
    linear = np.array([[1 - r / 16] * 3 for r in removed])
    cliff = np.array([[0.9] * 3] * 13 + [[0.3] * 3] * 3)
    found = claims.linear_gain(removed, linear, cliff, 50, np.random.default_rng(0))
    gain = found["linear_r2_gain"]
    assert gain > 0.3 and found["linear_r2_gain_interval"] == pytest.approx([gain, gain])  # identical agents


# ----------------------------------------------------------------------------- each kind of control fails

def test_untrained_networks_fail_the_handicap_claims(items, sets, tmp_path):
    removed = list(range(16))
    untrained = {name: handicap_validity(removed, handicap_scores(task, "small", removed, 3, 0, 0.001, 32, sets, 2,
                                                                  cache_root=tmp_path, progress=False)[0])
                 for name, task in (("rpm3", "3-RPM"), ("cartpole", "CartPole"))}
    assert judge(items["fig02"]["criterion"], untrained)[0] != HOLDS
    cliff = handicap_validity(removed, np.array([[0.9] * 3] * 13 + [[0.3] * 3] * 3))
    assert judge(items["fig02"]["criterion"], {"rpm3": cliff, "cartpole": cliff})[0] == HOLDS


def test_random_guess_agents_fail_the_training_claims(items, sets):
    shares = [0.0, 0.05, 0.1, 0.15]
    guesses = random_share_scores("3-RPM", shares, 3, sets, seed=0)
    assert guesses.shape == (4, 3) and abs(guesses.mean() - 1 / 3) < 0.1
    assert judge(items["fig03"]["criterion"], {"rpm3_training": training_validity(shares, guesses)})[0] == FAILS


def test_random_agents_in_every_row_fail_the_table_claim(items, sets):
    tests = ["3-RPM", "CartPole"]
    weights = {"3-RPM": 0.24, "CartPole": 0.76}
    rows = {name: random_scores(tests, sets, 4, 3, seed) for seed, name in enumerate(["3-RPM", "CartPole", "Mixed",
                                                                                     "Random"])}
    control = summarise_table(rows, tests, weights) | claims.table_claim_from_rows(rows, tests, weights)
    assert judge(items["tab01"]["criterion"], {"table1": control})[0] != HOLDS


def test_shuffled_epochs_fail_the_convergence_claim(items):
    epochs = np.arange(1, 201)[:, None]
    rng = np.random.default_rng(1)
    changes = {"rpm3": 1 / epochs + 0 * rng.random((200, 3)), "cartpole": 1 / np.sqrt(epochs) * np.ones((1, 3)),
               "mixed": 1 + 0.1 * rng.random((200, 3))}
    ours = claims.convergence_claim(changes)
    assert ours["mixed_not_converging"] is True
    assert judge(items["fig06"]["criterion"], {"convergence": ours})[0] == HOLDS
    shuffled = claims.convergence_claim(changes, np.random.default_rng(0))
    assert judge(items["fig06"]["criterion"], {"convergence": shuffled})[0] != HOLDS
    record = verdict(items["fig06"], {"convergence": ours, "control": {"convergence": shuffled}})
    assert record["verdict"] == REPRODUCED and record["control"]["outcome"] != HOLDS


def test_every_printed_score_against_ours_by_hand():
    rows = {"3-RPM": {"3-RPM": [0.8, 0.9, 1.0], "CartPole": [0.1, 0.1, 0.1]},
            "Random": {"3-RPM": [0.3, 0.3, 0.3], "CartPole": [0.05, 0.05, 0.05]}}
    paper = {"3-RPM": {"3-RPM": 0.82, "CartPole": 0.448, "Mixed": 0.536},
             "Random": {"3-RPM": 0.333, "CartPole": 0.048, "Mixed": 0.114}}
    found = claims.versus_paper(rows, ["3-RPM", "CartPole"], {"3-RPM": 0.24, "CartPole": 0.76}, paper)
    cell = found["cells"]["3-RPM"]["3-RPM"]
    assert cell["diff"] == pytest.approx(0.9 - 0.82) and cell["interval"] == pytest.approx(
        [v - 0.82 for v in mean_spread([0.8, 0.9, 1.0])])
    mixed = found["cells"]["3-RPM"]["Mixed"]  # ours by Eq. 3: 0.24 * 0.9 + 0.76 * 0.1 = 0.292
    assert mixed["ours"] == pytest.approx(0.292) and mixed["diff"] == pytest.approx(0.292 - 0.536)
    # the worst cell is the 3-RPM agent's CartPole (0.1 - 0.448), exact: no spread among its agents
    assert found["worst_gap"] == pytest.approx(0.348) and found["worst_gap_interval"] == pytest.approx([0.348, 0.348])
    assert found["cell_count"] == 6 and found["worst_cell"] == ["3-RPM", "CartPole"]


def test_the_worst_gap_interval_spans_every_cells_interval():
    rows = {"A": {"T": [0.0, 0.2]}}  # mean 0.1, a wide t-interval around it
    found = claims.versus_paper(rows, ["T"], {"T": 1.0}, {"A": {"T": 0.1}})
    low, high = mean_spread([-0.1, 0.1])
    assert found["worst_gap"] == pytest.approx(0.0, abs=1e-12)
    assert found["worst_gap_interval"] == pytest.approx([0.0, max(abs(low), abs(high))])  # straddles zero


def test_random_agents_fail_the_printed_scores_claim(items, sets):
    tests = ["3-RPM", "CartPole"]
    weights = {"3-RPM": 0.24, "CartPole": 0.76}
    rows = {name: random_scores(tests, sets, 4, 3, seed) for seed, name in enumerate(["3-RPM", "CartPole", "Mixed",
                                                                                     "Random"])}
    control = {"vs_paper": claims.versus_paper(rows, tests, weights, claims.paper_table_for(tests)["rows"])}
    assert judge(items["tab01-scores"]["criterion"], {"table1": control})[0] == FAILS
