"""The bodies of CartPole3D as the original CartPole++ builds them, and the constants they are built from.

Every number here is a fact of the original (holderlb/WSU-SAILON-NG,
``WSU-Portable-Generator/source/partial_env_generator/phase_3/envs/cartpolepp/``), recorded with its
file and line in ``data/reference/aiq/cartpole3d.yaml`` (the entry named in each comment), where
``tests/test_aiq_cartpole3d_physics.py`` holds the bodies to it by reading them back from PyBullet.

The cart-pole is loaded, as in the original, from a URDF (written here from these constants) WITHOUT
``URDF_USE_INERTIA_FROM_FILE``: PyBullet then ignores the file's inertia tensors and computes each
link's inertia from its collision shapes (for a shape placed off the link's origin, the box of their
bounding box), so the pole's inertia follows its length although its centre of mass does not move.
Nothing here sets damping: PyBullet's default for every multibody (linear and angular 0.04, applied as
``m v (0.04 + 0.04 |v|)``) stays, as it does in the original.
"""
from __future__ import annotations

import math
import os
import tempfile

import pybullet as p

GRAVITY = 9.8                 # table: gravity
TIME_STEP = 1.0 / 50.0        # table: time_step
PUSH_FORCE = 10.0             # table: push_force
MAX_TILT = math.radians(10.0)  # table: max_tilt
TICK_LIMIT = 200              # table: tick_limit
# arena (table: walls): six static 0.1 m slabs, 10.1 m wide, centred on x, y = +-5, z = -0.1 and z = 10
WALL_THICKNESS = 0.1
WALL_WIDTH = 10.1
ARENA_HALF = 5.0
ARENA_HEIGHT = 10.0
FLOOR_CENTRE = -0.1
# the cart-pole (table: cart, pole, joints)
CART_RADIUS = 0.5
CART_LENGTH = 0.2
CART_COLLISION_HEIGHT = 0.2   # the cylinder's centre above the cart's link origin (= its centre of mass)
CART_MASS = 1.0
POLE_RADIUS = 0.03
POLE_LENGTH = 1.0
POLE_MASS = 0.1
POLE_JOINT_HEIGHT = 0.2       # the spherical joint above the cart's link origin
POLE_MASS_HEIGHT = 1.0        # the pole's centre of mass above the joint, for every pole length
POLE_GAP = 0.05               # the pole's cylinder starts this far above the joint
# blocks (table: blocks)
BLOCK_RADIUS = 0.5
BLOCK_MASS = 1.0
BLOCK_ORIENTATION = (0.0, 0.0, 1.0, 0.0)  # half a turn about z: a block's x and y axes point along -x and -y
FLOAT_FORCE = 9.8             # N up on every block each tick (in its own frame), cancelling gravity
# rail blocks of novelty 10 (table: novelty 10): a prismatic joint along the rail base's x axis
RAIL_JOINT_HEIGHT = 1.0

COLOURS = {"floor": (0.75, 0.75, 0.72, 1), "wall": (0.88, 0.9, 0.93, 1), "cart": (0.15, 0.35, 0.8, 1),
           "pole": (0.85, 0.15, 0.1, 1), "block": (0.95, 0.7, 0.1, 1)}

# cart-pole link indices: the ground (base, -1), two massless sliders (0: along x, 1: along y), the cart
# turning about z on the second (2), the pole on a spherical joint (3); the original's planar joint
# makes the cart link 0 and the pole link 1
SLIDER_X, SLIDER_Y, CART, POLE = 0, 1, 2, 3


def _rgba(name: str) -> str:
    return " ".join(f"{c:g}" for c in COLOURS[name])


