"""The sixteen CartPole3D novelties (Pereyda & Holder 2025, Table 1) and their three levels, as the
original CartPole++ implements them.

The paper names each novelty by its effect; the original (holderlb/WSU-SAILON-NG, phase 3 of the
portable generator) implements novelties 1-8 as its "mock" files ``m_1.py``-``m_8.py`` and 9-16 as its
"novel" files ``n_1.py``-``n_8.py``. ``Novelty.values[level]`` holds the number (or range) that
``CartPole3DEnv`` reads; ``Novelty.ours[level]`` says in one line what it then does. Where the original
ignores the level, the three levels are the same. Each value's file and line, and what our earlier
implementation (written from the paper's wording) did instead, are in
``data/reference/aiq/cartpole3d.yaml``.

Two novelties do the opposite of the paper's wording: the original applies their forces in the blocks'
own frame, which is turned half a turn about z, so novelty 5 ("blocks pushed away from each other")
pulls every block toward the blocks' centroid and novelty 13 ("blocks attracted to each other") pushes
every block away from it; we follow the original's physics.
"""
from __future__ import annotations

from dataclasses import dataclass

LEVELS = ("easy", "medium", "hard")

# novelty 8 (m_8.py): a motionless block every `period` ticks, U(0, SPAWN_REACH) m from the arena's
# centre along the cart's mean velocity over the last `period` ticks, at SPAWN_HEIGHT; a spot within
# SPAWN_CLEARANCE (horizontally) of the cart's start, of any block or of the centre, or beyond
# SPAWN_BOUND, is redrawn, at most SPAWN_TRIES times
SPAWN_REACH = 10.0
SPAWN_HEIGHT = 1.0
SPAWN_CLEARANCE = 0.75
SPAWN_BOUND = 4.5
SPAWN_TRIES = 100
# novelties 11 and 15 (n_3.py, n_7.py): the point aimed at, this high (m) above the cart's centre of mass
AIM_HEIGHT = 0.5
# novelty 11: the speed of an aimed block, U(0, 10) m/s
AIM_SPEED = (0.0, 10.0)
# novelty 16 (n_8.py): each velocity component of a spawned block, U(3, 5) m/s with a random sign
SPAWN_SPEED = (3.0, 5.0)
# novelty 10 (n_2.py): the rail's base height U(-1, 1) m (the block rides 1 m above it), the block's
# start along the rail U(-10, 10) m, its speed along the rail U(6, 10) m/s with a random sign
RAIL_BASE_HEIGHT = (-1.0, 1.0)
RAIL_START = 10.0


@dataclass(frozen=True)
class Novelty:
    """One row of the paper's Table 1 with the original's implementation at each level."""

    id: int
    paper_effect: str
    values: dict
    ours: dict


def _novelty(id_: int, paper_effect: str, values: tuple, describe) -> Novelty:
    by_level = dict(zip(LEVELS, values))
    return Novelty(id_, paper_effect, by_level, {level: describe(v) for level, v in by_level.items()})


def _range(v) -> str:
    return f"{v[0]:g}-{v[1]:g}"


def _same(value) -> tuple:
    return (value,) * len(LEVELS)


NOVELTIES: dict[int, Novelty] = {n.id: n for n in (
    _novelty(0, "No change.", (None, None, None), lambda v: "the unchanged domain"),
    _novelty(1, "Change to mass of cart.", _same(10.0), lambda v: f"cart mass {v:g} kg (normal 1 kg), every level"),
    _novelty(2, "Block is unmovable in plane of cart.", _same(True),
             lambda v: "blocks static (mass 0) where they are drawn at reset, every level"),
    _novelty(3, "Blocks initially pushed towards random point.", _same((0.0, 10.0)),
             lambda v: f"all blocks aimed at one random point, one shared speed U({_range(v)}) m/s, every level"),
    _novelty(4, "Change in size of block.", _same(1.0), lambda v: f"block radius {v:g} m (normal 0.5 m), every level"),
    _novelty(5, "Blocks pushed away from each other.", _same((0.0, 6.0)),
             lambda v: f"each tick a force U({_range(v)}) N on every block toward the blocks' centroid "
                       "(the original's frame turns the paper's 'away' into 'toward'), every level"),
    _novelty(6, "Gravity increased and does affect blocks.", (20.0, 30.0, 40.0),
             lambda v: f"gravity {v:g} m/s² on everything, blocks no longer float"),
    _novelty(7, "Blocks attracted to origin.", (15.0, 25.0, 35.0),
             lambda v: f"{v:g} N on every block toward the arena's origin (floor centre)"),
    _novelty(8, "Additional stopped blocks spawned over time.", (50, 15, 7),
             lambda v: f"a motionless floating block every {v} ticks, 0-{SPAWN_REACH:g} m from the arena's "
                       "centre along the cart's recent mean velocity, 1 m up"),
    _novelty(9, "Cartpole pole length increase.", (3.0, 5.0, 8.0),
             lambda v: f"pole length {v:g} m, its centre of mass still 1 m above the joint (normal 1 m)"),
    _novelty(10, "Blocks move on fixed axis in plane of cartpole.", ((3.0, 4.0), (2.0, 3.0), (1.5, 2.0)),
             lambda v: f"each block slides on a fixed horizontal line 0-2 m up, drawn {_range(v)} m from the "
                       "cart (the rail then turns: its direction is 2 atan of the angle drawn)"),
    _novelty(11, "Blocks initially pushed towards cartpole.", (0.25, 0.5, 0.75),
             lambda v: f"each block aimed with probability {v:g} at a point 0.5 m above the cart's centre, "
                       f"at U({_range(AIM_SPEED)}) m/s"),
    _novelty(12, "Increase bounciness of blocks.", ((1.05, 1.15), (1.20, 1.30), (1.35, 1.45)),
             lambda v: f"one restitution U({_range(v)}) for the walls and every block (normal 1)"),
    _novelty(13, "Blocks attracted to each other.", (1.0, 3.0, 5.0),
             lambda v: f"{v:g} N on every block away from the blocks' centroid (the original's frame turns "
                       "the paper's 'attracted' into 'pushed away')"),
    _novelty(14, "Wind force applied.", (16.0, 18.0, 20.0),
             lambda v: f"steady wind from a random direction, peak {v:g} m/s: a constant push on the cart along "
                       "x, strong pushes on the blocks toward -x, -y, none on the pole"),
    _novelty(15, "Blocks pushed towards pole tip.", (10.0, 20.0, 30.0),
             lambda v: f"{v:g} N on every block toward a point 0.5 m above the cart's centre (0.3 m up the pole)"),
    _novelty(16, "Additional blocks spawned over time.", (3, 2, 1),
             lambda v: f"a new block (placed as at reset, {_range(SPAWN_SPEED)} m/s per axis) every {v} "
                       f"tick{'s' if v > 1 else ''}"),
)}


def novelty_table() -> list[dict]:
    """The paper's Table 1 with the original's implementation: one dict per novelty 1..16."""
    return [{"novelty": n.id, "paper_effect": n.paper_effect, **{level: n.ours[level] for level in LEVELS}}
            for n in NOVELTIES.values() if n.id > 0]
