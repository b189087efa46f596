"""Trained vision models in the shared model cache (:mod:`intellimetry.cache`): weights as one
safetensors file beside a JSON record, so a rebuild loads instead of retraining."""
from __future__ import annotations

import warnings
from collections.abc import Callable

from safetensors.torch import load_model, save_model
from torch import nn

from intellimetry.cache import ModelCache


def load_or_train(cache: ModelCache, key: str, build: Callable[[], nn.Module],
                  train: Callable[[nn.Module], dict]) -> tuple[nn.Module, dict]:
    """The model stored under `key` (eval mode) and its record, or `build()` trained by `train(model)`
    (which returns the record) and stored. ``record["trained_now"]`` says which happened; a run beside
    this one that needs the same model waits for it (ModelCache.claim)."""
    with cache.claim(key):
        return _load_or_train(cache, key, build, train)


def _load_or_train(cache: ModelCache, key: str, build: Callable[[], nn.Module],
                   train: Callable[[nn.Module], dict]) -> tuple[nn.Module, dict]:
    model = build()
    record = cache.load_json(key)
    weights = cache.lookup(key, ".safetensors")
    if record is not None and weights is not None and record.get("key") == key:
        try:
            load_model(model, str(weights))
            return model.eval(), {**record, "trained_now": False}
        except Exception as error:  # safetensors raises its own types for a damaged or mismatched file
            warnings.warn(f"ignoring cached model {weights} ({error}); it is retrained", RuntimeWarning, stacklevel=2)
            model = build()
    record = {**train(model), "key": key}
    # weights first: a record is only ever beside complete weights
    cache.store_file(key, ".safetensors", lambda tmp: save_model(model, str(tmp)))
    cache.store_json(key, record)
    return model.eval(), {**record, "trained_now": True}


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
