"""The AGITB candidate models: the protocol (fresh equality, copies, determinism, state keys) and
the behaviour each is built for."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from intellimetry.agitb.inputs import ALL_ONES, invert, random_sequence, trivial
from intellimetry.agitb.models import (
    CANDIDATES,
    AlwaysZero,
    ComplementEcho,
    Echo,
    HistoryRandom,
    OnlineBitPredictor,
    OnlineBitPredictor7,
    Order1Lookup,
    Order7Lookup,
    OrderKLookup,
    load_model,
)
from intellimetry.agitb.protocol import Model, Subject

NAMES = sorted(CANDIDATES)
STATEFUL = [name for name in NAMES if CANDIDATES[name] is not AlwaysZero]
# Models whose state carries a clock, so that no state can come back (the trace axiom).
TRACED = ["history-random", "order-1", "order-7", "online-bits", "online-bits-7"]


def admissible(seed: int, length: int) -> list[int]:
    return random_sequence(np.random.default_rng(seed), length)


def unmasked(seed: int, length: int) -> list[int]:
    return [int(x) for x in np.random.default_rng(seed).integers(0, ALL_ONES + 1, length)]


def fed(model, inputs):
    for x in inputs:
        model(x)
    return model


def test_the_candidates_are_the_ones_the_book_names():
    assert {"always-zero", "echo", "history-random", "order-1", "order-7", "online-bits"} <= set(CANDIDATES)
    for cls in CANDIDATES.values():
        assert isinstance(cls(), Model)


@pytest.mark.parametrize("name", NAMES)
def test_fresh_instances_are_equal_and_share_a_state_key(name):
    cls = CANDIDATES[name]
    a, b = cls(), cls()
    assert a == b and not a != b
    assert a.state_key() == b.state_key()
    hash(a.state_key())


@pytest.mark.parametrize("name", NAMES)
def test_copies_are_equal_and_independent(name):
    cls = CANDIDATES[name]
    history = admissible(1, 200)
    original, reference = fed(cls(), history), fed(cls(), history)
    clone = original.copy()
    assert clone is not original
    assert clone == original and clone.state_key() == original.state_key()
    fed(clone, [3, 8, 16, 992, 1])
    assert original == reference and original.state_key() == reference.state_key()  # untouched
    if name in STATEFUL:
        assert clone != original and clone.state_key() != original.state_key()
    else:
        assert clone == original
    # ... and the original can move on without dragging the copy along.
    before = clone.copy()
    fed(original, [512, 7])
    assert clone == before


@pytest.mark.parametrize("name", NAMES)
def test_the_same_inputs_give_equal_models(name):
    cls = CANDIDATES[name]
    a, b = cls(), cls()
    for x in admissible(2, 150) + unmasked(3, 150) + list(range(0, ALL_ONES + 1, 7)):
        assert a(x) == b(x)
        assert a == b
    assert a.state_key() == b.state_key()


@pytest.mark.parametrize("name", NAMES)
def test_predictions_are_ten_bit_ints(name):
    model = CANDIDATES[name]()
    for x in [0, ALL_ONES, 0, 1, 512] + unmasked(4, 500) + admissible(5, 200):
        prediction = model(x)
        assert type(prediction) is int and 0 <= prediction <= ALL_ONES


@pytest.mark.parametrize("name", STATEFUL)
def test_the_order_of_two_inputs_matters(name):
    # The time axiom: x then ~x leaves a different model than ~x then x.
    warm = fed(CANDIDATES[name](), admissible(6, 50))
    for x in (0, 5, 682):
        a, b = fed(warm.copy(), [x, invert(x)]), fed(warm.copy(), [invert(x), x])
        assert a != b and a.state_key() != b.state_key()


@pytest.mark.parametrize("name", TRACED)
def test_no_state_comes_back(name):
    model = fed(CANDIDATES[name](), admissible(7, 100))
    seen = {model.state_key()}
    for x in unmasked(8, 1500) + [0] * 50:
        model(x)
        key = model.state_key()
        assert key not in seen
        seen.add(key)


# --- the behaviour each candidate is built for -------------------------------------------------

def test_always_zero_never_changes():
    model = AlwaysZero()
    fresh_key = model.state_key()
    for x in unmasked(9, 100):
        assert model(x) == 0
        assert model.state_key() == fresh_key and model == AlwaysZero()


def test_echo_predicts_the_last_input():
    model = Echo()
    for x in unmasked(10, 50):
        assert model(x) == x
    # Predicting the last input learns the constant {x, x}, never the alternation {x, ~x}.
    assert Subject(Echo()).learns([5, 5], budget=100)
    assert not Subject(Echo()).learns([5, invert(5)], budget=100)


def test_complement_echo_learns_exactly_the_admissible_pairs():
    model = ComplementEcho()
    for x in unmasked(11, 50):
        assert model(x) == invert(x)
    assert Subject(ComplementEcho()).learns([5, invert(5)], budget=100)
    assert not Subject(ComplementEcho()).learns([5, 5], budget=100)
    assert ComplementEcho() != Echo()


def test_history_random_depends_on_the_whole_history():
    a, b = fed(HistoryRandom(), [1, 2, 3, 4]), fed(HistoryRandom(), [9, 2, 3, 4])
    assert a != b
    assert a.steps == 4


@pytest.mark.parametrize("make", [lambda: OrderKLookup(1), Order1Lookup])
def test_order_1_predicts_the_latest_successor(make):
    model = make()
    model(40)
    model(3)
    assert model(40) == 3
    model(17)  # 40 -> 17 overwrites 40 -> 3
    model(2)
    assert model(40) == 17
    assert model(999) == 0  # unseen context


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, ALL_ONES), max_size=300), st.lists(st.integers(0, 15), max_size=300))
def test_compiled_order_1_predicts_exactly_what_the_reference_does(inputs, small):
    # Small values revisit contexts, so overwrites and repeated successors are exercised.
    compiled, reference = Order1Lookup(), OrderKLookup(1)
    for x in inputs + small + inputs[::-1]:
        assert compiled(x) == reference(x)
    assert compiled.steps == reference.steps
    assert {c: int(s) for c, s in enumerate(compiled.table) if s >= 0} == reference.table


def _mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
    return z ^ (z >> 31)


def test_history_random_is_the_documented_hash_of_the_history():
    model, h = HistoryRandom(), 0x9E3779B97F4A7C15
    for x in unmasked(16, 500):
        h = _mix64((h * 0x100000001B3 + x + 1) & (2**64 - 1))
        assert model(x) == h >> 54
    assert int(model.state[0]) == h


def _online_step_reference(weights, features, probabilities, x, rate=0.5):
    """The delta rule in plain numpy, written from the docstring of OnlineBitPredictor."""
    target = np.array([x >> i & 1 for i in range(10)], dtype=float)
    weights += np.outer(features, rate * (target - probabilities))
    features = np.concatenate([target, features[:-11], [1.0]])
    z = features @ weights
    probabilities = 1 / (1 + np.exp(-z))
    prediction = sum(1 << i for i in range(10) if z[i] > 0) & ~x & ALL_ONES
    return weights, features, probabilities, prediction


@pytest.mark.parametrize("lags", [1, 2, 7])
def test_online_bit_predictor_is_the_delta_rule(lags):
    model = OnlineBitPredictor(lags)
    weights, features, probabilities = np.zeros((10 * lags + 1, 10)), np.r_[np.zeros(10 * lags), 1.0], np.full(10, 0.5)
    for x in admissible(17, 300):
        weights, features, probabilities, prediction = _online_step_reference(weights, features, probabilities, x)
        assert model(x) == prediction
    np.testing.assert_allclose(model.weights, weights, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(model.features, features)


BATCHED = [name for name in NAMES if hasattr(CANDIDATES[name], "feed_many")]


@pytest.mark.parametrize("name", BATCHED)
@settings(max_examples=25, deadline=None)
@given(warm_up=st.lists(st.integers(0, ALL_ONES), max_size=50),
       batch=st.lists(st.integers(0, ALL_ONES), min_size=1, max_size=200))
def test_a_batch_leaves_the_model_exactly_as_single_steps_do(name, warm_up, batch):
    stepped, batched = fed(CANDIDATES[name](), warm_up), fed(CANDIDATES[name](), warm_up)
    last = [stepped(x) for x in batch][-1]
    assert batched.feed_many(np.array(batch, dtype=np.int64)) == last
    assert batched == stepped and batched.state_key() == stepped.state_key()


def test_order_7_learns_a_repeating_cycle_after_two_passes():
    cycle = [1, 2, 4, 8, 16, 32, 64]
    subject = Subject(Order7Lookup())
    subject.feed_all(cycle * 2)
    assert subject.process(cycle) == cycle
    assert Subject(Order7Lookup()).time_to_learn(cycle, budget=1000) == 2 * len(cycle)
    # A repeated element cannot fool order 7 (it does fool order 1).
    cycle = [1, 2, 1, 4, 1, 8, 16]
    assert Subject(Order7Lookup()).learns(cycle, budget=100)
    assert not Subject(Order1Lookup()).learns(cycle, budget=100)


def test_order_k_lookup_keeps_its_table_hash_up_to_date():
    model = fed(OrderKLookup(3), admissible(12, 400) + [0] * 10 + admissible(13, 400))
    expected = 0
    for context, successor in model.table.items():
        expected ^= hash((context, successor)) ^ hash((context, -1))
    assert model.table_hash == expected


def test_order_k_lookup_rejects_a_bad_k():
    for k in (0, -1, 1.5):
        with pytest.raises(ValueError):
            OrderKLookup(k)


@pytest.mark.parametrize("cls", [OnlineBitPredictor, OnlineBitPredictor7])
def test_online_bit_predictor_obeys_the_refractory_period(cls):
    for x in (0, 1, 5, 682, ALL_ONES):
        assert Subject(cls()).learns([x, invert(x)], budget=1000)
        if x:
            assert not Subject(cls()).learns([x, x], budget=200)
    model = cls()
    for x in unmasked(14, 300):
        assert model(x) & x == 0  # never predicts a bit of the current input


def test_online_bit_predictor_learns_random_cycles():
    rng = np.random.default_rng(15)
    from intellimetry.agitb.inputs import circular_random
    learned = sum(Subject(OnlineBitPredictor()).learns(circular_random(rng, 7), budget=2000) for _ in range(20))
    assert learned >= 15


def test_only_seven_lags_learn_trivial_7_then_trivial_8():
    assert not Subject(OnlineBitPredictor()).learns(trivial(7), budget=1000)
    subject = Subject(OnlineBitPredictor7())
    assert subject.learns(trivial(7), budget=1000)
    assert subject.learns(trivial(8), budget=1000)


def test_online_bit_predictor_rejects_bad_lags():
    with pytest.raises(ValueError):
        OnlineBitPredictor(0)


# --- load_model ------------------------------------------------------------------------------------

def test_load_model_by_name_and_by_path():
    assert load_model("order-1") is Order1Lookup
    assert load_model("intellimetry.agitb.models:Echo") is Echo
    for name, cls in CANDIDATES.items():
        assert load_model(name) is cls


@pytest.mark.parametrize("spec", ["order-2", "", "no.such.module:Model", "intellimetry.agitb.models:Nope",
                                  "intellimetry.agitb.models:ALL_ONES", "intellimetry.agitb.models:"])
def test_load_model_explains_what_it_knows(spec):
    with pytest.raises(ValueError) as error:
        load_model(spec)
    if ":" not in spec or spec.endswith(":") or spec.endswith("Nope"):
        for name in CANDIDATES:
            assert name in str(error.value)
