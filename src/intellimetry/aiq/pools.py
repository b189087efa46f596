"""Pools of randomly built policies for MCCP complexity, trained in parallel and cached on disk.

The MCCP measure (Pereyda & Holder 2025, Section 2.4.3; notes ``specs/aiq.md`` step 1) needs, per
domain, N policies drawn at random from one fixed family and trained with one fixed budget: fully
connected ReLU networks whose depth and width are drawn at random (for image domains the first
layers are convolutions with stride 3). A policy's *size* is its trainable parameter count (the
paper's stand-in for MDL) and its *performance* its test accuracy in [0, 1].

The data a pool trains on is duck-typed: any object with ``name``, ``x_train``/``x_test`` (float32,
images ``(n, c, h, w)`` or vectors ``(n, d)``), ``y_train``/``y_test`` (int64 labels in
``[0, n_classes)``), ``n_classes``, ``is_image`` and ``fingerprint()`` (a content hash).

Caching: every agent is one small JSON record in the shared model cache (:mod:`intellimetry.cache`,
namespace ``aiq-pools``), written atomically. Its key is the sha256 of (data fingerprint,
architecture, budget, agent seed, control task) and of :data:`POOL_CODE`: :data:`CACHE_VERSION`, the
source of the definitions that train and score an agent, and the torch version. So changing the
training code retrains, while tidying the rest of this module keeps every cached agent.
Agent seeds come from (pool seed, agent index), so growing a pool keeps its first agents' seeds
and keys: only the new agents are trained. A file that cannot be read or does not match its key
is ignored and rewritten.
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import asdict, dataclass, field
from typing import Sequence

import numpy as np
import torch
from torch import nn

from intellimetry.aiq.domains import check_cartpole_physics
from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.cartpole import BatchCartPole
from intellimetry.checks import check_int
from intellimetry.parallel import in_process, parallel_map, task_seed

KINDS = ("mlp", "conv")
OPTIMISERS = ("adam", "sgd")
KERNEL = 3
STRIDE = 3
# Bump when the training procedure changes in a way that changes results: old cache files then miss.
CACHE_VERSION = 1
EVAL_BATCH = 4096



# --------------------------------------------------------------------------- architectures

@dataclass(frozen=True)
class Architecture:
    """One member of the policy family.

    ``kind="mlp"``: input flattened, then ``depth`` hidden Linear+ReLU layers of ``width`` units, then
    a Linear layer to the class logits. ``kind="conv"`` (images only): first ``conv_layers`` (default
    1) Conv2d+ReLU layers of ``conv_channels`` channels, kernel 3, stride 3, then the same MLP head.
    Each convolution pads a side by 1 when it is not a multiple of 3, so a side ``s`` becomes
    ``ceil(s / 3)`` and no pixel is dropped (8×8 → 3×3 → 1×1); a convolution on a map already 1×1 is
    refused (ValueError at build / count time), which bounds ``conv_layers`` by the image size.
    """

    kind: str
    depth: int
    width: int
    conv_channels: int = 0
    conv_layers: int | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind: unknown architecture kind {self.kind!r}; allowed: {', '.join(KINDS)}")
        object.__setattr__(self, "depth", check_int("depth", self.depth, 1))
        object.__setattr__(self, "width", check_int("width", self.width, 1))
        if self.kind == "mlp":
            if self.conv_channels != 0 or self.conv_layers not in (None, 0):
                raise ValueError(f"conv_channels and conv_layers must be 0 (or unset) for kind 'mlp', "
                                 f"got conv_channels={self.conv_channels!r}, conv_layers={self.conv_layers!r}")
            object.__setattr__(self, "conv_layers", 0)
        else:
            object.__setattr__(self, "conv_channels", check_int("conv_channels", self.conv_channels, 1))
            layers = 1 if self.conv_layers is None else self.conv_layers
            object.__setattr__(self, "conv_layers", check_int("conv_layers", layers, 1))

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Architecture":
        return cls(d["kind"], d["depth"], d["width"], d.get("conv_channels", 0), d.get("conv_layers"))

    # ------------------------------------------------------------------ shapes
    def _conv_plan(self, input_shape) -> tuple[list[tuple[int, int]], tuple[int, int, int]]:
        """Per conv layer its (pad_h, pad_w), and the (channels, h, w) after the conv stack."""
        shape = tuple(int(s) for s in input_shape)
        if len(shape) != 3 or min(shape) < 1:
            raise ValueError(f"input_shape for kind 'conv' must be (channels, height, width) with positive "
                             f"sides, got {tuple(input_shape)!r}")
        c, h, w = shape
        pads = []
        for layer in range(self.conv_layers):
            if h == 1 and w == 1:
                raise ValueError(f"conv_layers={self.conv_layers} is too many for a {shape[1]}×{shape[2]} image: "
                                 f"stride-{STRIDE} convolutions reduce it to 1×1 after {layer} layer(s); "
                                 f"allowed: 1..{layer}")
            pads.append((0 if h % STRIDE == 0 else 1, 0 if w % STRIDE == 0 else 1))
            h, w, c = math.ceil(h / STRIDE), math.ceil(w / STRIDE), self.conv_channels
        return pads, (c, h, w)

    def _flat_features(self, input_shape) -> int:
        if self.kind == "conv":
            c, h, w = self._conv_plan(input_shape)[1]
            return c * h * w
        shape = tuple(int(s) for s in input_shape)
        if not shape or min(shape) < 1:
            raise ValueError(f"input_shape must be a non-empty tuple of positive sides, got {tuple(input_shape)!r}")
        return int(np.prod(shape))

    # ------------------------------------------------------------------ model
    def build(self, input_shape, n_classes: int) -> nn.Module:
        """The untrained module (initialised from torch's global generator: seed it first)."""
        n_classes = check_int("n_classes", n_classes, 2)
        layers: list[nn.Module] = []
        if self.kind == "conv":
            pads, _ = self._conv_plan(input_shape)
            channels = int(input_shape[0])
            for pad in pads:
                layers += [nn.Conv2d(channels, self.conv_channels, KERNEL, stride=STRIDE, padding=pad), nn.ReLU()]
                channels = self.conv_channels
        layers.append(nn.Flatten())
        features = self._flat_features(input_shape)
        for _ in range(self.depth):
            layers += [nn.Linear(features, self.width), nn.ReLU()]
            features = self.width
        layers.append(nn.Linear(features, n_classes))
        return nn.Sequential(*layers)

    def parameters(self, input_shape, n_classes: int) -> int:
        """Trainable parameter count of ``build(input_shape, n_classes)``, computed without building it."""
        n_classes = check_int("n_classes", n_classes, 2)
        total = 0
        if self.kind == "conv":
            pads, _ = self._conv_plan(input_shape)
            channels = int(input_shape[0])
            for _ in pads:
                total += channels * self.conv_channels * KERNEL * KERNEL + self.conv_channels
                channels = self.conv_channels
        features = self._flat_features(input_shape)
        for _ in range(self.depth):
            total += features * self.width + self.width
            features = self.width
        return total + features * n_classes + n_classes

    def describe(self) -> str:
        head = f"{self.depth}×{self.width}"
        return head if self.kind == "mlp" else f"conv{self.conv_layers}×{self.conv_channels}+{head}"


def _check_range(name: str, value, low: int) -> tuple[int, int]:
    try:
        lo, hi = value
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a (low, high) pair of integers with {low} <= low <= high, "
                         f"got {value!r}") from None
    for v in (lo, hi):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise ValueError(f"{name} must be a (low, high) pair of integers, got {value!r}")
    if not low <= lo <= hi:
        raise ValueError(f"{name} must satisfy {low} <= low <= high, got {value!r}")
    return int(lo), int(hi)


