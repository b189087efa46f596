"""The AIQ experiments as functions the notebooks call: pools -> MCCP, mixtures -> dissimilarity,
the suite's intelligence space, and handicapped agents -> AIQ.

Every trained network goes through :func:`intellimetry.aiq.pools.run_pool` (learning from data) or
:func:`intellimetry.aiq.policy_search.rl_pool` (CartPole agents learning the task themselves by the
cross-entropy method), whose per-agent caches live in the shared model cache ``.cache/models``
(keyed by data or task, architecture, budget, seed and the training code), so notebooks that share
domains and settings share their agents, and a re-run trains only what is new.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr, spearmanr

from intellimetry.aiq import domains as dom
from intellimetry.aiq.measures import (
    Embedding,
    MCCPCurve,
    aiq,
    complete_distances,
    diagonal,
    dissimilarity,
    image_entropy,
    mccp_curve,
    mccp_interval,
    multilaterate,
    normalise_across,
    scaled_points,
)
from intellimetry.aiq.policy_search import CartPole2DTask, CEMBudget, rl_pool
from intellimetry.aiq.pools import (
    AgentResult,
    Architecture,
    Budget,
    ControlTask,
    handicap_series,
    random_architectures,
    run_pool,
    stable_seed,
)
from intellimetry.aiq.teacher import TEACHER_DEFAULTS, Teacher, train_teacher
from intellimetry.cache import MODELS_DIR
from intellimetry.checks import check_int
from intellimetry.stats import Interval, rank_correlation

POOL_CACHE = MODELS_DIR  # the shared model cache; pools live in its aiq-pools/ namespace
MIXTURE_LABELS = ("auto", *dom.MIXTURE_LABELS)

# Our domain -> the paper's domain it stands in for (the book labels every plot this way).
STAND_INS = {"digits": "MNIST", "digits-hard": "Fashion-MNIST", "shapes10": "CIFAR10", "shapes100": "CIFAR100",
             "cartpole": "CartPole"}
SUITE = tuple(STAND_INS)
# The paper's own data sets, read from files the user supplies (``data_dir/<name>/``); nothing is downloaded.
PAPER_DOMAINS = {"mnist": "MNIST", "fashion-mnist": "Fashion-MNIST", "cifar10": "CIFAR10", "cifar100": "CIFAR100"}


def paper_domain(name: str) -> str:
    """The paper's name for one of our domains: 'shapes100' -> 'CIFAR100', 'cifar100' -> 'CIFAR100'
    (variants such as 'digits[0,1]' keep their base's name; an unknown name is returned as it is)."""
    base = name.split("[", 1)[0]
    return STAND_INS.get(base) or PAPER_DOMAINS.get(base, name)


def stand_in_label(name: str) -> str:
    """'digits' -> 'digits (MNIST)': our domain with the paper's domain it replaces."""
    base = name.split("[", 1)[0]
    return f"{name} ({STAND_INS[base]})" if base in STAND_INS else PAPER_DOMAINS.get(name, name)


# --------------------------------------------------------------------------- CartPole from a trained agent

@dataclass(frozen=True)
class CartPoleData:
    """CartPole as observation -> action classification from a trained teacher, with the teacher."""

    domain: dom.Domain
    teacher: Teacher

    def control_task(self, episodes: int = 20, seed: int = 0) -> ControlTask:
        """CartPole as an RL task at this force and gravity: networks are scored by t / 200 as controllers."""
        return ControlTask(self.teacher.force_mag, self.teacher.gravity, episodes, seed)

    @property
    def observations(self) -> np.ndarray:
        """Every observation of the teacher's episodes (train and test), for the entropy baseline."""
        return np.concatenate([self.domain.x_train, self.domain.x_test])


@lru_cache(maxsize=64)
def cartpole_data(force_mag: float = 10.0, gravity: float = 9.8, seed: int = 0, episodes: int = 40,
                  teacher_iterations: int = TEACHER_DEFAULTS["iterations"]) -> CartPoleData:
    """Train a teacher (cross-entropy method) at this force and gravity, then record ``episodes``
    of its (observation, action) pairs in gymnasium's CartPole-v1 (split by episode)."""
    teacher = train_teacher(force_mag, gravity, seed=seed, iterations=teacher_iterations)
    domain = dom.cartpole_classification(force_mag, gravity, policy=teacher, episodes=episodes, seed=seed)
    return CartPoleData(domain, teacher)


def suite_domain(name: str, seed: int = 0, cartpole_episodes: int = 40, data_dir: str | None = None) -> dom.Domain:
    """One domain of the test suite: an offline stand-in (STAND_INS; CartPole comes from the trained
    teacher) or, at paper scale, one of PAPER_DOMAINS read from ``data_dir/<name>/`` (MNIST and
    Fashion-MNIST as IDX files, CIFAR as the python batches)."""
    if name == "cartpole":
        return cartpole_data(seed=seed, episodes=cartpole_episodes).domain
    if name in PAPER_DOMAINS:
        if not data_dir:
            raise ValueError(f"domain {name!r} is read from files: set data_dir to a folder holding {name}/ "
                             f"(nothing is downloaded); offline stand-ins: {', '.join(SUITE)}")
        folder = Path(data_dir) / name
        if name.startswith("cifar"):
            return dom.load_cifar_directory(folder, name=name)
        return dom.load_idx_directory(folder, name=name)
    if name not in STAND_INS:
        raise ValueError(f"domain: unknown suite domain {name!r}; allowed: {', '.join((*SUITE, *PAPER_DOMAINS))}")
    return dom.load_domain(name, seed=seed)


# --------------------------------------------------------------------------- entropy baseline

def _quantised(x: np.ndarray, levels: int = 256) -> np.ndarray:
    """Inputs as integer levels: images in [0, 1] directly, vectors per feature over its observed range."""
    if x.ndim == 4:
        return np.rint(x[:, 0] * (levels - 1)).astype(np.int16)
    low, high = x.min(axis=0), x.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    return np.rint((x - low) / span * (levels - 1)).astype(np.int16)[:, None, :]  # (n, 1, d) one-row images


def domain_entropy(domain: dom.Domain) -> float:
    """The paper's image entropy (radius-1 neighbourhood, + log2 classes, summed over all samples)
    on the train and test inputs; a vector domain counts each sample as a one-row image of its
    features quantised to 256 levels."""
    x = np.concatenate([domain.x_train, domain.x_test])
    return image_entropy(_quantised(x), domain.n_classes)


# --------------------------------------------------------------------------- pools and MCCP

@dataclass(frozen=True)
class PoolSpec:
    """A pool of randomly built networks, all trained with one budget (the MCCP calibration set)."""

    agents: int = 24
    kind: str = "mlp"
    depth: tuple = (1, 3)
    width: tuple = (1, 32)
    epochs: int = 40
    batch_size: int = 0
    learning_rate: float = 0.03
    seed: int = 0
    workers: int = 1

    def __post_init__(self):
        check_int("agents", self.agents, 1)
        check_int("workers", self.workers, 1)
        object.__setattr__(self, "depth", tuple(self.depth))
        object.__setattr__(self, "width", tuple(self.width))
        self.budget()  # validates epochs, batch size, learning rate

    def budget(self) -> Budget:
        return Budget(self.epochs, self.batch_size, self.learning_rate)

    def architectures(self, repeat: int = 0) -> list[Architecture]:
        return random_architectures(self.agents, self.kind, self.depth, self.width, seed=self.pool_seed(repeat))

    def pool_seed(self, repeat: int) -> int:
        return stable_seed("pool", self.seed, repeat)

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "workers"}


