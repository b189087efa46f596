"""The twelve tests on candidates with known outcomes, and exact replay of a failure."""
import pytest

from intellimetry.agitb.axioms import TESTS, Settings, replay, run_suite, run_test
from intellimetry.agitb.inputs import invert
from intellimetry.agitb.models import AlwaysZero, ComplementEcho, Echo, Order1Lookup
from intellimetry.agitb.protocol import Subject

SMALL = Settings(simulated_infinity=60, repetitions=3, runs_per_trial=4, liveness_batches=30, liveness_structured=8)
TEST = {t.number: t for t in TESTS}


def test_always_zero_fails_the_trace_test_at_once():
    result = run_test(TEST[3], AlwaysZero, SMALL, seed=0)
    assert result.verdict == "fail" and result.repetitions_run == 1 and "earlier state" in result.message


def test_complement_echo_learns_x_and_its_inverse_and_plain_echo_cannot():
    # Echo predicts a repeat of the last input, which the refractory constraint forbids (except 0);
    # the complement echo predicts ~x after x, so {x, ~x} is learned on the second pass.
    for x in (1, 0b1010101010, 1023):
        assert Subject(ComplementEcho()).learns([x, invert(x)], budget=50)
        assert Subject(ComplementEcho()).time_to_learn([x, invert(x)], budget=50) <= 2
        assert not Subject(Echo()).learns([x, invert(x)], budget=50)


def test_uninformed_start_and_determinism_pass_for_deterministic_models():
    for factory in (AlwaysZero, Echo, Order1Lookup):
        assert run_test(TEST[1], factory, SMALL, seed=0).verdict == "pass"
        assert run_test(TEST[2], factory, SMALL, seed=0).verdict == "pass"


def test_a_recorded_failure_replays_exactly():
    result = run_test(TEST[4], Echo, SMALL, seed=5)  # echo forgets order: x,~x and ~x,x end the same? no: differ
    failing = result if result.verdict == "fail" else run_test(TEST[3], AlwaysZero, SMALL, seed=5)
    assert failing.failure_seed is not None
    message = replay(failing.number, failing.failure_seed, {4: Echo, 3: AlwaysZero}[failing.number], SMALL)
    assert message is not None and failing.message.endswith(message)


def test_stop_at_first_failure_marks_the_rest_not_reached():
    results = run_suite(AlwaysZero, SMALL, seed=0, tests=(1, 2, 3, 4), stop_at_first_failure=True)
    assert [r.verdict for r in results] == ["pass", "pass", "fail", "not reached"]
    everything = run_suite(AlwaysZero, SMALL, seed=0, tests=(1, 3, 4))
    assert "not reached" not in [r.verdict for r in everything]


def test_seeds_of_a_test_do_not_depend_on_which_tests_run():
    alone = run_suite(AlwaysZero, SMALL, seed=3, tests=(3,))[0]
    together = run_suite(AlwaysZero, SMALL, seed=3, tests=(1, 2, 3))[2]
    assert alone.failure_seed == together.failure_seed


def test_settings_and_test_numbers_are_validated():
    with pytest.raises(ValueError, match="simulated_infinity must be at least 1"):
        Settings(simulated_infinity=0)
    with pytest.raises(ValueError, match="allowed: 1 to 12"):
        run_suite(AlwaysZero, SMALL, seed=0, tests=(13,))


def test_command_line_prints_verdicts_and_replays_a_failure(capsys):
    import re

    from intellimetry.agitb.__main__ import main

    code = main(["always-zero", "--simulated-infinity", "20", "--tests", "1,3", "--seed", "4"])
    out = capsys.readouterr().out
    assert code == 1 and "uninformed start" in out and "passed 1 of 2 tests" in out
    seed = re.search(r"--replay 3:(\d+)", out).group(1)
    assert main(["always-zero", "--simulated-infinity", "20", "--replay", f"3:{seed}"]) == 1
    assert "fails: the model returned to an earlier state" in capsys.readouterr().out


def test_command_line_rejects_unknown_models_and_tests():
    from intellimetry.agitb.__main__ import main

    with pytest.raises(SystemExit):
        main(["no-such-model"])
    with pytest.raises(SystemExit):
        main(["echo", "--tests", "0,13"])
