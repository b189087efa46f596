"""CartPole3D's interface: episodes, observations, seeds, options, rendering; its physics against the
original is in test_aiq_cartpole3d_physics.py."""
from __future__ import annotations

import importlib

import gymnasium
import numpy as np
import pytest

import intellimetry.aiq.cartpole3d as cartpole3d
from intellimetry.aiq.cartpole3d import (
    ENV_ID,
    LEVELS,
    NOVELTIES,
    STATE_SIZE,
    CartPole3DEnv,
    heuristic_policy,
    novelty_table,
    run_episode,
)


def make(novelty=0, level="easy", **kwargs) -> CartPole3DEnv:
    return CartPole3DEnv(novelty, level, **kwargs)


def test_an_episode_ends_truncated_at_the_tick_limit_or_terminated_before_it():
    env = make(max_steps=200)
    obs, info = env.reset(seed=0)
    assert obs.shape == (STATE_SIZE + 6 * 4,) and obs.dtype == np.float32 and info["tick"] == 0
    for tick in range(1, 201):
        obs, reward, terminated, truncated, info = env.step(heuristic_policy(obs))
        assert reward == 1.0 and info["tick"] == tick and not (terminated and truncated)
        if terminated or truncated:
            break
    assert truncated == (tick == 200) and terminated == (tick < 200)


def test_the_controller_keeps_the_pole_up_much_longer_than_doing_nothing():
    env = make(max_steps=200)
    controller = [run_episode(env, heuristic_policy, seed=s) for s in range(10)]
    nothing = [run_episode(env, lambda obs: 0, seed=s) for s in range(10)]
    assert np.mean(controller) > 150 and np.mean(nothing) < 80 and max(controller) == 200


def test_observation_lists_the_nearest_blocks_first_and_zero_rows_after_the_last():
    env = make()
    for seed in range(10):
        obs, info = env.reset(seed=seed)
        rows = obs[STATE_SIZE:].reshape(4, 6)
        cart = np.array([obs[0], obs[1], 0.0])
        distance = np.linalg.norm(rows[:info["blocks"], :3] - cart, axis=1)
        assert np.all(np.diff(distance) >= -1e-5) and not rows[info["blocks"]:].any()
        np.testing.assert_allclose(np.sort(np.linalg.norm(env._block_positions - cart, axis=1)), distance, rtol=1e-5)


# ------------------------------------------------------------------------------- seeds, checks, API

def trajectory(env: CartPole3DEnv, seed: int, options=None) -> np.ndarray:
    obs, _ = env.reset(seed=seed, options=options)
    rows = [obs]
    for _ in range(60):
        obs, _, terminated, truncated, _ = env.step(heuristic_policy(obs))
        rows.append(obs)
        if terminated or truncated:
            break
    return np.array(rows)


@pytest.mark.parametrize("novelty, level", [(0, "easy"), (12, "hard"), (14, "easy"), (16, "hard")])
def test_same_seed_same_trajectory_bit_for_bit(novelty, level):
    first = trajectory(make(novelty, level), 11)
    other = make(novelty, level)
    trajectory(other, 12, options={"novelty": 9, "level": "medium"})  # a different history first
    trajectory(other, 13, options={"novelty": 10, "level": "hard"})
    trajectory(other, 14, options={"novelty": 2})
    trajectory(other, 15)
    np.testing.assert_array_equal(trajectory(other, 11), first)
    assert not np.array_equal(trajectory(other, 12)[:5], first[:5])


def test_reset_options_switch_the_novelty_for_one_episode():
    env = make(0)
    _, info = env.reset(seed=0, options={"novelty": 9, "level": "hard"})
    assert (info["novelty"], info["level"]) == (9, "hard") and env._pole_length == 8.0
    _, info = env.reset(seed=0)
    assert (info["novelty"], info["level"]) == (0, "easy") and env._pole_length == 1.0


@pytest.mark.parametrize("kwargs, bad", [({"novelty": 17}, "17"), ({"novelty": -1}, "-1"),
                                         ({"level": "extreme"}, "'extreme'")])
def test_bad_novelty_or_level_is_refused_naming_the_allowed_values(kwargs, bad):
    with pytest.raises(ValueError, match=bad) as error:
        CartPole3DEnv(**kwargs)
    assert "allowed" in str(error.value) and ("16" in str(error.value) or "hard" in str(error.value))
    env = make()
    with pytest.raises(ValueError, match=bad):
        env.reset(options=kwargs)