def train_pool(domain, spec: PoolSpec, repeat: int = 0, progress: bool = True,
               control: ControlTask | None = None) -> list[AgentResult]:
    """Pool number ``repeat`` (its own architectures and seeds) trained on ``domain``, via the cache."""
    return run_pool(domain, spec.architectures(repeat), spec.budget(), spec.pool_seed(repeat), POOL_CACHE,
                    workers=spec.workers, progress=progress, control=control)


@dataclass(frozen=True)
class Complexity:
    """MCCP of one domain over repeated pools: the interval, each pool's value, the first pool's curve,
    and each network's performance (test accuracy, or t / 200 as a controller)."""

    name: str
    interval: Interval
    values: np.ndarray
    curve: MCCPCurve
    pools: list = field(repr=False)
    performances: list = field(repr=False)

    @property
    def best_performance(self) -> float:
        return max(v for pool in self.performances for v in pool)

    def summary(self) -> dict:
        return {"mccp": float(self.interval.estimate), "low": float(self.interval.low),
                "high": float(self.interval.high), "pools": [float(v) for v in self.values],
                "best_performance": float(self.best_performance),
                "mean_accuracy": float(np.mean([a.accuracy for pool in self.pools for a in pool]))}


def complexity(domain, spec: PoolSpec, repeats: int = 3, rule: str = "neighbour", progress: bool = True,
               control: ControlTask | None = None) -> Complexity:
    """MCCP (30 bins over performance [0, 1]) of ``domain`` over ``repeats`` independent pools, with a 95 %
    t interval. Performance is test accuracy, or with ``control`` each network's t / 200 as a CartPole
    controller (the paper's measure for CartPole)."""
    repeats = check_int("repeats", repeats, 2)
    pools = [train_pool(domain, spec, r, progress, control) for r in range(repeats)]
    performances = [[a.control if control is not None else a.accuracy for a in pool] for pool in pools]
    pairs = [([a.size for a in pool], perf) for pool, perf in zip(pools, performances)]
    interval, values = mccp_interval(pairs, rule=rule)
    return Complexity(domain.name, interval, values, mccp_curve(*pairs[0], rule=rule), pools, performances)


POOL_TRAININGS = ("rl", "imitation")


def check_pool_training(pool_training: str) -> str:
    """How a CartPole pool learns: "rl" (each network learns the task itself, the paper's DQN agents)
    or "imitation" (each network fits a trained teacher's actions)."""
    if pool_training not in POOL_TRAININGS:
        raise ValueError(f"pool_training: unknown mode {pool_training!r}; allowed: {', '.join(POOL_TRAININGS)}")
    return pool_training


def rl_complexity(task, spec: PoolSpec, budget: CEMBudget, repeats: int = 3, rule: str = "neighbour",
                  progress: bool = True) -> Complexity:
    """MCCP of a control task over ``repeats`` pools whose networks (the pool's random architectures,
    kind "mlp") learn the task themselves by the cross-entropy method with ``budget``; performance =
    t / max_steps of each trained network over fresh episodes."""
    repeats = check_int("repeats", repeats, 2)
    pools = [rl_pool(task, spec.architectures(r), budget, spec.pool_seed(r), POOL_CACHE, workers=spec.workers,
                     progress=progress) for r in range(repeats)]
    performances = [[a.control for a in pool] for pool in pools]
    pairs = [([a.size for a in pool], perf) for pool, perf in zip(pools, performances)]
    interval, values = mccp_interval(pairs, rule=rule)
    return Complexity(task.name, interval, values, mccp_curve(*pairs[0], rule=rule), pools, performances)


def cartpole_complexity(force_mag: float, gravity: float, spec: PoolSpec, pool_training: str, budget: CEMBudget,
                        repeats: int = 3, rule: str = "neighbour", seed: int = 0, episodes: int = 40,
                        control_episodes: int | None = 20) -> Complexity:
    """MCCP of CartPole at one force and gravity, the pool trained as ``pool_training`` says: "rl" (each
    network learns the task by CEM with ``budget``) or "imitation" (each network fits the teacher's
    ``episodes`` episodes; scored as a controller over ``control_episodes`` episodes, or by accuracy
    on the teacher's actions when None)."""
    if check_pool_training(pool_training) == "rl":
        return rl_complexity(CartPole2DTask(force_mag, gravity), spec, budget, repeats, rule, progress=False)
    data = cartpole_data(force_mag, gravity, seed, episodes)
    control = None if control_episodes is None else data.control_task(control_episodes, seed)
    return complexity(data.domain, spec, repeats, rule, progress=False, control=control)


