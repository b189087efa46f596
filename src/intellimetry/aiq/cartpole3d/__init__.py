"""CartPole3D (Pereyda & Holder 2025, Section 3.4): the original CartPole++ in PyBullet, its sixteen
novelties, a hand-written balancing controller and episode helpers. Importing the package registers the
environment with gymnasium as ``intellimetry/CartPole3D-v0``."""
import gymnasium

from intellimetry.aiq.cartpole3d.env import OBSERVATION_SCALE, STATE_SIZE, CartPole3DEnv
from intellimetry.aiq.cartpole3d.heuristic import (
    POLICIES,
    episode_ticks,
    heuristic_policy,
    mean_performance,
    random_policy,
    run_episode,
)
from intellimetry.aiq.cartpole3d.novelties import LEVELS, NOVELTIES, Novelty, novelty_table

ENV_ID = "intellimetry/CartPole3D-v0"

if ENV_ID not in gymnasium.registry:  # importing twice (or reloading) must not register twice
    gymnasium.register(id=ENV_ID, entry_point="intellimetry.aiq.cartpole3d.env:CartPole3DEnv")

__all__ = [
    "ENV_ID",
    "LEVELS",
    "NOVELTIES",
    "POLICIES",
    "OBSERVATION_SCALE",
    "STATE_SIZE",
    "CartPole3DEnv",
    "Novelty",
    "episode_ticks",
    "heuristic_policy",
    "mean_performance",
    "novelty_table",
    "random_policy",
    "run_episode",
]
