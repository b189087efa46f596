"""The agents and their scores: a perfect agent scores 1, the random agent about 1/N, and a handicap
removes exactly one node from every hidden layer per step."""
from __future__ import annotations

import numpy as np
import pytest

from intellimetry.combined import rpm, training
from intellimetry.combined.agents import LARGE, SMALL, Agents
from intellimetry.combined.scoring import mixed_score


def _zero(agents: Agents) -> None:
    for array in agents.parameters():
        array[...] = 0


def _pass_through(agents: Agents, units: int) -> None:
    """Hidden layers 2-4 copy their first ``units`` units unchanged (inputs are >= 0, so ReLU keeps them)."""
    for w in agents.weights[1:-1]:
        w[0, :units, :units] = np.eye(units)


def perfect_rpm3_agent() -> Agents:
    """A hand-set network that solves every cyclic 3-RPM problem: per characteristic k it forms
    z = v(0,2) + v(2,0) - v(0,0) and outputs z mod 3 = z + 3 [z < 0] - 3 [z >= 3], built from ReLUs of z
    (z is an integer between -2 and 4)."""
    agents = Agents(SMALL, [0], [0])
    _zero(agents)
    w1, b1, out = agents.weights[0][0], agents.biases[0][0], agents.weights[-1][0]
    for k in range(3):
        z = np.zeros(24)
        z[2 * 3 + k], z[6 * 3 + k], z[0 * 3 + k] = 1, 1, -1  # cells (0,2), (2,0), (0,0) in reading order
        # units: relu(z), relu(-z), relu(-z - 1), relu(z - 2), relu(z - 3)
        for unit, (sign, shift) in enumerate([(1, 0), (-1, 0), (-1, -1), (1, -2), (1, -3)]):
            w1[:, 5 * k + unit], b1[5 * k + unit] = sign * z, shift
        out[5 * k:5 * k + 5, k] = [1, -1 + 3, -3, -3, 3]
    _pass_through(agents, 15)
    return agents


def perfect_cartpole_agent() -> Agents:
    """A hand-set network whose second output minus its first is the balancing controller
    s = theta + 0.5 theta_dot + 0.01 x + 0.1 x_dot: push right when s > 0."""
    agents = Agents(LARGE, [0], [0])
    _zero(agents)
    s = np.array([0.01, 0.1, 1.0, 0.5])
    agents.weights[0][0, :4, 0], agents.weights[0][0, :4, 1] = s, -s
    _pass_through(agents, 2)
    agents.weights[-1][0, :2, 1] = [1, -1]
    return agents


def test_a_perfect_agent_scores_one():
    problems = rpm.problem_set(3)
    assert training.rpm_scores(perfect_rpm3_agent(), problems.x, problems.y).tolist() == [1.0]
    assert training.cartpole_scores(perfect_cartpole_agent(), episodes=10, seed=3).tolist() == [1.0]
    assert rpm.score_answers(problems.y + 0.3, problems.y).mean() == 1.0  # generated answers are rounded
    assert mixed_score({"3-RPM": 1.0, "CartPole": 1.0}, {"3-RPM": 0.24, "CartPole": 0.76}) == pytest.approx(1.0)


@pytest.mark.parametrize("n", [3, 6])
def test_the_random_agent_scores_about_one_in_n(n):
    problems = rpm.problem_set(n, 1500)
    scores = training.random_rpm_scores(n, problems.y[problems.test], agents=40, seed=1)
    # 40 agents x 150 problems x n characteristics: the mean is within a few standard errors of 1/n
    assert abs(scores.mean() - 1 / n) < 4 * np.sqrt((1 / n) * (1 - 1 / n) / (40 * 150 * n))
    untrained = Agents(SMALL if n == 3 else LARGE, [0] * 5, range(5))
    assert np.all(training.rpm_scores(untrained, problems.x, problems.y) < 0.5)


def _carrying_units(agents: Agents, x: np.ndarray) -> np.ndarray:
    """Per agent and hidden layer, the units whose input varies with the network's input: (A, layers)."""
    return np.stack([(z.std(axis=1) > 0).sum(axis=1) for z in agents.hidden_preactivations(x)], axis=1)