def suite_complexity(name: str, domain, spec: PoolSpec, repeats: int = 3, rule: str = "neighbour",
                     pool_training: str = "imitation", budget: CEMBudget | None = None) -> Complexity:
    """MCCP of one suite domain: from its data, except CartPole under ``pool_training="rl"``, whose
    pool learns the task (gymnasium's defaults: force 10, gravity 9.8) by CEM with ``budget``."""
    if name == "cartpole" and check_pool_training(pool_training) == "rl":
        if budget is None:
            raise ValueError("pool_training 'rl' needs a CEMBudget (budget=...)")
        return rl_complexity(CartPole2DTask(), spec, budget, repeats, rule, progress=False)
    return complexity(domain, spec, repeats, rule)


# --------------------------------------------------------------------------- dissimilarity by mixing

def check_p_step(p_step: float) -> float:
    """The spacing of a mixing grid: it must divide [0, 1] into whole steps and be at most 0.5."""
    steps = 1 / p_step if p_step else float("inf")
    if not 0 < p_step <= 0.5 or abs(steps - round(steps)) > 1e-9:
        raise ValueError(f"p_step must divide 1 into whole steps and be at most 0.5 (e.g. 0.1, 0.2, 0.25), "
                         f"got {p_step}")
    return p_step


@dataclass(frozen=True)
class MixSpec:
    """The fixed policy system trained on every mixture O(p): ``agents`` networks of one architecture."""

    agents: int = 2
    depth: int = 2
    width: int = 32
    epochs: int = 40
    batch_size: int = 0
    learning_rate: float = 0.03
    p_step: float = 0.1
    seed: int = 0
    workers: int = 1

    def __post_init__(self):
        check_int("agents", self.agents, 1)
        check_int("workers", self.workers, 1)
        self.budget()  # validates epochs, batch size, learning rate
        check_p_step(self.p_step)

    def budget(self) -> Budget:
        return Budget(self.epochs, self.batch_size, self.learning_rate)

    def p_grid(self) -> np.ndarray:
        return np.linspace(0, 1, round(1 / self.p_step) + 1)

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "workers"}


@dataclass(frozen=True)
class Mixing:
    """V_O(p) (mean over the agents) for p = share of samples from the first domain, and DS."""

    first: str
    second: str
    p: np.ndarray
    performance: np.ndarray
    per_agent: np.ndarray
    labels: str

    @property
    def dissimilarity(self) -> float:
        return dissimilarity(self.p, self.performance)

    @property
    def v_first(self) -> float:
        return float(self.performance[-1])

    @property
    def v_second(self) -> float:
        return float(self.performance[0])

    @property
    def share_below_diagonal(self) -> float:
        """Share of the p grid where the mixture is learnt worse than the straight line between the two
        single-domain performances (the paper's sign of two domains interfering)."""
        return float((self.performance < diagonal(self.p, self.v_first, self.v_second)).mean())


def mixing_curve(d1, d2, spec: MixSpec, labels: str = "auto", progress: bool = False) -> Mixing:
    """Train the same policy system afresh on the mixture O(p) at every p of the grid.

    ``labels="auto"`` shares the label space when both domains have the same task (same name
    before any variant suffix, or both CartPole), and keeps the label spaces apart otherwise.
    """
    if labels not in MIXTURE_LABELS:
        raise ValueError(f"labels: unknown label mode {labels!r}; allowed: {', '.join(MIXTURE_LABELS)}")
    if labels == "auto":
        labels = "shared" if _same_task(d1, d2) else "concatenate"
    architecture = Architecture("mlp", spec.depth, spec.width)
    budget = spec.budget()
    p_grid = spec.p_grid()
    scores = np.empty((len(p_grid), spec.agents))
    for i, p in enumerate(p_grid):
        seed = stable_seed("mix", spec.seed, d1.fingerprint(), d2.fingerprint(), i)
        mixed = dom.mixture(d1, d2, float(p), seed=seed, labels=labels)
        pool = run_pool(mixed, [architecture] * spec.agents, budget, seed, POOL_CACHE, workers=spec.workers,
                        progress=progress)
        scores[i] = [a.accuracy for a in pool]
    return Mixing(d1.name, d2.name, p_grid, scores.mean(axis=1), scores, labels)


def rl_mixing_curve(first: CartPole2DTask, second: CartPole2DTask, spec: MixSpec, budget: CEMBudget,
                    progress: bool = False) -> Mixing:
    """Dissimilarity of two CartPole settings under RL: at every p of the grid the fixed architecture
    (``spec.agents`` networks) learns by CEM the mixed task whose episodes each take the first setting
    with probability p, else the second; V_O(p) = their mean performance on that mixed task."""
    for name, task in (("first", first), ("second", second)):
        if not isinstance(task, CartPole2DTask) or task.mixture is not None:
            raise ValueError(f"{name} must be a CartPole2DTask without a mixture, got {task!r}")
    architecture = Architecture("mlp", spec.depth, spec.width)
    p_grid = spec.p_grid()
    scores = np.empty((len(p_grid), spec.agents))
    for i, p in enumerate(p_grid):
        seed = stable_seed("rl-mix", spec.seed, first.fingerprint(), second.fingerprint(), i)
        mixed = CartPole2DTask(first.force_mag, first.gravity, (float(p), first.settings, second.settings),
                               first.max_steps)
        pool = rl_pool(mixed, [architecture] * spec.agents, budget, seed, POOL_CACHE, workers=spec.workers,
                       progress=progress)
        scores[i] = [a.control for a in pool]
    return Mixing(first.name, second.name, p_grid, scores.mean(axis=1), scores, "shared")


