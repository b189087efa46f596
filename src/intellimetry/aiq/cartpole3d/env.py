"""CartPole3D: the paper's 3-D cart-pole with floating blocks, as its original CartPole++ builds it.

The original is CartPole++ in holderlb/WSU-SAILON-NG (``WSU-Portable-Generator/source/
partial_env_generator/phase_3/envs/cartpolepp/``). Every parameter below follows it; the table
``data/reference/aiq/cartpole3d.yaml`` gives each one's file and line, and what our earlier
implementation, written from the paper's description, did instead. :mod:`.world` builds the bodies,
:mod:`.wind` computes novelty 14's wind, :mod:`.novelties` holds the levels.

- World: PyBullet in DIRECT mode, gravity -9.8 (novelty 6: more), one physics step of 1/50 s per tick,
  PyBullet's default solver and damping; a 10.1 m box of 0.1 m static slabs (inner faces at +-4.95 m,
  floor at -0.05 m, ceiling at 9.95 m), restitution 1, no friction.
- Cart-pole: a 1 kg cylinder cart (radius 0.5 m, 0.2 m long, its centre of mass 0.2 m below the
  cylinder's centre) sliding and turning freely in the horizontal plane; a 0.1 kg pole of 1 m, radius
  0.03 m, on a spherical joint 0.2 m above the cart's centre of mass, its centre of mass 1 m above the
  joint, its cylinder from 0.05 m above the joint; inertias as PyBullet computes them from the shapes.
  The cart and pole keep PyBullet's default restitution 0 and friction 0.5: a block hitting the cart
  does not bounce off it.
- Actions: 0 nothing, 1 right (+x), 2 left (-x), 3 forward (+y), 4 backward (-y): 10 N on the cart's
  centre of mass along a fixed world axis (the original turns the push against the cart's yaw).
- Blocks: 2-4 spheres of radius 0.5 m and 1 kg, restitution 1, no friction, each pushed up by 9.8 N
  every tick so that they float; at reset each at x, y, z in U(-4, 4) x U(-4, 4) x U(1, 9), its centre
  at least 1 m (horizontally) from the cart's, each velocity component U(6, 10) m/s with a random sign.
- Reset: the cart at x, y in U(-3, 3) at rest; the pole at the quaternion (a, b, c, 1) (normalised:
  tilts up to 0.02 rad) turning at (d, e, 0) rad/s, a..e in U(-0.01, 0.01); then, as the original's
  reset does, one tick with action "nothing" while a push of U(-1, 1) N per axis acts on the cart.
- End: terminated once the pole's roll or pitch (Euler angles of its world orientation) exceeds 10
  degrees; truncated at ``max_steps`` (the original's 200). Performance is ticks / 200.

Observation (float32): ``[x, y, vx, vy, roll, pitch, yaw, wx, wy, wz]`` read as the original reads
them (the cart's position from PyBullet's cached link frame, which lags one tick; its velocity and the
pole's orientation and angular velocity current), then the ``observed_blocks`` blocks nearest the cart
(3-D distance to its centre of mass), nearest first, as ``(x, y, z, vx, vy, vz)``, zero rows where
fewer blocks exist. Positive pitch: the pole's top leans toward +x; positive roll: toward -y.

Departures from the original, each in the table: the cart's planar joint is two prismatic joints and a
revolute one (PyBullet cannot reset a planar joint; same trajectory); one seeded numpy generator draws
everything, so a seed fixes the episode (the original mixes three generators, two of them unseeded);
novelty 12's restitution and novelty 14's wind direction are drawn per episode (the original: once per
environment, i.e. per trial), and the spawning clocks of novelties 8 and 16 restart each episode (the
original's carry over between episodes). Blocks are kept between episodes (parked far outside the
arena) because making a body costs milliseconds; the cart-pole is rebuilt only when the pole's length
changes.
"""
from __future__ import annotations

import math

import gymnasium
import numpy as np
import pybullet as p
from gymnasium import spaces

