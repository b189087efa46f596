"""The AIQ figures' sweeps: one measurement of :mod:`intellimetry.aiq.study` per setting (noise level,
copy count, class count, force, gravity), each with the same switch to its null subject, so that a
notebook calls one function per series and computes nothing itself (issue 32, rule 8)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from intellimetry.aiq import domains as dom
from intellimetry.aiq.measures import MCCPCurve, mccp_curve, observation_entropy
from intellimetry.aiq.policy_search import CEMBudget
from intellimetry.aiq.study import (
    CartPoleData,
    Complexity,
    MixSpec,
    PoolSpec,
    cartpole_complexity,
    cartpole_data,
    first_classes,
    mixing_curve,
    sample_entropies,
)
from intellimetry.cartpole import CARTPOLE_MAX_STEPS

SWEPT = ("force", "gravity")
ENTROPY_BINS = 30  # bins per observation variable of CartPole's entropy baseline
ENTROPY_PER = ("sum", "sample", "equal")  # how domain_entropies reduces the samples' entropies


def pool_curve(pool, rule: str = "neighbour") -> MCCPCurve:
    """The MCCP curve of one trained pool: each network's size against its test accuracy."""
    return mccp_curve([a.size for a in pool], [a.accuracy for a in pool], rule=rule)


def domain_entropies(domains: Sequence, per: str = "sum", seed: int = 0) -> np.ndarray:
    """The entropy baseline of each domain, in order (bits; :func:`~intellimetry.aiq.study.sample_entropies`):
    ``per="sum"`` the paper's, summed over every sample, so a domain with more samples scores higher
    whatever its difficulty; ``"sample"`` the mean per sample, in which the count drops out; ``"equal"``
    the paper's sum over equally many samples of each domain (as many as the smallest has, drawn
    without replacement with ``seed``), the same remedy by sampling, whose values divided by that count
    estimate the means."""
    if per not in ENTROPY_PER:
        raise ValueError(f"per: unknown entropy reduction {per!r}; allowed: {', '.join(ENTROPY_PER)}")
    samples = [sample_entropies(d) for d in domains]
    if per == "sum":
        return np.array([float(e.sum()) for e in samples])
    if per == "sample":
        return np.array([float(e.mean()) for e in samples])
    count = min(len(e) for e in samples)
    rng = np.random.default_rng(seed)
    return np.array([float(rng.choice(e, size=count, replace=False).sum()) for e in samples])


def noisy_domains(base, levels: Sequence[float], seed: int = 0) -> list:
    """The domain under each noise level (:func:`~intellimetry.aiq.domains.with_noise`)."""
    return [dom.with_noise(base, level, seed=seed) for level in levels]


def duplicated_domains(base, copies: Sequence[int]) -> list:
    """The domain repeated k times, train and test, for each k (:func:`~intellimetry.aiq.domains.duplicated`)."""
    return [dom.duplicated(base, k, test=True) for k in copies]


def class_subsets(full, class_counts: Sequence[int]) -> list:
    """The first k classes of ``full`` for each k, re-indexed (every k, the full count included, as a subset)."""
    return [dom.class_subset(full, range(k)) for k in class_counts]


def nested_subsets(full, class_counts: Sequence[int]) -> list:
    """The first k classes of ``full`` for each k, the full count being ``full`` itself
    (:func:`~intellimetry.aiq.study.first_classes`)."""
    return [first_classes(full, k) for k in class_counts]


def subset_dissimilarities(full, subset_sizes: Sequence[int], spec: MixSpec) -> np.ndarray:
    """DS of the first n classes of ``full`` mixed with ``full`` (shared labels), for each n."""
    return np.array([mixing_curve(first_classes(full, n), full, spec, labels="shared").dissimilarity
                     for n in subset_sizes])


def _physics(vary: str, value: float, force: float, gravity: float) -> tuple[float, float]:
    if vary not in SWEPT:
        raise ValueError(f"vary: unknown setting {vary!r}; allowed: {', '.join(SWEPT)}")
    return (value, gravity) if vary == "force" else (force, value)


def cartpole_teachers(settings: Sequence[float], vary: str, force: float, gravity: float, seed: int = 0,
                      episodes: int = 40) -> list[CartPoleData]:
    """The trained teacher and its recorded episodes at each setting of ``vary`` (force or gravity)."""
    return [cartpole_data(*_physics(vary, x, force, gravity), seed, episodes) for x in settings]


def cartpole_sweep(settings: Sequence[float], vary: str, force: float, gravity: float, spec: PoolSpec,
                   pool_training: str, budget: CEMBudget, repeats: int, rule: str, seed: int = 0, episodes: int = 40,
                   control_episodes: int | None = 20, untrained: bool = False) -> list[Complexity]:
    """:func:`~intellimetry.aiq.study.cartpole_complexity` at each setting of ``vary``; ``untrained``:
    the null subject (random policies, or untrained networks under imitation)."""
    return [cartpole_complexity(*_physics(vary, x, force, gravity), spec, pool_training, budget, repeats, rule, seed,
                                episodes, control_episodes, untrained) for x in settings]


def teacher_performance(force: float, gravity: float, seed: int = 0) -> float:
    """t / 200 of the CEM teacher trained at this force and gravity exactly as at every setting of a
    sweep (its mean over fresh episodes right after training): whether the task can be held at all."""
    teacher = cartpole_data(force, gravity, seed, episodes=2).teacher
    return teacher.mean_length / CARTPOLE_MAX_STEPS


class RandomPolicy:
    """Uniformly random CartPole actions from a seeded generator: the null subject of a teacher."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def __repr__(self) -> str:
        return f"RandomPolicy(seed={self.seed})"

    def __call__(self, observation) -> int:
        return int(self.rng.integers(2))


def observation_entropies(data: Sequence[CartPoleData]) -> list[float]:
    """The observation entropy (bits, :data:`ENTROPY_BINS` bins per variable) of each teacher's episodes."""
    return [observation_entropy(d.observations, bins=ENTROPY_BINS) for d in data]


def random_policy_entropies(settings: Sequence[float], vary: str, force: float, gravity: float, seed: int = 0,
                            episodes: int = 40) -> list[float]:
    """The observation entropy of a uniformly random policy's episodes at each setting: the teachers'
    entropy baseline with the teacher replaced by its null subject."""
    out = []
    for x in settings:
        domain = dom.cartpole_classification(*_physics(vary, x, force, gravity), policy=RandomPolicy(seed),
                                             episodes=episodes, seed=seed)
        out.append(observation_entropy(np.concatenate([domain.x_train, domain.x_test]), bins=ENTROPY_BINS))
    return out