def _task_of(domain) -> str:
    name = domain.name.split("[", 1)[0].split("+", 1)[0]
    return "cartpole" if name.startswith("cartpole") else name


def _same_task(d1, d2) -> bool:
    return d1 is d2 or _task_of(d1) == _task_of(d2)


def dissimilarity_matrix(domains: list, spec: MixSpec, labels: str = "auto", progress: bool = True,
                         anchors: int | None = None):
    """DS for every ordered pair (row = first domain, p = its share), each cell measured on its own
    mixtures, so the matrix's asymmetry shows the measurement noise. Returns (matrix, curves).

    With ``anchors = k`` only the pairs involving one of the first k domains are measured (partial
    mapping, k·(2n - k) cells instead of n²); the others are NaN, for :func:`intelligence_space`
    to fill in."""
    return _pairwise(domains, lambda a, b: mixing_curve(a, b, spec, labels), progress, anchors)


def rl_dissimilarity_matrix(tasks: list, spec: MixSpec, budget: CEMBudget, progress: bool = True):
    """:func:`dissimilarity_matrix` for CartPole settings learnt by RL (:func:`rl_mixing_curve`)."""
    return _pairwise(tasks, lambda a, b: rl_mixing_curve(a, b, spec, budget), progress, None)


def _pairwise(items: list, measure, progress: bool, anchors: int | None):
    """DS of every ordered pair (or, with anchors, of the pairs with one of the first ``anchors``)."""
    from tqdm import tqdm

    n = len(items)
    if anchors is not None and not 1 <= anchors <= n:
        raise ValueError(f"anchors must lie in 1..{n} (the number of domains) or be None, got {anchors}")
    k = n if anchors is None else anchors
    cells = [(i, j) for i in range(n) for j in range(n) if i < k or j < k]
    matrix = np.full((n, n), np.nan)
    curves = {}
    with tqdm(total=len(cells), desc="dissimilarity", disable=not progress, leave=False) as bar:
        for i, j in cells:
            curve = measure(items[i], items[j])
            matrix[i, j], curves[i, j] = curve.dissimilarity, curve
            bar.update(1)
    return matrix, curves


# --------------------------------------------------------------------------- intelligence space and AIQ

@dataclass(frozen=True)
class Space:
    """The suite in the intelligence space: normalised complexities C (distance from the empty test),
    normalised symmetrised dissimilarities D, the multilateration and the scaled points I_mu."""

    names: list
    complexity: np.ndarray
    distance: np.ndarray
    embedding: Embedding
    points: np.ndarray

    def aiq(self, performances, top_k: int | None = 3) -> float:
        return aiq(self.points, performances, top_k)

    def volume(self, top_k: int | None = 3) -> float:
        """The suite's full volume: the AIQ of an agent with every test solved (the share's denominator)."""
        return self.aiq(np.ones(len(self.names)), top_k)


COMPLEXITY_SCALES = ("max", "log")


def intelligence_space(names, mccps, ds_matrix, complexity_scale: str = "max", anchors: int | None = None) -> Space:
    """Multilaterate the suite with the empty test fixed at the origin (spec: Sections 2.6, 3.3.5).

    C = MCCP / max MCCP (``complexity_scale="max"``, the paper's normalisation) or log MCCP / log max
    MCCP (``"log"``: MCCPs spanning orders of magnitude otherwise crowd the simple tests at the
    origin); D = the dissimilarity symmetrised ((DS + DS^T)/2, zero diagonal) and divided by its
    largest value, so both live on [0, 1]. A partial matrix (NaN where not measured; see
    :func:`dissimilarity_matrix`) is completed from its first ``anchors`` tests by
    :func:`~intellimetry.aiq.measures.complete_distances`."""
    ds = np.asarray(ds_matrix, dtype=float)
    if ds.shape != (len(names), len(names)) or len(mccps) != len(names):
        raise ValueError("names, mccps and ds_matrix must describe the same tests")
    if complexity_scale not in COMPLEXITY_SCALES:
        raise ValueError(f"complexity_scale: unknown scale {complexity_scale!r}; "
                         f"allowed: {', '.join(COMPLEXITY_SCALES)}")
    mccps = np.asarray(mccps, dtype=float)
    if complexity_scale == "log":
        if (mccps <= 1).any():
            raise ValueError("complexity_scale 'log' needs every MCCP above 1")
        mccps = np.log(mccps)
    c = normalise_across(mccps, "max")
    d = (ds + ds.T) / 2
    np.fill_diagonal(d, 0.0)
    top = np.nanmax(d)
    d = d / top if top > 0 else d
    if np.isnan(d).any():
        if anchors is None:
            raise ValueError("the dissimilarity matrix has unmeasured pairs: say how many anchors measured them")
        d = complete_distances(c, d, anchors)
    embedding = multilaterate(c, d)
    return Space(list(names), c, d, embedding, scaled_points(embedding.coordinates, c))


def handicap_accuracies(domains: list, depths, widths, budget: Budget, seed: int = 0, workers: int = 1,
                        progress: bool = True) -> np.ndarray:
    """Accuracy of each handicapped network on each domain: array (depths, widths, domains)."""
    out = np.empty((len(depths), len(widths), len(domains)))
    for k, domain in enumerate(domains):
        for i, depth in enumerate(depths):
            results = handicap_series(domain, depth, widths, budget, seed, POOL_CACHE, workers, progress)
            out[i, :, k] = [r.accuracy for r in results]
    return out


