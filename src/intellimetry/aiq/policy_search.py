"""Pool members that learn a control task themselves: the cross-entropy method on a network's own weights.

The paper's CartPole agents learn the task by reinforcement (DQN), so a pool member's performance says
what *that* network can learn, not how well it copies a teacher. Here every pool member is an
:class:`intellimetry.aiq.pools.Architecture` of kind "mlp" (depth x width ReLU layers, linear output,
action = argmax) whose flat weight vector is searched by the cross-entropy method (CEM), the same loop
as the CartPole teacher (:func:`intellimetry.aiq.teacher.cross_entropy_method`): derivative-free, no
replay buffer, no torch, and cheap for small networks.

The CEM loop does not know which task it trains on. A task is any object with ``name``, ``n_inputs``,
``n_actions``, ``max_steps``, ``fingerprint()``, ``to_dict()`` and ``episode_lengths(networks, episodes,
rng) -> (population, episodes)`` in which every candidate network plays the same episodes (same initial
states, same environment draws), so candidates are compared on equal terms. Two tasks are provided:

* :class:`CartPole2DTask`: gymnasium's CartPole-v1 physics run vectorised in
  :class:`intellimetry.cartpole.BatchCartPole` (population x episodes copies in one batch);
* :class:`GymTask`: any registered gymnasium environment, one episode at a time (the CartPole3D path).

Both take a two-component mixture ``(p, options_a, options_b)``: each episode's environment is the first
with probability p (the spec's mixed domain O(p) for control tasks). A network's performance is its mean
ticks / ``max_steps`` (the paper's t / 200). Pools are cached per agent in the shared model cache
(namespace ``aiq-rl-pools``), as :func:`intellimetry.aiq.pools.run_pool` caches imitation pools.
"""
from __future__ import annotations

import hashlib
import inspect
import json
import re
import sys
import time
from dataclasses import asdict, dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Sequence

import numpy as np

from intellimetry.aiq.pools import AgentResult, Architecture, _load_cached, agent_seed, train_missing
from intellimetry.aiq.teacher import check_cem_settings, cross_entropy_method
from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.cartpole import CARTPOLE_MAX_STEPS, RESET_BOUND, BatchCartPole, check_cartpole_physics
from intellimetry.checks import check_float, check_int

# Bump when training or scoring changes in a way the source hashes below would not catch.
CACHE_VERSION = 1
CARTPOLE_SETTINGS = ("force_mag", "gravity")  # what a CartPole2DTask mixture component may set
# gymnasium namespaces registered by importing one of our modules (spawned workers start bare)
ENV_MODULES = {"intellimetry/": "intellimetry.aiq.cartpole3d"}


# --------------------------------------------------------------------------- budget

@dataclass(frozen=True)
class CEMBudget:
    """The training budget of every pool member: ``iterations`` CEM iterations of ``population``
    candidates, each scored over ``episodes`` episodes; the elite share refits the search
    distribution (std starting at ``initial_std``). The trained network is then scored over
    ``final_episodes`` fresh episodes. One member costs at most
    ``iterations * population * episodes + final_episodes`` episodes."""

    iterations: int
    population: int
    episodes: int
    elite_fraction: float = 0.2
    initial_std: float = 1.0
    final_episodes: int = 20

    def __post_init__(self):
        for name, low in (("iterations", 1), ("population", 2), ("episodes", 1), ("final_episodes", 1)):
            object.__setattr__(self, name, check_int(name, getattr(self, name), low))
        object.__setattr__(self, "elite_fraction", check_float("elite_fraction", self.elite_fraction, 0, 1,
                                                               low_open=True, high_open=True))
        object.__setattr__(self, "initial_std", check_float("initial_std", self.initial_std, 0, low_open=True))
        check_cem_settings(self.elite_fraction, self.initial_std)

    def to_dict(self) -> dict:
        return asdict(self)


# --------------------------------------------------------------------------- networks

def layer_shapes(architecture: Architecture, n_inputs: int, n_actions: int) -> list[tuple[int, int]]:
    """(outputs, inputs) of each Linear layer of ``architecture.build((n_inputs,), n_actions)``."""
    sizes = [n_inputs] + [architecture.width] * architecture.depth + [n_actions]
    return list(zip(sizes[1:], sizes[:-1]))


