"""Agents for CartPole3D trials (paper Section 3.4.3): the paper's baseline and our own novelty-aware agents.

The paper compares four external teams' agents with its own baseline ("SOTA"). We cannot run the teams'
code, so two agents of our own design play their roles, named by what they do:

* :class:`DQNAgent`, the baseline: a DQN with two hidden layers of 512 ReLUs, the 10 non-block
  observations ``obs[:10]`` as input and the 5 actions as outputs, trained on novelty 0 with Boltzmann
  (softmax-temperature) exploration, a replay buffer and a target network (:func:`train_dqn`, cached in
  the shared model cache by :func:`baseline_dqn`). It acts greedily and never changes: not novelty-aware.
* :class:`RetrainingAgent` (the role of ANU's NAPPING: a module on top of the baseline): the baseline plus
  a :class:`PerformanceMonitor` on its own episode lengths; once the recent mean falls below the
  pre-novelty level by a threshold it resumes DQN training online on post-novelty experience.
* :class:`ModelBasedPlanner` (the role of PARC's HYDRA / UMass's simulator agent): a linear model of the 10
  state numbers fitted by least squares on novelty 0 (:func:`fit_planner`), a one- or two-step lookahead
  that minimises a cost on tilt, tilt rate and cart distance from the centre; novelty is detected when the
  model's prediction error exceeds a threshold learned from pre-novelty residuals, and the model is then
  re-fitted on post-novelty transitions with a forgetting factor (:class:`ForgettingLeastSquares`).
* :class:`HeuristicAgent` (the environment's hand-written PD controller) and :class:`RandomAgent`.

The protocol (:class:`Agent`): ``start_trial(seed)`` before a trial, ``act(obs) -> action`` each tick,
``observe(obs, action, next_obs, terminated)`` after it, ``end_episode(ticks)`` after each episode,
``describe()``, ``novelty_aware`` and ``detected`` (True once the agent believes novelty arrived).
"""
from __future__ import annotations

import copy
import time
from collections import deque
from dataclasses import asdict, dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from intellimetry.aiq.cartpole3d import LEVELS, STATE_SIZE, CartPole3DEnv, heuristic_policy
from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.checks import check_choice, check_float, check_int

N_ACTIONS = 5
HIDDEN = 512
# Fixed input scaling: tilt angles stay within +-0.17 rad while positions reach +-5 m, so one scale per input
# lets one learning rate fit all of them. Order: x, y, vx, vy, roll, pitch, yaw, wx, wy, wz.
INPUT_SCALE = (0.2, 0.2, 1.0, 1.0, 5.0, 5.0, 1.0, 1.0, 1.0, 1.0)
ROLL, PITCH, WX, WY = 4, 5, 7, 8
YAW = 6


class Agent:
    """The agent protocol, with no-op defaults for agents that do not learn during a trial."""

    novelty_aware = False
    detected = False

    def start_trial(self, seed: int) -> None:
        """Called on a fresh copy of the pre-trained agent before each trial; reseeds its randomness."""

    def act(self, obs: np.ndarray) -> int:
        raise NotImplementedError

    def observe(self, obs: np.ndarray, action: int, next_obs: np.ndarray, terminated: bool) -> None:
        """One transition of the environment, after `act`."""

    def end_episode(self, ticks: int) -> None:
        """The episode just ended after `ticks` ticks."""

    def describe(self) -> str:
        raise NotImplementedError


# --------------------------------------------------------------------------- the DQN baseline

def state_env(novelty: int = 0, level: str = "easy", max_steps: int = 200) -> CartPole3DEnv:
    """CartPole3D observing no blocks: every agent here reads the state ``obs[:10]`` only, and the
    environment then skips reading and sorting the blocks each tick (the episodes play alike)."""
    return CartPole3DEnv(novelty=novelty, level=level, max_steps=max_steps, observed_blocks=0)


