"""CartPole3D: a pole on a cart that moves in a plane, among floating blocks, in PyBullet.

Our own environment after the paper's Section 3.4 and specs/aiq.md ("CartPole3D"); every body is
made in code (no URDF). Physics: PyBullet in DIRECT mode, gravity -9.8, time step 1/50 s, default
solver settings, no damping anywhere.

- Arena: a 10 x 10 x 10 m box (floor at z = 0, walls at x, y = +-5, ceiling at z = 10) of static
  1 m thick slabs (thick, so fast blocks cannot tunnel through), restitution 1, no friction.
- Cart: cylinder radius 0.5 m, height 0.2 m, mass 1 kg, centre at z = 0.1 on a planar joint
  (prismatic x, prismatic y, revolute yaw) above a fixed base; it does not touch the floor (the
  planar joint carries it). Pushes are 10 N along the world x or y axis (the prismatic joints).
- Pole: cylinder radius 0.03 m, length L (1 m), mass 0.1 kg, on a spherical joint 0.2 m above the
  cart's centre; the spec puts its centre of mass 1.0 m above the joint, so we put it at the top
  (L above the joint, also for the long poles of novelty 9), with a uniform cylinder's inertia.
- Blocks: spheres radius 0.5 m, mass 1 kg, restitution 1, no friction, pushed up by 9.8 N every
  tick so that they float. At reset 2-4 blocks at x, y in [-4, 4], z in [1, 9] (kept inside the
  walls for big blocks), each at least 1 m from the cart: the horizontal gap between the block's
  surface and the cart's rim is >= 1 m. Each velocity component is 6-10 m/s with a random sign.
- Reset: cart at x, y in [-3, 3], at rest; pole tilted by roll and pitch each in [-0.01, 0.01] rad.
- End: terminated when |roll| or |pitch| of the pole exceeds 10 degrees; truncated at `max_steps`.

Observation (float32): ``[x, y, vx, vy, roll, pitch, yaw, wx, wy, wz]`` (cart position and velocity;
the pole's orientation as PyBullet's Euler angles of its world orientation; its angular velocity in
world axes), then the `observed_blocks` blocks nearest the cart (3-D distance to the cart's
centre), nearest first, as ``(x, y, z, vx, vy, vz)``, zero rows where fewer blocks exist. Signs:
positive pitch = the pole's top leans toward +x; positive roll = it leans toward -y (right-hand
rule about +x).

Novelties (see `novelties.NOVELTIES` for the numbers per level; the choices the spec leaves open):
- 2: blocks are static bodies (mass 0); medium / hard put them on the floor, in the cart's plane.
- 3, 11: aiming keeps the drawn position; the velocity points at the target (3: one random point in
  x, y in [-4, 4], z in [1, 9] with a shared speed; 11: the pole's middle, with the block's speed).
- 5, 13: a constant force of the given size between every pair of blocks (apart / together).
- 6: no floating force, plus an extra downward force on medium and hard.
- 7, 15: a constant force of the given size toward the origin (floor centre) / the pole's tip.
- 8: a motionless floating block every `period` ticks, 2 m ahead of the cart along its horizontal
  velocity (a random direction when the cart is nearly still), at the pole's mid height.
- 10: each block on a horizontal rail at the height of the cart's plane (block centre z = radius),
  parallel to x or y at the level's distance from the cart's axis, starting at least 1 m from the
  cart's rim, moving along the rail at 6-10 m/s; after every tick the block is put back on its
  rail with only its along-rail velocity (PyBullet has no prismatic constraint for free bodies).
- 12: each block's restitution drawn in the level's range (PyBullet multiplies the two bodies'
  restitutions, walls have 1), so every bounce adds energy.
- 14: wind along a random horizontal direction whose speed goes 0 -> peak -> 0 in a sin^2 gust
  every 100 ticks; a linear drag F = 0.25 N/(m/s) x (v_wind - v) on the cart (horizontal) and on
  every block (3-D, the wind being horizontal).
- 16: a new block drawn as at reset every `period` ticks.

Randomness: one numpy Generator, seeded by ``reset(seed=...)`` (gymnasium's `np_random`), draws
everything, always in the same order, so a seed fixes the trajectory (PyBullet's
deterministic overlapping pairs make it independent of the episodes run before).

Speed: the world is built once per environment. A reset repositions the cart and pole (rebuilding
them only when the pole length changes); blocks are free rigid bodies that, once made, are parked
(static, outside the arena) at the end of an episode and reused by later ones, since making a body
costs about 0.6 ms. Block speeds are capped at 30 m/s (the fastest start is 17.3 m/s), which
only the energy-adding bounces of novelty 12 reach (uncapped, they run away and leave the arena);
the 6 m thick walls stop a block at that speed.
"""
from __future__ import annotations

