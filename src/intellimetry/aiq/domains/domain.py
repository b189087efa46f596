"""The Domain: train/test inputs and labels with their provenance, and the checks the domains share."""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, eq=False)
class Domain:
    """A classification domain: train/test inputs and labels, with honest provenance.

    Inputs are float32: images ``(n, 1, h, w)`` in [0, 1], vectors ``(n, d)``; labels int64 in
    ``0..n_classes-1``.  The arrays are stored as read-only views.  Equality is identity; compare
    :meth:`fingerprint` to compare contents.
    """

    name: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    n_classes: int
    source: str
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError("a domain needs a non-empty name")
        if int(self.n_classes) < 1:
            raise ValueError(f"n_classes must be at least 1, got {self.n_classes}")
        object.__setattr__(self, "n_classes", int(self.n_classes))
        shapes = []
        for part in ("train", "test"):
            x = _read_only(np.asarray(getattr(self, f"x_{part}"), dtype=np.float32))
            y = np.asarray(getattr(self, f"y_{part}"))
            if y.ndim != 1 or (y.size and not np.issubdtype(y.dtype, np.integer)):
                raise ValueError(f"y_{part} must be a 1-D integer array")
            y = _read_only(y.astype(np.int64, copy=False))
            if x.ndim not in (2, 4) or (x.ndim == 4 and x.shape[1] != 1) or len(x) != len(y):
                raise ValueError(f"x_{part} must be (n, d) or (n, 1, h, w) with n = len(y_{part}); "
                                 f"got {x.shape} and {y.shape}")
            if y.size and (y.min() < 0 or y.max() >= self.n_classes):
                raise ValueError(f"y_{part} must lie in 0..{self.n_classes - 1}")
            if x.ndim == 4 and x.size and (x.min() < 0 or x.max() > 1):
                raise ValueError(f"image pixels of x_{part} must lie in [0, 1]")
            if not np.isfinite(x).all():
                raise ValueError(f"x_{part} must be finite")
            object.__setattr__(self, f"x_{part}", x)
            object.__setattr__(self, f"y_{part}", y)
            shapes.append(x.shape[1:])
        if shapes[0] != shapes[1]:
            raise ValueError(f"train and test inputs differ in shape: {shapes[0]} vs {shapes[1]}")

    def __setstate__(self, state: dict) -> None:  # unpickled arrays stay read-only
        self.__dict__.update(state)
        for part in ("x_train", "y_train", "x_test", "y_test"):
            object.__setattr__(self, part, _read_only(np.asarray(state[part])))

    @property
    def is_image(self) -> bool:
        return self.x_train.ndim == 4

    @property
    def input_shape(self) -> tuple[int, ...]:
        """Shape of one input: ``(1, h, w)`` or ``(d,)``."""
        return tuple(self.x_train.shape[1:])

    def fingerprint(self) -> str:
        """sha256 of the name, n_classes, and the shape and bytes of the four arrays (cached)."""
        if "fingerprint" not in self._cache:
            h = hashlib.sha256()
            h.update(f"{self.name}\0{self.n_classes}\0".encode())
            for array in (self.x_train, self.y_train, self.x_test, self.y_test):
                h.update(f"{array.dtype.str}{array.shape}\0".encode())
                h.update(np.ascontiguousarray(array).tobytes())
            self._cache["fingerprint"] = h.hexdigest()
        return self._cache["fingerprint"]

    def __repr__(self) -> str:
        return (f"Domain({self.name!r}, train={len(self.y_train)}, test={len(self.y_test)}, "
                f"input={self.input_shape}, n_classes={self.n_classes})")


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.setflags(write=False)
    return view


def _split(x: np.ndarray, y: np.ndarray, seed: int, test_fraction: float):
    """Stratified, seeded train/test split (scikit-learn's train_test_split)."""
    from sklearn.model_selection import train_test_split

    n, k = len(y), len(np.unique(y))
    n_test = math.ceil(test_fraction * n)
    if n_test < k or n - n_test < k:
        raise ValueError(f"a stratified split of {n} samples in {k} classes needs at least {k} samples on each "
                         f"side (test_fraction {test_fraction:g} gives {n_test} test); use more images")
    return train_test_split(x, y, test_size=test_fraction, random_state=seed, stratify=y)


def _check_fraction(test_fraction: float) -> float:
    if not 0 < float(test_fraction) < 1:
        raise ValueError(f"test_fraction must lie strictly between 0 and 1, got {test_fraction}")
    return float(test_fraction)