class QNetwork(nn.Module):
    """obs[:10] -> 512 ReLU -> 512 ReLU -> 5 action values (inputs scaled by INPUT_SCALE first)."""

    def __init__(self, hidden: int = HIDDEN):
        super().__init__()
        self.register_buffer("input_scale", torch.tensor(INPUT_SCALE, dtype=torch.float32))
        self.layers = nn.Sequential(nn.Linear(STATE_SIZE, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                    nn.Linear(hidden, N_ACTIONS))

    def forward(self, state: torch.Tensor) -> torch.Tensor:
        return self.layers(state * self.input_scale)

    def values(self, obs: np.ndarray) -> np.ndarray:
        """The 5 action values of one observation (only its first 10 numbers are used)."""
        with torch.no_grad():
            return self(torch.as_tensor(np.asarray(obs[:STATE_SIZE], dtype=np.float32))).numpy()


@dataclass(frozen=True)
class DQNSettings:
    """How the baseline trains. `steps` is the paper's 500,000 at full scale; the quick profile scales it down."""

    steps: int = 15_000
    hidden: int = HIDDEN
    learning_rate: float = 5e-4
    gamma: float = 0.99
    batch_size: int = 64
    buffer_size: int = 50_000
    learning_starts: int = 1_000   # steps of pure exploration before the first update
    train_every: int = 4           # environment steps per update (an update costs ~100x a step)
    target_update: int = 500       # updates between copies into the target network
    temperature_start: float = 1.0  # Boltzmann temperature, annealed linearly ...
    temperature_end: float = 0.02
    anneal_fraction: float = 0.5    # ... over this share of the steps, then held
    novelty: int = 0
    level: str = "easy"
    max_steps: int = 200
    eval_episodes: int = 20

    def __post_init__(self):
        check_int("steps", self.steps, 1)
        check_int("hidden", self.hidden, 1)
        check_float("learning_rate", self.learning_rate, 0, low_open=True)
        check_float("gamma", self.gamma, 0, 1)
        check_int("batch_size", self.batch_size, 1)
        check_int("buffer_size", self.buffer_size, self.batch_size)
        check_int("learning_starts", self.learning_starts, self.batch_size)
        check_int("train_every", self.train_every, 1)
        check_int("target_update", self.target_update, 1)
        check_float("temperature_start", self.temperature_start, 0, low_open=True)
        check_float("temperature_end", self.temperature_end, 0, low_open=True)
        check_float("anneal_fraction", self.anneal_fraction, 0, 1, low_open=True)
        check_choice("level", self.level, LEVELS)
        check_int("max_steps", self.max_steps, 1)
        check_int("eval_episodes", self.eval_episodes, 1)

    def temperature(self, step: int) -> float:
        share = min(1.0, step / (self.anneal_fraction * self.steps))
        return self.temperature_start + share * (self.temperature_end - self.temperature_start)

    def to_dict(self) -> dict:
        return asdict(self)


def boltzmann_action(values: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """An action drawn with probability proportional to exp(value / temperature)."""
    logits = (values - values.max()) / temperature
    probabilities = np.exp(logits)
    return int(rng.choice(len(values), p=probabilities / probabilities.sum()))


class ReplayBuffer:
    """The latest `capacity` transitions of the 10 state numbers, overwritten oldest first."""

    def __init__(self, capacity: int):
        self.obs = np.zeros((capacity, STATE_SIZE), np.float32)
        self.next_obs = np.zeros((capacity, STATE_SIZE), np.float32)
        self.actions = np.zeros(capacity, np.int64)
        self.rewards = np.zeros(capacity, np.float32)
        self.terminal = np.zeros(capacity, np.float32)
        self.capacity, self.size, self.position = capacity, 0, 0

    def add(self, obs, action: int, reward: float, next_obs, terminated: bool) -> None:
        i = self.position
        self.obs[i], self.next_obs[i] = obs[:STATE_SIZE], next_obs[:STATE_SIZE]
        self.actions[i], self.rewards[i], self.terminal[i] = action, reward, float(terminated)
        self.position = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def sample(self, batch: int, rng: np.random.Generator) -> tuple[torch.Tensor, ...]:
        i = rng.integers(0, self.size, batch)
        return tuple(torch.from_numpy(a[i]) for a in (self.obs, self.actions, self.rewards, self.next_obs,
                                                       self.terminal))


class DQNLearner:
    """A network, its target copy, an Adam optimiser and a replay buffer: `learn` does one DQN update."""

    def __init__(self, network: QNetwork, learning_rate: float, gamma: float, batch_size: int, buffer_size: int,
                 target_update: int):
        torch.set_num_threads(1)  # batches of 64 gain nothing from threads; extra threads only contend
        self.network = network
        self.target = copy.deepcopy(network)
        self.optimiser = torch.optim.Adam(network.parameters(), lr=learning_rate)
        self.buffer = ReplayBuffer(buffer_size)
        self.gamma, self.batch_size, self.target_update = gamma, batch_size, target_update
        self.updates = 0

    def learn(self, rng: np.random.Generator) -> float:
        obs, actions, rewards, next_obs, terminal = self.buffer.sample(self.batch_size, rng)
        with torch.no_grad():  # a truncated episode is not terminal: its value is bootstrapped
            target = rewards + self.gamma * (1 - terminal) * self.target(next_obs).max(dim=1).values
        predicted = self.network(obs).gather(1, actions[:, None]).squeeze(1)
        loss = F.smooth_l1_loss(predicted, target)
        self.optimiser.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.network.parameters(), 10.0)
        self.optimiser.step()
        self.updates += 1
        if self.updates % self.target_update == 0:
            self.target.load_state_dict(self.network.state_dict())
        return float(loss.detach())


def _episode_seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**31 - 1))