def random_architectures(n: int, kind: str, depth=(1, 3), width=(1, 32), seed: int = 0,
                         conv_channels=(1, 32), conv_layers=(1, 2)) -> list[Architecture]:
    """``n`` architectures with depth, width (and, for ``kind="conv"``, conv channels and layers) drawn
    uniformly from the inclusive ranges. Architecture ``i`` depends only on (seed, i), so the first
    ``k`` of ``n`` equal ``random_architectures(k, ...)``. The default ``conv_layers=(1, 2)`` fits images
    of side >= 4 (8×8 → 3×3 → 1×1)."""
    n = check_int("n", n, 0)
    if kind not in KINDS:
        raise ValueError(f"kind: unknown architecture kind {kind!r}; allowed: {', '.join(KINDS)}")
    seed = check_int("seed", seed, 0)
    depth, width = _check_range("depth", depth, 1), _check_range("width", width, 1)
    if kind == "conv":
        conv_channels, conv_layers = _check_range("conv_channels", conv_channels, 1), \
            _check_range("conv_layers", conv_layers, 1)
    out = []
    for index in range(n):
        rng = np.random.default_rng([seed, index])
        d = int(rng.integers(depth[0], depth[1], endpoint=True))
        w = int(rng.integers(width[0], width[1], endpoint=True))
        if kind == "mlp":
            out.append(Architecture("mlp", d, w))
        else:
            c = int(rng.integers(conv_channels[0], conv_channels[1], endpoint=True))
            layers = int(rng.integers(conv_layers[0], conv_layers[1], endpoint=True))
            out.append(Architecture("conv", d, w, conv_channels=c, conv_layers=layers))
    return out


