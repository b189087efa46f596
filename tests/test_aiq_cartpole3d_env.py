"""CartPole3D on physical facts: limits, pushes, blocks, the direction of every novelty's force, seeds."""
from __future__ import annotations

import importlib
import math

import gymnasium
import numpy as np
import pybullet as p
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
from intellimetry.aiq.cartpole3d.env import CART_RADIUS, POLE, TIME_STEP

DT = TIME_STEP


def make(novelty=0, level="easy", **kwargs) -> CartPole3DEnv:
    return CartPole3DEnv(novelty, level, **kwargs)


def set_tilt(env: CartPole3DEnv, roll: float, pitch: float) -> None:
    """Put the pole at (roll, pitch), at rest (a test's way to tip it on purpose)."""
    env._call(p.resetJointStateMultiDof, env._cartpole, POLE, p.getQuaternionFromEuler([roll, pitch, 0]), [0, 0, 0])


def block_state(env: CartPole3DEnv) -> tuple[np.ndarray, np.ndarray]:
    return env._block_positions.copy(), env._block_velocities.copy()


def first_tick_velocity_change(novelty: int, level: str, seed: int) -> tuple[np.ndarray, np.ndarray, CartPole3DEnv]:
    """Block velocity after one tick under `novelty` minus the same under novelty 0 (same seed, no contact)."""
    changes = []
    for n in (novelty, 0):
        env = make(n, level)
        env.reset(seed=seed)
        positions, _ = block_state(env)
        tip = env._pole_tip.copy()
        env.step(0)
        changes.append(env._block_velocities.copy())
    return changes[0] - changes[1], positions, tip


def clear_of_contact(seed: int, novelty: int = 0, level: str = "easy", ticks: int = 1) -> bool:
    """No block touches another block or a wall during the first `ticks` ticks (straight-line check)."""
    env = make(novelty, level)
    env.reset(seed=seed)
    positions, velocities = block_state(env)
    r = env._block_radius
    env.close()
    margin = 17.4 * DT * ticks + 0.05
    if np.any(np.abs(positions[:, :2]) > 5 - r - margin) or np.any(positions[:, 2] < r + margin) \
            or np.any(positions[:, 2] > 10 - r - margin):
        return False
    gaps = np.linalg.norm(positions[:, None] - positions[None], axis=2) + np.eye(len(positions)) * 99
    return bool(gaps.min() > 2 * r + 2 * margin)


@pytest.fixture(scope="module")
def quiet_seed() -> int:
    """A seed whose blocks touch nothing in the first tick, under any force-only novelty."""
    return next(s for s in range(200) if clear_of_contact(s, ticks=2))


# ------------------------------------------------------------------------------- limits and pushes

def test_episode_is_truncated_at_the_tick_limit_not_terminated():
    env = make(max_steps=200)
    obs, info = env.reset(seed=0)
    assert obs.shape == (STATE_SIZE + 6 * 4,) and obs.dtype == np.float32 and info["tick"] == 0
    set_tilt(env, 0.0, 0.0)
    env._read_state()
    for tick in range(1, 201):
        obs, reward, terminated, truncated, info = env.step(heuristic_policy(obs))
        assert reward == 1.0 and info["tick"] == tick
        if terminated:
            pytest.fail(f"the controller let the pole fall at tick {tick}")
        assert truncated == (tick == 200)


@pytest.mark.parametrize("roll, pitch", [(math.radians(11), 0.0), (0.0, -math.radians(11))])
def test_episode_ends_once_roll_or_pitch_exceeds_ten_degrees(roll, pitch):
    env = make(max_steps=200)
    env.reset(seed=1)
    set_tilt(env, roll * 9 / 11, pitch * 9 / 11)
    *_, terminated, truncated, _ = env.step(0)
    assert not terminated and not truncated  # 9 degrees: still up
    set_tilt(env, roll, pitch)
    *_, terminated, truncated, _ = env.step(0)
    assert terminated and not truncated


@pytest.mark.parametrize("action, axis, sign", [(2, 0, 1), (1, 0, -1), (3, 1, 1), (4, 1, -1), (0, 0, 0)])
def test_a_push_moves_the_cart_along_its_axis(action, axis, sign):
    env = make()
    env.reset(seed=2)
    set_tilt(env, 0.0, 0.0)  # an upright pole at rest: nothing but the push acts on the cart
    env._read_state()
    start = env._cart_xy.copy()
    for _ in range(5):
        obs, *_ = env.step(action)
    moved = obs[:2] - start
    if sign == 0:
        assert np.abs(env._cart_xy - start).max() < 1e-9 and np.abs(env._cart_velocity).max() < 1e-9
    else:
        assert sign * moved[axis] > 0.05 and abs(moved[1 - axis]) < 1e-6
        # 10 N on 1 kg of cart (the pole lags behind): about 10 m/s^2 for 0.1 s
        assert 0.85 < sign * obs[2 + axis] < 1.1


