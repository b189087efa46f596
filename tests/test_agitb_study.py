"""Known answers for the AGITB chapter's study functions: formula checks, the example input, one
candidate's adaptation, the verdict summary and the benchmark table."""
from __future__ import annotations

import numpy as np
import pytest

from intellimetry.agitb.axioms import Result, noisy_sequence
from intellimetry.agitb.inputs import ALL_ONES, BITS, match, random_input
from intellimetry.agitb.study import (
    MARKS,
    adaptation,
    benchmark_table,
    bits_on,
    code_matches_paper,
    denoising_by_echo,
    first_failure,
    formula_checks,
    input_with_bits,
    pass_scores,
    suite_claim,
    verdict_summary,
)


def test_formula_checks_agree_with_enumeration():
    checks = formula_checks([2, 3], [1, 2])
    assert list(zip(checks["n_steps"], checks["bits"])) == [(2, 1), (2, 2), (3, 1), (3, 2)]
    assert checks["agree"].all()
    assert checks["all_formula"].tolist() == [4, 16, 8, 64]  # (2^L)^N sequences of N L-bit inputs


def test_input_with_bits_is_the_first_draw_with_that_many_bits():
    x = input_with_bits(np.random.default_rng(3), 4)
    assert bin(x).count("1") == 4
    rng = np.random.default_rng(3)
    first = random_input(rng)
    while bin(first).count("1") != 4:
        first = random_input(rng)
    assert x == first


def test_adaptation_of_a_model_that_always_predicts_zero():
    sequence = [0b1, 0b11, 0b111]
    run = adaptation("always-zero", sequence, passes=2)
    assert run["observed"] == sequence * 2 and run["predicted"] == [0] * 6
    assert run["errors"] == run["observed"]  # 0 XOR x = x
    assert run["matches"] == [9, 8, 7] * 2  # the bits that are 0 are right
    assert run["first_exact_pass"] is None
    assert adaptation("always-zero", [0, 0], passes=3)["first_exact_pass"] == 1


def test_pass_scores():
    assert pass_scores([9, 8, 7, 10, 10, 10], 3) == {"bits_right_first_pass": 24, "bits_right_last_pass": 30,
                                                     "bits_per_pass": 3 * BITS, "bits_gained": 6}
    # a model that gets worse has a negative gain (Fig. 2's criterion then fails)
    assert pass_scores([10, 10, 9, 8], 2)["bits_gained"] == -3


def test_verdict_summary_by_hand():
    good = [Result(1, "a", "pass", 1.0), Result(2, "b", "pass", 2.0)]
    bad = [Result(1, "a", "pass", 0.5), Result(2, "b", "fail", 0.25), Result(3, "c", "not reached")]
    liveness = {name: {"batch": 4, "z": 0.1, "pairs": 10, "slower": False, "limit": 2.0, "extra": 1}
                for name in ("echo", "order-1")}
    summary = verdict_summary({"echo": good, "order-1": bad}, liveness, null=("order-1",))
    assert first_failure(good) is None and first_failure(bad) == 2
    assert list(summary["candidates"]) == ["echo", "order_1"]
    order1 = summary["candidates"]["order_1"]
    assert (order1["passed"], order1["first_failure"], order1["seconds"]) == (1, 2, 0.75)
    assert order1["tests"]["t3"]["mark"] == MARKS["not reached"] and order1["tests"]["t2"]["verdict"] == "fail"
    assert order1["liveness"] == {"batch": 4, "z": 0.1, "pairs": 10, "slower": False, "limit": 2.0}
    assert summary["any_passes_all"] is True
    assert verdict_summary({"order-1": bad}, liveness, null=("order-1",))["any_passes_all"] is False
    # failing only the timed test 12 passes every untimed test
    slow = [Result(1, "a", "pass", 1.0), Result(12, "real_time_liveness", "fail", 1.0)]
    timed = verdict_summary({"echo": slow, "order-1": bad}, liveness, null=("order-1",))
    assert timed["any_passes_all"] is False and timed["any_passes_all_untimed"] is True
    assert summary["any_passes_all_untimed"] is True
    assert verdict_summary({"order-1": bad}, liveness, null=("order-1",))["any_passes_all_untimed"] is False
    assert summary["control"]["any_passes_all"] is False and summary["control"]["candidates"] == "order-1"
    with pytest.raises(ValueError, match="null candidates"):
        verdict_summary({"echo": good}, liveness)


def test_suite_claim_by_hand():
    # two narrow candidates that between them pass every test, neither all: the paper's central claim
    a = [Result(1, "a", "pass"), Result(2, "b", "fail"), Result(12, "t", "pass")]
    b = [Result(1, "a", "pass"), Result(2, "b", "pass"), Result(12, "t", "fail")]
    claim = suite_claim({"a": a, "b": b})
    assert claim == {"any_passes_all": False, "any_passes_all_untimed": True, "each_test_passed_by_some": True,
                     "tests_passed_by_none": "none", "most_tests_passed": 2}
    claim = suite_claim({"a": a})
    assert claim["each_test_passed_by_some"] is False and claim["tests_passed_by_none"] == "2"


def _central_item():
    from intellimetry.verdicts import load_items
    return next(item for item in load_items("agitb")["items"] if item["id"] == "central")