# --------------------------------------------------------------------------- budget and training

@dataclass(frozen=True)
class Budget:
    """The training budget shared by every agent of a pool.

    ``batch_size=0`` (or any size >= the training set) means full-batch gradient descent: one step
    per epoch. ``optimiser``: "adam" (torch defaults besides the learning rate) or "sgd" (plain)."""

    epochs: int
    batch_size: int
    learning_rate: float
    optimiser: str = "adam"

    def __post_init__(self):
        object.__setattr__(self, "epochs", check_int("epochs", self.epochs, 1))
        object.__setattr__(self, "batch_size", check_int("batch_size", self.batch_size, 0))
        lr = self.learning_rate
        if isinstance(lr, bool) or not isinstance(lr, (int, float, np.floating)) or not math.isfinite(lr) or lr <= 0:
            raise ValueError(f"learning_rate must be a finite number > 0, got {lr!r}")
        object.__setattr__(self, "learning_rate", float(lr))
        if self.optimiser not in OPTIMISERS:
            raise ValueError(f"optimiser: unknown optimiser {self.optimiser!r}; allowed: {', '.join(OPTIMISERS)}")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ControlTask:
    """CartPole as an RL task: after training on observation -> action data, run the network as a
    controller (action = argmax of its outputs) for ``episodes`` episodes of gymnasium's CartPole-v1
    physics (the numpy copy in :mod:`intellimetry.cartpole`); its performance is the mean number
    of steps survived / ``max_steps`` (the paper's t / 200)."""

    force_mag: float = 10.0
    gravity: float = 9.8
    episodes: int = 20
    seed: int = 0
    max_steps: int = 200

    def __post_init__(self):
        force_mag, gravity = check_cartpole_physics(self.force_mag, self.gravity)
        object.__setattr__(self, "force_mag", force_mag)
        object.__setattr__(self, "gravity", gravity)
        for name, low in (("episodes", 1), ("seed", 0), ("max_steps", 1)):
            object.__setattr__(self, name, check_int(name, getattr(self, name), low))

    def to_dict(self) -> dict:
        return asdict(self)

    def score(self, model: nn.Module) -> float:
        def policy(states: np.ndarray) -> np.ndarray:
            with torch.no_grad():
                return model(torch.from_numpy(states.astype(np.float32))).argmax(dim=1).numpy()

        env = BatchCartPole(self.episodes, self.force_mag, self.gravity, self.max_steps)
        lengths = env.episode_lengths(policy, np.random.default_rng(self.seed))
        return float(lengths.mean() / self.max_steps)


@dataclass(frozen=True)
class AgentResult:
    """One trained agent. ``seconds`` (wall time of training + evaluation) is left out of equality,
    so results from a cache, another worker count or another machine compare equal when the
    training itself is identical."""

    architecture: Architecture
    size: int
    accuracy: float
    seconds: float = field(compare=False)
    seed: int = 0
    control: float | None = None  # controller performance (ControlTask), when asked for

    def to_dict(self) -> dict:
        return {"architecture": self.architecture.to_dict(), "size": self.size, "accuracy": self.accuracy,
                "seconds": self.seconds, "seed": self.seed, "control": self.control}

    @classmethod
    def from_dict(cls, d: dict) -> "AgentResult":
        control = d.get("control")
        return cls(Architecture.from_dict(d["architecture"]), int(d["size"]), float(d["accuracy"]),
                   float(d["seconds"]), int(d["seed"]), None if control is None else float(control))