def test_the_handicap_removes_exactly_one_node_per_hidden_layer_per_step():
    removed = list(range(16))
    agents = Agents(SMALL, removed, [5] * 16)
    x = np.random.default_rng(0).integers(0, 3, size=(200, 24))
    expected = np.repeat(16 - np.arange(16)[:, None], 4, axis=1)
    assert (_carrying_units(agents, x) == expected).all()
    assert [SMALL.hidden_widths(r) for r in (0, 1, 15)] == [(16,) * 4, (15,) * 4, (1,) * 4]
    assert [SMALL.parameter_count(r) - SMALL.parameter_count(r + 1) for r in (0, 14)] == [
        24 + 3 * (31 + 1) + 3 + 1, 24 + 3 * (3 + 1) + 3 + 1]
    # training keeps the removed units out: they receive no gradient
    problems = rpm.problem_set(3, 200)
    optimiser = training.make_optimiser(agents, 0.01)
    training.rpm_epoch(agents, optimiser, problems.x, problems.y, 32, training.agent_rngs(agents, "test"))
    assert (_carrying_units(agents, x) == expected).all()
    with pytest.raises(ValueError, match=r"removed \(nodes per hidden layer\) must be an integer >= 0 and <= 15"):
        Agents(SMALL, [16], [0])


def _torch_network(agents: Agents, agent: int):
    """The same network as agent ``agent``, in torch, for checking the hand-written gradients."""
    import torch

    layers = [(torch.tensor(w[agent], requires_grad=True), torch.tensor(b[agent], requires_grad=True))
              for w, b in zip(agents.weights, agents.biases)]
    mask = torch.tensor(agents.mask[agent])

    def forward(x):
        h = x
        for index, (w, b) in enumerate(layers):
            h = h @ w[: h.shape[-1]] + b
            if index < len(layers) - 1:
                h = torch.relu(h) * mask
        return h

    return layers, forward


@pytest.mark.parametrize("removed", [0, 5])
def test_backward_equals_torch_autograd_on_a_squared_error(removed):
    import torch

    agents = Agents(LARGE, [removed, 3], [7, 8])
    x = np.random.default_rng(0).normal(size=(5, 24)).astype(np.float32)  # padded to 48 inputs
    target = np.random.default_rng(1).normal(size=(5, 6)).astype(np.float32)
    outputs, kept = agents.forward(x, keep=True)
    ours = agents.backward(kept, 2 * (outputs - target))  # d/d(out) of the summed squared error
    layers, forward = _torch_network(agents, 0)
    ((forward(torch.tensor(x)) - torch.tensor(target)) ** 2).sum().backward()
    expected = [w.grad.numpy() for w, _ in layers] + [b.grad.numpy() for _, b in layers]
    for got, want in zip(ours, expected):
        np.testing.assert_allclose(got[0], want, rtol=1e-4, atol=1e-5)
    # agent 1 has three units removed from every hidden layer: no gradient reaches them
    assert not ours[0][1][:, 16 - 3:].any() and not ours[1][1][16 - 3:].any() and not ours[1][1][:, 16 - 3:].any()


def test_adam_steps_like_torch_adam_with_kerass_epsilon():
    import torch

    from intellimetry.combined.agents import Adam

    start = np.random.default_rng(2).normal(size=(3, 4)).astype(np.float32)
    ours, theirs = start.copy(), torch.tensor(start.copy(), requires_grad=True)
    optimiser, reference = Adam([ours], 0.01), torch.optim.Adam([theirs], lr=0.01, eps=1e-7)
    for step in range(5):
        grad = np.random.default_rng(10 + step).normal(size=(3, 4)).astype(np.float32)
        optimiser.step([grad])
        theirs.grad = torch.tensor(grad)
        reference.step()
    # torch adds epsilon to sqrt(v_hat), Keras (ours) to sqrt(v): equal up to that epsilon's scaling
    np.testing.assert_allclose(ours, theirs.detach().numpy(), rtol=1e-4, atol=1e-5)
