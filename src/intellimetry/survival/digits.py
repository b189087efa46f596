"""Class scores of digit classifiers (linear, MLP, CNN) for the failure counts of Zhan et al. (2025), Figure 2.

Offline the data are scikit-learn's 8x8 handwritten digits, scored out-of-fold so every image is one test event,
and MNIST-1D (Greydanus & Kobak, 2020), a harder digit benchmark of one-dimensional signals that the `mnist1d`
package generates on this machine; at paper scale they are MNIST-format IDX files (MNIST, Fashion-MNIST) with
their own train/test split.
"""
from __future__ import annotations

import gzip
import random
from pathlib import Path

import numpy as np
import torch
from sklearn.model_selection import StratifiedKFold
from torch import nn

from intellimetry.checks import check_choice
from intellimetry.images import digit_images

MODEL_KINDS = ("linear", "mlp", "cnn")
IDX_FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
             "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}
IMAGE_MAGIC, LABEL_MAGIC = 2051, 2049
SCORE_BATCH = 1024  # bounds memory when scoring 10,000 MNIST images with the CNN


def load_digits_dataset() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's 1,797 handwritten digits as (N, 1, 8, 8) float32 in [0, 1] and int64 labels."""
    return digit_images()


def load_mnist1d_dataset(seed: int = 42) -> dict:
    """MNIST-1D made by the `mnist1d` package's own generator (its default arguments: 5,000 signals of
    length 40, the first 4,000 for training), as (N, 1, 1, 40) float32 signals and int64 labels.

    The package would download its frozen copy; nothing is downloaded here. Its generator seeds numpy's and
    Python's global random state, so both are restored afterwards (the caller's draws are unaffected).
    """
    from mnist1d.data import get_dataset_args, make_dataset

    args = get_dataset_args()
    args.seed = seed
    numpy_state, python_state = np.random.get_state(), random.getstate()
    try:
        data = make_dataset(args)
    finally:
        np.random.set_state(numpy_state)
        random.setstate(python_state)

    def signals(x):
        return np.asarray(x, dtype=np.float32)[:, None, None, :]

    return {"train": (signals(data["x"]), np.asarray(data["y"], dtype=np.int64)),
            "test": (signals(data["x_test"]), np.asarray(data["y_test"], dtype=np.int64))}


def _open_idx(directory: Path, name: str) -> bytes:
    candidates = [directory / name, directory / f"{name}.gz"]
    for path in candidates:
        if path.is_file():
            opener = gzip.open if path.suffix == ".gz" else open
            with opener(path, "rb") as handle:
                return handle.read()
    raise FileNotFoundError(f"IDX file not found; looked for {' and '.join(str(p) for p in candidates)}")


def _idx_header(data: bytes, magic: int, n_dims: int, name: str) -> tuple[int, ...]:
    if len(data) < 4 * (1 + n_dims):
        raise ValueError(f"{name}: too short for an IDX header")
    header = np.frombuffer(data, dtype=">i4", count=1 + n_dims)
    if header[0] != magic:
        raise ValueError(f"{name}: magic number {header[0]}, expected {magic}")
    return tuple(int(v) for v in header[1:])


def load_idx_dataset(directory, split: str = "test") -> tuple[np.ndarray, np.ndarray]:
    """Read an MNIST-format IDX image/label pair (plain or .gz) as (N, 1, H, W) float32 in [0, 1] and int64 labels."""
    if split not in IDX_FILES:
        raise ValueError(f"split must be one of {sorted(IDX_FILES)}, got {split!r}")
    directory = Path(directory)
    image_name, label_name = IDX_FILES[split]
    image_data, label_data = _open_idx(directory, image_name), _open_idx(directory, label_name)
    n, rows, cols = _idx_header(image_data, IMAGE_MAGIC, 3, image_name)
    (n_labels,) = _idx_header(label_data, LABEL_MAGIC, 1, label_name)
    if n != n_labels:
        raise ValueError(f"{image_name} holds {n} images but {label_name} holds {n_labels} labels")
    if len(image_data) != 16 + n * rows * cols or len(label_data) != 8 + n:
        raise ValueError(f"IDX files in {directory} are truncated or have trailing bytes")
    pixels = np.frombuffer(image_data, dtype=np.uint8, offset=16).reshape(n, 1, rows, cols)
    labels = np.frombuffer(label_data, dtype=np.uint8, offset=8)
    return (pixels / 255.0).astype(np.float32), labels.astype(np.int64)