@dataclass(frozen=True)
class _Arrays:
    """The data members training needs, validated, as plain numpy (picklable for worker processes)."""

    name: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    n_classes: int
    is_image: bool

    @property
    def input_shape(self) -> tuple[int, ...]:
        return tuple(int(s) for s in self.x_train.shape[1:])


def _arrays_of(data) -> _Arrays:
    if isinstance(data, _Arrays):
        return data
    name = str(getattr(data, "name", "data"))
    n_classes = check_int(f"{name}: n_classes", data.n_classes, 2)
    is_image = bool(data.is_image)
    arrays = {}
    for split in ("train", "test"):
        # writable copies where needed: torch.from_numpy warns on read-only memory (Domain arrays are)
        x = np.require(getattr(data, f"x_{split}"), dtype=np.float32, requirements=["C", "W"])
        y = np.require(getattr(data, f"y_{split}"), dtype=np.int64, requirements=["C", "W"])
        if x.ndim != (4 if is_image else 2):
            raise ValueError(f"{name}: x_{split} must be {'(n, c, h, w) images' if is_image else '(n, d) vectors'} "
                             f"(is_image={is_image}), got shape {x.shape}")
        if y.shape != (len(x),) or len(x) == 0:
            raise ValueError(f"{name}: y_{split} must be a non-empty (n,) label array matching x_{split} "
                             f"({len(x)} rows), got shape {y.shape}")
        if y.min() < 0 or y.max() >= n_classes:
            raise ValueError(f"{name}: y_{split} labels must lie in [0, {n_classes}), got [{y.min()}, {y.max()}]")
        if not np.isfinite(x).all():
            raise ValueError(f"{name}: x_{split} has non-finite values")
        arrays[f"x_{split}"], arrays[f"y_{split}"] = x, y
    if arrays["x_train"].shape[1:] != arrays["x_test"].shape[1:]:
        raise ValueError(f"{name}: x_train and x_test sample shapes differ: "
                         f"{arrays['x_train'].shape[1:]} vs {arrays['x_test'].shape[1:]}")
    return _Arrays(name=name, n_classes=n_classes, is_image=is_image, **arrays)


def _optimiser(budget: Budget, params):
    if budget.optimiser == "adam":
        return torch.optim.Adam(params, lr=budget.learning_rate)
    return torch.optim.SGD(params, lr=budget.learning_rate)


_WARM = False


def _warm_up() -> None:
    """Pay torch's one-off lazy imports (the first optimiser construction imports torch._dynamo,
    about 1 s) once per process, outside any agent's measured seconds."""
    global _WARM
    if not _WARM:
        torch.optim.Adam([torch.zeros(1, requires_grad=True)])
        _WARM = True