import intellimetry.aiq.cartpole3d.wind as wind
from intellimetry.aiq.cartpole3d.novelties import (
    AIM_HEIGHT,
    AIM_SPEED,
    LEVELS,
    NOVELTIES,
    RAIL_BASE_HEIGHT,
    RAIL_START,
    SPAWN_BOUND,
    SPAWN_CLEARANCE,
    SPAWN_HEIGHT,
    SPAWN_REACH,
    SPAWN_SPEED,
    SPAWN_TRIES,
)
from intellimetry.aiq.cartpole3d.world import (
    BLOCK_ORIENTATION,
    BLOCK_RADIUS,
    CART,
    CART_MASS,
    FLOAT_FORCE,
    GRAVITY,
    MAX_TILT,
    POLE,
    POLE_LENGTH,
    PUSH_FORCE,
    SLIDER_X,
    SLIDER_Y,
    TIME_STEP,
    Shapes,
    build_walls,
    load_cartpole,
    make_block,
    make_rail_block,
    set_bounce,
)
from intellimetry.checks import check_choice, check_int

__all__ = ["CartPole3DEnv", "ACTION_FORCES", "OBSERVATION_SCALE", "STATE_SIZE", "CART", "POLE", "TIME_STEP"]

CART_START = 3.0              # table: cart_start
START_PUSH = 1.0              # table: start_push
POLE_START = 0.01             # table: pole_start
BLOCKS_AT_RESET = (2, 4)      # table: blocks_at_reset
BLOCK_SPREAD = 4.0            # table: block_positions (x, y, z - 5 in U(-4, 4))
BLOCK_MIDDLE = 5.0
BLOCK_CLEARANCE = 1.0         # table: block_clearance
BLOCK_SPEED = (6.0, 10.0)     # table: block_speed
PARKING = 1000.0              # x (m) beyond which unused blocks wait
PLACEMENT_TRIES = 100_000     # the original redraws until a draw fits; a cap only against a bug
STATE_SIZE = 10
BLOCK_SIZE = 6
ACTIONS = 5
# action -> world force (fx, fy): the original's 0 nothing, 1 right, 2 left, 3 forward, 4 backward
ACTION_FORCES = ((0.0, 0.0), (PUSH_FORCE, 0.0), (-PUSH_FORCE, 0.0), (0.0, PUSH_FORCE), (0.0, -PUSH_FORCE))
# A fixed change of units for the networks that learn from obs[:10] (the pools of the AIQ figures): tilts
# stay within +-0.17 rad while positions reach +-5 m, so one scale per input lets one search distribution
# fit all of them; the tilt and its rate carry the balancing signal and are scaled up most (chosen by a
# few cross-entropy-method trials on novelty 0). Order: x, y, vx, vy, roll, pitch, yaw, wx, wy, wz.
OBSERVATION_SCALE = (0.3, 0.3, 1.0, 1.0, 30.0, 30.0, 1.0, 5.0, 5.0, 1.0)
FREE, STATIC, RAIL = "free", "static", "rail"
FLOAT = [0.0, 0.0, FLOAT_FORCE]  # the float force alone, in a block's frame
FLOAT_ONLY = (0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 16)  # novelties whose blocks feel nothing else


