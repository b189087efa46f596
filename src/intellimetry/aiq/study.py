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

from intellimetry.aiq import domains as dom
from intellimetry.aiq.measures import (
    Embedding,
    MCCPCurve,
    aiq,
    complete_distances,
    diagonal,
    dissimilarity,
    image_entropies,
    mccp_curve,
    mccp_interval,
    multilaterate,
    normalise_across,
    scaled_points,
)
from intellimetry.aiq.policy_search import CartPole2DTask, CEMBudget, random_policy_pool, rl_pool
from intellimetry.aiq.pools import (
    AgentResult,
    Architecture,
    Budget,
    ControlTask,
    handicap_series,
    random_architectures,
    run_pool,
    stable_seed,
    untrained_handicap_series,
    untrained_pool,
)
from intellimetry.aiq.teacher import TEACHER_DEFAULTS, Teacher, train_teacher
from intellimetry.cache import MODELS_DIR
from intellimetry.checks import check_int
from intellimetry.stats import Interval

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


def sample_entropies(domain: dom.Domain) -> np.ndarray:
    """Each sample's share of the paper's image entropy (radius-1 neighbourhood, + log2 classes), over
    the train and test inputs; a vector domain counts each sample as a one-row image of its features
    quantised to 256 levels over the whole domain's range."""
    x = np.concatenate([domain.x_train, domain.x_test])
    return image_entropies(_quantised(x), domain.n_classes)


def domain_entropy(domain: dom.Domain) -> float:
    """The paper's domain entropy: :func:`sample_entropies` summed over all samples."""
    return float(sample_entropies(domain).sum())


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
    rule: str = "neighbour"  # the empty-bin rule the MCCP was computed with

    @property
    def best_performance(self) -> float:
        return max(v for pool in self.performances for v in pool)

    def summary(self) -> dict:
        return {"mccp": float(self.interval.estimate), "low": float(self.interval.low),
                "high": float(self.interval.high), "pools": [float(v) for v in self.values],
                "best_performance": float(self.best_performance),
                "mean_accuracy": float(np.mean([a.accuracy for pool in self.pools for a in pool]))}


def complexity_of(name: str, pools: list, performances: list, rule: str = "neighbour") -> Complexity:
    """MCCP (30 bins over performance [0, 1]) of pools already scored: the 95 % t interval over the pools,
    each pool's value and the first pool's curve."""
    pairs = [([a.size for a in pool], perf) for pool, perf in zip(pools, performances)]
    interval, values = mccp_interval(pairs, rule=rule)
    return Complexity(name, interval, values, mccp_curve(*pairs[0], rule=rule), pools, performances, rule)


def complexity(domain, spec: PoolSpec, repeats: int = 3, rule: str = "neighbour", progress: bool = True,
               control: ControlTask | None = None, untrained: bool = False) -> Complexity:
    """MCCP of ``domain`` over ``repeats`` independent pools (:func:`complexity_of`). Performance is test
    accuracy, or with ``control`` each network's t / 200 as a CartPole controller (the paper's measure
    for CartPole). ``untrained``: the null subject of the claims' controls, every network of the same
    pools scored with its initial weights (:func:`~intellimetry.aiq.pools.untrained_pool`)."""
    repeats = check_int("repeats", repeats, 2)
    if untrained:
        pools = [untrained_pool(domain, spec.architectures(r), spec.pool_seed(r), control=control)
                 for r in range(repeats)]
    else:
        pools = [train_pool(domain, spec, r, progress, control) for r in range(repeats)]
    performances = [[a.control if control is not None else a.accuracy for a in pool] for pool in pools]
    return complexity_of(domain.name, pools, performances, rule)


def complexities(domains: list, spec: PoolSpec, repeats: int = 3, rule: str = "neighbour",
                 untrained: bool = False) -> list[Complexity]:
    """:func:`complexity` of each domain of a sweep, in order (``untrained``: the null subject)."""
    return [complexity(d, spec, repeats, rule, progress=False, untrained=untrained) for d in domains]


POOL_TRAININGS = ("rl", "imitation")


def check_pool_training(pool_training: str) -> str:
    """How a CartPole pool learns: "rl" (each network learns the task itself, the paper's DQN agents)
    or "imitation" (each network fits a trained teacher's actions)."""
    if pool_training not in POOL_TRAININGS:
        raise ValueError(f"pool_training: unknown mode {pool_training!r}; allowed: {', '.join(POOL_TRAININGS)}")
    return pool_training