def cartpole_urdf(pole_length: float, planar: bool = False) -> str:
    """The original's cart-pole as URDF text: a massless ground, a cylinder cart free to slide and turn in
    the horizontal plane, a cylinder pole on a spherical joint; inertia tensors are placeholders (1)
    because PyBullet recomputes them from the collision shapes.

    ``planar=True`` gives the original's single planar joint; by default the plane is two prismatic
    joints (x, then y) and a revolute one (z) with massless links between, the same motion (the tests
    check that both give the same trajectory) but resettable: PyBullet cannot reset a planar joint's
    position, which is why the original reloads its URDF every episode."""
    pole_centre = POLE_GAP + pole_length / 2
    unit_inertia = '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>'
    no_mass = '<inertial><mass value="0"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>'
    cart_cylinder = f'<cylinder length="{CART_LENGTH!r}" radius="{CART_RADIUS!r}"/>'
    pole_cylinder = f'<cylinder length="{float(pole_length)!r}" radius="{POLE_RADIUS!r}"/>'
    unlimited = '<limit lower="0" upper="-1" effort="0" velocity="0"/>'  # lower > upper: no limit
    if planar:
        plane = ('<joint name="ground_to_cart" type="planar"><origin xyz="0 0 0"/><axis xyz="0 0 1"/>'
                 '<parent link="ground"/><child link="cart"/></joint>')
    else:
        plane = (f'<link name="slider_x">{no_mass}</link><link name="slider_y">{no_mass}</link>'
                 f'<joint name="ground_to_x" type="prismatic"><origin xyz="0 0 0"/><axis xyz="1 0 0"/>'
                 f'<parent link="ground"/><child link="slider_x"/>{unlimited}</joint>'
                 f'<joint name="x_to_y" type="prismatic"><origin xyz="0 0 0"/><axis xyz="0 1 0"/>'
                 f'<parent link="slider_x"/><child link="slider_y"/>{unlimited}</joint>'
                 f'<joint name="y_to_cart" type="continuous"><origin xyz="0 0 0"/><axis xyz="0 0 1"/>'
                 f'<parent link="slider_y"/><child link="cart"/></joint>')
    return f"""<?xml version="1.0"?>
<robot name="cartpole3d">
  <link name="ground">{no_mass}</link>
  <link name="cart">
    <visual><origin xyz="0 0 {CART_COLLISION_HEIGHT!r}"/><geometry>{cart_cylinder}</geometry>
      <material name="cart"><color rgba="{_rgba('cart')}"/></material></visual>
    <collision><origin xyz="0 0 {CART_COLLISION_HEIGHT!r}"/><geometry>{cart_cylinder}</geometry></collision>
    <inertial><mass value="{CART_MASS!r}"/>{unit_inertia}</inertial>
  </link>
  {plane}
  <link name="pole">
    <visual><origin xyz="0 0 {pole_centre!r}"/><geometry>{pole_cylinder}</geometry>
      <material name="pole"><color rgba="{_rgba('pole')}"/></material></visual>
    <collision><origin xyz="0 0 {pole_centre!r}"/><geometry>{pole_cylinder}</geometry></collision>
    <inertial><origin xyz="0 0 {POLE_MASS_HEIGHT!r}"/><mass value="{POLE_MASS!r}"/>{unit_inertia}</inertial>
  </link>
  <joint name="cart_to_pole" type="spherical">
    <origin xyz="0 0 {POLE_JOINT_HEIGHT!r}"/><axis xyz="0 0 0"/><parent link="cart"/><child link="pole"/>
  </joint>
</robot>
"""


def load_cartpole(client: int, pole_length: float, planar: bool = False) -> int:
    """Load the cart-pole (PyBullet computing the inertias, as without URDF_USE_INERTIA_FROM_FILE) and
    loosen its joints: PyBullet motorises every joint by default; the original switches the spherical
    joint's motor off with zero gains and zero force (its planar joint has none), as we do with ours."""
    with tempfile.TemporaryDirectory(prefix="cartpole3d-") as folder:
        path = os.path.join(folder, "cartpole.urdf")
        with open(path, "w") as handle:
            handle.write(cartpole_urdf(pole_length, planar))
        body = p.loadURDF(path, physicsClientId=client)
    cart, pole = (0, 1) if planar else (CART, POLE)
    for joint in () if planar else (SLIDER_X, SLIDER_Y, CART):
        p.setJointMotorControl2(body, joint, p.VELOCITY_CONTROL, force=0, physicsClientId=client)
    p.setJointMotorControlMultiDof(body, pole, p.POSITION_CONTROL, targetPosition=[0, 0, 0, 1],
                                   targetVelocity=[0, 0, 0], positionGain=0, velocityGain=0, force=[0, 0, 0],
                                   physicsClientId=client)
    return body