def _flat_size(layers: nn.Module, image_shape) -> int:
    # Infer the flattened width from a dummy pass, so one definition serves 8x8 and 28x28 images.
    with torch.no_grad():
        return layers(torch.zeros(1, *image_shape)).numel()


def build_model(kind: str, image_shape=(1, 8, 8), n_classes: int = 10, hidden: int = 64,
                channels: int = 16) -> nn.Module:
    """A fresh "linear", "mlp" or "cnn" classifier mapping (B, *image_shape) images to (B, n_classes) logits."""
    check_choice("model kind", kind, MODEL_KINDS)
    n_inputs = int(np.prod(image_shape))
    if kind == "linear":
        return nn.Sequential(nn.Flatten(), nn.Linear(n_inputs, n_classes))
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(n_inputs, hidden), nn.ReLU(),
                             nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))
    if kind == "cnn":
        conv = [nn.Conv2d(image_shape[0], channels, 3, padding=1), nn.ReLU(),
                nn.Conv2d(channels, 2 * channels, 3, padding=1), nn.ReLU()]
        if min(image_shape[1:]) >= 4:  # pooling tiny images would discard most of them
            conv.append(nn.MaxPool2d(2))
        features = nn.Sequential(*conv, nn.Flatten())
        return nn.Sequential(*features, nn.Linear(_flat_size(features, image_shape), hidden), nn.ReLU(),
                             nn.Linear(hidden, n_classes))
    raise AssertionError(f"model kind {kind!r} is allowed but has no builder")


def train_classifier(model: nn.Module, images, labels, epochs: int, lr: float = 1e-2, batch_size: int = 64,
                     weight_decay: float = 0.0, seed: int = 0) -> nn.Module:
    """Train in place with Adam and cross-entropy on shuffled mini-batches; the same seed gives the same weights."""
    x, y = torch.as_tensor(images, dtype=torch.float32), torch.as_tensor(labels, dtype=torch.int64)
    optimiser = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    generator = torch.Generator().manual_seed(seed)  # own generator: batch order independent of global RNG
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for _ in range(epochs):
        for batch in torch.randperm(len(x), generator=generator).split(batch_size):
            optimiser.zero_grad()
            loss_fn(model(x[batch]), y[batch]).backward()
            optimiser.step()
    return model


def score(model: nn.Module, images) -> np.ndarray:
    """Logits (N, n_classes) float32 of a trained model, in eval mode without gradients."""
    model.eval()
    x = torch.as_tensor(images, dtype=torch.float32)
    with torch.no_grad():
        return torch.cat([model(chunk) for chunk in x.split(SCORE_BATCH)]).numpy().astype(np.float32)


def cross_validated_scores(kind: str, images, labels, n_folds: int = 5, seed: int = 0, epochs: int = 30,
                           model_kwargs: dict | None = None, **train_kwargs) -> tuple[np.ndarray, float]:
    """Out-of-fold logits (N, n_classes) from stratified k-fold training, so each image is tested once; and accuracy."""
    images, labels = np.asarray(images, dtype=np.float32), np.asarray(labels, dtype=np.int64)
    model_kwargs = dict(model_kwargs or {})
    n_classes = model_kwargs.pop("n_classes", int(labels.max()) + 1)
    scores = np.full((len(labels), n_classes), np.nan, dtype=np.float32)
    folds = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    for fold, (train, test) in enumerate(folds.split(np.zeros(len(labels)), labels)):
        torch.manual_seed(seed * 1000 + fold)  # distinct, reproducible initial weights per fold and seed
        model = build_model(kind, images.shape[1:], n_classes, **model_kwargs)
        train_classifier(model, images[train], labels[train], epochs, seed=seed * 1000 + fold, **train_kwargs)
        scores[test] = score(model, images[test])
    return scores, float(np.mean(scores.argmax(axis=1) == labels))


