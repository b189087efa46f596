"""CartPole3D held to its original: every value of data/reference/aiq/cartpole3d.yaml read back from PyBullet
(getDynamicsInfo, getJointInfo, getAABB, getPhysicsEngineParameters) or measured from the simulation, for the
baseline and for every novelty."""
from __future__ import annotations

import math

import numpy as np
import pybullet as p
import pytest
import yaml

from intellimetry import paths
from intellimetry.aiq.cartpole3d import LEVELS, NOVELTIES, CartPole3DEnv, wind
from intellimetry.aiq.cartpole3d import world as W

TABLE = yaml.safe_load((paths.REFERENCE_DIR / "aiq" / "cartpole3d.yaml").read_text())
DT = W.TIME_STEP


def value(*keys):
    entry = TABLE
    for key in keys:
        entry = entry[key]
    return entry["value"] if isinstance(entry, dict) and "value" in entry else entry


def make(novelty=0, level="easy", seed=0) -> CartPole3DEnv:
    env = CartPole3DEnv(novelty, level)
    env.reset(seed=seed)
    return env


def dynamics(env, body, link=-1):
    mass, friction, inertia, com, _, restitution = p.getDynamicsInfo(body, link, physicsClientId=env._client)[:6]
    return {"mass": mass, "friction": friction, "inertia": inertia, "com": com, "restitution": restitution}


def free_flight(env, ticks=1) -> bool:
    """No block comes within a tick's travel of anything during the next `ticks` ticks (straight lines)."""
    positions, velocities = env._block_positions, env._block_velocities
    r = env._kind[env._blocks[0]][1]
    margin = np.abs(velocities).max(initial=0) * DT * (ticks + 1) + 0.05
    inner = W.ARENA_HALF - W.WALL_THICKNESS / 2
    if np.any(np.abs(positions[:, :2]) > inner - r - margin) or np.any(positions[:, 2] < r + margin) \
            or np.any(positions[:, 2] > W.ARENA_HEIGHT - W.WALL_THICKNESS / 2 - r - margin):
        return False
    gaps = np.linalg.norm(positions[:, None] - positions[None], axis=2) + np.eye(len(positions)) * 99
    reach = np.linalg.norm(positions[:, :2] - env._cart_position[:2], axis=1) - r - W.CART_RADIUS
    return bool(gaps.min() > 2 * r + 2 * margin and reach.min() > margin + 0.1)


def quiet_seed(novelty=0, level="easy", ticks=2) -> int:
    for seed in range(300):
        env = make(novelty, level, seed)
        if free_flight(env, ticks):
            return seed
    raise AssertionError("no quiet seed")


def velocity_change(novelty, level, seed, ticks=1):
    """Each block's velocity after `ticks` steps under `novelty` minus the same under novelty 0 (same seed,
    same draws), and the blocks' positions before them."""
    out = []
    for n in (novelty, 0):
        env = make(n, level, seed)
        positions = env._block_positions.copy()
        cart = env._cart_position.copy()
        for _ in range(ticks):
            env.step(0)
        out.append(env._block_velocities.copy())
    return out[0] - out[1], positions, cart


# ------------------------------------------------------------------------------- the table itself

def test_the_table_covers_every_novelty_with_a_source_and_the_levels_ours_uses():
    assert sorted(int(n) for n in TABLE["novelties"]) == list(range(1, 17))
    for key, entry in TABLE["novelties"].items():
        n = entry["id"]
        assert str(n) == key and entry["source"] and entry["file"] and entry["paper"] == NOVELTIES[n].paper_effect
        if isinstance(entry["value"], dict):  # per-level numbers: ours must use exactly these
            for level in LEVELS:
                ours = NOVELTIES[n].values[level]
                assert np.allclose(ours, entry["value"][level]), (n, level)


# ------------------------------------------------------------------------------- world

@pytest.mark.parametrize("novelty, level", [(0, "easy")] + [(6, level) for level in LEVELS])
def test_time_step_and_gravity(novelty, level):
    env = make(novelty, level)
    params = p.getPhysicsEngineParameters(physicsClientId=env._client)
    assert params["fixedTimeStep"] == value("world", "time_step") and params["numSubSteps"] == 0
    expected = value("novelties", "6")[level] if novelty == 6 else value("world", "gravity")
    assert params["gravityAccelerationZ"] == pytest.approx(-expected)


