"""Novelty 14's wind as the original computes it (``n_6.py``; table entry ``novelty 14`` of
``data/reference/aiq/cartpole3d.yaml``): a steady wind from a random horizontal direction whose speed
rises from the floor and ceiling to a peak midway, pushing the blocks and the cart (never the pole).

- The speed profile: the original reads a turbulent-channel profile from a data file and scales it to the
  level's peak; we use a one-parameter fit of it, ``u / u_peak = ln(1 + C eta) / ln(1 + C)`` with eta the
  distance to the nearer of floor and ceiling in half-heights (within 0.017 u_peak of the original's
  profile at its 200 mesh heights), sampled on the original's mesh.
- Blocks: per tick, the sum over the mesh cells a block's height spans of a drag term in u_x^2 (and in
  u_y^2), applied in the block's own frame; squaring loses the wind's sign, and the blocks' frame is turned
  half a turn, so every block is pushed toward -x and -y whatever the wind's direction.
- Cart: the same drag summed over the bottom cells, with a frontal area and drag coefficient that vary
  with the wind's angle, the sign restored, applied in the cart's frame as (F_x cos yaw, -F_y sin yaw):
  with the cart upright (yaw 0) only the x part acts.
- Pole: nothing. The original sums the pole's drag over mesh cells from -13 (its base placed 0.65 m below
  the floor) to the tip, a slice that Python reads as empty.
"""
from __future__ import annotations

import math

import numpy as np

PROFILE_C = 552.0        # the fitted profile's constant
MESH_POINTS = 200        # the original's mesh over the 10 m height
HEIGHT = 10.0
CELL = HEIGHT / MESH_POINTS  # the original's cell height (its mesh index of a height z is int(z n / h))
AIR_DENSITY = 1.225
BLOCK_DRAG = 0.5
BLOCK_AREA = math.pi * 0.5 ** 2
BLOCK_SPAN = 0.5         # the height a block covers in the sum (its "height")
BLOCK_REDUCTION = 0.5
CART_WIDTH = 1.0
CART_TOP = 0.08 + 0.1    # the original's cart top (its centre 0.08 m up plus half its 0.2 m length)


def profile() -> np.ndarray:
    """u / u_peak at the original's mesh heights (linspace(0, 10, 200))."""
    z = np.linspace(0.0, HEIGHT, MESH_POINTS)
    eta = np.minimum(z, HEIGHT - z) / (HEIGHT / 2)
    return np.log1p(PROFILE_C * eta) / math.log1p(PROFILE_C)


_SQUARED = profile() ** 2


def _index(z: float) -> int:
    return int(z * MESH_POINTS / HEIGHT)


def block_force(z: float, angle: float, peak: float) -> tuple[float, float]:
    """The (x, y) force the original applies to a block at height z, in the block's own frame."""
    bottom, top = _index(z - BLOCK_SPAN / 2), _index(z + BLOCK_SPAN / 2)
    total = float(_SQUARED[bottom:top].sum()) * peak ** 2  # Python's slice, as the original's
    scale = 0.5 * AIR_DENSITY * BLOCK_DRAG * BLOCK_AREA * BLOCK_REDUCTION * total
    return scale * math.sin(angle) ** 2, scale * math.cos(angle) ** 2


def cart_force(angle: float, peak: float) -> tuple[float, float]:
    """(F_x, F_y) of the original's drag on the cart, signed as the wind's components (u_x = -u sin angle,
    u_y = u cos angle; angle 0 blows toward +y), before the cart's yaw is applied."""
    top = _index(CART_TOP)
    total = float(_SQUARED[:top + 1].sum()) * peak ** 2
    turn = -angle  # the cart's yaw is taken as 0 (the original's fixed quaternion)
    amplitude = (math.sqrt(2) - 1) / 2
    area = CART_WIDTH * (amplitude * math.sin(4 * turn - math.pi / 2) + 1 + amplitude) * CELL
    drag = 0.5 * math.cos(4 * turn) + 1.5
    scale = 0.5 * AIR_DENSITY * area * drag * total
    fx, fy = scale * math.sin(angle) ** 2, scale * math.cos(angle) ** 2
    return (-fx if math.sin(angle) > 0 else fx), (-fy if math.cos(angle) < 0 else fy)