def test_the_central_claim_holds_for_narrow_learners_and_fails_for_the_null_candidates():
    from intellimetry.criteria import FAILS, HOLDS, judge
    from intellimetry.verdicts import INCONCLUSIVE, REPRODUCED, verdict
    solvers = {f"solver{n}": [Result(k, "t", "pass" if k != n else "fail") for k in range(1, 13)] for n in (5, 6)}
    nulls = {"always-zero": [Result(k, "t", "pass" if k <= 2 else "fail") for k in range(1, 13)],
             "history-random": [Result(k, "t", "pass" if k in (1, 2, 3, 4, 12) else "fail") for k in range(1, 13)]}
    liveness = {name: dict.fromkeys(("batch", "z", "pairs", "slower", "limit"), 0) for name in {**solvers, **nulls}}
    values = verdict_summary({**solvers, **nulls}, liveness)
    item = _central_item()
    assert judge(item["criterion"], values)[0] == HOLDS
    assert judge(item["criterion"], values["control"])[0] == FAILS  # the null candidates learn nothing
    assert verdict(item, values)["verdict"] == REPRODUCED
    # a test no candidate passes: "none passes all twelve" then says nothing about the conjunction
    values = verdict_summary({"solver5": solvers["solver5"], **nulls}, liveness)
    assert verdict(item, values)["verdict"] == INCONCLUSIVE
    # a candidate passing everything contradicts the claim
    values = verdict_summary({**solvers, **nulls, "agi": [Result(k, "t", "pass") for k in range(1, 13)]},
                             {**liveness, "agi": liveness["always-zero"]})
    assert verdict(item, values)["verdict"] == "not reproduced"


def test_benchmark_table_adds_the_code_column_and_compares_it():
    paper = {"columns": ["Other", "AGITB"],
             "rows": [["Interface modality", "Text", "Binary"], ["Input dimensionality", "any", "10 bits"],
                      ["Temporal sequence length", "long", "Short (7+)"], ["Scoring", "accuracy", "pass/fail"]]}
    rows, columns = benchmark_table(paper)
    assert columns == ["Property", "Other", "AGITB", "this book's AGITB"]
    assert [row[-1] for row in rows] == ["Binary", "10 bits", "Short (7+)", "—"]  # BITS = 10, SEQUENCE_LENGTH = 7
    assert code_matches_paper(rows, paper) == {
        "matches_paper": {"Interface modality": True, "Input dimensionality": True, "Temporal sequence length": True},
        "all_code_rows_match": True}
    paper["rows"][1][2] = "100 bits"
    rows, _ = benchmark_table(paper)
    checked = code_matches_paper(rows, paper)
    assert checked["matches_paper"]["Input dimensionality"] is False and checked["all_code_rows_match"] is False


def test_noisy_sequence_corrupts_the_first_element_admissibly():
    rng = np.random.default_rng(0)
    for _ in range(200):
        sequence, corrupted = noisy_sequence(rng, 7)
        assert corrupted != sequence[0] and corrupted & (sequence[1] | sequence[-1]) == 0


def test_denoising_by_echo_by_hand():
    trials, runs = 30, 4
    echo = denoising_by_echo(np.random.default_rng(5), trials, runs)
    # the same draws, scored by hand
    rng = np.random.default_rng(5)
    draws = [noisy_sequence(rng, 7) for _ in range(trials * runs)]
    scores = [[(match(c, s[0]), match(0, s[0]), match(ALL_ONES, s[0])) for s, c in draws[t * runs:(t + 1) * runs]]
              for t in range(trials)]
    passed = [sum(r[0] for r in t) > max(sum(r[1] for r in t), sum(r[2] for r in t)) for t in scores]
    assert echo["echo_trial_pass_rate"] == sum(passed) / trials
    assert echo["echo_bits"] == sum(match(c, s[0]) for s, c in draws) / (trials * runs)
    # every bit is right for exactly one of the two constant guesses
    assert echo["zeros_bits"] + echo["ones_bits"] == pytest.approx(BITS)


def test_bits_on_counts_the_set_bits():
    assert [bits_on(x) for x in (0, 1, 0b1011, 0b1111111111)] == [0, 1, 3, 10]


def test_a_finished_candidate_is_reused_from_the_cache_and_a_changed_setting_runs_again(tmp_path, monkeypatch):
    """Table 0 resumes: a candidate that already ran with these settings and seed is read back whole
    (the suite does not run again); another SimulatedInfinity runs it afresh."""
    from intellimetry.agitb import study
    from intellimetry.agitb.axioms import Settings

    settings = Settings(simulated_infinity=10, repetitions=2, runs_per_trial=2, liveness_batches=4)
    first, first_liveness = study.run_candidates(["always-zero"], settings, seed=3, progress=False,
                                                 cache_root=tmp_path)
    assert first["always-zero"][2].verdict == "fail"  # its state never changes: the trace test fails at once

    def must_not_run(*args, **kwargs):
        raise AssertionError("the suite ran again although the candidate was cached")

    monkeypatch.setattr(study, "run_suite", must_not_run)
    again, again_liveness = study.run_candidates(["always-zero"], settings, seed=3, progress=False,
                                                 cache_root=tmp_path)
    assert again == first and again_liveness == first_liveness
    with pytest.raises(AssertionError, match="ran again"):
        study.run_candidates(["always-zero"], Settings(simulated_infinity=11, repetitions=2, runs_per_trial=2,
                                                       liveness_batches=4), seed=3, progress=False,
                             cache_root=tmp_path)
