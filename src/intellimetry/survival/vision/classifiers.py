"""Image classification with 100 classes (the stand-in for ImageNet-1K in the paper's Figure 3): a
family of convolutional networks of growing width, all trained by one recipe, scored on held-out
images; failures = classes scored strictly above the true one (0 to 99).

The recipe scales Adam's learning rate with width as muP does (Yang et al. 2021, "Tuning Large Neural
Networks via Zero-Shot Hyperparameter Transfer", its rule for Adam): every weight whose
fan-in grows with width (the second and third convolutions and the output layer) learns at
``learning_rate * base fan-in / fan-in``, the first convolution and all biases at ``learning_rate``.
Adam moves each weight by about the learning rate whatever its gradient's size, so one learning rate
for every width moves a layer's outputs in proportion to its fan-in: at the full profile's widths 32
and 64 the first steps drove most ReLUs dead and the networks stayed at chance. (Initialisation stays
PyTorch's default; muP's smaller output initialisation is not used.)

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
from intellimetry.survival.digits import score
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
    """How every member is trained; only ``widths`` differs between members. ``learning_rate`` is the
    learning rate at ``base_width``; a member of another width scales it per layer (module docstring)."""
    data: ShapeSet
    widths: tuple[int, ...]
    epochs: int
    batch_size: int
    learning_rate: float
    seed: int
    base_width: int

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
        check_int("base_width", self.base_width, 1)

    def training_fields(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "widths"}

    def to_dict(self) -> dict:
        return asdict(self)


def member_name(width: int) -> str:
    return f"cnn-w{width}"


def fan_in(weight: torch.Tensor) -> int:
    """Inputs feeding one output unit: in_features of a linear layer, in_channels × kernel of a convolution."""
    return int(weight[0].numel())


def width_scaled_groups(model: nn.Module, base: nn.Module, learning_rate: float) -> list[dict]:
    """Adam parameter groups of `model` scaled against `base`, the same architecture at the base width:
    each weight (two or more dimensions) at ``learning_rate * fan_in(base's) / fan_in(model's)``, each
    bias at ``learning_rate``. A layer whose fan-in does not change with width keeps ``learning_rate``."""
    named, base_named = dict(model.named_parameters()), dict(base.named_parameters())
    if named.keys() != base_named.keys():
        raise ValueError("model and base must be the same architecture (the same parameter names)")
    groups = []
    for name, param in named.items():
        scale = fan_in(base_named[name]) / fan_in(param) if param.dim() >= 2 else 1.0
        groups.append({"params": [param], "lr": learning_rate * scale, "name": name})
    return groups


def train_width_scaled(model: nn.Module, base: nn.Module, images, labels, recipe: ClassifierRecipe,
                       seed: int) -> nn.Module:
    """Train in place with Adam (width-scaled groups) and cross-entropy on shuffled mini-batches; the
    same seed gives the same weights (own generator: the batch order ignores the global one)."""
    x, y = torch.as_tensor(images, dtype=torch.float32), torch.as_tensor(labels, dtype=torch.int64)
    optimiser = torch.optim.Adam(width_scaled_groups(model, base, recipe.learning_rate))
    generator = torch.Generator().manual_seed(seed)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for _ in range(recipe.epochs):
        for batch in torch.randperm(len(x), generator=generator).split(recipe.batch_size):
            optimiser.zero_grad()
            loss_fn(model(x[batch]), y[batch]).backward()
            optimiser.step()
    return model


def train_member(model: nn.Module, train: tuple, recipe: ClassifierRecipe, seed: int) -> dict:
    """Train one member in place (the width-scaled recipe); its training record."""
    started = time.perf_counter()
    with torch.random.fork_rng(devices=[]):  # the caller's generator is left as it was
        base = shape_cnn(recipe.base_width, N_CLASSES, recipe.data.image_size)  # only its shapes are read
        train_width_scaled(model, base, *train, recipe, seed)
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
CLASSIFIER_CODE = TrainingCode("survival-vision-classifiers", 2, definitions=(
    ShapeSet, shape_cnn, ClassifierRecipe, fan_in, width_scaled_groups, train_width_scaled, train_member,
    initial_classifier, score))


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
