"""Pool members trained by the cross-entropy method on their own weights (intellimetry.aiq.policy_search)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from intellimetry.aiq import policy_search as ps
from intellimetry.aiq import study
from intellimetry.aiq.policy_search import (
    CartPole2DTask,
    CEMBudget,
    GymTask,
    Networks,
    evaluate_policy,
    layer_shapes,
    load_weights,
    rl_pool,
    train_policy,
)
from intellimetry.aiq.pools import Architecture
from intellimetry.cartpole import BatchCartPole

SMALL = CEMBudget(iterations=4, population=8, episodes=2, final_episodes=4)


def zero_weights(architecture: Architecture, task) -> np.ndarray:
    return np.zeros(architecture.parameters((task.n_inputs,), task.n_actions))


def push_left_lengths(initial: np.ndarray, gravity) -> np.ndarray:
    """Episode lengths of the policy that always pushes left (what an all-zero network does: ties -> action 0)."""
    env = BatchCartPole(len(initial), 10.0, gravity)
    return env.episode_lengths(lambda s: np.zeros(len(s), dtype=np.int64), initial=initial)


# --------------------------------------------------------------------------- the forward pass

@pytest.mark.parametrize("depth, width, n_actions", [(1, 1, 2), (2, 5, 3), (3, 8, 5)])
def test_forward_pass_equals_the_torch_model_with_the_same_weights(depth, width, n_actions):
    architecture = Architecture("mlp", depth, width)
    torch.manual_seed(depth * 10 + width)
    model = architecture.build((10,), n_actions)
    flat = torch.nn.utils.parameters_to_vector(model.parameters()).detach().numpy().astype(np.float64)
    assert flat.size == architecture.parameters((10,), n_actions)
    obs = np.random.default_rng(0).normal(size=(3, 7, 10))
    networks = Networks.from_flat(np.stack([flat, 2 * flat, -flat]), layer_shapes(architecture, 10, n_actions))
    outputs = networks.outputs(obs)
    for k, scale in enumerate((1.0, 2.0, -1.0)):
        torch.nn.utils.vector_to_parameters(torch.from_numpy(scale * flat).float(), model.parameters())
        with torch.no_grad():
            expected = model(torch.from_numpy(obs[k]).float()).numpy()
        np.testing.assert_allclose(outputs[k], expected, rtol=1e-4, atol=1e-5)
        np.testing.assert_array_equal(networks.act(obs)[k], outputs[k].argmax(axis=-1))
    with pytest.raises(ValueError, match="flat weights must have shape"):
        Networks.from_flat(flat[None, :-1], layer_shapes(architecture, 10, n_actions))


def test_an_all_zero_network_always_pushes_left():
    task, architecture = CartPole2DTask(), Architecture("mlp", 2, 4)
    initial = np.random.default_rng(7).uniform(-0.05, 0.05, (30, 4))
    networks = Networks.from_flat(zero_weights(architecture, task)[None], layer_shapes(architecture, 4, 2))
    assert (networks.act(initial[None]) == 0).all()
    rng = np.random.default_rng(3)
    lengths = task.episode_lengths(networks, 30, rng)
    np.testing.assert_array_equal(lengths[0], push_left_lengths(np.random.default_rng(3).uniform(-0.05, 0.05, (30, 4)),
                                                                9.8))
    assert 5 <= lengths.mean() <= 15  # pushed one way the pole falls within a few dozen ticks


# --------------------------------------------------------------------------- training

@pytest.fixture(scope="module")
def trained():
    return train_policy(CartPole2DTask(), Architecture("mlp", 1, 8), CEMBudget(20, 32, 4), seed=0)


def test_cem_balances_cartpole_with_a_4_8_2_network(trained):
    result, weights = trained
    assert result.control >= 0.95 and result.accuracy == result.control
    assert result.size == 4 * 8 + 8 + 8 * 2 + 2 == weights.size
    assert evaluate_policy(CartPole2DTask(), Architecture("mlp", 1, 8), weights, 20, seed=5) >= 0.9


def test_training_is_deterministic_for_a_seed(trained):
    result, weights = trained
    again, again_weights = train_policy(CartPole2DTask(), Architecture("mlp", 1, 8), CEMBudget(20, 32, 4), seed=0)
    np.testing.assert_array_equal(weights, again_weights)
    assert again == result
    _, other = train_policy(CartPole2DTask(), Architecture("mlp", 1, 8), CEMBudget(20, 32, 4), seed=1)
    assert not np.array_equal(weights, other)


def test_high_gravity_is_harder_to_learn():
    architecture, budget = Architecture("mlp", 1, 4), CEMBudget(6, 16, 2, final_episodes=10)
    normal = [train_policy(CartPole2DTask(gravity=9.8), architecture, budget, s)[0].control for s in range(3)]
    heavy = [train_policy(CartPole2DTask(gravity=300.0), architecture, budget, s)[0].control for s in range(3)]
    assert np.mean(heavy) < 0.5 < np.mean(normal)


def test_an_untrained_search_scores_below_a_trained_one():
    architecture, task = Architecture("mlp", 1, 4), CartPole2DTask()
    one = [train_policy(task, architecture, CEMBudget(1, 2, 1, final_episodes=10), s)[0].control for s in range(4)]
    many = [train_policy(task, architecture, CEMBudget(10, 16, 2, final_episodes=10), s)[0].control for s in range(4)]
    assert np.mean(one) < np.mean(many)


# --------------------------------------------------------------------------- mixtures

def test_mixture_draws_each_setting_with_frequency_p():
    task = CartPole2DTask(mixture=(0.3, {"gravity": 9.8}, {"gravity": 0.0, "force_mag": 5.0}))
    force, gravity = task.episode_physics(20000, np.random.default_rng(0))
    first = gravity == 9.8
    assert abs(first.mean() - 0.3) < 0.015
    assert (force[first] == 10.0).all() and (force[~first] == 5.0).all() and (gravity[~first] == 0.0).all()
    for p, share in ((0.0, 0.0), (1.0, 1.0)):
        ends = CartPole2DTask(mixture=(p, {"gravity": 9.8}, {"gravity": 0.0}))
        assert (ends.episode_physics(100, np.random.default_rng(1))[1] == 9.8).mean() == share
    gym = GymTask("CartPole-v1", {}, inputs=4, options={"low": -0.05}, mixture=(0.7, {"high": 0.05}, {"high": 0.01}))
    options = gym.episode_options(5000, np.random.default_rng(2))
    assert abs(np.mean([o["high"] == 0.05 for o in options]) - 0.7) < 0.02
    assert all(o["low"] == -0.05 for o in options)


def test_mixed_episodes_run_with_their_own_gravity():
    """Pushing left always, each episode lasts exactly as long as in a plain run at its drawn gravity."""
    task = CartPole2DTask(mixture=(0.5, {"gravity": 9.8}, {"gravity": 0.0}))
    architecture = Architecture("mlp", 1, 2)
    networks = Networks.from_flat(zero_weights(architecture, task)[None], layer_shapes(architecture, 4, 2))
    lengths = task.episode_lengths(networks, 40, np.random.default_rng(4))[0]
    replay = np.random.default_rng(4)
    initial = replay.uniform(-0.05, 0.05, (40, 4))
    _, gravity = task.episode_physics(40, replay)
    np.testing.assert_array_equal(lengths, push_left_lengths(initial, gravity))
    assert lengths[gravity == 0.0].mean() > lengths[gravity == 9.8].mean()  # without gravity the pole falls later


def test_batch_cartpole_takes_one_setting_per_copy():
    initial = np.random.default_rng(0).uniform(-0.05, 0.05, (6, 4))
    rng_policy = np.random.default_rng(1).integers(0, 2, (200, 6))
    steps = iter(rng_policy)

    def policy(states):
        return next(steps)

    scalar = BatchCartPole(6, 7.0, 20.0).episode_lengths(policy, initial=initial)
    steps = iter(rng_policy)
    per_copy = BatchCartPole(6, np.full(6, 7.0), np.full(6, 20.0)).episode_lengths(policy, initial=initial)
    np.testing.assert_array_equal(scalar, per_copy)
    with pytest.raises(ValueError, match=r"one value per copy \(6,\)"):
        BatchCartPole(6, 10.0, np.full(5, 9.8))
    with pytest.raises(ValueError, match="gravity must be a non-negative"):
        BatchCartPole(2, 10.0, np.array([9.8, -1.0]))


# --------------------------------------------------------------------------- gymnasium path

def test_gym_task_agrees_with_the_vectorised_copy():
    """One network, 200 episodes each way: gymnasium's CartPole-v1 and the numpy copy give the same
    distribution of episode lengths (means within 3 standard errors, and a trained network reaches 200 in both)."""
    architecture, budget = Architecture("mlp", 1, 3), CEMBudget(3, 8, 2, final_episodes=4)
    _, weights = train_policy(CartPole2DTask(), architecture, budget, seed=2)
    shapes = layer_shapes(architecture, 4, 2)
    networks = Networks.from_flat(weights[None], shapes)
    vectorised = CartPole2DTask().episode_lengths(networks, 200, np.random.default_rng(0))[0]
    gym = GymTask("CartPole-v1", {}, inputs=4)
    assert (gym.n_inputs, gym.n_actions, gym.max_steps) == (4, 2, 200)
    episodic = gym.episode_lengths(networks, 200, np.random.default_rng(1))[0]
    error = np.sqrt(vectorised.var() / 200 + episodic.var() / 200)
    assert 20 < vectorised.mean() < 200  # a partly trained network: the lengths vary
    assert abs(vectorised.mean() - episodic.mean()) < 3 * error + 1
    result, _ = train_policy(gym, Architecture("mlp", 1, 8), CEMBudget(5, 16, 2, final_episodes=5), seed=0)
    assert result.control > 0.5


def test_the_same_cem_loop_trains_on_a_gym_task_deterministically():
    gym = GymTask("CartPole-v1", {}, inputs=2)  # sees position and velocity only
    first = train_policy(gym, Architecture("mlp", 1, 2), SMALL, seed=3)
    second = train_policy(gym, Architecture("mlp", 1, 2), SMALL, seed=3)
    assert first[0] == second[0] and np.array_equal(first[1], second[1])
    assert first[0].size == 2 * 2 + 2 + 2 * 2 + 2


# --------------------------------------------------------------------------- pools and cache

def test_pool_is_cached_per_agent(tmp_path, monkeypatch):
    task = CartPole2DTask(force_mag=5.0)
    architectures = [Architecture("mlp", 1, w) for w in (1, 3, 6)]
    first = rl_pool(task, architectures, SMALL, seed=0, cache_dir=tmp_path, progress=False)
    calls = []
    original = ps.train_policy
    monkeypatch.setattr(ps, "train_policy", lambda *a: calls.append(a) or original(*a))
    again = rl_pool(task, architectures, SMALL, seed=0, cache_dir=tmp_path, progress=False)
    assert again == first and calls == []
    grown = rl_pool(task, architectures + [Architecture("mlp", 2, 2)], SMALL, seed=0, cache_dir=tmp_path,
                    progress=False)
    assert grown[:3] == first and len(calls) == 1  # only the new agent trains
    weights = load_weights(task, architectures[1], SMALL, first[1].seed, cache_dir=tmp_path)
    assert weights.size == first[1].size
    assert evaluate_policy(task, architectures[1], weights, SMALL.final_episodes, 0) >= 0
    assert all(0 <= r.control <= 1 and r.accuracy == r.control for r in first)


def test_pool_results_do_not_depend_on_the_worker_count(tmp_path):
    task = CartPole2DTask(gravity=20.0)
    architectures = [Architecture("mlp", d, w) for d, w in ((1, 2), (2, 3), (1, 5))]
    serial = rl_pool(task, architectures, SMALL, seed=4, cache_dir=tmp_path / "one", progress=False)
    parallel = rl_pool(task, architectures, SMALL, seed=4, cache_dir=tmp_path / "two", workers=2, progress=False)
    assert serial == parallel


def test_rl_complexity_and_mixing_curve(tmp_path, monkeypatch):
    monkeypatch.setattr(study, "POOL_CACHE", tmp_path)
    spec = study.PoolSpec(agents=4, width=(1, 4))
    result = study.rl_complexity(CartPole2DTask(), spec, SMALL, repeats=2, progress=False)
    assert len(result.pools) == 2 and all(len(p) == 4 for p in result.pools)
    assert result.performances[0] == [a.control for a in result.pools[0]] and result.interval.estimate > 0
    mix = study.MixSpec(agents=1, depth=1, width=2, p_step=0.5)
    curve = study.rl_mixing_curve(CartPole2DTask(gravity=0.0), CartPole2DTask(gravity=50.0), mix, SMALL)
    assert curve.p.tolist() == [0.0, 0.5, 1.0] and curve.per_agent.shape == (3, 1) and curve.labels == "shared"
    assert curve.dissimilarity >= 0
    with pytest.raises(ValueError, match="without a mixture"):
        study.rl_mixing_curve(CartPole2DTask(mixture=(0.5, {}, {})), CartPole2DTask(), mix, SMALL)
    with pytest.raises(ValueError, match="pool_training: unknown mode 'dqn'; allowed: rl, imitation"):
        study.check_pool_training("dqn")


# --------------------------------------------------------------------------- validation

@pytest.mark.parametrize("kwargs, message", [
    ({"iterations": 0, "population": 8, "episodes": 1}, "iterations must be an integer >= 1"),
    ({"iterations": 2, "population": 1, "episodes": 1}, "population must be an integer >= 2"),
    ({"iterations": 2, "population": 8, "episodes": 0}, "episodes must be an integer >= 1"),
    ({"iterations": 2, "population": 8, "episodes": 1, "elite_fraction": 1.0}, "elite_fraction must be"),
    ({"iterations": 2, "population": 8, "episodes": 1, "initial_std": 0.0}, "initial_std must be"),
    ({"iterations": 2, "population": 8, "episodes": 1, "final_episodes": 0}, "final_episodes must be"),
])
def test_bad_budgets_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        CEMBudget(**kwargs)


def test_bad_tasks_and_architectures_are_refused(tmp_path):
    with pytest.raises(ValueError, match=r"mixture p must be a finite number in \[0.0, 1.0\]"):
        CartPole2DTask(mixture=(1.5, {}, {}))
    with pytest.raises(ValueError, match="options_b must be a dict with keys among force_mag, gravity"):
        CartPole2DTask(mixture=(0.5, {}, {"length": 2.0}))
    with pytest.raises(ValueError, match="mixture must be None or"):
        CartPole2DTask(mixture=0.5)
    with pytest.raises(ValueError, match="gravity must be a non-negative"):
        CartPole2DTask(mixture=(0.5, {"gravity": -1.0}, {}))
    with pytest.raises(ValueError, match=r"inputs must be at most the observation size of CartPole-v1 \(4\)"):
        GymTask("CartPole-v1", {}, inputs=5)
    conv = Architecture("conv", 1, 4, conv_channels=2)
    with pytest.raises(ValueError, match="kind 'conv' does not fit a control task.*allowed kinds: mlp"):
        train_policy(CartPole2DTask(), conv, SMALL, 0)
    with pytest.raises(ValueError, match=r"architectures\[1\]: kind 'conv'"):
        rl_pool(CartPole2DTask(), [Architecture("mlp", 1, 2), conv], SMALL, 0, cache_dir=tmp_path, progress=False)
    with pytest.raises(ValueError, match="budget must be a CEMBudget"):
        train_policy(CartPole2DTask(), Architecture("mlp", 1, 2), {"iterations": 2}, 0)
    with pytest.raises(ValueError, match="task must be a control task"):
        train_policy("CartPole", Architecture("mlp", 1, 2), SMALL, 0)
    with pytest.raises(ValueError, match="seeds must give one seed per architecture"):
        rl_pool(CartPole2DTask(), [Architecture("mlp", 1, 2)], SMALL, 0, cache_dir=tmp_path, seeds=[1, 2])


def test_gym_task_scale_changes_units_only():
    """A scale of ones plays exactly the unscaled episodes; a bad scale is refused by name."""
    from intellimetry.aiq.policy_search import GymTask, Networks, layer_shapes
    from intellimetry.aiq.pools import Architecture

    plain = GymTask("CartPole-v1", {}, inputs=4)
    ones = GymTask("CartPole-v1", {}, inputs=4, scale=(1, 1, 1, 1))
    architecture = Architecture("mlp", 1, 4)
    shapes = layer_shapes(architecture, 4, 2)
    flat = np.random.default_rng(3).normal(size=(3, architecture.parameters((4,), 2)))
    a = plain.episode_lengths(Networks.from_flat(flat, shapes), 4, np.random.default_rng(0))
    b = ones.episode_lengths(Networks.from_flat(flat, shapes), 4, np.random.default_rng(0))
    assert np.array_equal(a, b)
    assert ones.fingerprint() != plain.fingerprint()
    with pytest.raises(ValueError, match="scale"):
        GymTask("CartPole-v1", {}, inputs=4, scale=(1, 2))


def test_cartpole3d_task_fingerprint_follows_the_environment_sources_only():
    """The cached networks depend on the environment's module and what it imports, not on agents or
    study code that live beside it in the package."""
    import sys

    from intellimetry.aiq.cartpole3d.study import novelty_task

    novelty_task(1)  # imports and registers the environment
    names = {p.name for p in ps._own_sources(sys.modules["intellimetry.aiq.cartpole3d.env"])}
    assert {"env.py", "novelties.py"} <= names
    assert not {"study.py", "agents.py", "apti.py", "claims.py"} & names