def train_agent(data, architecture: Architecture, budget: Budget, seed: int, threads: int = 1,
                control: ControlTask | None = None) -> AgentResult:
    """Train one agent and return its size and test accuracy (and, with ``control``, its performance
    as a CartPole controller).

    Deterministic for a seed: weights are initialised and minibatches shuffled from ``seed`` (inside
    ``torch.random.fork_rng``, so the caller's global generator is untouched), deterministic algorithms
    are switched on and torch runs on ``threads`` threads (1 by default, which also makes results
    identical in and out of worker processes); both settings are restored afterwards."""
    arrays = _arrays_of(data)
    if not isinstance(architecture, Architecture):
        raise ValueError(f"architecture must be an Architecture, got {type(architecture).__name__}")
    if not isinstance(budget, Budget):
        raise ValueError(f"budget must be a Budget, got {type(budget).__name__}")
    if architecture.kind == "conv" and not arrays.is_image:
        raise ValueError(f"kind 'conv' needs image data; {arrays.name} is vectors (is_image=False); allowed kinds: mlp")
    seed = check_int("seed", seed, 0)
    threads = check_int("threads", threads, 1)
    _check_control(control, arrays)
    size = architecture.parameters(arrays.input_shape, arrays.n_classes)
    _warm_up()

    started = time.perf_counter()
    old_threads, old_deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model = architecture.build(arrays.input_shape, arrays.n_classes)
            generator = torch.Generator().manual_seed(seed)
            x, y = torch.from_numpy(arrays.x_train), torch.from_numpy(arrays.y_train)
            n = len(x)
            batch = n if budget.batch_size == 0 else min(budget.batch_size, n)
            optimiser = _optimiser(budget, model.parameters())
            loss_fn = nn.CrossEntropyLoss()
            model.train()
            for _ in range(budget.epochs):
                order = None if batch == n else torch.randperm(n, generator=generator)
                for start in range(0, n, batch):
                    if order is None:
                        xb, yb = x, y
                    else:
                        index = order[start:start + batch]
                        xb, yb = x[index], y[index]
                    optimiser.zero_grad(set_to_none=True)
                    loss_fn(model(xb), yb).backward()
                    optimiser.step()
            model.eval()
            correct = 0
            x_test, y_test = torch.from_numpy(arrays.x_test), torch.from_numpy(arrays.y_test)
            with torch.no_grad():
                for start in range(0, len(x_test), EVAL_BATCH):
                    logits = model(x_test[start:start + EVAL_BATCH])
                    correct += int((logits.argmax(dim=1) == y_test[start:start + EVAL_BATCH]).sum())
            controlled = control.score(model) if control is not None else None
    finally:
        torch.set_num_threads(old_threads)
        torch.use_deterministic_algorithms(old_deterministic)
    accuracy = correct / len(arrays.y_test)
    return AgentResult(architecture, size, accuracy, time.perf_counter() - started, seed, controlled)


def _check_control(control, arrays: _Arrays) -> None:
    if control is None:
        return
    if not isinstance(control, ControlTask):
        raise ValueError(f"control must be a ControlTask or None, got {type(control).__name__}")
    if arrays.is_image or arrays.input_shape != (4,) or arrays.n_classes != 2:
        raise ValueError(f"control needs CartPole data (4 observations -> 2 actions); {arrays.name} has inputs "
                         f"{arrays.input_shape} and {arrays.n_classes} classes")


# --------------------------------------------------------------------------- pools with a cache

stable_seed = task_seed  # the shared per-task seed (the name every aiq module imports)


def agent_seed(seed: int, index: int) -> int:
    """The training seed of agent ``index`` of a pool with seed ``seed`` (stable across versions)."""
    return stable_seed("aiq-pool", int(seed), int(index))


# What a cached agent depends on besides its own inputs (see intellimetry.cache).
POOL_CODE = TrainingCode("aiq-pools", CACHE_VERSION, definitions=(
    Architecture, Budget, ControlTask, AgentResult, BatchCartPole, _arrays_of, _optimiser, train_agent))


def cache_key(fingerprint: str, architecture: Architecture, budget: Budget, seed: int,
              control: ControlTask | None = None) -> str:
    return ModelCache(POOL_CODE).key(
        data=str(fingerprint), architecture=architecture.to_dict(), budget=budget.to_dict(), seed=int(seed),
        control=control.to_dict() if control is not None else None)


def _load_cached(cache: ModelCache, key: str, architecture: Architecture, seed: int) -> AgentResult | None:
    """The cached result, or None when the record is missing, unreadable or not this agent's."""
    if not cache.path(key).is_file():
        return None
    record = cache.load_json(key)
    try:
        result = AgentResult.from_dict(record)
        valid = (record.get("key") == key and result.architecture == architecture and result.seed == seed
                 and 0.0 <= result.accuracy <= 1.0 and result.size >= 1
                 and (result.control is None or 0.0 <= result.control <= 1.0))
    except (ValueError, KeyError, TypeError, AttributeError):
        valid = False
    if not valid:
        warnings.warn(f"ignoring unreadable or mismatched pool cache file {cache.path(key)}; the agent is retrained",
                      RuntimeWarning, stacklevel=3)
        return None
    return result


def _store(cache: ModelCache, key: str, result: AgentResult, fingerprint: str, data_name: str,
           budget: Budget) -> None:
    cache.store_json(key, {**result.to_dict(), "key": key, "data": str(fingerprint), "data_name": data_name,
                           "budget": budget.to_dict()})


def _train_task(arrays: _Arrays, task: tuple[Architecture, Budget, int, ControlTask | None]) -> AgentResult:
    """One missing agent, wherever parallel_map runs it (one torch thread: results do not depend on it)."""
    architecture, budget, seed, control = task
    return train_agent(arrays, architecture, budget, seed, threads=1, control=control)