def test_registered_with_gymnasium_once():
    importlib.reload(cartpole3d)  # a second registration would warn or fail
    env = gymnasium.make(ENV_ID, novelty=3, level="medium", observed_blocks=2)
    obs, info = env.reset(seed=0)
    assert obs.shape == (STATE_SIZE + 12,) and info["novelty"] == 3 and env.action_space.n == 5
    env.close()


def test_render_shows_cart_pole_and_blocks_in_distinct_colours():
    env = make(render_mode="rgb_array")
    env.reset(seed=0)
    image = env.render(width=320, height=240)
    assert image.shape == (240, 320, 3) and image.dtype == np.uint8
    blue = (image[:, :, 2] > 150) & (image[:, :, 0] < 100)
    yellow = (image[:, :, 0] > 180) & (image[:, :, 1] > 120) & (image[:, :, 2] < 80)
    assert blue.sum() > 5 and yellow.sum() > 5
    assert make().render() is None


def test_run_episode_and_the_novelty_table():
    env = make(max_steps=50)
    assert run_episode(env, heuristic_policy, seed=0) == 50
    assert 1 <= run_episode(env, lambda obs: 1, seed=0) < 50  # always pushing left: the pole falls
    table = novelty_table()
    assert [row["novelty"] for row in table] == list(range(1, 17))
    assert all(row[level] for row in table for level in LEVELS) and NOVELTIES[0].paper_effect == "No change."


BASE_TICKS = np.arange(10.0, 30.0)
FAKE_TICKS = {0: BASE_TICKS, 1: BASE_TICKS + 5, 2: BASE_TICKS.copy(), 3: BASE_TICKS - 2}  # differences +5, 0, -2


def fake_ticks(settings, novelty):
    return {policy: FAKE_TICKS[novelty].tolist() for policy in settings[3]}


def test_survival_table_pairs_each_novelty_with_novelty_0(monkeypatch):
    from intellimetry.aiq.cartpole3d import survival

    monkeypatch.setattr(survival, "_ticks", fake_ticks)
    table = survival.survival_table(novelties=(1, 2, 3), episodes=20, policies=("random",), resamples=500)
    diff = table["versus_baseline"]["random"]
    assert diff["1"] == {"estimate": 5.0, "low": 5.0, "high": 5.0} and diff["2"]["estimate"] == 0.0
    assert table["easier"]["random"] == [1] and table["harder"]["random"] == [3]
    mean = table["mean"]["random"]["0"]
    assert mean["estimate"] == pytest.approx(19.5) and mean["low"] < 19.5 < mean["high"]
    assert survival.survival_text(table, "random", 1) == f"{24.5:.0f} [{table['mean']['random']['1']['low']:.0f}, " \
        f"{table['mean']['random']['1']['high']:.0f}]"


def test_episode_ticks_of_doing_nothing_is_the_same_run_twice_and_shorter_than_the_controllers():
    from intellimetry.aiq.cartpole3d import episode_ticks

    nothing = episode_ticks(0, "easy", "nothing", 5, seed=1)
    np.testing.assert_array_equal(nothing, episode_ticks(0, "easy", "nothing", 5, seed=1))
    assert nothing.mean() < episode_ticks(0, "easy", "heuristic", 5, seed=1).mean()
    with pytest.raises(ValueError, match="allowed"):
        episode_ticks(0, "easy", "sometimes", 5, seed=1)


@pytest.mark.parametrize("novelty", [5, 7, 13, 15, 16])  # blocks pushed by forces that read their positions
def test_observing_no_blocks_plays_the_same_episodes(novelty):
    watched = trajectory(make(novelty, "hard"), 21)
    blind = trajectory(make(novelty, "hard", observed_blocks=0), 21)
    assert blind.shape[1] == STATE_SIZE < watched.shape[1]
    np.testing.assert_array_equal(blind, watched[:, :STATE_SIZE])


def test_the_suite_tasks_observe_only_the_blocks_their_networks_read():
    from intellimetry.aiq.cartpole3d.study import STATE_INPUTS, blocks_seen, mixed_task, novelty_task

    assert [blocks_seen(n) for n in (1, STATE_SIZE, STATE_SIZE + 1, STATE_SIZE + 6, STATE_SIZE + 7)] == [0, 0, 1, 1, 2]
    assert novelty_task(3).env_kwargs["observed_blocks"] == 0 == mixed_task(3, 5, 0.5).env_kwargs["observed_blocks"]
    assert novelty_task(3, inputs=STATE_INPUTS + 6).env.unwrapped.observed_blocks == 1