def build_walls(client: int) -> list[int]:
    """The arena: four side walls, a ceiling and a floor, static, restitution 1, no friction."""
    half, t, w, h = ARENA_HALF, WALL_THICKNESS / 2, WALL_WIDTH / 2, ARENA_HEIGHT / 2
    slabs = (((0, -half, h), (w, t, w)), ((0, half, h), (w, t, w)), ((-half, 0, h), (t, w, w)),
             ((half, 0, h), (t, w, w)), ((0, 0, ARENA_HEIGHT), (w, w, t)), ((0, 0, FLOOR_CENTRE), (w, w, t)))
    walls = []
    for index, (centre, extents) in enumerate(slabs):
        shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=extents, physicsClientId=client)
        colour = COLOURS["floor" if index == len(slabs) - 1 else "wall"]
        visual = p.createVisualShape(p.GEOM_BOX, halfExtents=extents, rgbaColor=colour, physicsClientId=client)
        wall = p.createMultiBody(0, shape, visual, centre, physicsClientId=client)
        set_bounce(client, wall, -1, 1.0)
        walls.append(wall)
    return walls


def set_bounce(client: int, body: int, link: int, restitution: float) -> None:
    """Restitution and no friction of any kind (the original's setting for walls and blocks)."""
    p.changeDynamics(body, link, restitution=restitution, lateralFriction=0.0, rollingFriction=0.0,
                     spinningFriction=0.0, physicsClientId=client)


class Shapes:
    """Collision and visual spheres by radius, made once per client (making a shape costs time)."""

    def __init__(self, client: int):
        self.client = client
        self._spheres: dict[float, tuple[int, int]] = {}

    def sphere(self, radius: float) -> tuple[int, int]:
        if radius not in self._spheres:
            self._spheres[radius] = (
                p.createCollisionShape(p.GEOM_SPHERE, radius=radius, physicsClientId=self.client),
                p.createVisualShape(p.GEOM_SPHERE, radius=radius, rgbaColor=COLOURS["block"],
                                    physicsClientId=self.client))
        return self._spheres[radius]


def make_block(shapes: Shapes, radius: float, static: bool, position) -> int:
    """A sphere block as the original's block URDF loads it: one multibody base of BLOCK_MASS (static for
    mass 0), PyBullet's default damping, turned half a turn about z, restitution 1 and no friction."""
    shape, visual = shapes.sphere(radius)
    block = p.createMultiBody(0.0 if static else BLOCK_MASS, shape, visual, list(position), BLOCK_ORIENTATION,
                              physicsClientId=shapes.client)
    set_bounce(shapes.client, block, -1, 1.0)
    return block


def make_rail_block(shapes: Shapes, position, orientation) -> int:
    """Novelty 10's block: a static base and a sphere link on a prismatic joint along the base's x axis,
    RAIL_JOINT_HEIGHT above it, motor off, no damping, restitution 1 (its friction stays PyBullet's 0.5)."""
    shape, visual = shapes.sphere(BLOCK_RADIUS)
    client = shapes.client
    rail = p.createMultiBody(0.0, -1, -1, list(position), list(orientation), linkMasses=[BLOCK_MASS],
                             linkCollisionShapeIndices=[shape], linkVisualShapeIndices=[visual],
                             linkPositions=[[0, 0, RAIL_JOINT_HEIGHT]], linkOrientations=[[0, 0, 0, 1]],
                             linkInertialFramePositions=[[0, 0, 0]], linkInertialFrameOrientations=[[0, 0, 0, 1]],
                             linkParentIndices=[0], linkJointTypes=[p.JOINT_PRISMATIC], linkJointAxis=[[1, 0, 0]],
                             physicsClientId=client)
    p.changeDynamics(rail, 0, linearDamping=0.0, angularDamping=0.0, restitution=1.0, physicsClientId=client)
    p.setJointMotorControl2(rail, 0, p.VELOCITY_CONTROL, force=0, physicsClientId=client)
    return rail
