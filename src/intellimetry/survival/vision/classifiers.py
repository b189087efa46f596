"""Image classification with 100 classes (the stand-in for ImageNet-1K in the paper's Figure 3): a
family of convolutional networks of growing width, all trained by one recipe, scored on held-out
images; failures = classes scored strictly above the true one (0 to 99).

Caching: every member lives in the shared model cache (namespace ``survival-vision-classifiers``),
keyed by the recipe's training fields (not its list of widths, so adding a width keeps the others),
its own width and :data:`CLASSIFIER_CODE`; a rebuild loads, a change to the recipe retrains.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import torch
from torch import nn

from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.checks import check_float, check_int
from intellimetry.survival.digits import score, train_classifier
from intellimetry.survival.failure_counts import failure_counts
from intellimetry.survival.vision.data import N_CLASSES, ShapeSet
from intellimetry.survival.vision.store import load_or_train, parameter_count

POOLINGS = 3  # each convolution block halves the image


def shape_cnn(width: int, n_outputs: int, image_size: int) -> nn.Module:
    """Three 3×3 convolution blocks (width, 2·width, 4·width channels, each ReLU and 2×2 max-pool), then
    one linear layer from the flattened features to `n_outputs` (class scores or an embedding)."""
    check_int("width", width, 1)
    side = image_size // 2**POOLINGS
    if side < 1:
        raise ValueError(f"image_size must be at least {2**POOLINGS} for {POOLINGS} poolings, got {image_size}")
    blocks, channels = [], 1
    for out in (width, 2 * width, 4 * width):
        blocks += [nn.Conv2d(channels, out, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
        channels = out
    return nn.Sequential(*blocks, nn.Flatten(), nn.Linear(channels * side * side, n_outputs))


@dataclass(frozen=True)
class ClassifierRecipe:
    """How every member is trained; only ``widths`` differs between members."""
    data: ShapeSet
    widths: tuple[int, ...]
    epochs: int
    batch_size: int
    learning_rate: float
    seed: int

    def __post_init__(self):
        if not isinstance(self.data, ShapeSet):
            raise ValueError(f"data must be a ShapeSet, got {type(self.data).__name__}")
        if len(self.widths) < 2 or len(set(self.widths)) != len(self.widths):
            raise ValueError(f"widths must list at least two different widths, got {self.widths!r}")
        for width in self.widths:
            check_int("width", width, 1)
        check_int("epochs", self.epochs, 1)
        check_int("batch_size", self.batch_size, 1)
        check_float("learning_rate", self.learning_rate, 0.0, low_open=True)
        check_int("seed", self.seed, 0)

    def training_fields(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "widths"}

    def to_dict(self) -> dict:
        return asdict(self)


def member_name(width: int) -> str:
    return f"cnn-w{width}"


def train_member(model: nn.Module, train: tuple, recipe: ClassifierRecipe, seed: int) -> dict:
    """Train one member in place (Adam, cross-entropy, shuffled mini-batches); its training record."""
    started = time.perf_counter()
    with torch.random.fork_rng(devices=[]):
        train_classifier(model, *train, recipe.epochs, lr=recipe.learning_rate, batch_size=recipe.batch_size,
                         seed=seed)
    return {"train_seconds": time.perf_counter() - started, "epochs": recipe.epochs,
            "torch_threads": torch.get_num_threads()}


def initial_classifier(width: int, image_size: int, seed: int) -> nn.Module:
    """A freshly initialised member; the caller's global torch generator is left as it was."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return shape_cnn(width, N_CLASSES, image_size)


def classification_failures(model: nn.Module, images, labels) -> np.ndarray:
    """Per image: how many classes the model scores strictly above the true one (the shared engine)."""
    return failure_counts(score(model, images), labels)


# What every cached member depends on besides its own inputs (see intellimetry.cache).
CLASSIFIER_CODE = TrainingCode("survival-vision-classifiers", 1, definitions=(
    ShapeSet, shape_cnn, ClassifierRecipe, train_member, initial_classifier, train_classifier, score))


def train_family(recipe: ClassifierRecipe, cache_root: Path | str | None = None) -> dict[str, dict]:
    """Per member (in width order): its failure counts on the test images, test accuracy, parameter
    count and training record (``trained_now`` False when it came from the cache)."""
    cache = ModelCache(CLASSIFIER_CODE, cache_root)
    data = recipe.data.generate()
    test_x, test_y = data["test"]
    members = {}
    for width in recipe.widths:
        seed = recipe.seed * 1000 + width  # from the width, not its position in the list
        key = cache.key(item="classifier", recipe=recipe.training_fields(), width=width, data=data["fingerprint"])
        model, record = load_or_train(cache, key, lambda w=width, s=seed: initial_classifier(
            w, recipe.data.image_size, s), lambda m, s=seed: train_member(m, data["train"], recipe, s))
        failures = classification_failures(model, test_x, test_y)
        members[member_name(width)] = {"failures": failures, "accuracy": float(np.mean(failures == 0)),
                                       "params": parameter_count(model), "width": width, "record": record}
    return members