def train_dqn(settings: DQNSettings, seed: int, progress: bool = True) -> tuple[QNetwork, dict]:
    """Train the baseline DQN for `settings.steps` environment steps; returns the network and a record
    (greedy performance over `eval_episodes` fresh episodes, episodes played, seconds). One torch thread."""
    seed = check_int("seed", seed, 0)
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    network = QNetwork(settings.hidden)
    learner = DQNLearner(network, settings.learning_rate, settings.gamma, settings.batch_size,
                         settings.buffer_size, settings.target_update)
    env = state_env(settings.novelty, settings.level, settings.max_steps)
    obs, _ = env.reset(seed=_episode_seed(rng))
    episodes = 0
    from tqdm import tqdm

    for step in tqdm(range(settings.steps), desc="DQN baseline", disable=not progress, leave=False,
                     mininterval=1.0):
        action = boltzmann_action(network.values(obs), settings.temperature(step), rng)
        next_obs, reward, terminated, truncated, _ = env.step(action)
        learner.buffer.add(obs, action, reward, next_obs, terminated)
        if step >= settings.learning_starts and step % settings.train_every == 0:
            learner.learn(rng)
        obs = next_obs
        if terminated or truncated:
            episodes += 1
            obs, _ = env.reset(seed=_episode_seed(rng))
    env.close()
    performance = evaluate_agent(DQNAgent(network), settings.eval_episodes, _episode_seed(rng),
                                 novelty=settings.novelty, level=settings.level, max_steps=settings.max_steps)
    record = {"performance": performance, "episodes": episodes, "seconds": time.perf_counter() - started}
    return network, record


def evaluate_agent(agent: Agent, episodes: int, seed: int, novelty: int = 0, level: str = "easy",
                   max_steps: int = 200) -> float:
    """Mean ticks / max_steps of `agent` over `episodes` fresh episodes (seeds drawn from `seed`)."""
    rng = np.random.default_rng(seed)
    env = state_env(novelty, level, max_steps)
    agent.start_trial(_episode_seed(rng))
    total = 0
    for _ in range(episodes):
        total += play_episode(env, agent, _episode_seed(rng))
    env.close()
    return total / (episodes * max_steps)


def play_episode(env, agent: Agent, seed: int, options: dict | None = None) -> int:
    """One episode of `agent` in `env` (observe after every tick, end_episode at the end); its ticks."""
    obs, _ = env.reset(seed=seed, options=options)
    ticks = 0
    while True:
        action = agent.act(obs)
        next_obs, _, terminated, truncated, _ = env.step(action)
        ticks += 1
        agent.observe(obs, action, next_obs, terminated)
        obs = next_obs
        if terminated or truncated:
            agent.end_episode(ticks)
            return ticks


