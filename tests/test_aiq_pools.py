"""AIQ policy pools on known answers: parameter counts, seeded architectures, deterministic training,
and the on-disk cache of run_pool (reuse, growth, workers, corrupt files). Tiny synthetic data only."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from intellimetry.aiq import pools
from intellimetry.aiq.pools import (
    AgentResult,
    Architecture,
    Budget,
    agent_seed,
    handicap_series,
    random_architectures,
    run_pool,
    train_agent,
)


# ------------------------------------------------------------------ synthetic data sets
@dataclass
class Toy:
    """The duck-typed data interface pools train on."""

    name: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    n_classes: int
    is_image: bool

    def fingerprint(self) -> str:
        digest = hashlib.sha256(self.name.encode())
        for a in (self.x_train, self.y_train, self.x_test, self.y_test):
            digest.update(np.ascontiguousarray(a).tobytes())
        return digest.hexdigest()


def _split(name, x, y, n_classes, is_image) -> Toy:
    half = len(x) // 2
    return Toy(name, x[:half].astype(np.float32), y[:half].astype(np.int64), x[half:].astype(np.float32),
               y[half:].astype(np.int64), n_classes, is_image)


def blobs(n=400, seed=0) -> Toy:
    """Two well separated Gaussian blobs in 4-D: any mid-size net should reach ~100 %."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x = rng.normal(0, 1, (n, 4)) + np.where(y[:, None] == 1, 3.0, -3.0) * np.array([1, 1, 0, 0])
    return _split("blobs", x, y, 2, False)


def xor(n=1200, seed=0) -> Toy:
    """XOR of the signs of two of four uniform inputs: one ReLU unit cannot separate it."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, (n, 4))
    y = ((x[:, 0] > 0) ^ (x[:, 1] > 0)).astype(int)
    return _split("xor", x, y, 2, False)


def bars(n=400, seed=0) -> Toy:
    """4-class 8×8 images: a bright row, column, diagonal or anti-diagonal in noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    images = rng.normal(0, 0.5, (n, 1, 8, 8))
    diagonal = np.eye(8, dtype=bool)
    for i, k in enumerate(y):
        p = rng.integers(1, 7)
        if k == 0:
            images[i, 0, p, :] += 2
        elif k == 1:
            images[i, 0, :, p] += 2
        else:
            images[i, 0][diagonal if k == 2 else np.fliplr(diagonal)] += 2
    return _split("bars", images, y, 4, True)


BLOBS, XOR, BARS = blobs(), xor(), bars()
BUDGET = Budget(epochs=20, batch_size=32, learning_rate=0.01)


class Counter:
    """Wraps pools.train_agent (in-process training) and records what it trained."""

    def __init__(self, monkeypatch):
        self.calls: list[tuple[Architecture, int]] = []
        real = pools.train_agent

        def counted(data, architecture, budget, seed, threads=1, control=None):
            self.calls.append((architecture, seed))
            return real(data, architecture, budget, seed, threads, control)

        monkeypatch.setattr(pools, "train_agent", counted)