import math

import gymnasium
import numpy as np
import pybullet as p
from gymnasium import spaces

from intellimetry.aiq.cartpole3d.novelties import LEVELS, NOVELTIES, SPAWN_AHEAD, WIND_DRAG, WIND_GUST_TICKS
from intellimetry.checks import check_choice, check_int

GRAVITY = 9.8
TIME_STEP = 1.0 / 50.0
PUSH_FORCE = 10.0
ARENA_HALF = 5.0
ARENA_HEIGHT = 10.0
WALL_THICKNESS = 6.0  # a block at the speed limit cannot pass through in one tick
MAX_BLOCK_SPEED = 30.0  # m/s; restitution > 1 (novelty 12) would otherwise let speeds run away
PARKING = 1000.0  # x (m) beyond which unused blocks wait
CART_RADIUS = 0.5
CART_HEIGHT = 0.2
CART_MASS = 1.0
POLE_RADIUS = 0.03
POLE_LENGTH = 1.0
POLE_MASS = 0.1
JOINT_HEIGHT = 0.2  # spherical joint above the cart's centre
BLOCK_RADIUS = 0.5
BLOCK_MASS = 1.0
BLOCK_SPEED = (6.0, 10.0)  # magnitude of each velocity component at reset
BLOCK_GAP = 1.0  # least horizontal gap between a new block and the cart's rim
BLOCKS_AT_RESET = (2, 4)
CART_START = 3.0
POLE_START_TILT = 0.01
MAX_TILT = math.radians(10.0)
STATE_SIZE = 10
# A fixed change of units for the networks that learn from obs[:10] (the pools of the AIQ figures): tilts
# stay within +-0.17 rad while positions reach +-5 m, so one scale per input lets one search distribution
# fit all of them; the tilt and its rate carry the balancing signal and are scaled up most (chosen by a
# few cross-entropy-method trials on novelty 0). Order: x, y, vx, vy, roll, pitch, yaw, wx, wy, wz.
OBSERVATION_SCALE = (0.3, 0.3, 1.0, 1.0, 30.0, 30.0, 1.0, 5.0, 5.0, 1.0)
BLOCK_SIZE = 6
ACTIONS = 5
# action -> (fx, fy): 0 nothing, 1 left (-x), 2 right (+x), 3 forward (+y), 4 backward (-y)
ACTION_FORCES = ((0.0, 0.0), (-PUSH_FORCE, 0.0), (PUSH_FORCE, 0.0), (0.0, PUSH_FORCE), (0.0, -PUSH_FORCE))
# link indices of the cart-pole body
JOINT_X, JOINT_Y, CART, POLE = 0, 1, 2, 3
PLACEMENT_TRIES = 1000