def suite_specs(*, pool_agents: int, mix_agents: int, mix_width: int, epochs: int, batch_size: int,
                learning_rate: float, p_step: float, seed: int, workers: int) -> tuple[PoolSpec, MixSpec]:
    """The MCCP pools and the mixture networks of a suite measurement from the suite notebooks'
    shared parameters: every network gets the same training budget and seed, the pools keep
    PoolSpec's architecture ranges and the mixture networks have two hidden layers of ``mix_width``.
    One function, so the notebooks that measure the suite measure the same one (and share the cache)."""
    pool = PoolSpec(agents=pool_agents, epochs=epochs, batch_size=batch_size, learning_rate=learning_rate, seed=seed,
                    workers=workers)
    mix = MixSpec(agents=mix_agents, depth=2, width=mix_width, epochs=epochs, batch_size=batch_size,
                  learning_rate=learning_rate, p_step=p_step, seed=seed, workers=workers)
    return pool, mix


@dataclass(frozen=True)
class Suite:
    """The test suite measured: its domains, MCCP per domain, the dissimilarity matrix and the space."""

    names: list
    domains: list = field(repr=False)
    complexities: list = field(repr=False)
    dissimilarity: np.ndarray = field(repr=False)
    space: Space = field(repr=False)


def measure_suite(names, pool: PoolSpec, mix: MixSpec, repeats: int = 3, rule: str = "neighbour", seed: int = 0,
                  cartpole_episodes: int = 40, complexity_scale: str = "max", anchors: int | None = None,
                  data_dir: str | None = None, progress: bool = True) -> Suite:
    """Complexity, dissimilarity and intelligence space of a suite (the paper's Sections 3.3.2-3.3.5).
    Self-pairs share labels, different domains keep their label spaces apart. ``anchors``: partial
    mapping (only pairs with one of the first ``anchors`` domains are measured)."""
    from tqdm import tqdm

    domains = [suite_domain(name, seed, cartpole_episodes, data_dir) for name in names]
    complexities = [complexity(d, pool, repeats, rule, progress=False)
                    for d in tqdm(domains, desc="suite complexity", disable=not progress, leave=False)]
    matrix, _ = dissimilarity_matrix(domains, mix, progress=progress, anchors=anchors)
    space = intelligence_space(list(names), [c.interval.estimate for c in complexities], matrix, complexity_scale,
                               anchors)
    return Suite(list(names), domains, complexities, matrix, space)


def first_classes(domain, k: int):
    """The domain restricted to its first ``k`` classes; all of them is the domain itself (the
    class-count sweeps end on the full domain, shared with the other figures' cache)."""
    return dom.class_subset(domain, range(k)) if k < domain.n_classes else domain


def stepwise_dissimilarity(domains: list, spec: MixSpec, progress: bool = True) -> np.ndarray:
    """DS between each domain and the next (shared labels): how far one step of a sweep moves."""
    from tqdm import tqdm

    pairs = list(zip(domains[:-1], domains[1:]))
    return np.array([mixing_curve(a, b, spec, labels="shared").dissimilarity
                     for a, b in tqdm(pairs, desc="stepwise DS", disable=not progress)])


# --------------------------------------------------------------------------- what the figures quote

def trend_values(key: str, x, y) -> dict:
    """{key: Spearman ρ, key_p: its p-value}: a rank trend as a figure records it."""
    rho, p = rank_correlation(x, y)
    return {key: rho, f"{key}_p": p}


def half_slopes(x, y) -> tuple[float, float]:
    """Mean slope of y over the first and the second half of x (split at the middle point), so a
    curve that rises fast and then levels off has a first slope above the second."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3:
        return float("nan"), float("nan")
    mid = len(x) // 2
    return float((y[mid] - y[0]) / (x[mid] - x[0])), float((y[-1] - y[mid]) / (x[-1] - x[mid]))


def mccp_estimates(complexities) -> np.ndarray:
    """The MCCP point estimate of each domain (or setting of a sweep), in order."""
    return np.array([c.interval.estimate for c in complexities])


def mccp_gaps(mccps) -> np.ndarray:
    """|MCCP_i − MCCP_j| for every pair of domains: the complexity difference DS is set beside."""
    mccps = np.asarray(mccps)
    return np.abs(mccps[:, None] - mccps[None, :])


def relative_intervals(complexities) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, low, high) of each MCCP divided by the largest estimate, so complexities of very
    different size can share an axis with another normalised prediction."""
    mccps = mccp_estimates(complexities)
    scale = mccps.max()
    low = np.array([c.interval.low for c in complexities]) / scale
    high = np.array([c.interval.high for c in complexities]) / scale
    return mccps / scale, low, high


def volume_share(value: float, full: float) -> float:
    """An AIQ as a share of the suite's full volume; 0 when the suite's hull is flat (no volume)."""
    return float(value / full) if full else 0.0


def entropy_prediction(names, complexities, entropy) -> dict:
    """MCCP against the entropic prediction: the ranking by MCCP (its ends also under the paper's
    names), the rank correlation, and how many normalised entropies fall inside the normalised MCCP
    interval (and whether all do)."""
    mccps = mccp_estimates(complexities)
    _, low, high = relative_intervals(complexities)
    order = [names[i] for i in np.argsort(mccps)]
    inside = [bool(lo <= e <= hi) for e, lo, hi in zip(normalise_across(entropy), low, high)]
    return {"ranking_by_mccp": order, "most_complex": order[-1], "least_complex": order[0],
            "most_complex_paper": paper_domain(order[-1]), "least_complex_paper": paper_domain(order[0]),
            "spearman_mccp_entropy": float(spearmanr(mccps, entropy)[0]), "entropy_inside_interval": int(sum(inside)),
            "entropy_all_inside_interval": all(inside)}