def _forbid_training(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("train_agent called although the result is cached")
    monkeypatch.setattr(pools, "train_agent", refuse)


def _json_files(root):
    """The pool records under a model-cache root (they live in its aiq-pools/ namespace)."""
    folder = root / pools.POOL_CODE.namespace
    return sorted(p for p in folder.iterdir() if p.suffix == ".json" and not p.name.startswith("."))


# ------------------------------------------------------------------ architectures and sizes
def test_mlp_parameter_count_by_hand():
    assert Architecture("mlp", 1, 3).parameters((4,), 2) == 4 * 3 + 3 + 3 * 2 + 2 == 23
    assert Architecture("mlp", 2, 3).parameters((4,), 2) == 23 + 3 * 3 + 3 == 35
    # images are flattened for the mlp kind: 1·8·8 = 64 inputs
    assert Architecture("mlp", 1, 5).parameters((1, 8, 8), 4) == 64 * 5 + 5 + 5 * 4 + 4


def test_conv_parameter_count_by_hand_and_tiny_images():
    one = Architecture("conv", 1, 5, conv_channels=2)  # conv_layers defaults to 1
    assert one.conv_layers == 1
    # conv 1→2 channels (2·9 + 2 = 20); 8×8 → 3×3, so 2·3·3 = 18 features; head 18·5+5 + 5·4+4
    assert one.parameters((1, 8, 8), 4) == 20 + 95 + 24 == 139
    two = Architecture("conv", 1, 5, conv_channels=2, conv_layers=2)
    # second conv 2→2 (2·2·9 + 2 = 38), 3×3 → 1×1: 2 features; head 2·5+5 + 24
    assert two.parameters((1, 8, 8), 4) == 20 + 38 + 15 + 24 == 97
    model = two.build((1, 8, 8), 4)
    convs = [m for m in model if isinstance(m, torch.nn.Conv2d)]
    assert [c.stride for c in convs] == [(3, 3), (3, 3)] and [c.kernel_size for c in convs] == [(3, 3), (3, 3)]
    assert model(torch.zeros(5, 1, 8, 8)).shape == (5, 4)
    with pytest.raises(ValueError, match="conv_layers=3 is too many.*allowed: 1..2"):
        Architecture("conv", 1, 5, conv_channels=2, conv_layers=3).parameters((1, 8, 8), 4)
    with pytest.raises(ValueError, match="conv_layers=3 is too many"):
        Architecture("conv", 1, 5, conv_channels=2, conv_layers=3).build((1, 8, 8), 4)


@pytest.mark.parametrize("architecture, shape, n_classes", [
    (Architecture("mlp", 1, 3), (4,), 2),
    (Architecture("mlp", 3, 17), (10,), 7),
    (Architecture("mlp", 2, 1), (1, 8, 8), 4),
    (Architecture("mlp", 1, 32), (3, 5, 7), 3),
    (Architecture("conv", 1, 4, conv_channels=3), (1, 8, 8), 4),
    (Architecture("conv", 2, 9, conv_channels=5, conv_layers=2), (1, 8, 8), 4),
    (Architecture("conv", 3, 2, conv_channels=1, conv_layers=4), (1, 28, 28), 10),
    (Architecture("conv", 1, 6, conv_channels=8, conv_layers=2), (3, 9, 9), 5),
    (Architecture("conv", 1, 6, conv_channels=2, conv_layers=2), (2, 5, 7), 3),
    (Architecture("conv", 1, 3, conv_channels=4), (1, 1, 9), 2),
    (Architecture("conv", 1, 3, conv_channels=4), (1, 2, 2), 2),
    (Architecture("conv", 1, 3, conv_channels=4, conv_layers=2), (1, 4, 4), 2),
])
def test_parameter_count_equals_built_module(architecture, shape, n_classes):
    model = architecture.build(shape, n_classes)
    assert architecture.parameters(shape, n_classes) == sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert model(torch.zeros(2, *shape)).shape == (2, n_classes)


def test_random_architectures_deterministic_prefix_and_ranges():
    first = random_architectures(40, "mlp", seed=3)
    assert first == random_architectures(40, "mlp", seed=3)
    assert random_architectures(7, "mlp", seed=3) == first[:7]
    assert random_architectures(40, "mlp", seed=4) != first
    assert {a.depth for a in first} == {1, 2, 3}
    assert all(a.kind == "mlp" and 1 <= a.width <= 32 and a.conv_channels == 0 for a in first)
    assert len({a.width for a in first}) > 10  # widths really vary
    narrow = random_architectures(30, "mlp", depth=(2, 2), width=(5, 7), seed=1)
    assert {a.depth for a in narrow} == {2} and {a.width for a in narrow} == {5, 6, 7}
    conv = random_architectures(30, "conv", conv_channels=(2, 4), conv_layers=(1, 2), seed=0)
    assert conv[:5] == random_architectures(5, "conv", conv_channels=(2, 4), conv_layers=(1, 2), seed=0)
    assert {a.conv_channels for a in conv} == {2, 3, 4} and {a.conv_layers for a in conv} == {1, 2}
    assert all(a.kind == "conv" and 1 <= a.depth <= 3 and 1 <= a.width <= 32 for a in conv)
    assert random_architectures(0, "mlp") == []


def test_bad_parameters_raise_value_errors():
    with pytest.raises(ValueError, match="kind.*'rnn'.*allowed: mlp, conv"):
        Architecture("rnn", 1, 3)
    with pytest.raises(ValueError, match="kind.*allowed: mlp, conv"):
        random_architectures(3, "dense")
    with pytest.raises(ValueError, match="depth"):
        Architecture("mlp", 0, 3)
    with pytest.raises(ValueError, match="width"):
        Architecture("mlp", 1, 0)
    with pytest.raises(ValueError, match="conv_channels"):
        Architecture("mlp", 1, 3, conv_channels=4)
    with pytest.raises(ValueError, match="conv_channels"):
        Architecture("conv", 1, 3)
    with pytest.raises(ValueError, match="depth"):
        random_architectures(3, "mlp", depth=(3, 1))
    with pytest.raises(ValueError, match="width"):
        random_architectures(3, "mlp", width=(0, 4))
    with pytest.raises(ValueError, match="epochs"):
        Budget(0, 32, 0.01)
    with pytest.raises(ValueError, match="batch_size"):
        Budget(5, -1, 0.01)
    with pytest.raises(ValueError, match="learning_rate"):
        Budget(5, 32, 0.0)
    with pytest.raises(ValueError, match="learning_rate"):
        Budget(5, 32, float("nan"))
    with pytest.raises(ValueError, match="optimiser.*'rmsprop'.*allowed: adam, sgd"):
        Budget(5, 32, 0.01, "rmsprop")
    conv = Architecture("conv", 1, 3, conv_channels=2)
    with pytest.raises(ValueError, match="kind 'conv' needs image data"):
        train_agent(BLOBS, conv, BUDGET, 0)
    with pytest.raises(ValueError, match="kind 'conv' needs image data"):
        run_pool(BLOBS, [conv], BUDGET, 0, "/nonexistent-not-used", progress=False)
    with pytest.raises(ValueError, match="workers"):
        run_pool(BLOBS, [Architecture("mlp", 1, 2)], BUDGET, 0, "/nonexistent-not-used", workers=0, progress=False)
    with pytest.raises(ValueError, match="budget"):
        run_pool(BLOBS, [Architecture("mlp", 1, 2)], {"epochs": 1}, 0, "/nonexistent-not-used", progress=False)
    with pytest.raises(ValueError, match="widths"):
        handicap_series(BLOBS, 1, [4, 4], BUDGET, 0, "/nonexistent-not-used")


# ------------------------------------------------------------------ training
def test_train_agent_deterministic_and_leaves_global_state_alone():
    architecture = Architecture("mlp", 1, 2)  # small enough that accuracy depends on the seed
    torch.manual_seed(123)
    before = torch.get_rng_state()
    threads = torch.get_num_threads()
    runs = [train_agent(XOR, architecture, BUDGET, seed) for seed in (0, 0, 1, 2, 3)]
    assert torch.equal(torch.get_rng_state(), before) and torch.get_num_threads() == threads
    assert runs[0] == runs[1] and runs[0].accuracy == runs[1].accuracy
    torch.manual_seed(999)  # the caller's generator state must not matter
    assert train_agent(XOR, architecture, BUDGET, 0) == runs[0]
    # full batch: no shuffling, so only the seeded initialisation can make seeds differ
    full = [train_agent(XOR, architecture, Budget(30, 0, 0.05), seed).accuracy for seed in (0, 1, 2, 3)]
    assert len(set(full)) > 1
    assert len({r.accuracy for r in runs}) > 1  # the seed matters
    assert all(r.size == architecture.parameters((4,), 2) and r.seconds > 0 for r in runs)


def test_train_agent_separable_blobs_reach_high_accuracy():
    result = train_agent(BLOBS, Architecture("mlp", 2, 16), BUDGET, seed=0)
    assert result.accuracy >= 0.97
    full_batch = train_agent(BLOBS, Architecture("mlp", 2, 16), Budget(100, 0, 0.02), seed=0)
    assert full_batch.accuracy >= 0.97
    sgd = train_agent(BLOBS, Architecture("mlp", 2, 16), Budget(20, 32, 0.05, "sgd"), seed=0)
    assert sgd.accuracy >= 0.97
    image = train_agent(BARS, Architecture("conv", 1, 16, conv_channels=8), BUDGET, seed=0)
    assert image.accuracy >= 0.85  # chance is 0.25


def test_tiny_network_does_worse_than_wide_one_on_xor():
    tiny = np.mean([train_agent(XOR, Architecture("mlp", 1, 1), BUDGET, s).accuracy for s in (0, 1)])
    wide = np.mean([train_agent(XOR, Architecture("mlp", 1, 32), BUDGET, s).accuracy for s in (0, 1)])
    assert tiny <= 0.8 and wide >= 0.9


# ------------------------------------------------------------------ pools and the cache
def test_run_pool_second_call_trains_nothing_and_returns_identical_results(tmp_path, monkeypatch):
    architectures = random_architectures(3, "mlp", seed=0)
    counter = Counter(monkeypatch)
    first = run_pool(BLOBS, architectures, BUDGET, 7, tmp_path, progress=False)
    assert len(counter.calls) == 3 and len(_json_files(tmp_path)) == 3
    assert [r.architecture for r in first] == architectures
    assert [r.seed for r in first] == [agent_seed(7, i) for i in range(3)]
    assert max(r.accuracy for r in first) >= 0.97
    mtimes = {p: p.stat().st_mtime_ns for p in _json_files(tmp_path)}

    _forbid_training(monkeypatch)
    second = run_pool(BLOBS, architectures, BUDGET, 7, tmp_path, progress=True)
    assert [r.to_dict() for r in second] == [r.to_dict() for r in first]  # seconds included
    assert {p: p.stat().st_mtime_ns for p in _json_files(tmp_path)} == mtimes
    assert not [p for p in tmp_path.rglob(".*")]  # no temporary files left

    record = json.loads(_json_files(tmp_path)[0].read_text())
    assert {"key", "data", "architecture", "budget", "seed", "size", "accuracy", "seconds"} <= set(record)


def test_growing_the_pool_trains_only_new_agents(tmp_path, monkeypatch):
    counter = Counter(monkeypatch)
    three = run_pool(XOR, random_architectures(3, "mlp"), BUDGET, 0, tmp_path, progress=False)
    five_architectures = random_architectures(5, "mlp")
    counter.calls.clear()
    five = run_pool(XOR, five_architectures, BUDGET, 0, tmp_path, progress=False)
    assert counter.calls == [(five_architectures[i], agent_seed(0, i)) for i in (3, 4)]
    assert five[:3] == three and [r.seconds for r in five[:3]] == [r.seconds for r in three]
    assert len(_json_files(tmp_path)) == 5

    counter.calls.clear()  # anything in the key changes -> retrained
    run_pool(XOR, five_architectures[:2], Budget(21, 32, 0.01), 0, tmp_path, progress=False)
    run_pool(XOR, five_architectures[:1], BUDGET, 1, tmp_path, progress=False)
    run_pool(xor(seed=1), five_architectures[:1], BUDGET, 0, tmp_path, progress=False)
    assert len(counter.calls) == 4 and len(_json_files(tmp_path)) == 9


def test_two_workers_give_the_same_results_as_one(tmp_path):
    architectures = random_architectures(4, "conv", seed=2)
    serial = run_pool(BARS, architectures, BUDGET, 5, tmp_path / "serial", workers=1, progress=False)
    parallel = run_pool(BARS, architectures, BUDGET, 5, tmp_path / "parallel", workers=2, progress=False)
    assert parallel == serial  # equality leaves out the wall time
    assert [r.architecture for r in parallel] == architectures
    assert len(_json_files(tmp_path / "parallel")) == 4
    assert all(r.accuracy > 0.25 for r in serial)  # better than chance


UNGUARDED_SCRIPT = """
import sys
import numpy as np
from intellimetry.aiq.pools import Architecture, Budget, run_pool

class Data:
    name, n_classes, is_image = "d", 2, False
    x_train = x_test = np.eye(4, dtype=np.float32)
    y_train = y_test = np.array([0, 1, 0, 1])
    def fingerprint(self):
        return "d"

run_pool(Data(), [Architecture("mlp", 1, w) for w in (1, 2, 3)], Budget(1, 0, 0.1), 0, sys.argv[1],
         workers=2, progress=False)
"""


def test_unguarded_script_with_workers_fails_instead_of_hanging(tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED_SCRIPT)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "cache")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0
    assert "if __name__ == '__main__'" in done.stderr and "BrokenProcessPool" in done.stderr