class DQNAgent(Agent):
    """The baseline ("SOTA"): a trained DQN acting greedily on obs[:10]; not novelty-aware."""

    def __init__(self, network: QNetwork):
        self.network = network

    def act(self, obs: np.ndarray) -> int:
        return int(np.argmax(self.network.values(obs)))

    def describe(self) -> str:
        return "DQN baseline: 10 -> 512 -> 512 -> 5 ReLU, greedy, trained on novelty 0, not novelty-aware"


# Cached baselines depend on these definitions (see intellimetry.cache), the environment's class included;
# bump the version when something else that changes training changes (e.g. the novelty table).
DQN_CODE = TrainingCode("aiq-cartpole3d-agents", 1, definitions=(
    QNetwork, DQNSettings, boltzmann_action, ReplayBuffer, DQNLearner, train_dqn, evaluate_agent, play_episode,
    DQNAgent, CartPole3DEnv),
    packages=("torch", "pybullet", "gymnasium"))


@dataclass(frozen=True, eq=False)
class TrainedDQN:
    """A trained baseline: its network and how it was made."""

    network: QNetwork
    settings: DQNSettings
    seed: int
    performance: float  # greedy ticks / max_steps on the training novelty right after training
    seconds: float      # training wall time (of the run that filled the cache)
    from_cache: bool


def baseline_dqn(settings: DQNSettings = DQNSettings(), seed: int = 0, cache_dir=None,
                 progress: bool = True) -> TrainedDQN:
    """The baseline DQN for `settings` and `seed`: loaded from the shared model cache (namespace
    ``aiq-cartpole3d-agents``, a torch state_dict ``.pt`` plus a ``.json`` record) or trained and stored."""
    seed = check_int("seed", seed, 0)
    cache = ModelCache(DQN_CODE, cache_dir)
    key = cache.key(settings=settings.to_dict(), seed=seed)
    with cache.claim(key):  # a figure run beside this one waits, then loads it
        return _load_or_train_dqn(cache, key, settings, seed, progress)


def _load_or_train_dqn(cache: ModelCache, key: str, settings: DQNSettings, seed: int, progress: bool) -> TrainedDQN:
    record = cache.load_json(key)
    weights = cache.lookup(key, ".pt")
    if record is not None and record.get("key") == key and weights is not None:
        network = QNetwork(settings.hidden)
        network.load_state_dict(torch.load(weights, weights_only=True))
        return TrainedDQN(network, settings, seed, float(record["performance"]), float(record["seconds"]), True)
    network, record = train_dqn(settings, seed, progress=progress)
    cache.store_file(key, ".pt", lambda path: torch.save(network.state_dict(), path))
    cache.store_json(key, {**record, "key": key, "settings": settings.to_dict(), "seed": seed})
    return TrainedDQN(network, settings, seed, record["performance"], record["seconds"], False)


# --------------------------------------------------------------------------- retraining on a performance drop

class PerformanceMonitor:
    """Detects a drop in the agent's own performance (ticks / max_steps per episode).

    The mean of the first `reference_episodes` episodes is the pre-novelty level; the monitor fires at the
    first later episode where the mean of the latest `window` episodes (all after the reference ones) is
    more than `drop` below that level."""

    def __init__(self, reference_episodes: int = 5, window: int = 3, drop: float = 0.2):
        self.reference_episodes = check_int("reference_episodes", reference_episodes, 1)
        self.window = check_int("window", window, 1)
        self.drop = check_float("drop", drop, 0, 1, low_open=True)
        self.history: list[float] = []
        self.fired_at: int | None = None  # index of the episode at which it fired

    @property
    def reference(self) -> float | None:
        if len(self.history) < self.reference_episodes:
            return None
        return float(np.mean(self.history[:self.reference_episodes]))

    def record(self, performance: float) -> bool:
        """Add one episode; True exactly once, at the episode where the drop is detected."""
        self.history.append(float(performance))
        recent = self.history[self.reference_episodes:][-self.window:]
        if self.fired_at is not None or len(recent) < self.window:
            return False
        if float(np.mean(recent)) < self.reference - self.drop:
            self.fired_at = len(self.history) - 1
            return True
        return False