def test_walls_inner_faces_restitution_and_friction():
    env = make()
    faces = value("walls")["inner_faces"]
    low = np.array([p.getAABB(w, physicsClientId=env._client)[0] for w in env._walls])
    high = np.array([p.getAABB(w, physicsClientId=env._client)[1] for w in env._walls])
    inner = [high[0, 1], -low[1, 1], high[2, 0], -low[3, 0]]
    np.testing.assert_allclose(inner, [-faces["side"]] + [-faces["side"]] * 3, atol=1e-9)
    assert low[4, 2] == pytest.approx(faces["ceiling"]) and high[5, 2] == pytest.approx(faces["floor"])
    for wall in env._walls:
        d = dynamics(env, wall)
        assert d["restitution"] == value("walls")["restitution"] and d["friction"] == value("walls")["friction"]


def test_default_damping_slows_a_free_block_as_the_table_says():
    seed = quiet_seed()
    env = make(seed=seed)
    before = env._block_velocities.copy()
    env.step(0)
    k = value("world", "damping")["linear"]
    speed = np.linalg.norm(before, axis=1, keepdims=True)
    np.testing.assert_allclose(env._block_velocities, before - DT * before * (k + k * speed), atol=1e-9)


# ------------------------------------------------------------------------------- cart and pole

def test_cart_reads_back_as_the_table_says():
    env = make()
    cart = dynamics(env, env._cartpole, W.CART)
    assert cart["mass"] == value("cart", "mass")
    np.testing.assert_allclose(cart["inertia"], value("cart", "inertia"), rtol=1e-9)
    np.testing.assert_allclose(cart["com"], value("cart", "centre_of_mass"), atol=1e-12)
    assert cart["restitution"] == value("cart", "restitution") and cart["friction"] == value("cart", "friction")
    shape = p.getCollisionShapeData(env._cartpole, W.CART, physicsClientId=env._client)[0]
    assert shape[5][2] == pytest.approx(value("cart", "collision_centre"))
    low, high = env._call(p.getAABB, env._cartpole, W.CART)
    size = value("cart", "shape")
    # the bounding box of the collision cylinder (plus PyBullet's margins)
    assert high[0] - low[0] == pytest.approx(2 * size["radius"], abs=0.02)
    assert high[2] - low[2] == pytest.approx(size["length"], abs=0.02)
    assert (high[2] + low[2]) / 2 == pytest.approx(value("cart", "collision_centre"), abs=1e-6)