def test_corrupt_or_foreign_cache_files_are_ignored_and_rewritten(tmp_path, monkeypatch):
    architectures = random_architectures(3, "mlp", seed=1)
    original = run_pool(BLOBS, architectures, BUDGET, 0, tmp_path, progress=False)
    files = _json_files(tmp_path)
    truncated, foreign = files[0], files[1]
    truncated.write_text(truncated.read_text()[: len(truncated.read_text()) // 2])  # a half-written file
    record = json.loads(foreign.read_text())
    foreign.write_text(json.dumps({**record, "key": "0" * 64, "accuracy": 0.123}))  # someone else's record
    counter = Counter(monkeypatch)
    with pytest.warns(RuntimeWarning, match="ignoring unreadable or mismatched pool cache file"):
        again = run_pool(BLOBS, architectures, BUDGET, 0, tmp_path, progress=False)
    assert len(counter.calls) == 2
    assert again == original
    for path in (truncated, foreign):
        rewritten = json.loads(path.read_text())
        assert rewritten["key"] == path.stem and rewritten["accuracy"] != 0.123

    _forbid_training(monkeypatch)
    assert run_pool(BLOBS, architectures, BUDGET, 0, tmp_path, progress=False) == original


def test_agent_result_round_trip_and_equality_ignores_seconds():
    result = AgentResult(Architecture("conv", 2, 3, conv_channels=4, conv_layers=2), 99, 0.5, 1.25, 17)
    assert AgentResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    assert AgentResult(result.architecture, 99, 0.5, 9.0, 17) == result
    assert AgentResult(result.architecture, 99, 0.5, 1.25, 18) != result


def test_handicap_series_removes_nodes_and_reuses_the_cache(tmp_path, monkeypatch):
    counter = Counter(monkeypatch)
    series = handicap_series(XOR, 2, [16, 4, 1], BUDGET, 0, tmp_path, progress=False)
    assert [r.architecture for r in series] == [Architecture("mlp", 2, w) for w in (16, 4, 1)]
    sizes = [r.size for r in series]
    assert sizes == [4 * 16 + 16 + 16 * 16 + 16 + 16 * 2 + 2, 4 * 4 + 4 + 4 * 4 + 4 + 4 * 2 + 2, 4 + 1 + 1 + 1 + 2 + 2]
    assert series[0].accuracy > series[-1].accuracy
    counter.calls.clear()
    longer = handicap_series(XOR, 2, [16, 8, 4, 1], BUDGET, 0, tmp_path, progress=False)
    assert counter.calls == [(Architecture("mlp", 2, 8), longer[1].seed)]  # only the new width is trained
    assert [longer[i] for i in (0, 2, 3)] == series


def test_control_scores_a_network_as_a_cartpole_controller(tmp_path):
    from intellimetry.aiq.domains import cartpole_classification

    data = cartpole_classification(episodes=6, seed=0)  # the heuristic controller balances for 200 steps
    task = pools.ControlTask(episodes=10, seed=1)
    good = pools.train_agent(data, Architecture("mlp", 1, 16), Budget(200, 0, 0.05), seed=0, control=task)
    assert good.accuracy > 0.9 and good.control > 0.9

    class PushLeft(torch.nn.Module):
        def forward(self, x):
            return torch.stack([torch.ones(len(x)), torch.zeros(len(x))], dim=1)

    assert task.score(PushLeft()) < 0.1  # always pushing one way topples the pole in about 10 steps
    cached = run_pool(data, [Architecture("mlp", 1, 16)], Budget(200, 0, 0.05), 0, tmp_path, progress=False,
                      seeds=[0], control=task)
    assert cached[0].control == good.control
    assert pools.cache_key("f", Architecture("mlp", 1, 2), Budget(1, 0, 0.1), 0, task) != \
        pools.cache_key("f", Architecture("mlp", 1, 2), Budget(1, 0, 0.1), 0)


def test_control_needs_cartpole_data():
    toy = _split("toy", np.zeros((8, 3), np.float32), np.arange(8) % 2, 2, False)
    with pytest.raises(ValueError, match="control needs CartPole data"):
        pools.train_agent(toy, Architecture("mlp", 1, 2), Budget(1, 0, 0.1), 0, control=pools.ControlTask())
    with pytest.raises(ValueError, match="episodes"):
        pools.ControlTask(episodes=0)
