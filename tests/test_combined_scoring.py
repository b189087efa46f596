"""Eq. 1-3 (the paper's weights from its epoch counts), epochs to a threshold, and known answers of the
two validity criteria and the convergence statistic."""
from __future__ import annotations

import numpy as np
import pytest

from intellimetry.combined.scoring import difficulty, difficulty_weights, epochs_to_threshold, mixed_score
from intellimetry.combined.validity import VALID, convergence, handicap_validity, training_validity


def test_the_weights_sum_to_one_and_reproduce_the_papers_from_its_epoch_counts():
    weights = difficulty_weights({"CartPole": 383, "3-RPM": 118})
    assert sum(weights.values()) == pytest.approx(1.0)
    assert (round(weights["CartPole"], 2), round(weights["3-RPM"], 2)) == (0.76, 0.24)
    assert weights["CartPole"] == pytest.approx(383 / 501)
    assert mixed_score({"CartPole": 0.5, "3-RPM": 1.0}, weights) == pytest.approx((0.5 * 383 + 118) / 501)
    with pytest.raises(ValueError, match=r"no score for \['CartPole'\]"):
        mixed_score({"3-RPM": 1.0}, weights)
    with pytest.raises(ValueError, match="difficulty of 3-RPM must be a finite number > 0"):
        difficulty_weights({"CartPole": 383, "3-RPM": 0})


def test_epochs_to_threshold_and_censored_difficulty():
    curve = [[0.5, 0.96], [0.96, 0.2], [0.2, 0.3]]  # epochs x agents
    assert epochs_to_threshold(curve, 0.95) == [2, 1]
    assert epochs_to_threshold(curve, 0.95, window=2) == [None, 1]  # agent 0's two-epoch mean never reaches it
    found = difficulty(curve, 0.95, window=2)
    assert (found["epochs"], found["censored"]) == (2.0, 1)  # (3 epochs trained + 1) / 2


def test_handicap_validity_finds_the_cliff_and_calls_a_cliff_not_linear():
    removed = list(range(16))
    cliff = np.array([[0.9, 0.9]] * 13 + [[0.3, 0.3]] * 3)
    found = handicap_validity(removed, cliff)
    assert (found["largest_drop_at"], found["plateau_change"]) == (13, 0.0)
    assert found["rho"] < 0 and found["linear_r2"] < 0.8 and found["verdict"] != VALID
    linear = np.array([[1 - r / 16] * 3 for r in removed])
    found = handicap_validity(removed, linear)
    assert found["rho"] == pytest.approx(-1) and found["linear_r2"] == pytest.approx(1)
    assert found["plateau_change"] == pytest.approx(12 / 16) and found["verdict"] == VALID
    assert found["sd"] == pytest.approx([0.0] * 16)


def test_training_validity_rewards_a_steady_rise_only():
    shares = [0.0, 0.05, 0.1, 0.15]
    rising = training_validity(shares, [[0.3, 0.4], [0.5, 0.6], [0.7, 0.8], [0.9, 1.0]])
    assert rising["verdict"] == VALID and rising["score_at_10pct"] == pytest.approx(0.75)
    flat = training_validity(shares, [[0.5, 0.5]] * 4)
    assert (flat["rho"], flat["p"], flat["linear_r2"], flat["verdict"]) == (0.0, 1.0, 0.0, "not valid")
    assert training_validity([0.0, 0.05], [[0.1], [0.2]])["score_at_10pct"] is None


def test_convergence_of_shrinking_and_of_steady_weight_changes():
    epochs = np.arange(1, 101)
    shrinking = convergence(np.stack([1 / epochs, 2 / epochs], axis=1))
    assert shrinking["converging"] and shrinking["rho"] == pytest.approx(-1)
    assert max(shrinking["scaled"]) == 1.0 and shrinking["last_tenth"] < shrinking["first_tenth"]
    steady = convergence(np.ones((100, 2)))
    assert not steady["converging"] and steady["p"] == 1.0