def run_pool(data, architectures: Sequence[Architecture], budget: Budget, seed: int, cache_dir,
             workers: int = 1, progress: bool = True, seeds: Sequence[int] | None = None,
             control: ControlTask | None = None) -> list[AgentResult]:
    """Train (or load from the model cache) one agent per architecture; results in the order given.

    ``cache_dir``: the model cache's root (None: ``.cache/models``); agents live in its ``aiq-pools/``.

    Agent ``i`` trains with ``agent_seed(seed, i)`` unless ``seeds`` gives the per-agent seeds
    explicitly. Cached agents are loaded; the others are trained through
    :func:`intellimetry.parallel.parallel_map` (``workers`` spawned processes, or the Dask cluster in
    use) when more than one is missing, else here, and each is written to the cache (one atomic JSON
    file) as soon as it finishes, so an interrupted pool keeps its finished agents. Every agent trains
    on one torch thread with its own seed, so results do not depend on ``workers``; starting workers
    costs a few seconds (torch import), worth it only when the missing agents take longer than that.
    A script calling this with ``workers > 1`` needs the usual ``if __name__ == "__main__":`` guard.
    ``control`` (CartPole data only) also scores every network as a controller (``AgentResult.control``)."""
    architectures = list(architectures)
    for i, a in enumerate(architectures):
        if not isinstance(a, Architecture):
            raise ValueError(f"architectures[{i}] must be an Architecture, got {type(a).__name__}")
    if not isinstance(budget, Budget):
        raise ValueError(f"budget must be a Budget, got {type(budget).__name__}")
    seed = check_int("seed", seed, 0)
    workers = check_int("workers", workers, 1)
    if seeds is None:
        seeds = [agent_seed(seed, i) for i in range(len(architectures))]
    else:
        seeds = [check_int(f"seeds[{i}]", s, 0) for i, s in enumerate(seeds)]
        if len(seeds) != len(architectures):
            raise ValueError(f"seeds must give one seed per architecture ({len(architectures)}), got {len(seeds)}")
    arrays = _arrays_of(data)
    if not arrays.is_image:
        for i, a in enumerate(architectures):
            if a.kind == "conv":
                raise ValueError(f"architectures[{i}]: kind 'conv' needs image data; {arrays.name} is vectors; "
                                 f"allowed kinds: mlp")
    for a in architectures:  # fail before training anything if an architecture does not fit the input
        a.parameters(arrays.input_shape, arrays.n_classes)
    fingerprint = str(data.fingerprint())
    cache = ModelCache(POOL_CODE, cache_dir)

    results: list[AgentResult | None] = [None] * len(architectures)
    _check_control(control, arrays)
    keys = [cache_key(fingerprint, a, budget, s, control) for a, s in zip(architectures, seeds)]
    missing = []
    for i, (a, s, key) in enumerate(zip(architectures, seeds, keys)):
        results[i] = _load_cached(cache, key, a, s)
        if results[i] is None:
            missing.append(i)

    tasks = {i: (architectures[i], budget, seeds[i], control) for i in missing}

    def store(index: int, result: AgentResult) -> None:  # at once: an interrupted pool keeps its agents
        _store(cache, keys[index], result, fingerprint, arrays.name, budget)
        results[index] = result

    def cached(index: int) -> AgentResult | None:
        results[index] = _load_cached(cache, keys[index], architectures[index], seeds[index])
        return results[index]

    train_missing(_train_task, arrays, tasks, cache, keys, cached, store, workers, f"pool {arrays.name}", progress)
    return results  # type: ignore[return-value]


def train_missing(train, shared, tasks: dict[int, object], cache: ModelCache, keys: list[str], cached, store,
                  workers: int, desc: str, progress: bool) -> None:
    """Train a pool's missing members ``tasks`` ({index: task}, ``train(shared, task)`` each) and
    ``store(index, result)`` each at once, so an interrupted pool keeps the finished ones.

    In this process they train one by one, each under its cache item's lock, and are first looked
    up again (``cached(index)``): a figure run beside this one may have trained it meanwhile. With
    workers, or on a Dask cluster, they go through :func:`intellimetry.parallel.parallel_map`."""
    missing = list(tasks)
    if in_process(workers, len(missing)):
        from tqdm import tqdm

        for i in tqdm(missing, desc=desc, disable=not progress, leave=False):
            with cache.claim(keys[i]):
                if cached(i) is None:
                    store(i, train(shared, tasks[i]))
    else:
        parallel_map(train, tasks.values(), workers=workers, shared=shared, desc=desc, progress=progress,
                     on_result=lambda j, result: store(missing[j], result))


