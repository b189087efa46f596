"""A handicap study split into chunks (Fig. 5 at full): the same scores as one cohort, on one or two
processes, each chunk kept in the model cache, and one cohort keeping the key it always had."""
from __future__ import annotations

import numpy as np
import pytest

from intellimetry.combined import study, training
from intellimetry.combined.study import Recipe, Sets, agent_seeds, handicap_scores, handicap_study, merge_records

REMOVED = [0, 5, 10, 15]
ARGS = ("3-RPM", "small", REMOVED, 2, 2, 0.001, 32)  # task, topology, levels, agents, epochs, rate, batch


@pytest.fixture(scope="module")
def sets():
    return Sets(size_3rpm=60, size_6rpm=60)


def scores(sets, cache, **options):
    return handicap_scores(*ARGS, sets, 2, cache_root=cache, progress=False, **options)


def test_chunks_give_the_scores_of_one_cohort(sets, tmp_path):
    whole, record = scores(sets, tmp_path / "one")
    for chunks in (2, 4):
        parts, merged = scores(sets, tmp_path / f"split{chunks}", chunks=chunks)
        np.testing.assert_array_equal(parts, whole)
        assert merged["removed"] == record["removed"] and merged["seeds"] == record["seeds"]
        assert len(merged["keys"]) == chunks and len(set(merged["keys"])) == chunks


def test_two_workers_give_what_one_gives(sets, tmp_path):
    one, _ = scores(sets, tmp_path / "one", chunks=2)
    two, _ = scores(sets, tmp_path / "two", chunks=2, workers=2)
    np.testing.assert_array_equal(one, two)


def test_finished_chunks_are_read_back_not_retrained(sets, tmp_path, monkeypatch):
    first, _ = scores(sets, tmp_path, chunks=4)
    assert len(list((tmp_path / "combined-agents").glob("*.json"))) == 4

    def forbidden(*args, **kwargs):
        raise AssertionError("a cached chunk was trained again")

    monkeypatch.setattr(training, "train", forbidden)
    again, _ = scores(sets, tmp_path, chunks=4)
    np.testing.assert_array_equal(again, first)


def test_one_chunk_is_the_cohort_the_other_figures_cache(sets, tmp_path):
    _, record = scores(sets, tmp_path)
    recipe = Recipe("3-RPM", "small", 2, 0.001, 32)
    direct = study.run_cohort(recipe, [r for r in REMOVED for _ in range(2)], agent_seeds(0, 2, offset=50) * 4, sets,
                              ("3-RPM",), 2, 0, cache_root=tmp_path, progress=False)
    assert record["key"] == direct["key"] and "keys" not in record


def test_bad_splits_are_refused_with_what_is_allowed(sets, tmp_path):
    with pytest.raises(ValueError, match=r"chunks must be an integer >= 1 and <= 4, got 5"):
        scores(sets, tmp_path, chunks=5)
    with pytest.raises(ValueError, match=r"chunks names \['rpm6'\], not among the studied cohorts \['rpm3'\]"):
        handicap_study({"rpm3": ("3-RPM", "small")}, REMOVED, 2, {"3-RPM": 2}, 0.001, 32, sets, 2, 13,
                       cache_root=tmp_path, progress=False, chunks={"rpm6": 2})
    first = {"recipe": {"epochs": 1}, "removed": [0], "seeds": [1], "scores": {"3-RPM": [0.5]}, "seconds": 1,
             "key": "a"}
    with pytest.raises(ValueError, match="only cohorts of one recipe can be merged, got 2 recipes"):
        merge_records([first, {**first, "recipe": {"epochs": 2}, "key": "b"}])


def test_merged_records_concatenate_in_order_and_sum_the_time():
    parts = [{"recipe": {"task": "3-RPM"}, "removed": removed, "seeds": [7, 8], "scores": {"3-RPM": values},
              "seconds": seconds, "cpu_seconds": seconds / 2, "key": key}
             for removed, values, seconds, key in (([0, 0], [0.1, 0.2], 3.0, "a"), ([9, 9], [0.3, 0.4], 5.0, "b"))]
    merged = merge_records(parts)
    assert merged["removed"] == [0, 0, 9, 9] and merged["seeds"] == [7, 8, 7, 8]
    assert merged["scores"] == {"3-RPM": [0.1, 0.2, 0.3, 0.4]}
    assert merged["seconds"] == 8.0 and merged["cpu_seconds"] == 4.0 and merged["keys"] == ["a", "b"]