@dataclass(frozen=True)
class RetrainSettings:
    """The monitor's thresholds and the online training after detection."""

    reference_episodes: int = 5
    window: int = 3
    drop: float = 0.2
    learning_rate: float = 1e-4     # below the baseline's: large steps on a small fresh buffer undo its skill
    buffer_size: int = 20_000
    learning_starts: int = 200      # post-novelty transitions gathered before the first update
    train_every: int = 1            # ticks per update
    target_update: int = 200
    temperature_start: float = 0.02  # Boltzmann temperature after detection (the baseline ended at 0.02), ...
    temperature_decay: float = 0.999  # ... decaying per tick ...
    temperature_end: float = 0.002    # ... down to this floor

    def __post_init__(self):
        check_int("reference_episodes", self.reference_episodes, 1)
        check_int("window", self.window, 1)
        check_float("drop", self.drop, 0, 1, low_open=True)
        check_float("learning_rate", self.learning_rate, 0, low_open=True)
        check_int("learning_starts", self.learning_starts, 1)
        check_int("buffer_size", self.buffer_size, self.learning_starts)
        check_int("train_every", self.train_every, 1)
        check_int("target_update", self.target_update, 1)
        check_float("temperature_start", self.temperature_start, 0, low_open=True)
        check_float("temperature_decay", self.temperature_decay, 0, 1, low_open=True)
        check_float("temperature_end", self.temperature_end, 0, low_open=True)

    def temperature(self, steps: int) -> float:
        return max(self.temperature_end, self.temperature_start * self.temperature_decay ** steps)


class RetrainingAgent(Agent):
    """The baseline DQN plus a performance monitor; after a detected drop it resumes DQN training online
    on post-novelty experience (fresh replay buffer, Boltzmann exploration with a decaying temperature)."""

    novelty_aware = True

    def __init__(self, trained: TrainedDQN, settings: RetrainSettings = RetrainSettings()):
        self.pretrained = trained.network
        self.dqn = trained.settings
        self.settings = settings
        self.start_trial(0)

    def start_trial(self, seed: int) -> None:
        s = self.settings
        self.network = copy.deepcopy(self.pretrained)
        self.monitor = PerformanceMonitor(s.reference_episodes, s.window, s.drop)
        self.learner: DQNLearner | None = None
        self.rng = np.random.default_rng(seed)
        self.steps_since_detection = 0

    @property
    def detected(self) -> bool:
        return self.monitor.fired_at is not None

    def act(self, obs: np.ndarray) -> int:
        values = self.network.values(obs)
        if self.learner is None:
            return int(np.argmax(values))
        return boltzmann_action(values, self.settings.temperature(self.steps_since_detection), self.rng)

    def observe(self, obs, action, next_obs, terminated) -> None:
        if self.learner is None:
            return
        self.learner.buffer.add(obs, action, 1.0, next_obs, terminated)
        self.steps_since_detection += 1
        ready = self.learner.buffer.size >= max(self.settings.learning_starts, self.dqn.batch_size)
        if ready and self.steps_since_detection % self.settings.train_every == 0:
            self.learner.learn(self.rng)

    def end_episode(self, ticks: int) -> None:
        if self.monitor.record(ticks / self.dqn.max_steps):
            s = self.settings
            self.learner = DQNLearner(self.network, s.learning_rate, self.dqn.gamma, self.dqn.batch_size,
                                      s.buffer_size, s.target_update)

    def describe(self) -> str:
        s = self.settings
        return (f"retraining DQN: the baseline plus a monitor (mean of {s.window} episodes > {s.drop:g} below the "
                f"first {s.reference_episodes}); then online DQN training with Boltzmann exploration")