def rl_complexity(task, spec: PoolSpec, budget: CEMBudget, repeats: int = 3, rule: str = "neighbour",
                  progress: bool = True, untrained: bool = False) -> Complexity:
    """MCCP of a control task over ``repeats`` pools whose networks (the pool's random architectures,
    kind "mlp") learn the task themselves by the cross-entropy method with ``budget``; performance =
    t / max_steps of each trained network over fresh episodes. ``untrained``: the null subject, each
    network a random draw from the search's starting distribution
    (:func:`~intellimetry.aiq.policy_search.random_policy_pool`)."""
    repeats = check_int("repeats", repeats, 2)
    if untrained:
        pools = [random_policy_pool(task, spec.architectures(r), budget, spec.pool_seed(r)) for r in range(repeats)]
    else:
        pools = [rl_pool(task, spec.architectures(r), budget, spec.pool_seed(r), POOL_CACHE, workers=spec.workers,
                         progress=progress) for r in range(repeats)]
    return complexity_of(task.name, pools, [[a.control for a in pool] for pool in pools], rule)


def cartpole_complexity(force_mag: float, gravity: float, spec: PoolSpec, pool_training: str, budget: CEMBudget,
                        repeats: int = 3, rule: str = "neighbour", seed: int = 0, episodes: int = 40,
                        control_episodes: int | None = 20, untrained: bool = False) -> Complexity:
    """MCCP of CartPole at one force and gravity, the pool trained as ``pool_training`` says: "rl" (each
    network learns the task by CEM with ``budget``) or "imitation" (each network fits the teacher's
    ``episodes`` episodes; scored as a controller over ``control_episodes`` episodes, or by accuracy
    on the teacher's actions when None). ``untrained``: the null subject (see :func:`complexity`)."""
    if check_pool_training(pool_training) == "rl":
        return rl_complexity(CartPole2DTask(force_mag, gravity), spec, budget, repeats, rule, progress=False,
                             untrained=untrained)
    data = cartpole_data(force_mag, gravity, seed, episodes)
    control = None if control_episodes is None else data.control_task(control_episodes, seed)
    return complexity(data.domain, spec, repeats, rule, progress=False, control=control, untrained=untrained)


def suite_complexity(name: str, domain, spec: PoolSpec, repeats: int = 3, rule: str = "neighbour",
                     pool_training: str = "imitation", budget: CEMBudget | None = None,
                     untrained: bool = False) -> Complexity:
    """MCCP of one suite domain: from its data, except CartPole under ``pool_training="rl"``, whose
    pool learns the task (gymnasium's defaults: force 10, gravity 9.8) by CEM with ``budget``.
    ``untrained``: the null subject (see :func:`complexity`)."""
    if name == "cartpole" and check_pool_training(pool_training) == "rl":
        if budget is None:
            raise ValueError("pool_training 'rl' needs a CEMBudget (budget=...)")
        return rl_complexity(CartPole2DTask(), spec, budget, repeats, rule, progress=False, untrained=untrained)
    return complexity(domain, spec, repeats, rule, untrained=untrained)


def suite_complexities(names, domains, spec: PoolSpec, repeats: int = 3, rule: str = "neighbour",
                       pool_training: str = "imitation", budget: CEMBudget | None = None,
                       untrained: bool = False) -> list[Complexity]:
    """:func:`suite_complexity` of every domain of the suite, in order."""
    return [suite_complexity(n, d, spec, repeats, rule, pool_training, budget, untrained)
            for n, d in zip(names, domains)]


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
                        progress: bool = True, untrained: bool = False) -> np.ndarray:
    """Accuracy of each handicapped network on each domain: array (depths, widths, domains).
    ``untrained``: the null subject, the same networks scored with their initial weights."""
    out = np.empty((len(depths), len(widths), len(domains)))
    for k, domain in enumerate(domains):
        for i, depth in enumerate(depths):
            if untrained:
                results = untrained_handicap_series(domain, depth, widths, seed)
            else:
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


# --------------------------------------------------------------------------- AIQ of the space's agents

def volume_share(value: float, full: float) -> float:
    """An AIQ as a share of the suite's full volume; 0 when the suite's hull is flat (no volume)."""
    return float(value / full) if full else 0.0


def space_dimensions(embedding: Embedding) -> dict:
    """How many dimensions the multilateration found: the eigenvalues, the positive ones, those
    holding over 10 % of the absolute eigenvalue sum, the non-Euclidean share and the stress."""
    lam = embedding.eigenvalues
    positive = lam[lam > 0]
    shares = positive / np.abs(lam).sum()
    return {"eigenvalues": lam.tolist(), "dimensions": int(len(positive)),
            "dimensions_over_10_percent": int((shares > 0.1).sum()),
            "non_euclidean_share": embedding.non_euclidean_share, "stress": embedding.stress}


def handicap_aiq(space: Space, accuracy: np.ndarray, top_k: int | None = 3) -> np.ndarray:
    """AIQ of every handicapped network: accuracy (depths, widths, domains) -> array (depths, widths)."""
    return np.array([[space.aiq(accuracy[i, j], top_k) for j in range(accuracy.shape[1])]
                     for i in range(accuracy.shape[0])])
