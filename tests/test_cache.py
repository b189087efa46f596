"""The shared model cache: what its keys depend on (and what they do not), atomic writes, bad input."""
from __future__ import annotations

import importlib
import sys

import pytest

from intellimetry.cache import ModelCache, TrainingCode

TRAINING_MODULE = '''{imports}

def train(x):
    return {body}
'''


def load_module(tmp_path, monkeypatch, name, imports="import math", body="x + 1"):
    (tmp_path / f"{name}.py").write_text(TRAINING_MODULE.format(imports=imports, body=body))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(name, None)
    importlib.invalidate_caches()
    return importlib.import_module(name)


def key_of(module, version=1, **inputs):
    return ModelCache(TrainingCode("test", version, (module.train,))).key(**(inputs or {"seed": 0}))


def test_tidying_a_module_keeps_the_key_and_changing_training_changes_it(tmp_path, monkeypatch):
    original = key_of(load_module(tmp_path, monkeypatch, "trainer"))
    tidied = key_of(load_module(tmp_path, monkeypatch, "trainer", imports="import math  # tidied\nimport os"))
    assert tidied == original
    changed = key_of(load_module(tmp_path, monkeypatch, "trainer", body="x + 2"))
    assert changed != original


def test_the_key_depends_on_inputs_version_and_torch_but_not_their_order(tmp_path, monkeypatch):
    module = load_module(tmp_path, monkeypatch, "trainer2")
    assert key_of(module, seed=0, width=3) == key_of(module, width=3, seed=0)
    assert key_of(module, seed=0, width=3) != key_of(module, seed=1, width=3)
    assert key_of(module, 1) != key_of(module, 2)
    code = TrainingCode("test", 1, (module.train,))
    assert "torch" in code.fingerprint["packages"]
    other_torch = TrainingCode("test", 1, (module.train,))
    other_torch.fingerprint["packages"]["torch"] = "0.0.1"  # as if another torch were installed
    assert ModelCache(other_torch).key(seed=0) != ModelCache(code).key(seed=0)


def test_records_and_files_are_written_atomically_and_read_back(tmp_path):
    cache = ModelCache(TrainingCode("models", 0, (key_of,)), tmp_path)
    key = cache.key(seed=3)
    assert cache.load_json(key) is None and cache.lookup(key, ".pt") is None
    cache.store_json(key, {"accuracy": 0.5})
    assert cache.load_json(key) == {"accuracy": 0.5}
    assert cache.path(key).parent == tmp_path / "models"
    cache.path(key).write_text('{"accura')  # half a file, as from an old crash
    assert cache.load_json(key) is None

    def crash(path):
        path.write_bytes(b"half")
        raise RuntimeError("killed while writing")

    with pytest.raises(RuntimeError):
        cache.store_file(key, ".pt", crash)
    assert cache.lookup(key, ".pt") is None and not list((tmp_path / "models").glob(".*"))
    cache.store_file(key, ".pt", lambda path: path.write_bytes(b"weights"))
    assert cache.lookup(key, ".pt").read_bytes() == b"weights"


@pytest.mark.parametrize("namespace, version, definitions, message", [
    ("", 1, (key_of,), "plain folder name"),
    ("a/b", 1, (key_of,), "plain folder name"),
    ("ok", -1, (key_of,), "integer >= 0"),
    ("ok", True, (key_of,), "integer >= 0"),
    ("ok", 1, (), "define training and scoring"),
])
def test_bad_training_code_is_refused_with_the_reason(namespace, version, definitions, message):
    with pytest.raises(ValueError, match=message):
        TrainingCode(namespace, version, definitions)
