"""The CEM-trained CartPole teacher: numpy physics equal to gymnasium's, training that works, clear errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from intellimetry.aiq.domains import cartpole_classification, cartpole_episode_return, make_cartpole
from intellimetry.aiq.teacher import TEACHER_DEFAULTS, BatchCartPole, Teacher, train_teacher


@pytest.fixture(scope="module")
def teacher() -> Teacher:
    return train_teacher(seed=0)


def _gym_initial_states(env, seeds) -> np.ndarray:
    states = []
    for s in seeds:
        env.reset(seed=int(s))
        states.append(np.array(env.unwrapped.state, dtype=np.float64))
    return np.array(states)


@pytest.mark.parametrize("force_mag, gravity", [(10.0, 9.8), (3.0, 200.0)])
def test_step_equals_gymnasium(force_mag, gravity):
    n, steps = 6, 50
    env = make_cartpole(force_mag, gravity)
    batch = BatchCartPole(n, force_mag, gravity)
    batch.state = _gym_initial_states(env, range(n))
    actions = np.random.default_rng(1).integers(0, 2, size=(steps, n))
    gym_states, gym_terminated = batch.state.copy(), np.zeros(n, dtype=bool)
    with warnings.catch_warnings():  # gymnasium warns when stepped past termination; the physics go on
        warnings.simplefilter("ignore")
        for t in range(steps):
            states, terminated = batch.step(actions[t])
            for i in range(n):
                env.unwrapped.state = gym_states[i].copy()
                env.unwrapped.steps_beyond_terminated = None
                _, _, gym_terminated[i], _, _ = env.unwrapped.step(int(actions[t, i]))
                gym_states[i] = env.unwrapped.state
            np.testing.assert_allclose(states, gym_states, rtol=1e-9, atol=1e-9)
            np.testing.assert_array_equal(terminated, gym_terminated)
    env.close()
    assert terminated.any()  # the comparison went past termination, where the states leave the box


@pytest.mark.parametrize("force_mag, gravity, max_steps", [(10.0, 9.8, 200), (3.0, 200.0, 200), (10.0, 9.8, 5)])
def test_episode_lengths_equal_gymnasium(force_mag, gravity, max_steps):
    seeds = range(8)
    env = make_cartpole(force_mag, gravity, max_steps=max_steps)
    initial = _gym_initial_states(env, seeds)
    expected = [cartpole_episode_return(env, lambda o: 1, seed=s) for s in seeds]
    env.close()
    batch = BatchCartPole(len(initial), force_mag, gravity, max_steps)
    lengths = batch.episode_lengths(lambda s: np.ones(len(s), dtype=np.int64), initial=initial)
    np.testing.assert_array_equal(lengths, expected)
    assert 1 <= lengths.min() and lengths.max() <= max_steps


def test_reset_and_seeded_episodes():
    batch = BatchCartPole(50)
    states = batch.reset(np.random.default_rng(0))
    assert states.shape == (50, 4) and states.dtype == np.float64 and np.abs(states).max() < 0.05
    push_right = lambda s: np.ones(len(s), dtype=np.int64)  # noqa: E731
    a = batch.episode_lengths(push_right, np.random.default_rng(3))
    b = batch.episode_lengths(push_right, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="actions"):
        batch.step(np.zeros(3))
    with pytest.raises(ValueError, match="rng or initial"):
        batch.episode_lengths(push_right)


def test_training_balances_and_is_deterministic(teacher):
    assert teacher.mean_length >= 190
    assert 1 <= teacher.iterations <= TEACHER_DEFAULTS["iterations"]
    assert [w.shape for w in teacher.weights] == [(4, 8), (8,), (8, 2), (2,)]
    assert not any(w.flags.writeable for w in teacher.weights)
    again = train_teacher(seed=0)
    assert all(np.array_equal(a, b) for a, b in zip(teacher.weights, again.weights))
    assert again.mean_length == teacher.mean_length
    other = train_teacher(seed=1)
    assert not np.array_equal(teacher.weights[0], other.weights[0])
    assert repr(teacher) == teacher.describe() and teacher.describe().startswith("CEM teacher (4-8-2 tanh")


def test_teacher_acts_like_its_formula(teacher):
    obs = np.random.default_rng(0).uniform(-0.2, 0.2, size=(100, 4))
    w1, b1, w2, b2 = teacher.weights
    expected = np.argmax(np.tanh(obs @ w1 + b1) @ w2 + b2, axis=1)
    np.testing.assert_array_equal(teacher.act_batch(obs), expected)
    assert [teacher(o.astype(np.float32)) for o in obs[:10]] == expected[:10].tolist()
    assert 0 < expected.mean() < 1  # it pushes both ways
    zero = Teacher(10.0, 9.8, 2, (np.zeros((4, 2)), np.zeros(2), np.zeros((2, 2)), np.zeros(2)), 0, 0, 0.0)
    assert zero(obs[0]) == 0  # ties go left


def test_teacher_as_cartpole_classification_policy(teacher):
    domain = cartpole_classification(policy=teacher, episodes=4)
    assert "CEM teacher" in domain.source
    assert len(domain.y_train) + len(domain.y_test) >= 4 * 190  # long gymnasium episodes
    assert set(np.unique(domain.y_train)) == {0, 1}


def test_high_gravity_is_harder(teacher):
    heavy = train_teacher(gravity=300.0, seed=0)
    assert heavy.mean_length < teacher.mean_length
    assert heavy.gravity == 300.0


def test_progress_bar(capsys):
    train_teacher(iterations=2, population=8, episodes=2, progress=True)
    assert "CEM teacher" in capsys.readouterr().err


@pytest.mark.parametrize("kwargs, name", [
    ({"force_mag": 0}, "force_mag"), ({"force_mag": float("inf")}, "force_mag"),
    ({"gravity": -1}, "gravity"), ({"gravity": float("nan")}, "gravity"),
    ({"hidden": 0}, "hidden"), ({"population": 0}, "population"), ({"iterations": 1.5}, "iterations"),
    ({"episodes": True}, "episodes"), ({"max_steps": 0}, "max_steps"), ({"seed": -1}, "seed"),
    ({"elite_fraction": 0}, "elite_fraction"), ({"elite_fraction": 1}, "elite_fraction"),
    ({"initial_std": 0}, "initial_std"),
])
def test_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        train_teacher(**kwargs)


def test_bad_batch_arguments():
    with pytest.raises(ValueError, match="n must"):
        BatchCartPole(0)
    with pytest.raises(ValueError, match="gravity"):
        BatchCartPole(2, gravity=-9.8)
    with pytest.raises(ValueError, match="weights"):
        Teacher(10.0, 9.8, 3, (np.zeros((4, 2)), np.zeros(2), np.zeros((2, 2)), np.zeros(2)), 0, 0, 0.0)
