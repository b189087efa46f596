"""The generated shape images of the vision figure (shared generator: :func:`intellimetry.images.make_shapes`)."""
from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass

import numpy as np

from intellimetry.checks import check_float, check_int
from intellimetry.images import SHAPE_OFFSET, SHAPE_RADIUS, make_shapes

N_CLASSES = 100  # class = 10 * shape + texture


@dataclass(frozen=True)
class ShapeSet:
    """One seeded draw of 100-class textured shapes, split into training and test images."""
    n_train: int
    n_test: int
    image_size: int
    seed: int
    offset: float = SHAPE_OFFSET              # largest centre offset, fraction of the image size
    radius_range: tuple[float, float] = SHAPE_RADIUS

    def __post_init__(self):
        check_int("n_train", self.n_train, N_CLASSES)
        check_int("n_test", self.n_test, 2)
        check_int("image_size", self.image_size, 8)
        check_int("seed", self.seed, 0)
        check_float("offset", self.offset, 0.0, 0.5)
        if len(self.radius_range) != 2:
            raise ValueError(f"radius_range must be (low, high), got {self.radius_range!r}")
        object.__setattr__(self, "radius_range", tuple(float(r) for r in self.radius_range))

    def to_dict(self) -> dict:
        return asdict(self)

    def generate(self) -> dict:
        """{"train": (x, y), "test": (x, y), "params": per-image generation parameters (train then test),
        "fingerprint": sha256 of the images and labels (a changed generator changes it, so models retrain)}.

        The first n_train images (in the generator's shuffled order) train, the next n_test test."""
        x, y, params = make_shapes(N_CLASSES, self.n_train + self.n_test, self.image_size, self.seed,
                                   offset=self.offset, radius_range=self.radius_range, with_params=True)
        n, end = self.n_train, self.n_train + self.n_test  # make_shapes rounds up to whole classes
        return {"train": (x[:n], y[:n]), "test": (x[n:end], y[n:end]),
                "params": {name: np.asarray(values)[:end] for name, values in params.items()},
                "fingerprint": hashlib.sha256(x[:end].tobytes() + y[:end].tobytes()).hexdigest()}