def handicap_seed(seed: int, depth: int, width: int) -> int:
    """The training seed of the handicapped network (depth, width): fixed by them, not by list position,
    so adding widths or depths to the experiment reuses the cached networks."""
    return stable_seed("aiq-handicap", int(seed), int(depth), int(width))


def handicap_series(data, depth: int, widths: Sequence[int], budget: Budget, seed: int, cache_dir,
                    workers: int = 1, progress: bool = True) -> list[AgentResult]:
    """The handicapping experiment (paper Sections 3.3.6, 3.4.4): one fully connected ReLU network of
    ``depth`` hidden layers per width in ``widths`` (nodes removed from every hidden layer step by
    step), each trained with ``budget``; results in the order of ``widths``. Run it once per depth."""
    depth = check_int("depth", depth, 1)
    widths = [check_int("widths[]", w, 1) for w in widths]
    if not widths:
        raise ValueError("widths must name at least one width >= 1")
    if len(set(widths)) != len(widths):
        raise ValueError(f"widths must be distinct, got {widths}")
    seed = check_int("seed", seed, 0)
    architectures = [Architecture("mlp", depth, w) for w in widths]
    seeds = [handicap_seed(seed, depth, w) for w in widths]
    return run_pool(data, architectures, budget, seed, cache_dir, workers=workers, progress=progress, seeds=seeds)


# --------------------------------------------------------------------------- the null subject: untrained networks

def untrained_agent(data, architecture: Architecture, seed: int, control: ControlTask | None = None) -> AgentResult:
    """The control for a trained agent: the same architecture with the weights ``train_agent`` would
    start from (initialised from ``seed`` the same way), scored without any training step; its test
    accuracy is chance level, up to the luck of the initial weights."""
    arrays = _arrays_of(data)
    seed = check_int("seed", seed, 0)
    _check_control(control, arrays)
    started = time.perf_counter()
    old_threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as train_agent: one thread (many threads only contend on a small network)
    try:
        with torch.random.fork_rng(devices=[]), torch.no_grad():
            torch.manual_seed(seed)
            model = architecture.build(arrays.input_shape, arrays.n_classes).eval()
            x_test, y_test = torch.from_numpy(arrays.x_test), torch.from_numpy(arrays.y_test)
            correct = sum(int((model(x_test[s:s + EVAL_BATCH]).argmax(dim=1) == y_test[s:s + EVAL_BATCH]).sum())
                          for s in range(0, len(x_test), EVAL_BATCH))
            controlled = control.score(model) if control is not None else None
    finally:
        torch.set_num_threads(old_threads)
    size = architecture.parameters(arrays.input_shape, arrays.n_classes)
    return AgentResult(architecture, size, correct / len(arrays.y_test), time.perf_counter() - started, seed,
                       controlled)


def untrained_pool(data, architectures: Sequence[Architecture], seed: int, seeds: Sequence[int] | None = None,
                   control: ControlTask | None = None) -> list[AgentResult]:
    """:func:`run_pool`'s agents untrained (:func:`untrained_agent`), with the seeds ``run_pool`` gives
    them; nothing is cached (scoring an untrained network costs one pass over the test set)."""
    seeds = [agent_seed(seed, i) for i in range(len(architectures))] if seeds is None else list(seeds)
    arrays = _arrays_of(data)  # checked and copied once for the pool
    return [untrained_agent(arrays, a, s, control) for a, s in zip(architectures, seeds)]


def untrained_handicap_series(data, depth: int, widths: Sequence[int], seed: int) -> list[AgentResult]:
    """:func:`handicap_series`'s networks untrained, with the same seeds."""
    architectures = [Architecture("mlp", depth, w) for w in widths]
    return untrained_pool(data, architectures, seed, [handicap_seed(seed, depth, w) for w in widths])