def test_joints_are_the_originals_plane_and_loosened_sphere():
    env = make()
    info = [p.getJointInfo(env._cartpole, j, physicsClientId=env._client) for j in range(4)]
    assert [i[2] for i in info] == [p.JOINT_PRISMATIC, p.JOINT_PRISMATIC, p.JOINT_REVOLUTE, p.JOINT_SPHERICAL]
    assert [i[13] for i in info[:3]] == [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
    assert all(i[8] > i[9] for i in info[:2])  # lower > upper: no limit on the plane
    assert info[3][14][2] == pytest.approx(value("pole", "joint_height"))
    # the spherical joint's motor is off: a pole tipped 5 degrees keeps falling (a motor would hold it)
    env._call(p.resetJointStateMultiDof, env._cartpole, W.POLE, p.getQuaternionFromEuler([0.09, 0, 0]), [0, 0, 0])
    env._read_state()
    tilts = []
    for _ in range(10):
        env.step(0)
        tilts.append(env._pole_euler[0])
    assert np.all(np.diff(tilts) > 0) and tilts[-1] > 0.1


@pytest.mark.parametrize("length", [1.0, 3.0, 5.0, 8.0])
def test_pole_inertia_follows_its_length_and_its_centre_of_mass_does_not(length):
    level = {3.0: "easy", 5.0: "medium", 8.0: "hard"}.get(length, "easy")
    env = make(9 if length != 1.0 else 0, level)
    pole = dynamics(env, env._cartpole, W.POLE)
    assert pole["mass"] == value("pole", "mass")
    np.testing.assert_allclose(pole["inertia"], value("pole", "inertia")[str(length)], rtol=1e-9)
    assert pole["com"] == pytest.approx((0, 0, value("pole", "centre_of_mass")))
    assert pole["restitution"] == value("pole", "restitution") and pole["friction"] == value("pole", "friction")
    env._call(p.resetJointStateMultiDof, env._cartpole, W.POLE, [0, 0, 0, 1], [0, 0, 0])
    env._call(p.stepSimulation)
    low, high = env._call(p.getAABB, env._cartpole, W.POLE)
    joint = env._call(p.getLinkState, env._cartpole, W.POLE, computeForwardKinematics=1)[4][2]
    assert low[2] - joint == pytest.approx(value("pole", "gap"), abs=0.01)
    assert high[2] - low[2] == pytest.approx(length, abs=0.01)
    assert high[0] - low[0] == pytest.approx(2 * value("pole", "shape")["radius"], abs=0.01)


@pytest.mark.parametrize("level", LEVELS)
def test_novelty_1_is_a_ten_kilogram_cart_at_every_level(level):
    env = make(1, level)
    cart = dynamics(env, env._cartpole, W.CART)
    assert cart["mass"] == value("novelties", "1")[level]
    np.testing.assert_allclose(cart["inertia"], np.multiply(value("cart", "inertia"), 10.0), rtol=1e-9)
    assert dynamics(make(0, level), make(0, level)._cartpole, W.CART)["mass"] == 1.0  # reset puts it back


def test_chain_of_joints_moves_as_the_originals_planar_joint():
    """Our x, y and yaw joints against the original's single planar joint, same pushes, 60 ticks."""
    clients = [p.connect(p.DIRECT) for _ in range(2)]
    try:
        bodies = []
        for client, planar in zip(clients, (True, False)):
            p.setGravity(0, 0, -W.GRAVITY, physicsClientId=client)
            p.setTimeStep(DT, physicsClientId=client)
            body = W.load_cartpole(client, 1.0, planar=planar)
            p.resetBasePositionAndOrientation(body, [1, 2, 0], [0, 0, 0, 1], physicsClientId=client)
            p.resetJointStateMultiDof(body, 1 if planar else W.POLE, [0.01, -0.004, 0.002, 1], [0.005, 0.003, 0],
                                      physicsClientId=client)
            bodies.append(body)
        rng = np.random.default_rng(1)
        for _ in range(60):
            force = [*rng.choice([-10.0, 0.0, 10.0], 2), 0.0]
            states = []
            for client, body, (cart, pole) in zip(clients, bodies, ((0, 1), (W.CART, W.POLE))):
                p.applyExternalForce(body, cart, force, [0, 0, 0], p.LINK_FRAME, physicsClientId=client)
                p.stepSimulation(physicsClientId=client)
                c = p.getLinkState(body, cart, 1, physicsClientId=client)
                q = p.getLinkState(body, pole, 1, physicsClientId=client)
                states.append(np.hstack([c[0], c[6], q[5], q[7]]))
            np.testing.assert_allclose(states[0], states[1], atol=1e-7)
    finally:
        for client in clients:
            p.disconnect(client)


def test_cart_position_is_observed_one_tick_late_as_the_original_reads_it():
    env = make()
    now = np.array(env._call(p.getLinkState, env._cartpole, W.CART, computeForwardKinematics=1)[0][:2])
    obs, *_ = env.step(1)
    assert np.allclose(obs[:2], now, atol=1e-6)  # the position before this tick's move
    obs, *_ = env.step(1)
    assert not np.allclose(obs[:2], now, atol=1e-4)


# ------------------------------------------------------------------------------- start and task

def test_start_state_follows_the_originals_distributions():
    env = CartPole3DEnv(0)
    counts = set()
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        counts.add(info["blocks"])
        start = env._cart_start
        assert np.abs(start).max() <= 3 and np.allclose(obs[:2], start)  # the reset tick's lagged position
        tilt = 2.1 * TABLE["pole"]["start_bound"]  # 2 atan of a quaternion part, and a tick of falling
        assert max(abs(obs[4]), abs(obs[5])) <= tilt and abs(obs[6]) <= tilt
        # one tick of a push of at most 1 N per axis (and the pole's reaction)
        assert np.abs(obs[2:4]).max() < 1.5 * DT * value("cart", "start_push")[1]
    assert counts == set(range(value("blocks", "count")[0], value("blocks", "count")[1] + 1))


def test_block_draws_follow_the_originals_distributions():
    env = CartPole3DEnv(0)
    env.reset(seed=0)
    rng = np.random.default_rng(3)
    positions = np.array([env._drawn_position(rng) for _ in range(2000)])
    velocities = np.array([env._drawn_velocity(rng, (6.0, 10.0)) for _ in range(2000)])
    assert np.abs(positions[:, :2]).max() <= 4 and positions[:, 2].min() >= 1 and positions[:, 2].max() <= 9
    assert np.linalg.norm(positions[:, :2] - env._cart_start, axis=1).min() >= value("blocks", "clearance")
    assert np.abs(velocities).min() >= 6 and np.abs(velocities).max() <= 10
    assert 0.45 < (velocities > 0).mean() < 0.55


def test_blocks_read_back_as_the_table_says():
    env = make()
    for block in env._blocks:
        d = dynamics(env, block)
        assert d["mass"] == value("blocks", "mass") and d["restitution"] == value("blocks", "restitution")
        assert d["friction"] == value("blocks", "friction")
        np.testing.assert_allclose(d["inertia"], value("blocks", "inertia"))
        shape = p.getCollisionShapeData(block, -1, physicsClientId=env._client)[0]
        assert shape[2] == p.GEOM_SPHERE and shape[3][0] == value("blocks", "radius")
        orientation = p.getBasePositionAndOrientation(block, physicsClientId=env._client)[1]
        assert np.allclose(np.abs(orientation), value("blocks", "orientation"), atol=1e-9)


def test_blocks_float_and_the_actions_push_along_the_originals_axes():
    seed = quiet_seed()
    env = make(seed=seed)
    before = env._block_velocities.copy()
    env.step(0)
    # gravity cancelled: vertical speed changes only by the damping
    assert np.abs(env._block_velocities[:, 2] - before[:, 2]).max() <= DT * 0.1 * np.abs(before).max() ** 2
    numbers = TABLE["task"]["actions"]["numbers"]
    for name, axis, sign in [("right", 0, 1), ("left", 0, -1), ("forward", 1, 1), ("backward", 1, -1)]:
        action = numbers[name]
        env = make(seed=seed)
        v0 = env._cart_velocity.copy()
        env.step(action)
        change = env._cart_velocity - v0
        assert sign * change[axis] == pytest.approx(DT * value("task", "push_force") / 1.0078, rel=0.02)
        assert abs(change[1 - axis]) < 1e-3


def test_termination_angle_and_tick_limit():
    env = make()
    for roll, ends in ((math.radians(9.9), False), (math.radians(10.2), True)):
        env.reset(seed=1)
        env._call(p.resetJointStateMultiDof, env._cartpole, W.POLE, p.getQuaternionFromEuler([roll, 0, 0]),
                  [0, 0, 0])
        env._call(p.setGravity, 0, 0, 0)  # hold the tilt for one tick
        *_, terminated, truncated, _ = env.step(0)
        assert terminated is ends and not truncated
    assert value("task", "max_tilt") == pytest.approx(math.degrees(W.MAX_TILT))
    assert value("task", "tick_limit") == CartPole3DEnv().max_steps == W.TICK_LIMIT


# ------------------------------------------------------------------------------- novelties

def test_novelty_2_blocks_are_static():
    env = make(2)
    start = env._block_positions.copy()
    assert all(dynamics(env, b)["mass"] == 0 for b in env._blocks)
    for _ in range(20):
        env.step(0)
    np.testing.assert_array_equal(env._block_positions, start)
    assert not env._block_velocities.any()


def test_novelty_3_aims_every_block_at_one_point_at_one_speed_below_ten():
    for seed in range(5):
        env = make(3, seed=seed)
        positions, velocities = env._block_positions, env._block_velocities
        speeds = np.linalg.norm(velocities, axis=1)
        assert np.ptp(speeds) < 0.05 * speeds.max() + 1e-9 and speeds.max() < TABLE["novelties"]["3"]["top_speed"]
        across = [np.eye(3) - np.outer(v, v) / (v @ v) for v in velocities]
        point = np.linalg.lstsq(np.vstack(across), np.concatenate([a @ x for a, x in zip(across, positions)]),
                                rcond=None)[0]
        assert all(np.linalg.norm(a @ (point - x)) < 1e-3 for a, x in zip(across, positions))


@pytest.mark.parametrize("level", LEVELS)
def test_novelty_4_blocks_have_radius_one_at_every_level(level):
    env = make(4, level)
    for block in env._blocks:
        shape = p.getCollisionShapeData(block, -1, physicsClientId=env._client)[0]
        assert shape[3][0] == value("novelties", "4")[level]
        np.testing.assert_allclose(dynamics(env, block)["inertia"], 0.4)


def test_novelty_5_pulls_toward_the_centroid_and_13_pushes_away():
    seed = quiet_seed(ticks=3)
    pull, push = TABLE["novelties"]["5"]["top_force"], value("novelties", "13")["easy"]
    for novelty, sign, largest in ((5, 1, pull), (13, -1, push)):
        change, positions, _ = velocity_change(novelty, "easy", seed)
        inward = positions.mean(axis=0) - positions
        inward /= np.linalg.norm(inward, axis=1, keepdims=True)
        along = np.sum(change * inward, axis=1)
        # two ticks of force (the reset's and one step), the change along the line to the centroid
        assert np.all(sign * along > 0) and np.all(np.abs(along) <= 2 * DT * largest * 1.01)
        assert np.abs(change - along[:, None] * inward).max() <= 0.1 * 2 * DT * largest
        if novelty == 13:
            assert np.allclose(np.abs(along), 2 * DT * 1.0, rtol=0.03)  # (the line to the centroid turns a little)


@pytest.mark.parametrize("level", LEVELS)
def test_novelty_6_blocks_fall_under_the_levels_gravity(level):
    seed = quiet_seed(6, level, ticks=3)
    change, _, _ = velocity_change(6, level, seed)  # two ticks: the reset's and one step
    np.testing.assert_allclose(change[:, 2], -2 * DT * value("novelties", "6")[level], atol=0.02)
    assert np.abs(change[:, :2]).max() < 0.02


@pytest.mark.parametrize("novelty, level, target", [(7, "medium", "origin"), (15, "hard", "cart")])
def test_novelties_7_and_15_pull_toward_their_point(novelty, level, target):
    seed = quiet_seed(novelty, level, ticks=3)
    change, positions, cart = velocity_change(novelty, level, seed)
    point = np.zeros(3) if target == "origin" else np.array([cart[0], cart[1], TABLE["novelties"]["11"]["aim_height"]])
    toward = (point - positions) / np.linalg.norm(point - positions, axis=1, keepdims=True)
    size = 2 * DT * value("novelties", str(novelty))[level]
    np.testing.assert_allclose(change, toward * size, atol=0.05 * size)  # (the direction turns a little)


def test_novelty_8_spawns_a_still_block_along_the_carts_heading():
    env = make(8, "hard", seed=4)
    counts, new = [len(env._blocks)], []
    for tick in range(1, 41):
        *_, info = env.step(1 if tick < 20 else 0)  # the cart heads toward +x
        if info["blocks"] > counts[-1]:
            others = np.vstack([env._block_positions[:-1, :2], env._cart_position[:2]])
            new.append((env._block_positions[-1].copy(), env._block_velocities[-1].copy(), others))
        counts.append(info["blocks"])
    assert 1 <= len(new) <= 6 and all(b - a in (0, 1) for a, b in zip(counts, counts[1:]))
    spawned = [tick for tick, (a, b) in enumerate(zip(counts, counts[1:]), 1) if b > a]
    assert all(tick % 7 == 6 for tick in spawned)  # the clock counts the reset's tick
    for position, velocity, others in new:  # one tick after it appeared
        # still, unless it appeared touching a block or the cart (the original keeps it 0.75 m from the blocks'
        # centres and from the cart's start, not from where the cart is)
        if np.linalg.norm(others - position[:2], axis=1).min() > 1.0:
            assert np.abs(velocity).max() < 1e-6 and position[2] == pytest.approx(1.0, abs=1e-6)
        assert np.abs(position[:2]).max() <= 4.5 and position[0] > 0 and abs(position[1]) < 0.5 * position[0]


def test_novelty_10_blocks_ride_rails_at_twice_the_arctangent_of_the_drawn_angle():
    env = make(10, "hard")
    low, high = value("novelties", "10")["hard"]
    for rail in env._blocks:
        info = p.getJointInfo(rail, 0, physicsClientId=env._client)
        assert info[2] == p.JOINT_PRISMATIC and info[8] > info[9]
        base, orientation = p.getBasePositionAndOrientation(rail, physicsClientId=env._client)
        drawn = orientation[2] / orientation[3]  # the angle the original drew
        direction = np.array([math.cos(drawn), math.sin(drawn)])
        offset = env._cart_start - np.array(base[:2])
        assert low < abs(offset[0] * direction[1] - offset[1] * direction[0]) < high
        assert p.getEulerFromQuaternion(orientation)[2] % (2 * math.pi) == pytest.approx(
            2 * math.atan(drawn) % (2 * math.pi))
        assert -1 <= base[2] and base[2] + W.RAIL_JOINT_HEIGHT <= TABLE["novelties"]["10"]["top_height"]
    before = env._block_positions.copy()
    for _ in range(3):
        env.step(0)
    assert not env._block_velocities.any()  # the original reports the fixed base's velocity
    for rail, start, end in zip(env._blocks, before, env._block_positions):
        yaw = p.getEulerFromQuaternion(p.getBasePositionAndOrientation(rail, physicsClientId=env._client)[1])[2]
        moved = end - start
        assert abs(moved[2]) < 1e-9 and abs(moved[0] * math.sin(yaw) - moved[1] * math.cos(yaw)) < 1e-6


def test_novelty_11_aims_some_blocks_at_the_cart():
    aimed = 0
    for seed in range(20):
        env = make(11, "hard", seed)
        target = np.array([*env._cart_start, TABLE["novelties"]["11"]["aim_height"]])
        for position, velocity in zip(env._block_positions, env._block_velocities):
            toward = (target - position) / np.linalg.norm(target - position)
            if velocity @ toward > 0.999 * np.linalg.norm(velocity):
                aimed += 1
                assert np.linalg.norm(velocity) < 10
    assert aimed > 20  # three in four at the hard level


@pytest.mark.parametrize("level", LEVELS)
def test_novelty_12_sets_one_restitution_on_walls_and_blocks(level):
    env = make(12, level)
    low, high = value("novelties", "12")[level]
    values = {dynamics(env, b)["restitution"] for b in env._walls + env._blocks}
    assert len(values) == 1 and low <= values.pop() <= high
    env.reset(seed=1, options={"novelty": 0})
    assert {dynamics(env, b)["restitution"] for b in env._walls + env._blocks} == {1.0}


def test_novelty_14_pushes_the_cart_along_x_the_blocks_toward_minus_x_minus_y_and_not_the_pole():
    seed = quiet_seed(14, "hard", ticks=3)
    change, positions, _ = velocity_change(14, "hard", seed)
    env = make(14, "hard", seed)
    angle = env._wind_angle
    expected = [wind.block_force(z, angle, 20.0) for z in positions[:, 2]]
    np.testing.assert_allclose(change[:, :2], -2 * DT * np.array(expected), rtol=0.05, atol=0.02)
    carts = []
    for n in (14, 0):
        e = make(n, "hard", seed)
        v0 = e._cart_velocity.copy()
        e.step(0)
        carts.append(e._cart_velocity - v0)
    push = carts[0] - carts[1]
    fx, _ = wind.cart_force(angle, 20.0)
    assert push[0] == pytest.approx(DT * fx / 1.0078, rel=0.05, abs=1e-4) and abs(push[1]) < 1e-4


def test_wind_profile_and_forces_are_the_originals_shape():
    profile = wind.profile()
    assert profile[0] == 0 and profile.max() == pytest.approx(1, abs=0.01) and np.allclose(profile, profile[::-1])
    # the original's slice int((z - 0.25) n / h): empty from a negative start (z = 0.1), not at z = 0.2 (int(-0.99) = 0)
    assert wind.block_force(0.1, 1.0, 16.0) == (0.0, 0.0) and wind.block_force(0.2, 1.0, 16.0)[0] > 0
    fx, fy = wind.block_force(5.0, math.pi / 2, 16.0)
    assert fy == pytest.approx(0, abs=1e-9) and 280 < fx < 320  # about 300 N at mid-height, sideways wind
    for angle in np.linspace(0.1, 6.2, 12):
        fx, fy = wind.cart_force(angle, 16.0)
        assert np.sign(fx) == -np.sign(math.sin(angle)) and np.sign(fy) == np.sign(math.cos(angle))
        assert 0 < abs(fx) < 8


def test_novelty_16_adds_a_slower_block_every_period():
    for level, period in (("easy", 3), ("hard", 1)):
        env = CartPole3DEnv(16, level)
        _, info = env.reset(seed=6)
        start = info["blocks"]  # (with period 1 the reset's tick already added one)
        for tick in range(1, 31):
            *_, info = env.step(0)
            assert info["blocks"] == start + (tick + (1 if period == 3 else 0)) // period
        spawned = env._block_velocities[-1]
        assert np.abs(spawned).max() <= TABLE["novelties"]["16"]["speed"][1]