def test_heavier_cart_accelerates_less_under_the_same_push():
    speeds = {}
    for novelty in (0, 1):
        env = make(novelty)
        env.reset(seed=3)
        set_tilt(env, 0.0, 0.0)
        for _ in range(5):
            obs, *_ = env.step(2)
        speeds[novelty] = obs[2]
    assert speeds[1] == pytest.approx(10.0 / (10.0 + 0.1) * 5 * DT, rel=0.05)  # 10 kg cart
    assert speeds[0] > 8 * speeds[1]


def test_pole_length_novelty_makes_a_longer_pole():
    for novelty, length in ((0, 1.0), (9, 3.0)):
        env = make(novelty)
        env.reset(seed=4)
        set_tilt(env, 0.0, 0.0)
        env._read_state()
        assert env._pole_tip[2] == pytest.approx(0.1 + 0.2 + length, abs=1e-6)


# ------------------------------------------------------------------------------- blocks at reset

def test_blocks_at_reset_count_size_speed_and_distance():
    env = make()
    counts = set()
    for seed in range(30):
        obs, info = env.reset(seed=seed)
        positions, velocities = block_state(env)
        counts.add(info["blocks"])
        assert np.all((np.abs(velocities) >= 6) & (np.abs(velocities) <= 10))
        assert np.all(np.abs(positions[:, :2]) <= 4) and np.all((positions[:, 2] >= 1) & (positions[:, 2] <= 9))
        gaps = np.linalg.norm(positions[:, :2] - obs[:2], axis=1) - CART_RADIUS - 0.5
        assert gaps.min() >= 1.0
        assert np.abs(obs[:2]).max() <= 3 and max(abs(obs[4]), abs(obs[5])) <= 0.01 + 1e-6
        # the observation lists the blocks nearest the cart first, zero rows after the last
        rows = obs[STATE_SIZE:].reshape(4, 6)
        distance = np.linalg.norm(rows[:info["blocks"], :3] - [obs[0], obs[1], 0.1], axis=1)
        assert np.all(np.diff(distance) >= 0) and not rows[info["blocks"]:].any()
    assert counts == {2, 3, 4}


@pytest.mark.parametrize("novelty, radius", [(0, 0.5), (4, 1.0)])
def test_block_radius(novelty, radius):
    env = make(novelty)
    env.reset(seed=5)
    for block in env._blocks:
        low, high = env._call(p.getAABB, block)
        np.testing.assert_allclose(np.subtract(high, low), 2 * radius, rtol=0.05)  # (AABB has a small margin)


@pytest.mark.parametrize("novelty, level, period", [(8, "easy", 50), (16, "easy", 3), (16, "hard", 1)])
def test_spawning_novelties_add_a_block_every_period(novelty, level, period):
    env = make(novelty, level, max_steps=120)
    _, info = env.reset(seed=6)
    start = info["blocks"]
    for tick in range(1, 101):
        *_, info = env.step(heuristic_policy(env._observation()))
        assert info["blocks"] == start + tick // period


def test_stopped_blocks_of_novelty_8_appear_motionless_ahead_of_the_cart():
    env = make(8, "easy")
    env.reset(seed=7)
    set_tilt(env, 0.0, 0.0)
    for _ in range(50):
        obs, *_ = env.step(0)
    positions, velocities = block_state(env)
    assert np.abs(velocities[-1]).max() == 0
    assert math.hypot(*(positions[-1][:2] - obs[:2])) == pytest.approx(2.0)  # the cart is still: any heading
    assert positions[-1][2] == pytest.approx(0.1 + 0.2 + 0.5)  # the pole's middle


def test_blocks_float_without_gravity_drift(quiet_seed):
    env = make()
    env.reset(seed=quiet_seed)
    positions, velocities = block_state(env)
    for _ in range(2):
        env.step(0)
    after, velocities_after = block_state(env)
    np.testing.assert_allclose(velocities_after, velocities, atol=1e-9)
    np.testing.assert_allclose(after, positions + 2 * DT * velocities, atol=1e-9)


# ------------------------------------------------------------------------------- novelty forces

def test_origin_attraction_points_to_the_origin(quiet_seed):
    change, positions, _ = first_tick_velocity_change(7, "easy", quiet_seed)
    expected = -positions / np.linalg.norm(positions, axis=1, keepdims=True) * 15.0 * DT
    np.testing.assert_allclose(change, expected, atol=1e-9)