def train_and_score(kind: str, train_images, train_labels, test_images, test_labels, seed: int = 0,
                    epochs: int = 10, model_kwargs: dict | None = None, **train_kwargs) -> tuple[np.ndarray, float]:
    """Train on one set and score another (paper scale, e.g. MNIST IDX); returns test logits and test accuracy."""
    train_labels, test_labels = np.asarray(train_labels, dtype=np.int64), np.asarray(test_labels, dtype=np.int64)
    model_kwargs = dict(model_kwargs or {})
    n_classes = model_kwargs.pop("n_classes", int(max(train_labels.max(), test_labels.max())) + 1)
    torch.manual_seed(seed)
    model = build_model(kind, np.shape(train_images)[1:], n_classes, **model_kwargs)
    train_classifier(model, train_images, train_labels, epochs, seed=seed, **train_kwargs)
    scores = score(model, test_images)
    return scores, float(np.mean(scores.argmax(axis=1) == test_labels))


DATASETS = ("digits", "mnist1d", "mnist-idx")


def load_dataset(name: str, data_dir: str = "") -> dict:
    """{"train": (images, labels), "test": (images, labels) or None, "description": str}.

    "digits": scikit-learn's digits, tested out-of-fold (test is None); "mnist1d": MNIST-1D, generated
    offline, with its own train/test split; "mnist-idx": MNIST-format IDX files (MNIST, Fashion-MNIST) in
    `data_dir`, with their own train/test split.
    """
    check_choice("dataset", name, DATASETS)
    if name == "digits":
        images, labels = load_digits_dataset()
        side = int(round(np.sqrt(images[0].size)))  # the description states what was loaded, not a constant
        return {"train": (images, labels), "test": None,
                "description": f"scikit-learn handwritten digits ({len(labels):,} images, {side}×{side}), "
                               "scored out of fold"}
    if name == "mnist1d":
        data = load_mnist1d_dataset()
        (train, _), (test, _) = data["train"], data["test"]
        return {**data, "description": f"MNIST-1D ({len(train) + len(test):,} one-dimensional digit signals of "
                                       f"length {train.shape[-1]}, generated offline by the mnist1d package; "
                                       f"{len(train):,} for training, {len(test):,} for testing)"}
    if name == "mnist-idx":
        if not data_dir:
            raise ValueError("dataset 'mnist-idx' needs data_dir: a folder with the four MNIST IDX files")
        return {"train": load_idx_dataset(data_dir, "train"), "test": load_idx_dataset(data_dir, "test"),
                "description": f"MNIST-format IDX files from {data_dir}"}
    raise AssertionError(f"dataset {name!r} is allowed but has no loader")


def failures_over_seeds(kind: str, dataset: dict, seeds, n_folds: int, epochs: int,
                        model_kwargs: dict | None = None, **train_kwargs) -> tuple[np.ndarray, list[float]]:
    """Failure counts (seeds × test events) and the accuracy of each seed's classifier."""
    from intellimetry.survival.failure_counts import failure_counts

    images, labels = dataset["train"]
    failures, accuracies = [], []
    for seed in seeds:
        if dataset["test"] is None:
            scores, accuracy = cross_validated_scores(kind, images, labels, n_folds, seed, epochs,
                                                      model_kwargs, **train_kwargs)
            truth = labels
        else:
            truth = dataset["test"][1]
            scores, accuracy = train_and_score(kind, images, labels, *dataset["test"], seed=seed, epochs=epochs,
                                               model_kwargs=model_kwargs, **train_kwargs)
        failures.append(failure_counts(scores, truth))
        accuracies.append(accuracy)
    return np.stack(failures), accuracies
