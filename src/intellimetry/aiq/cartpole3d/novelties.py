"""The sixteen CartPole3D novelties (Pereyda & Holder 2025, Table 1) and their three levels.

Each novelty is one parametric change of the domain. `Novelty.values[level]` holds the number (or
range) that `CartPole3DEnv` reads; `Novelty.ours[level]` says in one line what the environment then
does. The spec (specs/aiq.md, "CartPole3D") fixes the numbers where it gives three of them; where it
gives one, that value is the easy level and medium / hard push the same change further (the paper's
"small, medium and large changes"). The choices for details the spec leaves open are written in
`ours` and in the docstring of `intellimetry.aiq.cartpole3d.env`.
"""
from __future__ import annotations

from dataclasses import dataclass

LEVELS = ("easy", "medium", "hard")

# Drag coefficient of the wind (novelty 14), N per (m/s) of relative air speed: F = k (v_wind - v).
WIND_DRAG = 0.25
# Ticks of one gust of wind: the speed goes from calm to the peak and back (sin^2 profile).
WIND_GUST_TICKS = 100
# Novelty 8: horizontal distance (m) ahead of the cart at which a motionless block appears.
SPAWN_AHEAD = 2.0


@dataclass(frozen=True)
class Novelty:
    """One row of the paper's Table 1 with our implementation at each level."""

    id: int
    paper_effect: str
    values: dict
    ours: dict


def _novelty(id_: int, paper_effect: str, values: tuple, describe) -> Novelty:
    by_level = dict(zip(LEVELS, values))
    return Novelty(id_, paper_effect, by_level, {level: describe(v) for level, v in by_level.items()})


def _range(v) -> str:
    return f"{v[0]:g}-{v[1]:g}"


NOVELTIES: dict[int, Novelty] = {n.id: n for n in (
    _novelty(0, "No change.", (None, None, None), lambda v: "the unchanged domain"),
    _novelty(1, "Change to mass of cart.", (10.0, 20.0, 40.0), lambda v: f"cart mass {v:g} kg (normal 1 kg)"),
    _novelty(2, "Block is unmovable in plane of cart.", ("drawn", "floor", "floor-near"), lambda v: {
        "drawn": "blocks static (mass 0) where they were drawn",
        "floor": "blocks static (mass 0) resting on the floor, in the cart's plane",
        "floor-near": "blocks static (mass 0) on the floor, 1-2 m from the cart's edge",
    }[v]),
    _novelty(3, "Blocks initially pushed towards random point.", ((1.0, 4.0), (4.0, 7.0), (7.0, 10.0)),
             lambda v: f"all blocks aimed at one random point, shared speed {_range(v)} m/s"),
    _novelty(4, "Change in size of block.", (1.0, 1.25, 1.5), lambda v: f"block radius {v:g} m (normal 0.5 m)"),
    _novelty(5, "Blocks pushed away from each other.", (2.0, 4.0, 6.0),
             lambda v: f"every pair of blocks repels with {v:g} N along the line between them"),
    _novelty(6, "Gravity increased and does affect blocks.", (0.0, 4.9, 9.8),
             lambda v: "blocks fall under gravity (no floating force)"
             + (f" plus {v:g} N downward ({1 + v / 9.8:g} g)" if v else "")),
    _novelty(7, "Blocks attracted to origin.", (15.0, 25.0, 35.0),
             lambda v: f"{v:g} N on every block toward the arena's origin (floor centre)"),
    _novelty(8, "Additional stopped blocks spawned over time.", (50, 15, 7),
             lambda v: f"a motionless block every {v} ticks, {SPAWN_AHEAD:g} m ahead of the cart "
                       "(along its velocity) at the pole's mid height"),
    _novelty(9, "Cartpole pole length increase.", (3.0, 5.0, 8.0),
             lambda v: f"pole length {v:g} m, centre of mass at its top (normal 1 m)"),
    _novelty(10, "Blocks move on fixed axis in plane of cartpole.", ((3.0, 4.0), (2.0, 3.0), (1.5, 2.0)),
             lambda v: f"blocks slide on straight horizontal rails at the cart's height, "
                       f"{_range(v)} m from the cart's axis"),
    _novelty(11, "Blocks initially pushed towards cartpole.", (0.25, 0.5, 0.75),
             lambda v: f"each block aimed at the pole's middle with probability {v:g} (same speed)"),
    _novelty(12, "Increase bounciness of blocks.", ((1.05, 1.15), (1.20, 1.30), (1.35, 1.45)),
             lambda v: f"block restitution drawn in {_range(v)} per block (normal 1)"),
    _novelty(13, "Blocks attracted to each other.", (1.0, 3.0, 5.0),
             lambda v: f"every pair of blocks attracts with {v:g} N along the line between them"),
    _novelty(14, "Wind force applied.", (16.0, 18.0, 20.0),
             lambda v: f"wind in a random horizontal direction gusting 0-{v:g} m/s every "
                       f"{WIND_GUST_TICKS} ticks; drag {WIND_DRAG:g} N/(m/s) x (v_wind - v) on cart and blocks"),
    _novelty(15, "Blocks pushed towards pole tip.", (10.0, 20.0, 30.0),
             lambda v: f"{v:g} N on every block toward the pole's tip"),
    _novelty(16, "Additional blocks spawned over time.", (3, 2, 1),
             lambda v: f"a new moving block (as at reset) every {v} tick{'s' if v > 1 else ''}"),
)}


def novelty_table() -> list[dict]:
    """The paper's Table 1 with our implementation: one dict per novelty 1..16."""
    return [{"novelty": n.id, "paper_effect": n.paper_effect, **{level: n.ours[level] for level in LEVELS}}
            for n in NOVELTIES.values() if n.id > 0]