def check_control_architecture(architecture, where: str = "architecture") -> Architecture:
    if not isinstance(architecture, Architecture):
        raise ValueError(f"{where} must be an Architecture, got {type(architecture).__name__}")
    if architecture.kind != "mlp":
        raise ValueError(f"{where}: kind {architecture.kind!r} does not fit a control task (its input is an "
                         f"observation vector); allowed kinds: mlp")
    return architecture


@dataclass(frozen=True)
class Networks:
    """``count`` networks of one mlp architecture, acting together: ``layers`` holds per Linear layer
    the weights (count, out, in) and biases (count, out), in torch's layout, so a flat vector is
    torch's ``parameters()`` order (weight then bias, layer by layer)."""

    layers: tuple

    @classmethod
    def from_flat(cls, flat: np.ndarray, shapes: list[tuple[int, int]]) -> "Networks":
        """Networks from flat weight vectors (count, P) laid out as :func:`layer_shapes` says."""
        flat = np.asarray(flat, dtype=np.float64)
        expected = sum(o * i + o for o, i in shapes)
        if flat.ndim != 2 or flat.shape[1] != expected:
            raise ValueError(f"flat weights must have shape (count, {expected}), got {flat.shape}")
        layers, start = [], 0
        for out, inp in shapes:
            weight = flat[:, start:start + out * inp].reshape(-1, out, inp)
            bias = flat[:, start + out * inp:start + out * inp + out]
            layers.append((weight, bias))
            start += out * inp + out
        return cls(tuple(layers))

    @property
    def count(self) -> int:
        return self.layers[0][0].shape[0]

    def one(self, index: int) -> "Networks":
        return Networks(tuple((w[index:index + 1], b[index:index + 1]) for w, b in self.layers))

    def outputs(self, observations: np.ndarray) -> np.ndarray:
        """Outputs (count, episodes, actions) for observations (count, episodes, inputs): ReLU hidden layers."""
        h = np.asarray(observations, dtype=np.float64)
        last = len(self.layers) - 1
        for k, (weight, bias) in enumerate(self.layers):
            h = h @ weight.transpose(0, 2, 1) + bias[:, None, :]  # batched matmul: einsum is 3x slower here
            if k < last:
                h = np.maximum(h, 0.0)
        return h

    def act(self, observations: np.ndarray) -> np.ndarray:
        """Actions (count, episodes) int64: the argmax of the outputs (ties -> the lower action)."""
        return self.outputs(observations).argmax(axis=-1)


# --------------------------------------------------------------------------- tasks

def _check_mixture(mixture, check_options) -> tuple | None:
    """``None`` or ``(p, options_a, options_b)`` with p in [0, 1] and two option dicts."""
    if mixture is None:
        return None
    try:
        p, first, second = mixture
    except (TypeError, ValueError):
        raise ValueError(f"mixture must be None or (p, options_a, options_b), got {mixture!r}") from None
    p = check_float("mixture p", p, 0.0, 1.0)
    return p, check_options(first, "options_a"), check_options(second, "options_b")


def _draw_first(mixture, episodes: int, rng: np.random.Generator) -> np.ndarray:
    """Per episode, whether it uses the mixture's first component (probability p); all True without one."""
    if mixture is None:
        return np.ones(episodes, dtype=bool)
    return rng.random(episodes) < mixture[0]