COLOURS = {"floor": (0.75, 0.75, 0.72, 1), "wall": (0.88, 0.9, 0.93, 1), "cart": (0.15, 0.35, 0.8, 1),
           "pole": (0.85, 0.15, 0.1, 1), "block": (0.95, 0.7, 0.1, 1)}


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
        self._build_arena()
        self._pole_length = None
        self._cartpole = None
        self._blocks: list[int] = []
        self._parked: dict[float, list[int]] = {}  # radius -> blocks kept outside the arena for reuse
        self._radius_of: dict[int, float] = {}
        self._rails: list[tuple[int, int, np.ndarray]] = []  # (block, axis along the rail, a point on it)
        self._shapes: dict[float, tuple[int, int]] = {}
        self._episode_novelty, self._episode_level = self.novelty, self.level
        self.tick = 0

    # ----------------------------------------------------------------------------- world building

    def _call(self, function, *args, **kwargs):
        return function(*args, physicsClientId=self._client, **kwargs)

    def _build_arena(self) -> None:
        self._call(p.setGravity, 0, 0, -GRAVITY)
        self._call(p.setTimeStep, TIME_STEP)
        self._call(p.setPhysicsEngineParameter, deterministicOverlappingPairs=1)
        half, t = ARENA_HALF, WALL_THICKNESS / 2
        span = half + WALL_THICKNESS
        slabs = {  # name: (centre, half extents)
            "floor": ((0, 0, -t), (span, span, t)),
            "ceiling": ((0, 0, ARENA_HEIGHT + t), (span, span, t)),
            "wall+x": ((half + t, 0, ARENA_HEIGHT / 2), (t, span, ARENA_HEIGHT / 2)),
            "wall-x": ((-half - t, 0, ARENA_HEIGHT / 2), (t, span, ARENA_HEIGHT / 2)),
            "wall+y": ((0, half + t, ARENA_HEIGHT / 2), (span, t, ARENA_HEIGHT / 2)),
            "wall-y": ((0, -half - t, ARENA_HEIGHT / 2), (span, t, ARENA_HEIGHT / 2)),
        }
        self._walls = {}
        for name, (centre, extents) in slabs.items():
            shape = self._call(p.createCollisionShape, p.GEOM_BOX, halfExtents=extents)
            visual = self._call(p.createVisualShape, p.GEOM_BOX, halfExtents=extents,
                                rgbaColor=COLOURS["floor" if name == "floor" else "wall"])
            body = self._call(p.createMultiBody, 0, shape, visual, centre)
            self._frictionless(body, -1, restitution=1.0)
            self._walls[name] = body

    def _frictionless(self, body: int, link: int, restitution: float) -> None:
        self._call(p.changeDynamics, body, link, restitution=restitution, lateralFriction=0.0, rollingFriction=0.0,
                   spinningFriction=0.0, linearDamping=0.0, angularDamping=0.0)

    def _build_cartpole(self, pole_length: float) -> None:
        if self._cartpole is not None:
            self._call(p.removeBody, self._cartpole)
        # PyBullet orders contacts by body id: blocks must come after the cart-pole, as in a fresh world
        for block in [b for parked in self._parked.values() for b in parked]:
            self._call(p.removeBody, block)
        self._parked = {}
        cart_shape = self._call(p.createCollisionShape, p.GEOM_CYLINDER, radius=CART_RADIUS, height=CART_HEIGHT)
        cart_visual = self._call(p.createVisualShape, p.GEOM_CYLINDER, radius=CART_RADIUS, length=CART_HEIGHT,
                                 rgbaColor=COLOURS["cart"])
        middle = [0, 0, pole_length / 2]
        pole_shape = self._call(p.createCollisionShape, p.GEOM_CYLINDER, radius=POLE_RADIUS, height=pole_length,
                                collisionFramePosition=middle)
        pole_visual = self._call(p.createVisualShape, p.GEOM_CYLINDER, radius=POLE_RADIUS, length=pole_length,
                                 visualFramePosition=middle, rgbaColor=COLOURS["pole"])
        identity = [0, 0, 0, 1]
        self._cartpole = self._call(
            p.createMultiBody, 0, -1, -1, [0, 0, CART_HEIGHT / 2], identity,
            linkMasses=[0, 0, CART_MASS, POLE_MASS],
            linkCollisionShapeIndices=[-1, -1, cart_shape, pole_shape],
            linkVisualShapeIndices=[-1, -1, cart_visual, pole_visual],
            linkPositions=[[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, JOINT_HEIGHT]],
            linkOrientations=[identity] * 4,
            linkInertialFramePositions=[[0, 0, 0]] * 3 + [[0, 0, pole_length]],  # the pole's mass at its top
            linkInertialFrameOrientations=[identity] * 4,
            linkParentIndices=[0, 1, 2, 3],
            linkJointTypes=[p.JOINT_PRISMATIC, p.JOINT_PRISMATIC, p.JOINT_REVOLUTE, p.JOINT_SPHERICAL],
            linkJointAxis=[[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]])
        for link in (-1, CART, POLE):
            self._frictionless(self._cartpole, link, restitution=1.0)
        # PyBullet motorises every joint by default: switch the motors off so the joints move freely
        for joint in (JOINT_X, JOINT_Y, CART):
            self._call(p.setJointMotorControl2, self._cartpole, joint, p.VELOCITY_CONTROL, force=0)
        self._call(p.setJointMotorControlMultiDof, self._cartpole, POLE, p.POSITION_CONTROL,
                   targetPosition=[0, 0, 0, 1], force=[0, 0, 0])
        # the planar joint holds the cart just above the floor; it must not rub on it
        self._call(p.setCollisionFilterPair, self._cartpole, self._walls["floor"], CART, -1, 0)
        self._pole_length = pole_length

    def _block_shapes(self, radius: float) -> tuple[int, int]:
        if radius not in self._shapes:
            self._shapes[radius] = (self._call(p.createCollisionShape, p.GEOM_SPHERE, radius=radius),
                                    self._call(p.createVisualShape, p.GEOM_SPHERE, radius=radius,
                                               rgbaColor=COLOURS["block"]))
        return self._shapes[radius]

    def _add_block(self, position, velocity, mass: float = BLOCK_MASS, restitution: float = 1.0) -> int:
        """A block of the episode's radius, taken from the parked ones or made (making one costs ~0.6 ms)."""
        radius = self._block_radius
        parked = self._parked.setdefault(radius, [])
        if parked:
            block = parked.pop(0)  # oldest first: bodies keep the same order as in a fresh world
        else:
            shape, visual = self._block_shapes(radius)
            block = self._call(p.createMultiBody, mass, shape, visual, list(position), useMaximalCoordinates=True)
            self._radius_of[block] = radius
        self._call(p.changeDynamics, block, -1, mass=mass)
        self._frictionless(block, -1, restitution=restitution)
        self._call(p.resetBasePositionAndOrientation, block, list(position), [0, 0, 0, 1])
        self._call(p.resetBaseVelocity, block, list(velocity), [0, 0, 0])
        self._blocks.append(block)
        return block

    def _clear_blocks(self) -> None:
        """Park the episode's blocks: static (mass 0), still, far outside the arena, each at its own spot."""
        for block in self._blocks:
            self._call(p.changeDynamics, block, -1, mass=0.0)
            self._call(p.resetBasePositionAndOrientation, block, [PARKING + 4.0 * block, 0, 0], [0, 0, 0, 1])
            self._call(p.resetBaseVelocity, block, [0, 0, 0], [0, 0, 0])
            self._parked[self._radius_of[block]].append(block)
        for parked in self._parked.values():
            parked.sort()
        self._blocks, self._rails = [], []

    # ----------------------------------------------------------------------------- episode set-up

    def _value(self, novelty: int):
        """The current episode's parameter of `novelty`, or None when another novelty is active."""
        return NOVELTIES[novelty].values[self._episode_level] if self._episode_novelty == novelty else None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = options or {}
        self._episode_novelty, self._episode_level = _check_novelty(options.get("novelty", self.novelty),
                                                                    options.get("level", self.level))
        rng = self.np_random
        self._clear_blocks()
        pole_length = self._value(9) or POLE_LENGTH
        if pole_length != self._pole_length:
            self._build_cartpole(pole_length)
        self._call(p.changeDynamics, self._cartpole, CART, mass=self._value(1) or CART_MASS)
        self._block_radius = self._value(4) or BLOCK_RADIUS
        self.tick = 0
        self._place_cartpole(rng)
        self._place_blocks(rng)
        self._wind_direction = _unit_horizontal(rng) if self._episode_novelty == 14 else None
        self._read_state()
        return self._observation(), self._info()

    def _place_cartpole(self, rng: np.random.Generator) -> None:
        x, y = rng.uniform(-CART_START, CART_START, 2)
        roll, pitch = rng.uniform(-POLE_START_TILT, POLE_START_TILT, 2)
        body = self._cartpole
        self._call(p.resetJointState, body, JOINT_X, x, 0.0)
        self._call(p.resetJointState, body, JOINT_Y, y, 0.0)
        self._call(p.resetJointState, body, CART, 0.0, 0.0)
        self._call(p.resetJointStateMultiDof, body, POLE, p.getQuaternionFromEuler([roll, pitch, 0.0]), [0, 0, 0])
        self._cart_xy = np.array([x, y])

    def _place_blocks(self, rng: np.random.Generator) -> None:
        count = int(rng.integers(BLOCKS_AT_RESET[0], BLOCKS_AT_RESET[1] + 1))
        novelty = self._episode_novelty
        if novelty == 10:
            for _ in range(count):
                self._add_rail_block(rng)
            return
        positions = [self._free_position(rng) for _ in range(count)]
        velocities = [_block_velocity(rng) for _ in range(count)]
        if novelty == 2:
            self._place_static_blocks(rng, positions)
            return
        if novelty == 3:
            target = np.array([rng.uniform(-4, 4), rng.uniform(-4, 4), rng.uniform(1, 9)])
            speed = rng.uniform(*self._value(3))
            velocities = [speed * _unit(target - position) for position in positions]
        if novelty == 11:
            target = np.array([*self._cart_xy, self._pole_middle_height()])
            velocities = [speed * _unit(target - position) if rng.random() < self._value(11) else velocity
                          for position, velocity, speed in
                          zip(positions, velocities, (np.linalg.norm(v) for v in velocities))]
        restitutions = rng.uniform(*self._value(12), count) if novelty == 12 else np.ones(count)
        for position, velocity, restitution in zip(positions, velocities, restitutions):
            self._add_block(position, velocity, restitution=float(restitution))

    def _place_static_blocks(self, rng: np.random.Generator, positions: list[np.ndarray]) -> None:
        where = self._value(2)
        for position in positions:
            if where == "floor":
                position = np.array([position[0], position[1], self._block_radius])
            elif where == "floor-near":
                position = self._free_position(rng, max_gap=BLOCK_GAP + 1.0, height=self._block_radius)
            self._add_block(position, (0, 0, 0), mass=0.0)

    def _free_position(self, rng: np.random.Generator, max_gap: float = math.inf,
                       height: float | None = None) -> np.ndarray:
        """A block centre inside the arena, its surface >= 1 m (and <= max_gap) from the cart's rim."""
        r = self._block_radius
        xy_limit = min(4.0, ARENA_HALF - r)
        z_range = (max(1.0, r), min(9.0, ARENA_HEIGHT - r))
        for _ in range(PLACEMENT_TRIES):
            x, y = rng.uniform(-xy_limit, xy_limit, 2)
            z = rng.uniform(*z_range) if height is None else height
            gap = math.hypot(x - self._cart_xy[0], y - self._cart_xy[1]) - CART_RADIUS - r
            if BLOCK_GAP <= gap <= max_gap:
                return np.array([x, y, z])
        raise RuntimeError(f"no room for a block of radius {r} m at least {BLOCK_GAP} m from the cart")

    def _add_rail_block(self, rng: np.random.Generator) -> None:
        """Novelty 10: a block on a horizontal rail parallel to x or y, at the level's distance."""
        r = self._block_radius
        along = int(rng.integers(2))  # 0: rail parallel to x, 1: parallel to y
        across = 1 - along
        offset = rng.uniform(*self._value(10)) * rng.choice([-1.0, 1.0])
        limit = ARENA_HALF - r
        rail_at = float(np.clip(self._cart_xy[across] + offset, -limit, limit))
        least = CART_RADIUS + r + BLOCK_GAP  # centre distance from the cart's axis
        for _ in range(PLACEMENT_TRIES):
            s = rng.uniform(-limit, limit)
            if math.hypot(s - self._cart_xy[along], rail_at - self._cart_xy[across]) >= least:
                break
        position = np.zeros(3)
        position[along], position[across], position[2] = s, rail_at, r
        velocity = np.zeros(3)
        velocity[along] = rng.uniform(*BLOCK_SPEED) * rng.choice([-1.0, 1.0])
        block = self._add_block(position, velocity)
        self._rails.append((block, along, position))

    def _hold_on_rails(self) -> None:
        """Novelty 10: put every rail block back on its rail, keeping only its motion along the rail.

        (PyBullet has no prismatic constraint for free bodies; a collision thus moves a rail block by
        the along-rail part of its impulse, as a rail would.)"""
        for block, along, rail_point in self._rails:
            position = np.array(rail_point)
            position[along] = self._call(p.getBasePositionAndOrientation, block)[0][along]
            velocity = [0.0, 0.0, 0.0]
            velocity[along] = self._call(p.getBaseVelocity, block)[0][along]
            self._call(p.resetBasePositionAndOrientation, block, position.tolist(), [0, 0, 0, 1])
            self._call(p.resetBaseVelocity, block, velocity, [0, 0, 0])

    def _pole_middle_height(self) -> float:
        return CART_HEIGHT / 2 + JOINT_HEIGHT + self._pole_length / 2

    # ----------------------------------------------------------------------------- stepping

    def step(self, action):
        fx, fy = ACTION_FORCES[int(action)]
        wind = self._wind()
        if wind is not None:
            fx += WIND_DRAG * (wind[0] - self._cart_velocity[0])
            fy += WIND_DRAG * (wind[1] - self._cart_velocity[1])
        self._call(p.setJointMotorControl2, self._cartpole, JOINT_X, p.TORQUE_CONTROL, force=fx)
        self._call(p.setJointMotorControl2, self._cartpole, JOINT_Y, p.TORQUE_CONTROL, force=fy)
        self._push_blocks(wind)
        self._call(p.stepSimulation)
        self.tick += 1
        self._hold_on_rails()
        self._read_state()
        self._spawn_blocks()
        roll, pitch = self._pole_euler[0], self._pole_euler[1]
        terminated = bool(abs(roll) > MAX_TILT or abs(pitch) > MAX_TILT)
        truncated = bool(self.tick >= self.max_steps and not terminated)
        return self._observation(), 1.0, terminated, truncated, self._info()

    def _wind(self) -> np.ndarray | None:
        if self._wind_direction is None:
            return None
        speed = self._value(14) * math.sin(math.pi * self.tick / WIND_GUST_TICKS) ** 2
        return speed * self._wind_direction

    def block_forces(self, wind: np.ndarray | None = None) -> np.ndarray:
        """The force (N, world axes) on every block this tick: floating force plus the novelty's."""
        positions, velocities = self._block_positions, self._block_velocities
        n = len(positions)
        forces = np.zeros((n, 3))
        novelty, value = self._episode_novelty, self._value(self._episode_novelty)
        if novelty != 6:
            forces[:, 2] += BLOCK_MASS * GRAVITY  # float
        else:
            forces[:, 2] -= value
        if novelty in (5, 13) and n > 1:
            apart = positions[:, None, :] - positions[None, :, :]  # [i, j] = from j to i
            distance = np.linalg.norm(apart, axis=2)
            np.fill_diagonal(distance, np.inf)
            sign = 1.0 if novelty == 5 else -1.0
            forces += sign * value * (apart / distance[:, :, None]).sum(axis=1)
        if novelty in (7, 15):
            target = np.zeros(3) if novelty == 7 else self._pole_tip
            forces += value * _unit_rows(target - positions)
        if wind is not None:
            forces += WIND_DRAG * (np.array([wind[0], wind[1], 0.0]) - velocities)
        return forces

    def _push_blocks(self, wind: np.ndarray | None) -> None:
        if not self._blocks or self._episode_novelty == 2:
            return
        # the per-block calls are the hot loop of every episode: plain lists and no wrapper call
        client, push = self._client, p.applyExternalForce
        for block, force, position in zip(self._blocks, self.block_forces(wind).tolist(),
                                          self._block_positions.tolist()):
            push(block, -1, force, position, p.WORLD_FRAME, physicsClientId=client)

    def _spawn_blocks(self) -> None:
        period = self._value(self._episode_novelty) if self._episode_novelty in (8, 16) else None
        if period is None or self.tick % period:
            return
        rng = self.np_random
        if self._episode_novelty == 16:
            position, velocity = self._free_position(rng), _block_velocity(rng)
        else:
            speed = math.hypot(*self._cart_velocity)
            heading = self._cart_velocity / speed if speed > 0.1 else _unit_horizontal(rng)
            limit = ARENA_HALF - self._block_radius
            xy = np.clip(self._cart_xy + SPAWN_AHEAD * heading, -limit, limit)
            position, velocity = np.array([xy[0], xy[1], self._pole_middle_height()]), np.zeros(3)
        self._add_block(position, velocity)
        self._block_positions = np.vstack([self._block_positions, position])
        self._block_velocities = np.vstack([self._block_velocities, velocity])

    # ----------------------------------------------------------------------------- observation

    def _read_state(self) -> None:
        body = self._cartpole
        x_state = self._call(p.getJointState, body, JOINT_X)
        y_state = self._call(p.getJointState, body, JOINT_Y)
        self._cart_xy = np.array([x_state[0], y_state[0]])
        self._cart_velocity = np.array([x_state[1], y_state[1]])
        pole = self._call(p.getLinkState, body, POLE, computeLinkVelocity=1)
        # linkWorldPosition (index 4) is the joint; the tip is L along the pole's axis from it
        axis = np.array(p.getMatrixFromQuaternion(pole[5]))[[2, 5, 8]]
        self._pole_tip = np.array(pole[4]) + self._pole_length * axis
        self._pole_euler = p.getEulerFromQuaternion(pole[5])
        self._pole_angular_velocity = pole[7]
        client, pose, motion = self._client, p.getBasePositionAndOrientation, p.getBaseVelocity
        positions, velocities = [], []
        for block in self._blocks:  # the hot loop of every episode: no wrapper call
            positions.append(pose(block, physicsClientId=client)[0])
            velocities.append(motion(block, physicsClientId=client)[0])
        self._block_positions = np.array(positions, dtype=float).reshape(-1, 3)
        self._block_velocities = np.array(velocities, dtype=float).reshape(-1, 3)
        self._limit_block_speeds()

    def _limit_block_speeds(self) -> None:
        """Scale any block faster than MAX_BLOCK_SPEED back to it (bounces with restitution > 1 add energy)."""
        speeds = np.linalg.norm(self._block_velocities, axis=1)
        for i in np.nonzero(speeds > MAX_BLOCK_SPEED)[0]:
            self._block_velocities[i] *= MAX_BLOCK_SPEED / speeds[i]
            angular = self._call(p.getBaseVelocity, self._blocks[i])[1]
            self._call(p.resetBaseVelocity, self._blocks[i], self._block_velocities[i].tolist(), angular)

    def _observation(self) -> np.ndarray:
        obs = np.zeros(STATE_SIZE + BLOCK_SIZE * self.observed_blocks, dtype=np.float32)
        obs[0:2], obs[2:4] = self._cart_xy, self._cart_velocity
        obs[4:7], obs[7:10] = self._pole_euler, self._pole_angular_velocity
        if self.observed_blocks and len(self._blocks):
            cart = np.array([*self._cart_xy, CART_HEIGHT / 2])
            order = np.argsort(np.linalg.norm(self._block_positions - cart, axis=1), kind="stable")
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


def _block_velocity(rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(*BLOCK_SPEED, 3) * rng.choice([-1.0, 1.0], 3)


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / np.linalg.norm(vector)


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def _unit_horizontal(rng: np.random.Generator) -> np.ndarray:
    angle = rng.uniform(0, 2 * math.pi)
    return np.array([math.cos(angle), math.sin(angle)])