class CartPole3DEnv(gymnasium.Env):
    """The CartPole3D domain with one of the paper's novelties (0 = none) at one level.

    ``reset(options={"novelty": n, "level": l})`` runs that one episode with another novelty (for
    mixtures and for novelty introduced mid-trial); a reset without these keys goes back to the
    constructor's novelty and level.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 50}

    def __init__(self, novelty: int = 0, level: str = "easy", max_steps: int = 200, observed_blocks: int = 4,
                 render_mode: str | None = None):
        self.novelty, self.level = _check_novelty(novelty, level)
        self.max_steps = check_int("max_steps", max_steps, 1)
        self.observed_blocks = check_int("observed_blocks", observed_blocks, 0)
        self.render_mode = check_choice("render_mode", render_mode, (None, "rgb_array"))
        self.observation_space = spaces.Box(-np.inf, np.inf, (STATE_SIZE + BLOCK_SIZE * self.observed_blocks,),
                                            np.float32)
        self.action_space = spaces.Discrete(ACTIONS)
        self._client = p.connect(p.DIRECT)
        self._call(p.setTimeStep, TIME_STEP)
        self._call(p.setPhysicsEngineParameter, deterministicOverlappingPairs=1)
        self._walls = build_walls(self._client)
        self._shapes = Shapes(self._client)
        self._cartpole, self._pole_length = None, None
        self._blocks: list[int] = []
        self._moving: list[int] | None = None     # indices of the episode's free blocks (None: to be listed)
        self._kind: dict[int, tuple] = {}          # block -> (FREE | STATIC | RAIL, radius)
        self._parked: dict[tuple, list[int]] = {}  # kind -> blocks waiting outside the arena, oldest first
        self._wall_restitution = self._restitution = 1.0
        self._episode_novelty, self._episode_level = self.novelty, self.level
        self.tick = 0

    def _call(self, function, *args, **kwargs):
        return function(*args, physicsClientId=self._client, **kwargs)

    def _value(self, novelty: int):
        """The episode's novelty value for `novelty` (None when another novelty runs)."""
        return NOVELTIES[novelty].values[self._episode_level] if self._episode_novelty == novelty else None

    # ----------------------------------------------------------------------------- episode set-up

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = options or {}
        self._episode_novelty, self._episode_level = _check_novelty(options.get("novelty", self.novelty),
                                                                    options.get("level", self.level))
        rng = self.np_random
        self._park_blocks()
        self._prepare_world()
        start_push = self._place_cartpole(rng)
        self._place_blocks(rng)
        # drawn last so that every novelty places the cart, pole and blocks of a seed alike (the original
        # draws these two once, when its environment is made)
        self._set_restitution(float(rng.uniform(*self._value(12))) if self._episode_novelty == 12 else 1.0)
        self._wind_angle = float(rng.uniform(0, 2 * math.pi)) if self._episode_novelty == 14 else None
        self.tick, self._spawn_clock, self._cart_velocities = 0, 0, []
        self._read_state()
        # as read from a freshly loaded cart-pole (the original reloads it each episode): at its start, unturned
        self._cart_position, self._cart_yaw = np.array([*self._cart_start, 0.0]), 0.0
        self._advance(0, start_push)  # the original's reset ends with one tick of "nothing"
        return self._observation(), self._info()

    def _prepare_world(self) -> None:
        length = self._value(9) or POLE_LENGTH
        if length != self._pole_length:
            self._rebuild_cartpole(length)
        self._call(p.changeDynamics, self._cartpole, CART, mass=self._value(1) or CART_MASS)
        self._call(p.setGravity, 0, 0, -(self._value(6) or GRAVITY))

    def _set_restitution(self, restitution: float) -> None:
        """Novelty 12's restitution (else 1) on the walls and on every free or static block."""
        if restitution != self._wall_restitution:
            for wall in self._walls:
                set_bounce(self._client, wall, -1, restitution)
            self._wall_restitution = restitution
        if restitution != 1.0:
            for block in self._blocks:
                if self._kind[block][0] != RAIL:
                    set_bounce(self._client, block, -1, restitution)
        self._restitution = restitution

    def _rebuild_cartpole(self, length: float) -> None:
        """Load the cart-pole with a new pole. Every block is removed first, highest id first, then the old
        cart-pole, so that PyBullet (which reuses the last freed id first) gives the new cart-pole its id
        and later blocks ids above it, in creation order, as in a fresh world."""
        blocks = sorted([b for parked in self._parked.values() for b in parked], reverse=True)
        for body in blocks:
            self._call(p.removeBody, body)
        self._parked, self._kind = {}, {}
        if self._cartpole is not None:
            self._call(p.removeBody, self._cartpole)
        self._cartpole, self._pole_length = load_cartpole(self._client, length), length

    def _place_cartpole(self, rng: np.random.Generator) -> np.ndarray:
        x, y = rng.uniform(-CART_START, CART_START, 2)
        start_push = rng.uniform(-START_PUSH, START_PUSH, 2)
        pose = rng.uniform(-POLE_START, POLE_START, 6)  # (the sixth number is drawn and unused, as there)
        body = self._cartpole
        self._call(p.resetBasePositionAndOrientation, body, [x, y, 0.0], [0, 0, 0, 1])
        for joint in (SLIDER_X, SLIDER_Y, CART):
            self._call(p.resetJointState, body, joint, 0.0, 0.0)
        self._call(p.resetJointStateMultiDof, body, POLE, [*pose[:3], 1.0], [pose[3], pose[4], 0.0])
        self._cart_start = np.array([x, y])
        return start_push

    def _place_blocks(self, rng: np.random.Generator) -> None:
        novelty = self._episode_novelty
        count = int(rng.integers(BLOCKS_AT_RESET[0], BLOCKS_AT_RESET[1] + 1))
        if novelty == 10:
            self._place_rail_blocks(rng, count)
            return
        radius = self._value(4) or BLOCK_RADIUS
        positions = [self._drawn_position(rng) for _ in range(count)]
        if novelty == 2:
            for position in positions:
                self._add_block((STATIC, radius), position, reset=True)
            return
        if novelty == 3:
            target = self._drawn_point(rng)
            speed = rng.uniform(*self._value(3))
            velocities = [speed * _unit(target - position) for position in positions]
        elif novelty == 11:
            aim = np.array([*self._cart_start, AIM_HEIGHT])
            velocities = [rng.uniform(*AIM_SPEED) * _unit(aim - position) if rng.random() < self._value(11)
                          else self._drawn_velocity(rng, BLOCK_SPEED) for position in positions]
        else:
            velocities = [self._drawn_velocity(rng, BLOCK_SPEED) for _ in positions]
        for position, velocity in zip(positions, velocities):
            self._add_block((FREE, radius), position, velocity, reset=True)

    @staticmethod
    def _drawn_point(rng: np.random.Generator) -> np.ndarray:
        point = rng.uniform(-BLOCK_SPREAD, BLOCK_SPREAD, 3)
        point[2] += BLOCK_MIDDLE
        return point

    def _drawn_position(self, rng: np.random.Generator) -> np.ndarray:
        """A block's centre as the original draws it: redrawn while within 1 m (horizontally) of the cart's start."""
        for _ in range(PLACEMENT_TRIES):
            point = self._drawn_point(rng)
            if math.hypot(*(point[:2] - self._cart_start)) >= BLOCK_CLEARANCE:
                return point
        raise RuntimeError("no room for a block")

    @staticmethod
    def _drawn_velocity(rng: np.random.Generator, speeds: tuple) -> np.ndarray:
        velocity = rng.uniform(*speeds, 3)
        return np.where(rng.random(3) < 0.5, -velocity, velocity)

    def _place_rail_blocks(self, rng: np.random.Generator, count: int) -> None:
        """Novelty 10: each block rides a prismatic joint along a horizontal line, as the original builds it.

        A line through a point in U(-4, 4)^2 at an angle a in U(0, 2 pi) is redrawn until its distance from
        the cart lies in the level's range; the rail's base goes to that point at height U(-1, 1) with the
        quaternion (0, 0, a, 1), which PyBullet normalises into a turn of 2 atan(a), so the rail runs at
        that angle, not at a. The start along the rail is redrawn in U(-10, 10) until a check that reads the
        quaternion's z part as an angle passes; the speed along the rail is U(6, 10) with a random sign."""
        low, high = self._value(10)
        bases = []
        for _ in range(count):
            for _ in range(PLACEMENT_TRIES):
                angle = rng.uniform(0, 2 * math.pi)
                point = rng.uniform(-BLOCK_SPREAD, BLOCK_SPREAD, 2)
                direction = np.array([math.cos(angle), math.sin(angle)])
                offset = self._cart_start - point
                if low < abs(offset[0] * direction[1] - offset[1] * direction[0]) < high:
                    break
            height = rng.uniform(*RAIL_BASE_HEIGHT)
            norm = math.hypot(angle, 1.0)
            bases.append(([point[0], point[1], height], [0.0, 0.0, angle / norm, 1.0 / norm]))
        for position, orientation in bases:
            rail = self._add_block((RAIL, BLOCK_RADIUS), position, orientation=orientation)
            check = orientation[2]  # the original's check takes the quaternion's z part for the rail's angle
            for _ in range(PLACEMENT_TRIES):
                start = rng.uniform(-RAIL_START, RAIL_START)
                if abs(position[0] + start * math.cos(check)) < BLOCK_SPREAD \
                        and abs(position[1] + start * math.sin(check)) < BLOCK_SPREAD:
                    break
            speed = rng.uniform(*BLOCK_SPEED) * (-1.0 if rng.random() < 0.5 else 1.0)
            self._call(p.resetJointState, rail, 0, start, speed)

    # ----------------------------------------------------------------------------- the block pool

    def _add_block(self, kind: tuple, position, velocity=(0.0, 0.0, 0.0), orientation=BLOCK_ORIENTATION,
                   reset: bool = False) -> int:
        """A block of `kind` at `position`, taken from the parked ones (oldest first) or made; its restitution
        is the episode's (`reset`: 1 until the episode's is drawn)."""
        parked = self._parked.setdefault(kind, [])
        if parked:
            block = parked.pop(0)
            self._call(p.resetBasePositionAndOrientation, block, list(position), list(orientation))
        elif kind[0] == RAIL:
            block = make_rail_block(self._shapes, position, orientation)
        else:
            block = make_block(self._shapes, kind[1], kind[0] == STATIC, position)
        self._kind[block], self._moving = kind, None
        if kind[0] != RAIL:
            self._call(p.resetBaseVelocity, block, list(velocity), [0, 0, 0])
            set_bounce(self._client, block, -1, 1.0 if reset else self._restitution)
        self._blocks.append(block)
        return block

    def _park_blocks(self) -> None:
        """Put the episode's blocks far outside the arena, each at its own spot, still."""
        for block in self._blocks:
            self._call(p.resetBasePositionAndOrientation, block, [PARKING + 4.0 * block, 0, -100.0], [0, 0, 0, 1])
            if self._kind[block][0] == RAIL:
                self._call(p.resetJointState, block, 0, 0.0, 0.0)
            else:
                self._call(p.resetBaseVelocity, block, [0, 0, 0], [0, 0, 0])
            self._parked[self._kind[block]].append(block)
        for parked in self._parked.values():
            parked.sort()
        self._blocks, self._moving = [], None

    # ----------------------------------------------------------------------------- stepping

    def step(self, action):
        self._advance(int(action))
        self.tick += 1
        roll, pitch = self._pole_euler[0], self._pole_euler[1]
        terminated = bool(abs(roll) > MAX_TILT or abs(pitch) > MAX_TILT)
        truncated = bool(self.tick >= self.max_steps and not terminated)
        return self._observation(), 1.0, terminated, truncated, self._info()

    def _advance(self, action: int, start_push=None) -> None:
        """One tick as the original's step runs it: spawn (novelties 8, 16), forces, one physics step."""
        self._spawn_blocks()
        self._push_cart(action, start_push)
        self._push_blocks()
        self._call(p.stepSimulation)
        self._read_state()
        if self._episode_novelty == 8:
            self._cart_velocities.append(self._cart_velocity.copy())

    def _push_cart(self, action: int, start_push) -> None:
        """The action's world force turned into the cart's frame (as the original does), plus the reset
        tick's push and the wind's force, which the original writes in the cart's frame directly."""
        fx, fy = ACTION_FORCES[action]
        c, s = math.cos(self._cart_yaw), math.sin(self._cart_yaw)
        force = [c * fx + s * fy, -s * fx + c * fy, 0.0]
        if start_push is not None:
            force[0] += start_push[0]
            force[1] += start_push[1]
        if self._wind_angle is not None:
            wind_x, wind_y = wind.cart_force(self._wind_angle, self._value(14))
            force[0] += wind_x * c
            force[1] -= wind_y * s
        self._call(p.applyExternalForce, self._cartpole, CART, force, [0, 0, 0], p.LINK_FRAME)

    def block_forces(self) -> np.ndarray:
        """The force on every moving block this tick in the block's own frame (turned half a turn about z,
        so its x and y are the world's -x and -y), as the original writes it: float plus the novelty's."""
        positions = self._block_positions
        n, novelty = len(positions), self._episode_novelty
        forces = np.zeros((n, 3))
        if novelty != 6:
            forces[:, 2] = FLOAT_FORCE
        if novelty in (5, 13) and n > 1:  # (the original skips a lone block)
            size = self.np_random.uniform(*self._value(5)) if novelty == 5 else self._value(13)
            toward = _unit_rows(positions.mean(axis=0) - positions) * size
            # novelty 5 writes (-x, -y, z) of the pull toward the centroid: in the world, a pull; 13, (x, y, -z): a push
            forces += toward * ([-1, -1, 1] if novelty == 5 else [1, 1, -1])
        elif novelty in (7, 15):
            target = np.zeros(3) if novelty == 7 else self._cart_position + [0.0, 0.0, AIM_HEIGHT]
            forces += _unit_rows(target - positions) * self._value(novelty) * [-1, -1, 1]
        elif novelty == 14:
            for i, z in enumerate(positions[:, 2]):
                forces[i, :2] += wind.block_force(z, self._wind_angle, self._value(14))
        return forces

    def _push_blocks(self) -> None:
        if self._moving is None:
            self._moving = [i for i, block in enumerate(self._blocks) if self._kind[block][0] == FREE]
        moving = self._moving
        if not moving:
            return
        # the per-block calls are the hot loop of every episode: plain lists and no wrapper call
        client, push, frame, origin = self._client, p.applyExternalForce, p.LINK_FRAME, [0.0, 0.0, 0.0]
        if self._episode_novelty in FLOAT_ONLY:
            for i in moving:
                push(self._blocks[i], -1, FLOAT, origin, frame, physicsClientId=client)
            return
        forces = self.block_forces().tolist()
        for i in moving:
            push(self._blocks[i], -1, forces[i], origin, frame, physicsClientId=client)

    def _spawn_blocks(self) -> None:
        if self._episode_novelty not in (8, 16):
            return
        self._spawn_clock += 1
        if self._spawn_clock < self._value(self._episode_novelty):
            return
        self._spawn_clock = 0
        rng = self.np_random
        if self._episode_novelty == 16:
            self._add_block((FREE, BLOCK_RADIUS), self._drawn_position(rng), self._drawn_velocity(rng, SPAWN_SPEED))
        else:
            position = self._stopped_block_position(rng)
            if position is None:
                return
            self._add_block((FREE, BLOCK_RADIUS), position)
        self._read_blocks()

    def _stopped_block_position(self, rng: np.random.Generator) -> np.ndarray | None:
        """Novelty 8: U(0, 10) m from the arena's centre along the cart's mean velocity over the last
        `period` ticks, 1 m up; redrawn while within 0.75 m (horizontally) of the cart's start, of a block
        or of the centre (where the original's new block waits while it looks), or beyond 4.5 m; None
        after 100 redraws (or when the cart has not moved, where the original's direction is undefined)."""
        recent = np.array(self._cart_velocities[-self._value(8):])
        mean = recent.mean(axis=0)
        if not np.linalg.norm(mean) > 0:
            return None
        heading = mean / np.linalg.norm(mean)
        others = np.vstack([self._cart_start, self._block_positions[:, :2], np.zeros(2)])
        for _ in range(SPAWN_TRIES + 1):
            xy = heading * rng.uniform(0, SPAWN_REACH)
            if np.all(np.abs(xy) <= SPAWN_BOUND) and np.linalg.norm(others - xy, axis=1).min() >= SPAWN_CLEARANCE:
                return np.array([xy[0], xy[1], SPAWN_HEIGHT])
        return None

    # ----------------------------------------------------------------------------- observation

    def _read_state(self) -> None:
        """The cart and pole as the original reads them; the blocks when first asked for."""
        client, link, body = self._client, p.getLinkState, self._cartpole
        cart = link(body, CART, 1, physicsClientId=client)  # (its frame is PyBullet's cached one, as without the 1)
        self._cart_position = np.array(cart[0])
        self._cart_yaw = p.getEulerFromQuaternion(cart[1])[2]
        self._cart_velocity = np.array(cart[6][:2])
        pole = link(body, POLE, 1, physicsClientId=client)
        self._pole_euler = p.getEulerFromQuaternion(pole[5])
        # the observation's state part, built here from the tuples PyBullet returned (no array round trip)
        self._state = [*cart[0][:2], *cart[6][:2], *self._pole_euler, *pole[7]]
        self._read_blocks()

    def _read_blocks(self) -> None:
        self._arrays = None  # read from PyBullet when first needed: most ticks of most novelties need none

    @property
    def _block_positions(self) -> np.ndarray:
        """(blocks, 3) positions now; a rail block's as the original reports it, its link's (cached) position."""
        return self._block_arrays()[0]

    @property
    def _block_velocities(self) -> np.ndarray:
        """(blocks, 3) velocities now; a rail block's is its fixed base's, zero, as the original reports it."""
        return self._block_arrays()[1]

    def _block_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._arrays is None:
            client, pose, motion = self._client, p.getBasePositionAndOrientation, p.getBaseVelocity
            link = p.getLinkState
            positions, velocities = [], []
            for block in self._blocks:
                if self._kind[block][0] == RAIL:
                    positions.append(link(block, 0, 1, physicsClientId=client)[0])
                else:
                    positions.append(pose(block, physicsClientId=client)[0])
                velocities.append(motion(block, physicsClientId=client)[0])
            self._arrays = (np.array(positions, dtype=float).reshape(-1, 3),
                            np.array(velocities, dtype=float).reshape(-1, 3))
        return self._arrays

    def _observation(self) -> np.ndarray:
        state = self._state
        if not self.observed_blocks:
            return np.array(state, dtype=np.float32)
        obs = np.zeros(STATE_SIZE + BLOCK_SIZE * self.observed_blocks, dtype=np.float32)
        obs[:STATE_SIZE] = state
        if len(self._blocks):
            order = np.argsort(np.linalg.norm(self._block_positions - self._cart_position, axis=1), kind="stable")
            nearest = order[:self.observed_blocks]
            rows = np.hstack([self._block_positions[nearest], self._block_velocities[nearest]])
            obs[STATE_SIZE:STATE_SIZE + rows.size] = rows.ravel()
        return obs

    def _info(self) -> dict:
        return {"tick": self.tick, "blocks": len(self._blocks), "novelty": self._episode_novelty,
                "level": self._episode_level}

    # ----------------------------------------------------------------------------- rendering

    def render(self, width: int = 480, height: int = 360):
        """An RGB image (height, width, 3) of the arena by PyBullet's TinyRenderer (no display needed)."""
        if self.render_mode != "rgb_array":
            return None
        # inside the arena, high in the (-x, -y) corner: the near walls and the ceiling are out of view
        view = p.computeViewMatrix(cameraEyePosition=[-4.8, -4.8, 9.7], cameraTargetPosition=[1.5, 1.5, 1.5],
                                   cameraUpVector=[0, 0, 1])
        projection = p.computeProjectionMatrixFOV(fov=80, aspect=width / height, nearVal=0.1, farVal=40)
        image = self._call(p.getCameraImage, width, height, view, projection, renderer=p.ER_TINY_RENDERER,
                           lightDirection=[-2, -3, 6], shadow=1)[2]
        return np.asarray(image, dtype=np.uint8).reshape(height, width, 4)[:, :, :3].copy()

    def close(self) -> None:
        if self._client is not None and p.isConnected(self._client):
            p.disconnect(self._client)
        self._client = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: pybullet may already be gone
            pass


def _check_novelty(novelty, level) -> tuple[int, str]:
    if isinstance(novelty, bool) or not isinstance(novelty, (int, np.integer)) or int(novelty) not in NOVELTIES:
        raise ValueError(f"unknown novelty {novelty!r}; allowed: {', '.join(map(str, NOVELTIES))}")
    return int(novelty), check_choice("level", level, LEVELS)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(vector)
    return vector / norm if norm > 0 else np.zeros_like(vector)


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)

