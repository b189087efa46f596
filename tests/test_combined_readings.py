"""The readings figure's statistics (intellimetry.combined.readings): skill, the curve summaries and the
gap between 3-RPM and 6-RPM on known curves; the untrained control fails every reading's criterion; and an
epoch of a fixed number of problems passes a small set more than once."""
from __future__ import annotations

import numpy as np
import pytest

from intellimetry.combined import readings, training
from intellimetry.criteria import FAILS, HOLDS, judge
from intellimetry.verdicts import load_items


@pytest.fixture(scope="module")
def items():
    return {item["id"]: item for item in load_items("combined")["items"]}


def _runs(curve3, curve6, initial3, initial6):
    return {"3-RPM": {"curve": np.asarray(curve3, float), "initial": np.asarray(initial3, float), "set": {}},
            "6-RPM": {"curve": np.asarray(curve6, float), "initial": np.asarray(initial6, float), "set": {}}}


def test_skill_puts_chance_at_zero_and_a_perfect_score_at_one():
    assert readings.skill([1 / 3, 1.0], 3) == pytest.approx([0.0, 1.0])
    assert readings.skill(1 / 6 + 5 / 12, 6) == pytest.approx(0.5)


def test_a_reading_harder_than_3rpm_but_learnable_by_hand(items):
    # three agents, four epochs: 3-RPM perfect from the first epoch, 6-RPM rising to 0.8
    curve3 = np.ones((4, 3))
    curve6 = np.array([[1 / 6] * 3, [0.4] * 3, [0.6] * 3, [0.78, 0.8, 0.82]])
    found = readings.summarise_reading(_runs(curve3, curve6, [1 / 3] * 3, [1 / 6] * 3))
    expected_gap = np.mean(1 - readings.skill(curve6.mean(axis=1), 6))
    assert found["harder_gap"] == pytest.approx(expected_gap)
    assert found["rpm6"]["final"] == pytest.approx(0.8)
    assert found["rpm6"]["gain"] == pytest.approx(readings.skill(0.8, 6))
    assert found["rpm3"]["mastery"]["per_agent"] == [1, 1, 1] and found["rpm6"]["mastered"] == 0
    assert found["rpm6"]["mastery"]["epochs"] == 4 and found["rpm6"]["mastery"]["censored"] == 3
    assert found["vs_table2"] == pytest.approx(0.8 - 0.853)
    values = {"readings": {"shared": found}, "agents": 3}
    assert judge(items["rpm6-shared"]["criterion"], values)[0] == HOLDS
    # mastered (0.95 and more, by the whole interval): easier than the paper's 6-RPM
    curve6[-1] = [0.99, 1.0, 1.0]
    mastered = readings.summarise_reading(_runs(curve3, curve6, [1 / 3] * 3, [1 / 6] * 3))
    assert judge(items["rpm6-shared"]["criterion"], {"readings": {"shared": mastered}})[0] == FAILS
    assert judge(items["rpm6-shared"]["qualitative"], {"readings": {"shared": mastered}})[0] == HOLDS


def test_the_untrained_control_fails_every_readings_criterion(items):
    rng = np.random.default_rng(2)
    runs = _runs(np.ones((5, 3)), 0.2 + 0.6 * rng.random((5, 3)), [0.3, 0.35, 0.32], [0.17, 0.2, 0.15])
    control = readings.summarise_reading(readings.untrained_runs(runs))
    assert control["rpm6"]["gain"] == 0 and control["rpm6"]["gain_interval"] == [0.0, 0.0]
    for reading in ("shared", "cyclic", "bounded", "independent"):
        values = {"readings": {reading: control}}
        assert judge(items[f"rpm6-{reading}"]["criterion"], values)[0] == FAILS
        assert judge(items[f"rpm6-{reading}"]["qualitative"], values)[0] == FAILS


def test_an_epoch_of_more_problems_than_the_set_passes_it_again():
    order = training.epoch_order(np.random.default_rng(0), 5, 12)
    assert len(order) == 12 and sorted(order[:5]) == list(range(5)) and sorted(order[5:10]) == list(range(5))
    assert sorted(np.bincount(order, minlength=5).tolist()) == [2, 2, 2, 3, 3]
    # without a length it is one random order of the whole set, as before
    assert (training.epoch_order(np.random.default_rng(0), 7) == np.random.default_rng(0).permutation(7)).all()


def test_the_readings_sets_give_6rpm_the_training_problems_and_3rpm_what_it_has():
    shared = readings.reading_sets("shared", 90, 0)
    assert (shared.size_6rpm, shared.size_3rpm) == (100, 100)
    bounded = readings.reading_sets("bounded", 900, 0)
    assert (bounded.size_6rpm, bounded.size_3rpm) == (1000, 64)
    assert bounded.get("6-RPM").x.shape[1] == 48 and len(bounded.get("6-RPM").train) == 900
