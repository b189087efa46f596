"""One content-addressed cache for trained models and other costly results, under .cache/models/
(or the folder that the environment variable INTELLIMETRY_MODEL_CACHE names, e.g. one cache shared
by several clones, or an empty one to time a first build).

A cached item is found by a key: the sha256 of what produced it, namely

* its own inputs (data fingerprint, architecture, budget, seed, ...), given by the caller, and
* the :class:`TrainingCode` of its namespace: an explicit version number, the source text of the
  functions and classes that define training and scoring, and the torch version.

So tidying an import or a docstring elsewhere in a module keeps every cached model, while changing
the training loop, the scoring, the version or torch retrains. Every write is atomic (a crash
leaves the old file or the new one). `make clean-cache` deletes the folder.

Notebooks run side by side (the runner's default) may need the same model: `claim(key)` holds the
item's lock while it is looked up and made, so the second notebook waits and then reuses it.
`usage()` counts the items this process found and made; save_figure records it in the sidecar.
"""
from __future__ import annotations

import hashlib
import inspect
import json
import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Iterator

from intellimetry import paths
from intellimetry.atomic import atomic_path, exclusive_lock, write_json

MODEL_CACHE_ENV = "INTELLIMETRY_MODEL_CACHE"
MODELS_DIR = Path(os.environ.get(MODEL_CACHE_ENV) or paths.CACHE_DIR / "models")

# Per item (namespace/key): whether this process's first look found it.
_first_looks: dict[str, bool] = {}


def usage() -> dict[str, int]:
    """Items this process found in the cache (hits) and did not find, so made (misses)."""
    hits = sum(_first_looks.values())
    return {"hits": hits, "misses": len(_first_looks) - hits}


def _version_of(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


@dataclass(frozen=True)
class TrainingCode:
    """What every item of one cache namespace depends on besides its own inputs."""
    namespace: str
    version: int
    definitions: tuple[Callable | type, ...]  # the functions/classes that train and score
    packages: tuple[str, ...] = ("torch",)

    def __post_init__(self):
        if not self.namespace or "/" in self.namespace or self.namespace.startswith("."):
            raise ValueError(f"cache namespace {self.namespace!r} must be a plain folder name")
        if not isinstance(self.version, int) or isinstance(self.version, bool) or self.version < 0:
            raise ValueError(f"training-code version must be an integer >= 0, got {self.version!r}")
        if not self.definitions:
            raise ValueError("name the functions or classes that define training and scoring")

    @cached_property
    def fingerprint(self) -> dict:
        sources = {f"{obj.__module__}.{obj.__qualname__}": hashlib.sha256(
            inspect.getsource(obj).encode()).hexdigest() for obj in self.definitions}
        return {"namespace": self.namespace, "version": self.version, "sources": sources,
                "packages": {name: _version_of(name) for name in self.packages}}


class ModelCache:
    """Items of one namespace in <root>/<namespace>/<key><suffix>."""

    def __init__(self, code: TrainingCode, root: Path | str | None = None):
        self.code = code
        self.folder = Path(root or MODELS_DIR) / code.namespace
        # the items' locks live outside the cache, which holds only items: in the system's temporary
        # folder, one subfolder per cache root (processes on this machine sharing a cache share them)
        root_id = hashlib.sha256(str(self.folder.parent.resolve()).encode()).hexdigest()[:16]
        self.locks = Path(tempfile.gettempdir()) / "intellimetry-locks" / root_id / code.namespace

    def key(self, **inputs: Any) -> str:
        """The content address of an item made from `inputs` (JSON-serialisable) by this code."""
        payload = {"code": self.code.fingerprint, "inputs": inputs}
        return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()

    def path(self, key: str, suffix: str = ".json") -> Path:
        return self.folder / f"{key}{suffix}"

    def _looked(self, key: str, found: bool) -> None:
        _first_looks.setdefault(f"{self.code.namespace}/{key}", found)

    @contextmanager
    def claim(self, key: str) -> Iterator[None]:
        """Hold the item's lock: wrap 'look it up, else make and store it' so that two processes
        needing one item make it once. The OS drops the lock when its holder dies. Never nest claims."""
        with exclusive_lock(self.locks / f"{key}.lock"):
            yield

    def load_json(self, key: str) -> dict | None:
        """The stored record, or None when it is missing or unreadable (then it is simply rebuilt)."""
        try:
            record = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = None
        self._looked(key, record is not None)
        return record

    def store_json(self, key: str, record: dict) -> Path:
        self._looked(key, False)  # made here (a caller may store without looking first)
        path = self.path(key)
        write_json(path, record)
        return path

    def lookup(self, key: str, suffix: str) -> Path | None:
        """The file of a stored binary item (weights, ...), or None."""
        path = self.path(key, suffix)
        self._looked(key, path.is_file())
        return path if path.is_file() else None

    def store_file(self, key: str, suffix: str, write: Callable[[Path], None]) -> Path:
        """Store a binary item: `write(tmp_path)` writes it, and it is renamed into place only after."""
        self._looked(key, False)
        path = self.path(key, suffix)
        with atomic_path(path) as tmp:
            write(tmp)
        return path
