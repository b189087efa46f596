"""CartPole3D agents and APTI: the formula by hand, the novelty monitor, the planner's least squares and its
re-estimation, the DQN's shapes, learning and cache, and reproducible trials."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from intellimetry.aiq.cartpole3d import agents as agents_module
from intellimetry.aiq.cartpole3d.agents import (
    N_ACTIONS,
    DQNLearner,
    DQNSettings,
    ForgettingLeastSquares,
    HeuristicAgent,
    ModelBasedPlanner,
    PerformanceMonitor,
    QNetwork,
    RandomAgent,
    RetrainingAgent,
    RetrainSettings,
    baseline_dqn,
    boltzmann_action,
    evaluate_agent,
    fit_least_squares,
    fit_planner,
    transition_features,
)
from intellimetry.aiq.cartpole3d.apti import TrialSettings, apti, run_apti, run_trial

# ---------------------------------------------------------------- APTI


def test_apti_by_hand():
    assert apti(0.6, 0.6) == 0.5          # equal to the baseline
    assert apti(0.0, 0.7) == 0.0          # the agent scores 0
    assert apti(0.5, 0.0) == 1.0          # the baseline scores 0
    assert apti(0.3, 0.1) == pytest.approx(0.75)
    assert apti(0.0, 0.0) == 0.5          # a tie at zero
    values = [apti(a, b) for a in np.linspace(0, 1, 6) for b in np.linspace(0, 1, 6)]
    assert min(values) >= 0.0 and max(values) <= 1.0


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_apti_refuses_performance_outside_0_1(bad):
    with pytest.raises(ValueError, match="p_agent"):
        apti(bad, 0.5)


# ---------------------------------------------------------------- the performance monitor


def test_monitor_fires_on_a_drop_at_the_hand_computed_episode():
    monitor = PerformanceMonitor(reference_episodes=4, window=3, drop=0.2)
    fired = [monitor.record(p) for p in [0.9, 0.8, 0.9, 0.8] + [0.85, 0.3, 0.3, 0.3, 0.3]]
    # reference 0.85; windows after it: (0.85, 0.3, 0.3) mean 0.483 < 0.65 at the 7th episode (index 6)
    assert monitor.reference == pytest.approx(0.85)
    assert fired == [False] * 6 + [True, False, False]
    assert monitor.fired_at == 6


def test_monitor_stays_quiet_on_noise_of_the_pre_novelty_level():
    rng = np.random.default_rng(3)
    monitor = PerformanceMonitor(reference_episodes=5, window=3, drop=0.2)
    noise = np.clip(0.8 + rng.uniform(-0.1, 0.1, 200), 0, 1)  # window means stay within 0.1 of the level
    assert not any(monitor.record(p) for p in noise)
    assert monitor.fired_at is None


# ---------------------------------------------------------------- the planner's model


def test_least_squares_recovers_a_known_linear_system_exactly():
    rng = np.random.default_rng(0)
    true_weights = rng.normal(size=(10 + N_ACTIONS, 10))
    states, actions = rng.normal(size=(200, 10)), rng.integers(0, N_ACTIONS, 200)
    features = transition_features(states, actions)
    fitted = fit_least_squares(features, features @ true_weights, ridge=0.0)
    np.testing.assert_allclose(fitted, true_weights, atol=1e-10)


def test_re_estimation_tracks_a_changed_parameter():
    rng = np.random.default_rng(1)
    before = rng.normal(size=(10 + N_ACTIONS, 10))
    after = before.copy()
    after[10 + 2, 0] += 0.5  # the push of action 2 now moves x by 0.5 more per tick (a changed force)
    adapter = ForgettingLeastSquares(before, forgetting=0.98, prior_weight=0.01)
    for _ in range(400):
        features = transition_features(rng.normal(size=10), [rng.integers(N_ACTIONS)])
        adapter.update(features, features @ after)
    np.testing.assert_allclose(adapter.solve(), after, atol=2e-3)
    # with nothing observed the prior is kept
    np.testing.assert_allclose(ForgettingLeastSquares(before).solve(), before)


def test_planner_detects_a_changed_system_and_adapts_its_model():
    rng = np.random.default_rng(2)
    weights = np.zeros((10 + N_ACTIONS, 10))
    weights[10 + 2, 2], weights[10 + 1, 2] = 0.2, -0.2  # pushes change vx by +-0.2
    planner = ModelBasedPlanner(weights, residual_scale=np.full(10, 0.01), threshold=2.0)
    planner.start_trial(0)
    state = np.zeros(10)
    for _ in range(50):  # the modelled world: no error, no detection
        a = int(rng.integers(N_ACTIONS))
        planner.observe(state, a, planner.predict(state, [a])[0], False)
    assert not planner.detected
    changed = weights.copy()
    changed[10:, 3] = 0.05  # a steady drift of vy (wind), unknown to the model
    for _ in range(300):
        a = int(rng.integers(N_ACTIONS))
        state = rng.normal(scale=0.1, size=10)
        planner.observe(state, a, state + transition_features(state, [a])[0] @ changed, False)
    assert planner.detected
    np.testing.assert_allclose(planner.weights[10:, 3], 0.05, atol=5e-3)


# ---------------------------------------------------------------- the DQN


def test_q_network_shapes_are_the_papers():
    network = QNetwork()
    linear = [m for m in network.layers if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in linear] == [(10, 512), (512, 512), (512, 5)]
    assert network.values(np.zeros(26, np.float32)).shape == (5,)  # block numbers beyond obs[:10] ignored


def test_boltzmann_exploration_follows_the_softmax():
    rng = np.random.default_rng(0)
    values = np.array([0.0, 1.0, 0.0, 0.0, 0.0])
    draws = np.bincount([boltzmann_action(values, 1.0, rng) for _ in range(4000)], minlength=5) / 4000
    expected = np.exp(values) / np.exp(values).sum()
    np.testing.assert_allclose(draws, expected, atol=0.03)
    assert all(boltzmann_action(values, 1e-3, rng) == 1 for _ in range(20))  # cold: greedy


def test_dqn_learns_a_two_step_task_by_bootstrapping():
    """From s0 action 2 leads (reward 0) to s1, where action 3 earns 1; every other move ends the episode
    with 0. Optimal values: Q(s0, 2) = gamma, Q(s1, 3) = 1, all others 0; greedy play then scores 1 where a
    random agent scores 1/25 on average."""
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    gamma = 0.9
    s0, s1 = np.eye(10)[0], np.eye(10)[1]
    learner = DQNLearner(QNetwork(hidden=32), learning_rate=5e-3, gamma=gamma, batch_size=64, buffer_size=1000,
                         target_update=25)
    for _ in range(500):
        action = int(rng.integers(N_ACTIONS))
        learner.buffer.add(s0, action, 0.0, s1 if action == 2 else s0, action != 2)
        action = int(rng.integers(N_ACTIONS))
        learner.buffer.add(s1, action, float(action == 3), s0, True)
    for _ in range(300):
        learner.learn(rng)
    q0, q1 = learner.network.values(s0.astype(np.float32)), learner.network.values(s1.astype(np.float32))
    np.testing.assert_allclose(q1, [0, 0, 0, 1, 0], atol=0.1)
    np.testing.assert_allclose(q0, [0, 0, gamma, 0, 0], atol=0.1)
    assert (int(np.argmax(q0)), int(np.argmax(q1))) == (2, 3)


def test_dqn_settings_refuse_bad_values():
    with pytest.raises(ValueError, match="level"):
        DQNSettings(level="extreme")
    with pytest.raises(ValueError, match="steps"):
        DQNSettings(steps=0)


TINY = DQNSettings(steps=300, hidden=8, batch_size=16, learning_starts=64, target_update=50, eval_episodes=2,
                   max_steps=50)


def test_baseline_is_cached_and_reloaded_without_training(tmp_path, monkeypatch):
    first = baseline_dqn(TINY, seed=3, cache_dir=tmp_path, progress=False)
    assert not first.from_cache and 0 < first.performance <= 1
    monkeypatch.setattr(agents_module, "train_dqn", lambda *a, **k: pytest.fail("retrained a cached baseline"))
    again = baseline_dqn(TINY, seed=3, cache_dir=tmp_path, progress=False)
    assert again.from_cache and again.performance == first.performance
    for name, tensor in first.network.state_dict().items():
        assert torch.equal(tensor, again.network.state_dict()[name]), name


def test_dqn_training_is_deterministic_given_the_seed(tmp_path):
    a, _ = agents_module.train_dqn(TINY, seed=5, progress=False)
    b, _ = agents_module.train_dqn(TINY, seed=5, progress=False)
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))


# ---------------------------------------------------------------- agents in the real environment


@pytest.fixture(scope="module")
def planner() -> ModelBasedPlanner:
    return fit_planner(seed=0, episodes=9)


def test_planner_balances_like_the_heuristic_and_far_better_than_random(planner):
    mine = evaluate_agent(planner, episodes=4, seed=1, max_steps=100)
    assert mine >= 0.9 * evaluate_agent(HeuristicAgent(), episodes=4, seed=1, max_steps=100)
    assert mine > 2 * evaluate_agent(RandomAgent(), episodes=4, seed=1, max_steps=100)


def test_planner_detects_wind_in_the_first_novel_episode_and_nothing_before(planner):
    result = run_trial(planner, 14, "easy", seed=4, settings=TrialSettings(2, 1, 1, max_steps=100))
    assert result.detected_episode == 2  # the first episode with wind (episodes 0, 1 have none)


def test_trials_are_reproducible_and_the_baseline_scores_one_half(planner):
    settings = TrialSettings(1, 2, 1, max_steps=60)
    agents = {"planner": planner, "random": RandomAgent()}
    first = run_apti(agents, HeuristicAgent(), [14], trials=2, settings=settings, seed=1, progress=False)
    again = run_apti(agents, HeuristicAgent(), [14], trials=2, settings=settings, seed=1, progress=False)
    strip = [{k: v for k, v in r.to_dict().items() if k != "seconds"} for r in first]
    assert strip == [{k: v for k, v in r.to_dict().items() if k != "seconds"} for r in again]
    baseline, _, random_agent = first
    assert baseline.agent == "baseline" and baseline.apti == (0.5, 0.5)
    for score, mine, theirs in zip(random_agent.apti, random_agent.performance, random_agent.baseline_performance):
        assert score == pytest.approx(mine / (mine + theirs))


def test_a_trial_starts_every_agent_from_its_pretrained_state(planner):
    run_trial(planner, 14, "easy", seed=4, settings=TrialSettings(1, 1, 1, max_steps=60))
    assert not planner.detected and np.array_equal(planner.weights, planner.pretrained)  # the original untouched


def test_retraining_agent_starts_learning_only_after_its_monitor_fires():
    torch.manual_seed(0)
    trained = agents_module.TrainedDQN(QNetwork(hidden=8), TINY, 0, 0.5, 0.0, False)
    agent = RetrainingAgent(trained, RetrainSettings(reference_episodes=2, window=1, drop=0.2, learning_starts=16))
    agent.start_trial(0)
    obs = np.zeros(10, np.float32)
    for ticks in (50, 50, 45):  # performance 1.0, 1.0, 0.9: no drop
        agent.end_episode(ticks)
    assert not agent.detected and agent.learner is None
    before = [p.clone() for p in agent.network.parameters()]
    agent.end_episode(10)  # 0.2 < 1.0 - 0.2
    assert agent.detected
    for _ in range(40):
        agent.observe(obs, agent.act(obs), obs, False)
    assert any(not torch.equal(a, b) for a, b in zip(before, agent.network.parameters()))
    assert all(torch.equal(a, b) for a, b in zip(before, agent.pretrained.parameters()))  # pre-trained kept