# --------------------------------------------------------------------------- planning with a re-estimated model

def transition_features(states: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """[state (10), one-hot action (5)] per row: the model's inputs (the one-hot also acts as the constant)."""
    states = np.atleast_2d(states)[:, :STATE_SIZE]
    onehot = np.eye(N_ACTIONS)[np.asarray(actions).reshape(-1)]
    return np.hstack([states, onehot])


def state_change(states: np.ndarray, next_states: np.ndarray) -> np.ndarray:
    """next - state for the 10 numbers, the yaw difference wrapped into [-pi, pi)."""
    change = np.atleast_2d(next_states)[:, :STATE_SIZE] - np.atleast_2d(states)[:, :STATE_SIZE]
    change[:, YAW] = (change[:, YAW] + np.pi) % (2 * np.pi) - np.pi
    return change


def fit_least_squares(features: np.ndarray, targets: np.ndarray, ridge: float = 1e-8) -> np.ndarray:
    """W minimising |features @ W - targets|^2 + ridge |W|^2 (the tiny ridge only guards unexcited inputs)."""
    gram = features.T @ features + ridge * np.eye(features.shape[1])
    return np.linalg.solve(gram, features.T @ targets)


class ForgettingLeastSquares:
    """Exponentially weighted least squares pulled toward a prior: W minimises
    sum_t forgetting^(age_t) |x_t W - y_t|^2 + prior_weight |W - W_prior|^2.

    Old transitions fade (weight halves every ln 2 / -ln forgetting steps), so the fit tracks a changed
    system; the prior keeps inputs that recent data do not excite at their pre-novelty values."""

    def __init__(self, prior: np.ndarray, forgetting: float = 0.99, prior_weight: float = 0.01):
        self.prior = np.asarray(prior, dtype=float)
        self.forgetting = check_float("forgetting", forgetting, 0, 1, low_open=True)
        self.prior_weight = check_float("prior_weight", prior_weight, 0, low_open=True)
        n = self.prior.shape[0]
        self.gram = np.zeros((n, n))
        self.cross = np.zeros_like(self.prior)

    def update(self, features: np.ndarray, targets: np.ndarray) -> None:
        for x, y in zip(np.atleast_2d(features), np.atleast_2d(targets)):
            self.gram = self.forgetting * self.gram + np.outer(x, x)
            self.cross = self.forgetting * self.cross + np.outer(x, y)

    def solve(self) -> np.ndarray:
        n = self.prior.shape[0]
        return np.linalg.solve(self.gram + self.prior_weight * np.eye(n),
                               self.cross + self.prior_weight * self.prior)


@dataclass(frozen=True)
class PlannerSettings:
    """The planner's cost, lookahead, detection and adaptation.

    The cost of a predicted state is, per horizontal axis, the square of the tilt extrapolated
    `rate_time` seconds ahead plus small terms on the cart's position and velocity (the pole must be
    tipped toward the centre to walk the cart there), as in an LQR-like cart-pole controller:
    (pitch + rate_time wy + position_gain x + velocity_gain vx)^2
    + (roll + rate_time wx - position_gain y - velocity_gain vy)^2
    (positive pitch leans toward +x, positive roll toward -y)."""

    lookahead: int = 2                 # 1 or 2 steps; a 2-step cost sums both steps, best second action
    rate_time: float = 0.3             # seconds
    position_gain: float = 0.02        # per metre
    velocity_gain: float = 0.05        # per m/s
    window: int = 10                   # detection: median prediction error over this many ticks ...
    threshold_quantile: float = 0.999  # ... above this quantile of pre-novelty window medians ...
    threshold_margin: float = 2.0      # ... times this margin
    outlier_factor: float = 100.0      # transitions erring this many times the recent median are collisions
    forgetting: float = 0.99           # adaptation: weight of a transition falls by this factor per tick
    prior_weight: float = 0.01         # pull toward the pre-novelty model (keeps unexcited inputs)

    def __post_init__(self):
        check_int("lookahead", self.lookahead, 1, 2)
        check_float("rate_time", self.rate_time, 0)
        check_int("window", self.window, 1)
        check_float("threshold_quantile", self.threshold_quantile, 0, 1)
        check_float("threshold_margin", self.threshold_margin, 0, low_open=True)
        check_float("forgetting", self.forgetting, 0, 1, low_open=True)
        check_float("outlier_factor", self.outlier_factor, 1)

    def cost(self, states: np.ndarray) -> np.ndarray:
        s = states
        along_x = s[..., PITCH] + self.rate_time * s[..., WY] + self.position_gain * s[..., 0] \
            + self.velocity_gain * s[..., 2]
        along_y = s[..., ROLL] + self.rate_time * s[..., WX] - self.position_gain * s[..., 1] \
            - self.velocity_gain * s[..., 3]
        return along_x ** 2 + along_y ** 2


class ModelBasedPlanner(Agent):
    """Plans with a linear model of the 10 state numbers, watches its prediction error, and re-fits it
    (forgetting old transitions) once the error says the world has changed.

    The error of a transition is its mean squared residual in units of the pre-novelty residual spread;
    novelty is declared when the median error of the latest `window` ticks exceeds `threshold` (a median,
    so that a single collision with a block is not novelty). While adapting, transitions erring more than
    `outlier_factor` times the recent median are collisions and are left out of the re-fit."""

    novelty_aware = True

    def __init__(self, weights: np.ndarray, residual_scale: np.ndarray, threshold: float,
                 settings: PlannerSettings = PlannerSettings()):
        self.pretrained = np.asarray(weights, dtype=float)
        self.residual_scale = np.asarray(residual_scale, dtype=float)
        self.threshold = float(threshold)
        self.settings = settings
        self.start_trial(0)

    def start_trial(self, seed: int) -> None:
        self.weights = self.pretrained.copy()
        self.errors: deque[float] = deque(maxlen=self.settings.window)
        self.adapter: ForgettingLeastSquares | None = None

    @property
    def detected(self) -> bool:
        return self.adapter is not None

    def predict(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Next states of (state, action) rows under the current model."""
        states = np.atleast_2d(states)[:, :STATE_SIZE]
        return states + transition_features(states, actions) @ self.weights

    def act(self, obs: np.ndarray) -> int:
        actions = np.arange(N_ACTIONS)
        first = self.predict(np.repeat(obs[None, :STATE_SIZE], N_ACTIONS, axis=0), actions)
        cost = self.settings.cost(first)
        if self.settings.lookahead == 2:
            second = self.predict(np.repeat(first, N_ACTIONS, axis=0), np.tile(actions, N_ACTIONS))
            cost = cost + self.settings.cost(second).reshape(N_ACTIONS, N_ACTIONS).min(axis=1)
        return int(np.argmin(cost))

    def prediction_error(self, obs, action, next_obs) -> float:
        """Mean squared residual of one transition, each number in units of its pre-novelty residual spread."""
        residual = state_change(obs, next_obs) - transition_features(obs, [action]) @ self.weights
        return float(np.mean((residual / self.residual_scale) ** 2))

    def observe(self, obs, action, next_obs, terminated) -> None:
        error = self.prediction_error(obs, action, next_obs)
        self.errors.append(error)
        typical = float(np.median(self.errors))
        if self.adapter is None:
            if len(self.errors) < self.settings.window or typical <= self.threshold:
                return
            self.adapter = ForgettingLeastSquares(self.pretrained, self.settings.forgetting, self.settings.prior_weight)
        if error <= self.settings.outlier_factor * max(typical, self.threshold):
            self.adapter.update(transition_features(obs, [action]), state_change(obs, next_obs))
            self.weights = self.adapter.solve()

    def describe(self) -> str:
        return (f"model-based planner: linear model of the 10 state numbers, {self.settings.lookahead}-step "
                f"lookahead; detects novelty by prediction error, then re-fits the model (forgetting "
                f"{self.settings.forgetting:g} per tick)")


def collect_transitions(episodes: int, seed: int, exploration: float = 0.3, level: str = "easy",
                        max_steps: int = 200) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Novelty-0 transitions (states, actions, next states) per episode, played by the heuristic controller
    with a random action at rate `exploration` (so that every action's effect is seen)."""
    rng = np.random.default_rng(seed)
    env = state_env(0, level, max_steps)
    collected = []
    for _ in range(episodes):
        obs, _ = env.reset(seed=_episode_seed(rng))
        states, actions, nexts = [], [], []
        done = False
        while not done:
            action = int(rng.integers(N_ACTIONS)) if rng.random() < exploration else heuristic_policy(obs)
            next_obs, _, terminated, truncated, _ = env.step(action)
            states.append(obs[:STATE_SIZE])
            actions.append(action)
            nexts.append(next_obs[:STATE_SIZE])
            obs, done = next_obs, terminated or truncated
        collected.append((np.array(states, float), np.array(actions), np.array(nexts, float)))
    env.close()
    return collected


SCALE_FLOOR = 1e-3      # residual spread floor (m, m/s, rad, rad/s): the physics is almost exactly linear
FIT_OUTLIER_ERROR = 100.0  # pre-novelty transitions erring more than this (collisions) are left out of the fit


def robust_scale(residuals: np.ndarray) -> np.ndarray:
    """Per column spread of residuals: 1.4826 x median absolute deviation (the sd of a normal), floored."""
    deviation = np.median(np.abs(residuals - np.median(residuals, axis=0)), axis=0)
    return np.maximum(1.4826 * deviation, SCALE_FLOOR)


def _fit_without_collisions(states, actions, nexts) -> tuple[np.ndarray, np.ndarray]:
    """Least squares, then again without the transitions it misses badly (block collisions)."""
    features, targets = transition_features(states, actions), state_change(states, nexts)
    weights = fit_least_squares(features, targets)
    scale = robust_scale(targets - features @ weights)
    kept = np.mean(((targets - features @ weights) / scale) ** 2, axis=1) <= FIT_OUTLIER_ERROR
    weights = fit_least_squares(features[kept], targets[kept])
    return weights, robust_scale(targets[kept] - features[kept] @ weights)


def fit_planner(seed: int = 0, episodes: int = 30, settings: PlannerSettings = PlannerSettings(),
                level: str = "easy", exploration: float = 0.3) -> ModelBasedPlanner:
    """The planner's pre-novelty state: the model fitted by least squares on two thirds of the collected
    novelty-0 episodes (collisions left out); the detection threshold is a high quantile of the window
    medians of the prediction error on the held-out third, times a margin."""
    episodes = check_int("episodes", episodes, 3)
    collected = collect_transitions(episodes, seed, exploration, level)
    held_out = episodes // 3
    weights, scale = _fit_without_collisions(*(np.concatenate(part) for part in zip(*collected[held_out:])))
    planner = ModelBasedPlanner(weights, scale, np.inf, settings)
    medians = []
    for states, actions, nexts in collected[:held_out]:
        errors = [planner.prediction_error(states[i], actions[i], nexts[i]) for i in range(len(actions))]
        if len(errors) >= settings.window:
            medians.extend(np.median(np.lib.stride_tricks.sliding_window_view(errors, settings.window), axis=1))
    planner.threshold = float(np.quantile(medians, settings.threshold_quantile) * settings.threshold_margin)
    return planner


# --------------------------------------------------------------------------- references

class HeuristicAgent(Agent):
    """The environment's hand-written PD controller (tilt and tilt rate -> push along x / y)."""

    def act(self, obs: np.ndarray) -> int:
        return int(heuristic_policy(obs))

    def describe(self) -> str:
        return "heuristic: hand-written PD controller on pitch / roll, not novelty-aware"


class RandomAgent(Agent):
    """Uniformly random actions (reseeded per trial)."""

    def __init__(self):
        self.rng = np.random.default_rng(0)

    def start_trial(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, obs: np.ndarray) -> int:
        return int(self.rng.integers(N_ACTIONS))

    def describe(self) -> str:
        return "random: uniform over the 5 actions"