def test_pole_tip_attraction_points_to_the_tip(quiet_seed):
    change, positions, tip = first_tick_velocity_change(15, "medium", quiet_seed)
    toward = (tip - positions) / np.linalg.norm(tip - positions, axis=1, keepdims=True)
    np.testing.assert_allclose(change, toward * 20.0 * DT, atol=1e-6)


@pytest.mark.parametrize("novelty, sign, size", [(5, -1, 2.0), (13, 1, 1.0)])
def test_pairwise_forces_push_apart_or_pull_together(quiet_seed, novelty, sign, size):
    change, positions, _ = first_tick_velocity_change(novelty, "easy", quiet_seed)
    expected = np.zeros_like(positions)
    for i in range(len(positions)):
        for j in range(len(positions)):
            if i != j:
                toward = positions[j] - positions[i]
                expected[i] += sign * size * DT * toward / np.linalg.norm(toward)
    np.testing.assert_allclose(change, expected, atol=1e-9)


def test_falling_blocks_fall(quiet_seed):
    change, _, _ = first_tick_velocity_change(6, "hard", quiet_seed)
    np.testing.assert_allclose(change, np.tile([0, 0, -2 * 9.8 * DT], (len(change), 1)), atol=1e-9)


def test_wind_pushes_the_cart_downwind():
    moved = {}
    for novelty in (0, 14):
        env = make(novelty, "hard")
        env.reset(seed=8)
        set_tilt(env, 0.0, 0.0)
        env._read_state()
        start = env._cart_xy.copy()
        for _ in range(30):
            env.step(0)
        moved[novelty] = env._cart_xy - start
        direction = env._wind_direction
    assert np.abs(moved[0]).max() < 1e-9
    assert moved[14] @ direction > 0.05 and abs(moved[14] @ [-direction[1], direction[0]]) < 1e-6


def test_static_blocks_stay_put_and_rail_blocks_keep_to_their_rail():
    env = make(2, "medium")
    env.reset(seed=9)
    positions, _ = block_state(env)
    assert np.allclose(positions[:, 2], 0.5)
    for _ in range(20):
        env.step(0)
    np.testing.assert_array_equal(env._block_positions, positions)
    env = make(10, "hard")
    obs, _ = env.reset(seed=9)
    start, velocities = block_state(env)
    for _ in range(20):
        env.step(0)
    still = np.abs(velocities) == 0  # each block moves along x or y only, at the cart's height
    assert np.all(still.sum(axis=1) == 2) and np.allclose(start[:, 2], 0.5)
    np.testing.assert_array_equal(env._block_positions[still], start[still])
    for position, fixed in zip(start, still):
        rail_at, cart_at = position[:2][fixed[:2]][0], obs[:2][fixed[:2]][0]
        assert 1.5 <= abs(rail_at - cart_at) <= 2.0 or abs(rail_at) == 4.5  # (a rail is kept inside the walls)


def test_aimed_and_bouncy_blocks():
    env = make(3, "hard")
    env.reset(seed=10)
    positions, velocities = block_state(env)
    speeds = np.linalg.norm(velocities, axis=1)
    assert np.allclose(speeds, speeds[0]) and 7 <= speeds[0] <= 10  # one shared speed
    # every block's line of flight passes through one point
    across = [np.eye(3) - np.outer(v, v) / (v @ v) for v in velocities]  # projections across each line
    targets = np.concatenate([a @ x for a, x in zip(across, positions)])
    point = np.linalg.lstsq(np.vstack(across), targets, rcond=None)[0]
    for x, v in zip(positions, velocities):
        offset = point - x
        assert np.linalg.norm(offset - (offset @ v) / (v @ v) * v) < 1e-9 and offset @ v > 0
    energy = {}
    for novelty in (0, 12):  # restitution 1 keeps the blocks' energy, 1.2-1.3 adds to it at every bounce
        env = make(novelty, "medium")
        env.reset(seed=10)
        start = (env._block_velocities ** 2).sum()
        for _ in range(100):
            env.step(0)
        energy[novelty] = (env._block_velocities ** 2).sum() / start
    # (PyBullet's contact solver is not exactly elastic: restitution 1 gains ~10 % in 100 ticks)
    assert 0.9 < energy[0] < 1.25 and energy[12] > 2


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


@pytest.mark.parametrize("novelty, level", [(0, "easy"), (16, "hard")])
def test_same_seed_same_trajectory_bit_for_bit(novelty, level):
    first = trajectory(make(novelty, level), 11)
    other = make(novelty, level)
    trajectory(other, 12, options={"novelty": 9, "level": "medium"})  # a different history first
    trajectory(other, 13)
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
