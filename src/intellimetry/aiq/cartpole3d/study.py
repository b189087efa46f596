"""The CartPole3D novelty suite as the AIQ paper measures it (Section 3.4.4, Figures 23-29).

Every network here learns by itself: the pools, the mixture networks and the handicapped networks are
trained by the cross-entropy method on their own weights (:mod:`intellimetry.aiq.policy_search`, the
same code as the 2-D CartPole pools), on our PyBullet environment (:mod:`intellimetry.aiq.cartpole3d`),
and cached in the shared model cache, so the notebooks that measure the same suite with the same
settings share every trained network.

* complexity: MCCP of each novelty (one level) from repeated pools of random architectures, the same
  architectures for every novelty, performance = ticks / 200 (the paper's t / 200);
* dissimilarity: for an ordered pair (a, b) and each p of the grid, a fixed architecture trained on the
  mixed task (each episode's novelty is a with probability p); p = 1 and p = 0 are the single novelties;
* handicapping: networks of each depth and width trained on the environment without novelty (the
  agents' pre-novelty training) and scored on every novelty.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from intellimetry.aiq.cartpole3d import ENV_ID, LEVELS, NOVELTIES, OBSERVATION_SCALE, STATE_SIZE, mean_performance
from intellimetry.aiq.cartpole3d.env import BLOCK_SIZE
from intellimetry.aiq.measures import mccp_curve, mccp_interval
from intellimetry.aiq.policy_search import CEMBudget, GymTask, evaluate_policy, load_weights, rl_pool
from intellimetry.aiq.pools import Architecture, random_architectures, stable_seed
from intellimetry.aiq.study import POOL_CACHE, Complexity, Mixing, Space, check_p_step, intelligence_space
from intellimetry.checks import check_int

STATE_INPUTS = 10  # the networks see the cart and pole (the paper's baseline gets no block information)


def check_novelties(novelties) -> tuple[int, ...]:
    """Novelty ids as a tuple of distinct ints in 1..16, or a clear error."""
    allowed = sorted(n for n in NOVELTIES if n > 0)
    out = tuple(check_int("novelties[]", n, 0) for n in novelties)
    bad = [n for n in out if n not in allowed]
    if bad or not out or len(set(out)) != len(out):
        raise ValueError(f"novelties must be distinct ids in {allowed[0]}..{allowed[-1]}, got {list(novelties)}")
    return out


def check_level(level: str) -> str:
    if level not in LEVELS:
        raise ValueError(f"level: unknown level {level!r}; allowed: {', '.join(LEVELS)}")
    return level


def novelty_task(novelty: int, level: str = "easy", inputs: int = STATE_INPUTS) -> GymTask:
    """CartPole3D with one novelty (0 = none) at one level, the network seeing the first ``inputs`` numbers
    (the cart and pole state in the environment's OBSERVATION_SCALE units)."""
    return GymTask(ENV_ID, {"novelty": int(novelty), "level": check_level(level),
                            "observed_blocks": blocks_seen(inputs)}, inputs=inputs, scale=_input_scale(inputs))


def blocks_seen(inputs: int) -> int:
    """The blocks the environment must observe for a network that reads the first ``inputs`` numbers:
    none for the state alone, so the episodes skip sorting and reading the blocks every tick (a third of
    a tick's time where blocks fly) and play exactly as they would with the blocks observed."""
    return max(0, math.ceil((check_int("inputs", inputs, 1) - STATE_SIZE) / BLOCK_SIZE))


def _input_scale(inputs: int) -> tuple:
    """OBSERVATION_SCALE for the state, 1 for any block numbers beyond it."""
    return tuple(OBSERVATION_SCALE[:inputs]) + (1.0,) * max(0, inputs - len(OBSERVATION_SCALE))


def mixed_task(first: int, second: int, p: float, level: str = "easy", inputs: int = STATE_INPUTS) -> GymTask:
    """The mixed domain O(p): each episode is novelty ``first`` with probability p, else ``second``;
    p = 1 and p = 0 are the single novelties themselves (so they share the single tasks' cache)."""
    if p >= 1:
        return novelty_task(first, level, inputs)
    if p <= 0:
        return novelty_task(second, level, inputs)
    first_options = {"novelty": int(first), "level": level}
    second_options = {"novelty": int(second), "level": level}
    return GymTask(ENV_ID, {"level": check_level(level), "observed_blocks": blocks_seen(inputs)}, inputs=inputs,
                   scale=_input_scale(inputs), mixture=(float(p), first_options, second_options))


@dataclass(frozen=True)
class NoveltySuite:
    """How the novelty suite is measured: which novelties at which level, the MCCP pools (random
    architectures, ``repeats`` pools), the mixture networks (``mix_agents`` of one architecture per p)
    and the CEM budget every network trains with. ``anchors`` = k measures only the ordered pairs
    involving one of the first k novelties (partial mapping, Section 2.5.3); None measures all."""

    novelties: tuple = tuple(range(1, 17))
    level: str = "easy"
    inputs: int = STATE_INPUTS
    pool_agents: int = 8
    repeats: int = 2
    depth: tuple = (1, 3)
    width: tuple = (1, 32)
    mix_agents: int = 1
    mix_depth: int = 2
    mix_width: int = 16
    p_step: float = 0.5
    anchors: int | None = None
    cem: CEMBudget = CEMBudget(iterations=6, population=16, episodes=1, final_episodes=10)
    seed: int = 0
    workers: int = 1

    def __post_init__(self):
        object.__setattr__(self, "novelties", check_novelties(self.novelties))
        check_level(self.level)
        for name, low in (("pool_agents", 2), ("repeats", 2), ("mix_agents", 1), ("mix_depth", 1),
                          ("mix_width", 1), ("seed", 0), ("workers", 1)):
            check_int(name, getattr(self, name), low)
        object.__setattr__(self, "depth", tuple(self.depth))
        object.__setattr__(self, "width", tuple(self.width))
        check_p_step(self.p_step)
        if self.anchors is not None and not 1 <= self.anchors <= len(self.novelties):
            raise ValueError(f"anchors must lie in 1..{len(self.novelties)} or be None, got {self.anchors}")
        if not isinstance(self.cem, CEMBudget):
            raise ValueError(f"cem must be a CEMBudget, got {type(self.cem).__name__}")

    @property
    def names(self) -> list[str]:
        return [f"N{n}" for n in self.novelties]

    def p_grid(self) -> np.ndarray:
        return np.linspace(0, 1, round(1 / self.p_step) + 1)

    def architectures(self, repeat: int) -> list[Architecture]:
        """Pool ``repeat``'s random architectures: the same for every novelty, as in the paper."""
        return random_architectures(self.pool_agents, "mlp", self.depth, self.width,
                                    seed=stable_seed("cartpole3d-pool", self.seed, repeat))

    def to_dict(self) -> dict:
        out = {k: v for k, v in asdict(self).items() if k != "workers"}
        out["novelties"], out["cem"] = list(self.novelties), self.cem.to_dict()
        return out


def novelty_complexity(suite: NoveltySuite, novelty: int, rule: str = "neighbour",
                       progress: bool = False) -> Complexity:
    """MCCP of one novelty over ``suite.repeats`` pools, with a 95 % t interval over them."""
    task = novelty_task(novelty, suite.level, suite.inputs)
    pools = [rl_pool(task, suite.architectures(r), suite.cem, stable_seed("cartpole3d-pool", suite.seed, r),
                     POOL_CACHE, suite.workers, progress) for r in range(suite.repeats)]
    performances = [[a.control for a in pool] for pool in pools]
    pairs = [([a.size for a in pool], perf) for pool, perf in zip(pools, performances)]
    interval, values = mccp_interval(pairs, rule=rule)
    return Complexity(f"N{novelty}", interval, values, mccp_curve(*pairs[0], rule=rule), pools, performances)


def novelty_complexities(suite: NoveltySuite, rule: str = "neighbour", progress: bool = True) -> list[Complexity]:
    from tqdm import tqdm

    return [novelty_complexity(suite, n, rule) for n in tqdm(suite.novelties, desc="MCCP per novelty",
                                                              disable=not progress)]


def novelty_mixing(suite: NoveltySuite, first: int, second: int) -> Mixing:
    """V_O(p) for the ordered pair (first, second): the mixture networks' mean performance at every p."""
    architecture = Architecture("mlp", suite.mix_depth, suite.mix_width)
    p_grid = suite.p_grid()
    scores = np.empty((len(p_grid), suite.mix_agents))
    for i, p in enumerate(p_grid):
        task = mixed_task(first, second, float(p), suite.level, suite.inputs)
        # the endpoints are single novelties: one seed per novelty, shared by every pair that has it
        key = ("single", first if p >= 1 else second) if p in (0, 1) else ("mix", first, second, i)
        seed = stable_seed("cartpole3d-mix", suite.seed, *key)
        pool = rl_pool(task, [architecture] * suite.mix_agents, suite.cem, seed, POOL_CACHE, suite.workers,
                       progress=False)
        scores[i] = [a.control for a in pool]
    return Mixing(f"N{first}", f"N{second}", p_grid, scores.mean(axis=1), scores, "episodes")


def measured_cells(n: int, anchors: int | None) -> list[tuple[int, int]]:
    """The ordered pairs (row, column) a dissimilarity matrix of n tests measures: every pair, or with
    ``anchors`` = k those involving one of the first k tests."""
    k = n if anchors is None else anchors
    return [(i, j) for i in range(n) for j in range(n) if i < k or j < k]


def novelty_dissimilarity(suite: NoveltySuite, progress: bool = True) -> np.ndarray:
    """DS of every measured ordered pair (row = first novelty, p = its share; NaN where not measured),
    each cell from its own mixtures, so the matrix's asymmetry shows the measurement noise."""
    from tqdm import tqdm

    n = len(suite.novelties)
    matrix = np.full((n, n), np.nan)
    for i, j in tqdm(measured_cells(n, suite.anchors), desc="dissimilarity", disable=not progress):
        matrix[i, j] = novelty_mixing(suite, suite.novelties[i], suite.novelties[j]).dissimilarity
    return matrix


def novelty_space(suite: NoveltySuite, complexities, matrix, complexity_scale: str = "max",
                  subset=None) -> Space:
    """The suite in the intelligence space by multilateration (a partial matrix is completed from its
    anchors). With ``subset`` (novelty ids), the space of those novelties alone, multilaterated from
    their rows of the suite's completed distances and their complexities."""
    if subset is not None:
        subset = check_novelties(subset)
        missing = [n for n in subset if n not in suite.novelties]
        if missing:
            raise ValueError(f"novelties {missing} are not in the suite {list(suite.novelties)}: the subset's space is "
                             f"taken from the suite's measurements, so measure them there too")
    mccps = [c.interval.estimate for c in complexities]
    space = intelligence_space(suite.names, mccps, matrix, complexity_scale, suite.anchors)
    if subset is None:
        return space
    index = [suite.novelties.index(n) for n in subset]
    distances = space.distance[np.ix_(index, index)]
    return intelligence_space([suite.names[i] for i in index], [mccps[i] for i in index], distances,
                              complexity_scale)


@dataclass(frozen=True)
class Handicap:
    """Networks of each depth and width trained without novelty, scored on every novelty of the suite:
    ``performance`` (depths, widths, novelties) and ``base`` (depths, widths) without novelty."""

    depths: list
    widths: list
    performance: np.ndarray
    base: np.ndarray


def handicap_seed(seed: int, depth: int, width: int) -> int:
    """A network's training seed, fixed by its depth and width (adding widths reuses the cached ones)."""
    return stable_seed("cartpole3d-handicap", int(seed), int(depth), int(width))


def handicap_networks(suite: NoveltySuite, depths, widths, episodes: int, progress: bool = True) -> Handicap:
    """Train one network per (depth, width) on CartPole3D without novelty (cached), then score each on every
    novelty of the suite at its level over ``episodes`` episodes (the same seeds for every network)."""
    from tqdm import tqdm

    depths = [check_int("depths[]", d, 1) for d in depths]
    widths = [check_int("widths[]", w, 1) for w in widths]
    episodes = check_int("episodes", episodes, 1)
    base_task = novelty_task(0, suite.level, suite.inputs)
    performance = np.empty((len(depths), len(widths), len(suite.novelties)))
    base = np.empty((len(depths), len(widths)))
    bar = tqdm(total=len(depths) * len(widths), desc="handicapped networks", disable=not progress)
    for i, depth in enumerate(depths):
        architectures = [Architecture("mlp", depth, w) for w in widths]
        seeds = [handicap_seed(suite.seed, depth, w) for w in widths]
        results = rl_pool(base_task, architectures, suite.cem, suite.seed, POOL_CACHE, suite.workers, False, seeds)
        for j, (architecture, seed) in enumerate(zip(architectures, seeds)):
            weights = load_weights(base_task, architecture, suite.cem, seed, POOL_CACHE)
            base[i, j] = results[j].control
            for k, novelty in enumerate(suite.novelties):
                task = novelty_task(novelty, suite.level, suite.inputs)
                performance[i, j, k] = evaluate_policy(task, architecture, weights, episodes,
                                                       stable_seed("cartpole3d-score", suite.seed, novelty))
            bar.update(1)
    bar.close()
    return Handicap(depths, widths, performance, base)


def random_performance(suite: NoveltySuite, episodes: int) -> np.ndarray:
    """Mean ticks / 200 of uniformly random actions on every novelty of the suite at its level, over
    ``episodes`` seeded episodes each (the null agent of the CartPole3D figures)."""
    episodes = check_int("episodes", episodes, 1)
    return np.array([mean_performance(n, suite.level, "random", episodes, suite.seed) for n in suite.novelties])


def novelty_suite(*, novelties, level, pool_agents, repeats, mix_agents, mix_width, p_step, anchors,
                  cem_iterations, cem_population, cem_episodes, cem_final_episodes, cem_initial_std, seed,
                  workers) -> NoveltySuite:
    """The suite from the CartPole3D notebooks' shared parameters (notebooks/aiq/_cartpole3d.yaml), one
    function so that every figure measuring the suite measures the same one and shares the cache;
    ``anchors = 0`` measures every pair."""
    cem = CEMBudget(iterations=cem_iterations, population=cem_population, episodes=cem_episodes,
                    final_episodes=cem_final_episodes, initial_std=cem_initial_std)
    return NoveltySuite(novelties=tuple(novelties), level=level, pool_agents=pool_agents, repeats=repeats,
                        mix_agents=mix_agents, mix_width=mix_width, p_step=p_step, anchors=anchors or None, cem=cem,
                        seed=seed, workers=workers)