def noise_summary(levels, complexities, entropy) -> dict:
    """MCCP and entropy against the noise level: a quadratic fit of MCCP (the paper's curve), rank
    trends with p-values, the entropy gained in the first and second half of the sweep, and whether
    it levels off (rises over the first half, and faster than over the second)."""
    mccps = mccp_estimates(complexities)
    quadratic = np.polyfit(levels, mccps, 2) if len(levels) > 2 else [float("nan")] * 3
    middle = len(entropy) // 2
    first, second = half_slopes(levels, entropy)
    return {"quadratic": [float(c) for c in quadratic],
            **trend_values("spearman_noise_mccp", levels, mccps),
            **trend_values("spearman_noise_entropy", levels, entropy),
            "entropy_levels_off": bool(first > 0 and first > second),
            "entropy_gain_first_half": float(entropy[middle] - entropy[0]),
            "entropy_gain_second_half": float(entropy[-1] - entropy[middle]),
            "mccp_clean": float(mccps[0]), "mccp_noisiest": float(mccps[-1])}


def duplication_summary(copies, complexities, entropy) -> dict:
    """Copies of the data leave MCCP unchanged but multiply the entropy: MCCP's relative spread,
    whether all intervals share a point, and the entropy ratio beside the copies ratio (their
    quotient is 1 when the entropy grows in proportion to the copies)."""
    mccps = mccp_estimates(complexities)
    overlap = max(c.interval.low for c in complexities) <= min(c.interval.high for c in complexities)
    return {"mccp_relative_spread": float((mccps.max() - mccps.min()) / mccps.mean()),
            "intervals_overlap": bool(overlap), "overlap_text": "overlap" if overlap else "do not all overlap",
            "entropy_ratio_last_first": float(entropy[-1] / entropy[0]),
            "copies_ratio_last_first": float(copies[-1] / copies[0]),
            "entropy_per_copy_ratio": float(entropy[-1] / entropy[0] / (copies[-1] / copies[0]))}


def stepwise_correlations(mccps, step_ds) -> tuple[float, float]:
    """Pearson R of the stepwise DS with the complexity reached (level) and with the complexity's
    change over the step; each needs three steps, else NaN."""
    mccps = np.asarray(mccps)
    if len(step_ds) <= 2:
        return float("nan"), float("nan")
    return pearsonr(mccps[1:], step_ds)[0], pearsonr(np.abs(np.diff(mccps)), step_ds)[0]


def mccp_curve_summary(curve: MCCPCurve, pool) -> dict:
    """One pool's MCCP curve: its area, how its bins were filled, the pool's size range and best
    accuracy, and the rank trend of the minimal size on the performance level over the bins a
    trained network fills (the filled-in bins follow the rules, not the data)."""
    sources = {s: int((curve.source == s).sum()) for s in sorted(set(curve.source))}
    observed = curve.source == "observed"
    rho, p = rank_correlation(curve.centres[observed], curve.sizes[observed])
    return {"mccp": curve.area, "smallest_size": min(a.size for a in pool), "largest_size": max(a.size for a in pool),
            "best_accuracy": max(a.accuracy for a in pool), "bins_by_source": sources,
            "observed_bins": sources.get("observed", 0), "size_trend": {"rho": rho, "p": p}}


def class_count_summary(class_counts, complexities) -> dict:
    """MCCP against the number of classes: the rank trend, the first and last increments, and
    whether the increase diminishes (a steeper mean slope over the first half of the counts)."""
    mccps = mccp_estimates(complexities)
    increments = np.diff(mccps)
    first, second = half_slopes(class_counts, mccps)
    return {**trend_values("spearman_classes_mccp", class_counts, mccps),
            "first_increment": float(increments[0]) if len(increments) else float("nan"),
            "last_increment": float(increments[-1]) if len(increments) else float("nan"),
            "slope_first_half": first, "slope_second_half": second, "diminishing_returns": bool(first > second),
            "mccp_fewest": float(mccps[0]), "mccp_most": float(mccps[-1])}


def cartpole_sweep_summary(name: str, settings, complexities, data=None, entropy=None) -> dict:
    """MCCP of CartPole over a swept setting (force or gravity): the rank trend, and how well the
    pools did, as t / 200: the lowest best score of a pool over the settings (a pool whose best
    network controls the cart fully at every setting was never pushed by the setting) and the networks'
    mean score at the first and the last setting. With ``data``
    (the teachers' :class:`CartPoleData`, one per setting) also the lowest teacher score (a teacher
    that controls fully means the data carries a solution); with ``entropy`` (one per setting), its
    rank trend and values too."""
    mccps = mccp_estimates(complexities)
    per_setting = {f"{x:g}": r.summary() for x, r in zip(settings, complexities)}
    means = [float(np.mean([v for pool in r.performances for v in pool])) for r in complexities]
    out = {**trend_values(f"spearman_{name}_mccp", settings, mccps),
           "lowest_best_performance": float(min(r.best_performance for r in complexities)),
           # the networks' mean performance at the smallest and the largest setting of the sweep
           "mean_performance_first": means[0], "mean_performance_last": means[-1],
           "n_settings": len(per_setting), "settings": per_setting}
    if data is not None:
        teacher = [d.teacher.mean_length / d.control_task().max_steps for d in data]
        for key, d, t in zip(per_setting, data, teacher):
            per_setting[key].update({"teacher_steps": d.teacher.mean_length, "teacher_performance": float(t),
                                     "samples": len(d.domain.y_train) + len(d.domain.y_test)})
        out["teacher_lowest_performance"] = float(min(teacher))
    if entropy is not None:
        out.update(trend_values(f"spearman_{name}_entropy", settings, entropy))
        for key, e in zip(per_setting, entropy):
            per_setting[key]["entropy"] = float(e)
    return out


def mixing_summary(curve: Mixing, paper: float) -> dict:
    """One mixing curve beside the paper's DS: ours, the gap and ratio, the two single-domain
    performances and their gap, the spread of the curve, and its share below the diagonal."""
    ds = curve.dissimilarity
    return {"dissimilarity": ds, "paper_dissimilarity": paper, "dissimilarity_gap": ds - paper,
            "dissimilarity_ratio": ds / paper, "labels": curve.labels, "v_first": curve.v_first,
            "v_second": curve.v_second, "performance_gap": abs(curve.v_first - curve.v_second),
            "performance_mean": float(curve.performance.mean()), "performance_sd": float(curve.performance.std()),
            "share_below_diagonal": curve.share_below_diagonal, "p": curve.p.tolist(),
            "performance": curve.performance.tolist()}