def _fingerprint(record: dict) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class CartPole2DTask:
    """gymnasium's CartPole-v1 physics with this force (N) and gravity (m/s^2), episodes of at most
    ``max_steps`` ticks, evaluated vectorised. ``mixture=(p, options_a, options_b)``: each episode's
    force and gravity come from ``options_a`` with probability p, else ``options_b`` (dicts that may set
    ``force_mag`` and ``gravity``; what they leave out is this task's own value)."""

    force_mag: float = 10.0
    gravity: float = 9.8
    mixture: tuple | None = None
    max_steps: int = CARTPOLE_MAX_STEPS
    n_inputs: int = field(default=4, init=False)
    n_actions: int = field(default=2, init=False)

    def __post_init__(self):
        force_mag, gravity = check_cartpole_physics(self.force_mag, self.gravity)
        object.__setattr__(self, "force_mag", force_mag)
        object.__setattr__(self, "gravity", gravity)
        object.__setattr__(self, "max_steps", check_int("max_steps", self.max_steps, 1))
        object.__setattr__(self, "mixture", _check_mixture(self.mixture, self._check_options))

    def _check_options(self, options, name: str) -> dict:
        if not isinstance(options, dict) or set(options) - set(CARTPOLE_SETTINGS):
            raise ValueError(f"{name} must be a dict with keys among {', '.join(CARTPOLE_SETTINGS)}, got {options!r}")
        settings = {**self.settings, **options}
        force_mag, gravity = check_cartpole_physics(settings["force_mag"], settings["gravity"])
        return {"force_mag": force_mag, "gravity": gravity}

    @property
    def settings(self) -> dict:
        return {"force_mag": self.force_mag, "gravity": self.gravity}

    @property
    def name(self) -> str:
        base = f"cartpole[f={self.force_mag:g},g={self.gravity:g}]"
        if self.mixture is None:
            return base
        p, a, b = self.mixture
        return f"cartpole[p={p:g}: f={a['force_mag']:g},g={a['gravity']:g} | f={b['force_mag']:g},g={b['gravity']:g}]"

    def to_dict(self) -> dict:
        return {"task": "cartpole2d", "force_mag": self.force_mag, "gravity": self.gravity,
                "mixture": self.mixture, "max_steps": self.max_steps}

    def fingerprint(self) -> str:
        return _fingerprint(self.to_dict())

    def episode_physics(self, episodes: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Force and gravity of each of ``episodes`` episodes (drawn from the mixture when there is one)."""
        first = _draw_first(self.mixture, episodes, rng)
        a, b = (self.settings, self.settings) if self.mixture is None else self.mixture[1:]
        return (np.where(first, a["force_mag"], b["force_mag"]), np.where(first, a["gravity"], b["gravity"]))

    def episode_lengths(self, networks: Networks, episodes: int, rng: np.random.Generator) -> np.ndarray:
        """Ticks survived (count, episodes): every network plays the same ``episodes`` episodes, all in
        one :class:`BatchCartPole` run."""
        count = networks.count
        initial = rng.uniform(-RESET_BOUND, RESET_BOUND, (episodes, 4))
        if self.mixture is None:
            env = BatchCartPole(count * episodes, self.force_mag, self.gravity, self.max_steps)
        else:
            force, gravity = self.episode_physics(episodes, rng)
            env = BatchCartPole(count * episodes, np.tile(force, count), np.tile(gravity, count), self.max_steps)

        def policy(states: np.ndarray) -> np.ndarray:
            return networks.act(states.reshape(count, episodes, 4)).reshape(-1)

        return env.episode_lengths(policy, initial=np.tile(initial, (count, 1))).reshape(count, episodes)


_ENVS: dict = {}  # one environment per (env_id, env_kwargs) per process, reused across episodes


def _make_env(env_id: str, env_kwargs: dict):
    import gymnasium

    key = json.dumps([env_id, env_kwargs], sort_keys=True, default=str)
    if key not in _ENVS:
        for prefix, module in ENV_MODULES.items():
            if env_id.startswith(prefix):
                import_module(module)  # registers the environment (a spawned worker starts without it)
        _ENVS[key] = gymnasium.make(env_id, **env_kwargs)
    return _ENVS[key]


def _env_code(env) -> str:
    """What the environment's behaviour depends on: a package's version, or for our own environments the
    source of the environment's module and of the modules of ours it imports (not the whole package, so
    adding an agent or a study module beside the environment keeps the trained networks)."""
    cls = type(env.unwrapped)
    top = cls.__module__.split(".")[0]
    if top != "intellimetry":
        from importlib import metadata

        try:
            return f"{top}=={metadata.version(top)}"
        except metadata.PackageNotFoundError:
            return top
    digest = hashlib.sha256()
    for path in _own_sources(sys.modules[cls.__module__]):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _own_sources(module) -> list[Path]:
    """The source files of ``module`` and of the intellimetry modules its source imports directly."""
    source = Path(inspect.getsourcefile(module))
    names = set(re.findall(r"^\s*(?:from|import)\s+(intellimetry(?:\.\w+)+)", source.read_text(), re.M))
    files = {source} | {Path(inspect.getsourcefile(import_module(name))) for name in names}
    return sorted(files)


@dataclass(frozen=True)
class GymTask:
    """A registered gymnasium environment ``gymnasium.make(env_id, **env_kwargs)``, run one episode at a
    time; the network sees the first ``inputs`` observation numbers, each multiplied by ``scale`` when
    given (one factor per input: a fixed change of units, so inputs of very different ranges can share
    one search distribution). ``options`` go to every
    ``reset``; with ``mixture=(p, options_a, options_b)`` an episode's reset also gets ``options_a``
    with probability p, else ``options_b`` (e.g. CartPole3D's ``{"novelty": 3, "level": "easy"}``).
    An episode ends when the environment terminates or truncates, or after ``max_steps`` ticks
    (default: ``env_kwargs["max_steps"]`` when given, else 200)."""

    env_id: str
    env_kwargs: dict = field(default_factory=dict)
    inputs: int = 4
    options: dict | None = None
    mixture: tuple | None = None
    max_steps: int | None = None
    scale: tuple | None = None

    def __post_init__(self):
        if not isinstance(self.env_id, str) or not self.env_id:
            raise ValueError(f"env_id must be a registered gymnasium id, got {self.env_id!r}")
        for name in ("env_kwargs", "options"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, dict):
                raise ValueError(f"{name} must be a dict, got {value!r}")
        object.__setattr__(self, "env_kwargs", dict(self.env_kwargs or {}))
        object.__setattr__(self, "inputs", check_int("inputs", self.inputs, 1))
        steps = self.env_kwargs.get("max_steps", CARTPOLE_MAX_STEPS) if self.max_steps is None else self.max_steps
        object.__setattr__(self, "max_steps", check_int("max_steps", steps, 1))
        object.__setattr__(self, "mixture", _check_mixture(self.mixture, self._check_options))
        if self.scale is not None:
            scale = tuple(float(v) for v in self.scale)
            if len(scale) != self.inputs or not all(np.isfinite(scale)):
                raise ValueError(f"scale must give one finite factor per input ({self.inputs}), got {self.scale!r}")
            object.__setattr__(self, "scale", scale)
        size = int(np.prod(self.env.observation_space.shape))
        if self.inputs > size:
            raise ValueError(f"inputs must be at most the observation size of {self.env_id} ({size}), "
                             f"got {self.inputs}")

    @staticmethod
    def _check_options(options, name: str) -> dict:
        if not isinstance(options, dict):
            raise ValueError(f"{name} must be a dict of reset options, got {options!r}")
        return dict(options)

    @property
    def env(self):
        return _make_env(self.env_id, self.env_kwargs)

    @property
    def n_actions(self) -> int:
        return int(self.env.action_space.n)

    @property
    def n_inputs(self) -> int:
        return self.inputs

    @property
    def name(self) -> str:
        settings = ",".join(f"{k}={v}" for k, v in sorted(self.env_kwargs.items()))
        return f"{self.env_id}[{settings}]" + ("" if self.mixture is None else f"[mixture p={self.mixture[0]:g}]")

    def to_dict(self) -> dict:
        return {"task": "gym", "env_id": self.env_id, "env_kwargs": self.env_kwargs, "inputs": self.inputs,
                "options": self.options, "mixture": self.mixture, "max_steps": self.max_steps,
                "scale": self.scale, "env_code": _env_code(self.env)}

    def fingerprint(self) -> str:
        return _fingerprint(self.to_dict())

    def episode_options(self, episodes: int, rng: np.random.Generator) -> list[dict | None]:
        """The reset options of each of ``episodes`` episodes (the mixture drawn per episode)."""
        first = _draw_first(self.mixture, episodes, rng)
        out = []
        for f in first:
            chosen = {} if self.mixture is None else self.mixture[1 if f else 2]
            merged = {**(self.options or {}), **chosen}
            out.append(merged or None)
        return out

    def _episode(self, network: Networks, seed: int, options: dict | None) -> int:
        env = self.env
        observation, _ = env.reset(seed=seed, options=options)
        scale = 1.0 if self.scale is None else np.asarray(self.scale)
        ticks = 0
        while ticks < self.max_steps:
            inputs = np.asarray(observation, dtype=np.float64)[:self.inputs] * scale
            action = int(network.act(inputs[None, None, :])[0, 0])
            observation, _, terminated, truncated, _ = env.step(action)
            ticks += 1
            if terminated or truncated:
                break
        return ticks

    def episode_lengths(self, networks: Networks, episodes: int, rng: np.random.Generator) -> np.ndarray:
        """Ticks survived (count, episodes): every network plays the same ``episodes`` episodes (same
        reset seeds and options)."""
        seeds = rng.integers(0, 2**31 - 1, size=episodes)
        options = self.episode_options(episodes, rng)
        lengths = np.empty((networks.count, episodes), dtype=np.int64)
        for c in range(networks.count):
            one = networks.one(c)
            for e in range(episodes):
                lengths[c, e] = self._episode(one, int(seeds[e]), options[e])
        return lengths


# --------------------------------------------------------------------------- training and scoring

def _check_task(task) -> None:
    for name in ("n_inputs", "n_actions", "max_steps", "fingerprint", "episode_lengths"):
        if not hasattr(task, name):
            raise ValueError(f"task must be a control task (CartPole2DTask, GymTask), got {type(task).__name__} "
                             f"without {name}")


def _performance(task, networks: Networks, episodes: int, rng: np.random.Generator) -> float:
    return float(task.episode_lengths(networks, episodes, rng).mean() / task.max_steps)


def train_policy(task, architecture: Architecture, budget: CEMBudget, seed: int) -> tuple[AgentResult, np.ndarray]:
    """Train ``architecture`` on ``task`` by the cross-entropy method on its flat weights.

    Returns the result (``control`` = ``accuracy`` = mean ticks / max_steps of the final mean weights
    over ``budget.final_episodes`` fresh episodes; there are no labels) and the flat weights (torch's
    ``parameters()`` order). Deterministic given ``seed``: one numpy Generator draws the candidates and
    every episode."""
    _check_task(task)
    check_control_architecture(architecture)
    if not isinstance(budget, CEMBudget):
        raise ValueError(f"budget must be a CEMBudget, got {type(budget).__name__}")
    seed = check_int("seed", seed, 0)
    started = time.perf_counter()
    shapes = layer_shapes(architecture, task.n_inputs, task.n_actions)
    size = architecture.parameters((task.n_inputs,), task.n_actions)
    rng = np.random.default_rng(seed)

    def score(candidates: np.ndarray) -> np.ndarray:
        return task.episode_lengths(Networks.from_flat(candidates, shapes), budget.episodes, rng).mean(axis=1)

    weights, _ = cross_entropy_method(size, score, rng, iterations=budget.iterations, population=budget.population,
                                      elite_fraction=budget.elite_fraction, initial_std=budget.initial_std,
                                      target=task.max_steps)
    performance = _performance(task, Networks.from_flat(weights[None], shapes), budget.final_episodes, rng)
    result = AgentResult(architecture, size, performance, time.perf_counter() - started, seed, performance)
    return result, weights


def evaluate_policy(task, architecture: Architecture, flat_weights, episodes: int, seed: int) -> float:
    """Mean ticks / max_steps of a trained network (flat weights) over ``episodes`` episodes of ``task``
    (e.g. trained on one CartPole3D novelty, scored on another)."""
    _check_task(task)
    check_control_architecture(architecture)
    episodes, seed = check_int("episodes", episodes, 1), check_int("seed", seed, 0)
    networks = Networks.from_flat(np.asarray(flat_weights, dtype=np.float64).reshape(1, -1),
                                  layer_shapes(architecture, task.n_inputs, task.n_actions))
    return _performance(task, networks, episodes, np.random.default_rng(seed))


# --------------------------------------------------------------------------- pools with a cache

# What a cached RL agent depends on besides its own inputs (see intellimetry.cache).
RL_POOL_CODE = TrainingCode("aiq-rl-pools", CACHE_VERSION, packages=("numpy", "gymnasium"), definitions=(
    CEMBudget, Networks, layer_shapes, CartPole2DTask, GymTask, _draw_first, _performance, train_policy,
    cross_entropy_method, BatchCartPole, AgentResult))


def rl_cache_key(task, architecture: Architecture, budget: CEMBudget, seed: int, fingerprint: str | None = None) -> str:
    return ModelCache(RL_POOL_CODE).key(task=fingerprint or task.fingerprint(), architecture=architecture.to_dict(),
                                        budget=budget.to_dict(), seed=int(seed))


def load_weights(task, architecture: Architecture, budget: CEMBudget, seed: int, cache_dir=None) -> np.ndarray | None:
    """The flat weights of a cached pool member, or None when it has not been trained (or the record is bad)."""
    cache = ModelCache(RL_POOL_CODE, cache_dir)
    record = cache.load_json(rl_cache_key(task, architecture, budget, seed))
    if not record or "weights" not in record:
        return None
    weights = np.asarray(record["weights"], dtype=np.float64)
    return weights if weights.size == architecture.parameters((task.n_inputs,), task.n_actions) else None


def _check_pool_arguments(task, architectures, budget, seed, workers, seeds) -> tuple[list, list[int]]:
    _check_task(task)
    architectures = [check_control_architecture(a, f"architectures[{i}]") for i, a in enumerate(architectures)]
    if not isinstance(budget, CEMBudget):
        raise ValueError(f"budget must be a CEMBudget, got {type(budget).__name__}")
    seed = check_int("seed", seed, 0)
    check_int("workers", workers, 1)
    if seeds is None:
        return architectures, [agent_seed(seed, i) for i in range(len(architectures))]
    seeds = [check_int(f"seeds[{i}]", s, 0) for i, s in enumerate(seeds)]
    if len(seeds) != len(architectures):
        raise ValueError(f"seeds must give one seed per architecture ({len(architectures)}), got {len(seeds)}")
    return architectures, seeds


def rl_pool(task, architectures: Sequence[Architecture], budget: CEMBudget, seed: int, cache_dir=None,
            workers: int = 1, progress: bool = True, seeds: Sequence[int] | None = None) -> list[AgentResult]:
    """Train (or load from the model cache) one CEM-trained network per architecture on ``task``; results
    in the order given, each with ``control`` = its performance.

    Conventions as :func:`intellimetry.aiq.pools.run_pool`: agent ``i`` trains with ``agent_seed(seed, i)``
    unless ``seeds`` gives them; every agent is one JSON record (result and flat weights) in the model
    cache's ``aiq-rl-pools/`` (``cache_dir``: the cache root, None = the shared one), written as soon as it
    finishes; missing agents train through :func:`intellimetry.parallel.parallel_map` (results do not
    depend on ``workers``; a script needs the ``if __name__ == "__main__":`` guard)."""
    architectures, seeds = _check_pool_arguments(task, architectures, budget, seed, workers, seeds)
    fingerprint = task.fingerprint()
    cache = ModelCache(RL_POOL_CODE, cache_dir)
    keys = [rl_cache_key(task, a, budget, s, fingerprint) for a, s in zip(architectures, seeds)]
    results: list[AgentResult | None] = [_load_cached(cache, k, a, s) for a, s, k in zip(architectures, seeds, keys)]
    missing = [i for i, r in enumerate(results) if r is None]
    jobs = {i: (architectures[i], budget, seeds[i]) for i in missing}

    def store(index: int, trained: tuple[AgentResult, np.ndarray]) -> None:  # at once: kept if interrupted
        result, weights = trained
        cache.store_json(keys[index], {**result.to_dict(), "key": keys[index], "task": task.to_dict(),
                                       "budget": budget.to_dict(), "weights": weights.tolist()})
        results[index] = result

    def cached(index: int) -> AgentResult | None:
        results[index] = _load_cached(cache, keys[index], architectures[index], seeds[index])
        return results[index]

    train_missing(_train_job, task, jobs, cache, keys, cached, store, workers, f"RL pool {task.name}", progress)
    return results  # type: ignore[return-value]


def _train_job(task, job: tuple[Architecture, CEMBudget, int]) -> tuple[AgentResult, np.ndarray]:
    """One missing pool member, wherever parallel_map runs it."""
    architecture, budget, seed = job
    return train_policy(task, architecture, budget, seed)


# --------------------------------------------------------------------------- the null subject: random policies

def random_policy_pool(task, architectures: Sequence[Architecture], budget: CEMBudget, seed: int,
                       seeds: Sequence[int] | None = None) -> list[AgentResult]:
    """The control for :func:`rl_pool`: each network's weights one draw from the search distribution the
    cross-entropy method starts from (mean 0, std ``budget.initial_std``), scored like a trained member
    (mean ticks / max_steps over ``budget.final_episodes`` fresh episodes); no search, nothing cached."""
    architectures, seeds = _check_pool_arguments(task, architectures, budget, seed, 1, seeds)
    results = []
    for architecture, agent in zip(architectures, seeds):
        started = time.perf_counter()
        rng = np.random.default_rng(agent)
        shapes = layer_shapes(architecture, task.n_inputs, task.n_actions)
        size = architecture.parameters((task.n_inputs,), task.n_actions)
        weights = budget.initial_std * rng.standard_normal((1, size))
        performance = _performance(task, Networks.from_flat(weights, shapes), budget.final_episodes, rng)
        results.append(AgentResult(architecture, size, performance, time.perf_counter() - started, agent, performance))
    return results