def subset_dissimilarity_summary(subset_sizes, ds) -> dict:
    """DS of the first n classes from the full domain against n: the least-squares line, its Pearson
    R with the two-sided p-value, the same without the smallest subset (does the trend rest on one
    point?), and the two ends. Below three points or with a constant DS there is no evidence of a
    trend: R = 0, p = 1."""
    ds = np.asarray(ds, dtype=float)
    slope, intercept = np.polyfit(subset_sizes, ds, 1)
    r, p = _pearson(subset_sizes, ds)
    r_rest, p_rest = _pearson(subset_sizes[1:], ds[1:])
    return {"dissimilarity": {str(n): float(d) for n, d in zip(subset_sizes, ds)}, "r_linear": r,
            "r_linear_p": p, "r_linear_without_smallest": r_rest, "r_linear_without_smallest_p": p_rest,
            "slope": float(slope), "intercept": float(intercept),
            "ds_smallest_subset": float(ds[0]), "ds_full": float(ds[-1])}


def _pearson(x, y) -> tuple[float, float]:
    """Pearson R and its two-sided p; (0, 1) for fewer than three points or a constant series."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0, 1.0
    r, p = pearsonr(x, y)
    return float(r), float(p)


def setting_dissimilarity_summary(settings, matrix) -> dict:
    """DS between CartPole settings against the settings' difference (Pearson R off the diagonal),
    the matrix's symmetry (R of the upper against the lower triangle, three settings or more) and
    its diagonal, off-diagonal and asymmetry means."""
    x = np.asarray(settings)
    off = ~np.eye(len(x), dtype=bool)
    difference = np.abs(x[:, None] - x[None, :])
    iu = np.triu_indices(len(x), 1)
    return {"r": float(pearsonr(difference[off], matrix[off])[0]),
            "symmetry_r": float(pearsonr(matrix[iu], matrix.T[iu])[0]) if len(x) > 2 else float("nan"),
            "asymmetry_mean": float(np.abs(matrix - matrix.T)[iu].mean()),
            "diagonal_mean": float(np.diag(matrix).mean()), "off_diagonal_mean": float(matrix[off].mean())}


def matrix_cosine(a, b) -> float:
    """Dot-product similarity of two matrices, each first divided by its largest entry (the paper
    compares DS with |ΔMCCP| this way)."""
    a_unit, b_unit = a / a.max(), b / b.max()
    return float((a_unit * b_unit).sum() / np.linalg.norm(a_unit) / np.linalg.norm(b_unit))


def dissimilarity_structure(ds, gaps) -> dict:
    """The suite's DS matrix: diagonal and off-diagonal means, mean asymmetry, and how it follows
    the MCCP differences (dot-product similarity and Pearson R off the diagonal)."""
    off = ~np.eye(len(ds), dtype=bool)
    return {"diagonal_mean": float(np.diag(ds).mean()), "off_diagonal_mean": float(ds[off].mean()),
            "asymmetry_mean": float(np.abs(ds - ds.T)[off].mean() / 2),
            "dot_product_similarity": matrix_cosine(ds, gaps),
            "pearson_ds_vs_mccp_gap": float(pearsonr(ds[off], gaps[off])[0])}


# The paper's groups of similar domains in its suite (§3.3.3); the CartPole group needs CartPole3D.
NIST = ("MNIST", "Fashion-MNIST")


def group_structure(ds, names, group=NIST) -> dict:
    """Is each domain closest to itself (its DS with itself below every DS to or from another), and
    are the members of ``group`` (the paper's names) closer to each other (symmetrised DS) than any
    member is to a domain outside it? False where fewer than two members are in the suite. Also
    whether the diagonal's mean lies below the off-diagonal mean, which domains are not closest to
    themselves, and each domain's nearest other domain (symmetrised DS)."""
    ds = np.asarray(ds, dtype=float)
    off = ~np.eye(len(ds), dtype=bool)
    lowest = [bool(ds[i, i] < min(ds[i, off[i]].min(), ds[off[:, i], i].min())) for i in range(len(ds))]
    sym = (ds + ds.T) / 2
    nearest = {n: names[int(np.argmin(np.where(off[i], sym[i], np.inf)))] for i, n in enumerate(names)}
    members = [i for i, n in enumerate(names) if paper_domain(n) in group]
    others = [i for i in range(len(names)) if i not in members]
    grouped = False
    if len(members) >= 2 and others:
        inside = max(sym[i, j] for i in members for j in members if i != j)
        grouped = bool(inside < min(sym[i, j] for i in members for j in others))
    return {"self_lowest": all(lowest), "nist_grouped": grouped,
            "diagonal_below_off_diagonal": bool(np.diag(ds).mean() < ds[off].mean()),
            "self_not_lowest": ", ".join(n for n, ok in zip(names, lowest) if not ok) or "none",
            "nearest_other": nearest}


def space_dimensions(embedding: Embedding) -> dict:
    """How many dimensions the multilateration found: the eigenvalues, the positive ones, those
    holding over 10 % of the absolute eigenvalue sum, the non-Euclidean share and the stress."""
    lam = embedding.eigenvalues
    positive = lam[lam > 0]
    shares = positive / np.abs(lam).sum()
    return {"eigenvalues": lam.tolist(), "dimensions": int(len(positive)),
            "dimensions_over_10_percent": int((shares > 0.1).sum()),
            "non_euclidean_share": embedding.non_euclidean_share, "stress": embedding.stress}


def suite_summary(suite: Suite, complexity_scale: str, anchors: int | None, paper_dot_product: float) -> dict:
    """What the book quotes about a measured suite: MCCP per domain (also under the paper's names),
    the DS matrix, its structure and groups beside the paper's dot product, the space's dimensions
    under this complexity scale and the other one, each domain's point and the simplest domain."""
    mccps = mccp_estimates(suite.complexities)
    structure = dissimilarity_structure(suite.dissimilarity, mccp_gaps(mccps))
    other_scale = "log" if complexity_scale == "max" else "max"
    other = intelligence_space(suite.names, mccps, suite.dissimilarity, other_scale, anchors).embedding
    space = suite.space
    return {"mccp": {s: c.summary() for s, c in zip(suite.names, suite.complexities)},
            "mccp_paper": {paper_domain(s): float(m) for s, m in zip(suite.names, mccps)},
            "dissimilarity": suite.dissimilarity.tolist(), **structure,
            **group_structure(suite.dissimilarity, suite.names),
            "paper_dot_product": paper_dot_product,
            "dot_product_gap": structure["dot_product_similarity"] - paper_dot_product,
            **space_dimensions(space.embedding), "other_scale": other_scale,
            "other_scale_non_euclidean_share": other.non_euclidean_share, "other_scale_stress": other.stress,
            "points": {s: p.tolist() for s, p in zip(suite.names, space.points)},
            "complexity_normalised": space.complexity.tolist(),
            "simplest": suite.names[int(space.complexity.argmin())],
            "simplest_complexity_normalised": float(space.complexity.min())}


def handicap_aiq(space: Space, accuracy: np.ndarray, top_k: int | None = 3) -> np.ndarray:
    """AIQ of every handicapped network: accuracy (depths, widths, domains) -> array (depths, widths)."""
    return np.array([[space.aiq(accuracy[i, j], top_k) for j in range(accuracy.shape[1])]
                     for i in range(accuracy.shape[0])])


def depth_order(depths, per_depth) -> str:
    """The depths from the highest value to the lowest, e.g. "2 > 1 > 3"."""
    return " > ".join(str(depths[i]) for i in np.argsort(-per_depth))


def _per_depth(depths, rows) -> dict:
    return {str(d): rows[i].tolist() for i, d in enumerate(depths)}


def linear_r2(x, y) -> float:
    """R² of the least-squares line of y on x (Pearson r squared); 0 for fewer than three points or a
    constant series, which a line does not explain."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return 0.0
    return float(pearsonr(x, y)[0] ** 2)


def handicap_claims(depths, widths, mean_performance: np.ndarray, score: np.ndarray,
                    zoom_width: float | None = None, alpha: float = 0.05) -> dict:
    """The paper's Figures 20-21 as numbers: does mean performance rise with the width at every depth
    (Spearman ρ > 0 with p < ``alpha``); how far the shallowest networks' AIQ at the largest width
    ends below its peak (a share of the peak; 0 when the peak is the widest); and, over the widths up
    to ``zoom_width`` (all when None), the R² of a straight line for AIQ and for mean performance,
    averaged over the depths (AIQ "more linear" when its R² is the larger)."""
    widths = np.asarray(widths, dtype=float)
    order = np.argsort(widths)
    rises = all(rho > 0 and p < alpha for rho, p in (rank_correlation(widths, row) for row in mean_performance))
    shallowest = int(np.argmin(depths))
    curve = score[shallowest, order]
    drop = float((curve.max() - curve[-1]) / curve.max()) if curve.max() > 0 else 0.0
    zoom = widths <= (widths.max() if zoom_width is None else zoom_width)
    r2_aiq = float(np.mean([linear_r2(widths[zoom], row[zoom]) for row in score]))
    r2_mean = float(np.mean([linear_r2(widths[zoom], row[zoom]) for row in mean_performance]))
    return {"mean_rises_every_depth": bool(rises), "shallowest_depth": depths[shallowest], "one_layer_aiq_drop": drop,
            "zoom_linear_r2": {"aiq": r2_aiq, "mean_performance": r2_mean},
            "aiq_more_linear_in_zoom": bool(r2_aiq > r2_mean)}


def handicap_summary(names, depths, widths, accuracy: np.ndarray, score: np.ndarray, full_volume: float,
                     zoom_width: float | None = None) -> dict:
    """AIQ against mean performance for the handicapped networks: their rank correlation, the best
    network and its share of the suite's volume, both per network and averaged over widths, the
    depth orders by each, how each follows the width (rank correlations) and the paper's claims
    (:func:`handicap_claims`)."""
    mean_performance = accuracy.mean(axis=2)
    best = np.unravel_index(score.argmax(), score.shape)
    return {**handicap_claims(depths, widths, mean_performance, score, zoom_width),
            "spearman_aiq_vs_mean": float(spearmanr(mean_performance.ravel(), score.ravel())[0]),
            "suite_volume": float(full_volume), "best_aiq": float(score.max()),
            "best_aiq_share": volume_share(score.max(), full_volume),
            "best_network": {"depth": depths[best[0]], "width": widths[best[1]]},
            "best_network_accuracy": {n: float(accuracy[best[0], best[1], k]) for k, n in enumerate(names)},
            "mean_performance": _per_depth(depths, mean_performance), "aiq": _per_depth(depths, score),
            "accuracy": {str(d): {n: accuracy[i, :, k].tolist() for k, n in enumerate(names)}
                         for i, d in enumerate(depths)},
            "average_over_widths": {str(d): {"mean_performance": float(mean_performance[i].mean()),
                                             "aiq_share": volume_share(score[i].mean(), full_volume)}
                                    for i, d in enumerate(depths)},
            "depth_order_by_mean_performance": depth_order(depths, mean_performance.mean(axis=1)),
            "depth_order_by_aiq": depth_order(depths, score.mean(axis=1)),
            "spearman_width_aiq": {str(d): float(spearmanr(widths, score[i])[0]) for i, d in enumerate(depths)},
            "spearman_width_mean": {str(d): float(spearmanr(widths, mean_performance[i])[0])
                                    for i, d in enumerate(depths)}}
