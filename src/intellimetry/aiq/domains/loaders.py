"""Paper-scale loaders: MNIST / Fashion-MNIST IDX files and CIFAR python batches from a local directory."""
from __future__ import annotations

import gzip
import math
import pickle
from pathlib import Path

import numpy as np

from intellimetry.aiq.domains.domain import Domain

IDX_FILES = {"x_train": "train-images-idx3-ubyte", "y_train": "train-labels-idx1-ubyte",
             "x_test": "t10k-images-idx3-ubyte", "y_test": "t10k-labels-idx1-ubyte"}
IDX_IMAGE_MAGIC, IDX_LABEL_MAGIC = 2051, 2049
CIFAR10_FOLDER, CIFAR100_FOLDER = "cifar-10-batches-py", "cifar-100-python"
CIFAR10_TRAIN = tuple(f"data_batch_{i}" for i in range(1, 6))

LUMA = (0.299, 0.587, 0.114)  # ITU-R BT.601, as PIL's "L" conversion


def _open_idx(directory: Path, name: str) -> bytes:
    dotted = name.replace("-idx", ".idx")  # some mirrors name them train-images.idx3-ubyte
    candidates = [directory / c for base in dict.fromkeys((name, dotted)) for c in (base, f"{base}.gz")]
    for path in candidates:
        if path.is_file():
            opener = gzip.open if path.suffix == ".gz" else open
            with opener(path, "rb") as handle:
                return handle.read()
    raise FileNotFoundError(f"IDX file {name} missing in {directory}; looked for "
                            + ", ".join(p.name for p in candidates))


def _parse_idx(data: bytes, magic: int, n_dims: int, name: str) -> np.ndarray:
    if len(data) < 4 * (1 + n_dims):
        raise ValueError(f"{name}: too short for an IDX header")
    header = np.frombuffer(data, dtype=">i4", count=1 + n_dims)
    if header[0] != magic:
        raise ValueError(f"{name}: magic number {header[0]}, expected {magic}")
    dims = tuple(int(d) for d in header[1:])
    body = np.frombuffer(data, dtype=np.uint8, offset=4 * (1 + n_dims))
    if body.size != math.prod(dims):
        raise ValueError(f"{name}: {body.size} data bytes, header says {math.prod(dims)}")
    return body.reshape(dims)


def load_idx_directory(path, name: str | None = None) -> Domain:
    """MNIST / Fashion-MNIST from a directory of the four IDX files (plain or .gz), with their own split.

    Files: train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte
    (``.idx`` spellings such as train-images.idx3-ubyte are accepted too).  Pixels / 255 -> (n, 1, 28, 28).
    """
    directory = Path(path)
    if not directory.is_dir():
        raise FileNotFoundError(f"IDX directory not found: {directory}")
    arrays = {}
    for key, file in IDX_FILES.items():
        data = _open_idx(directory, file)
        arrays[key] = (_parse_idx(data, IDX_IMAGE_MAGIC, 3, file) if key.startswith("x")
                       else _parse_idx(data, IDX_LABEL_MAGIC, 1, file))
    for part in ("train", "test"):
        if len(arrays[f"x_{part}"]) != len(arrays[f"y_{part}"]):
            raise ValueError(f"{part}: {len(arrays[f'x_{part}'])} images but {len(arrays[f'y_{part}'])} labels")
    n_classes = int(max(arrays["y_train"].max(initial=0), arrays["y_test"].max(initial=0))) + 1
    x = {k: (arrays[k][:, None] / np.float32(255)).astype(np.float32) for k in ("x_train", "x_test")}
    return Domain(name or f"idx:{directory.name}", x["x_train"], arrays["y_train"], x["x_test"], arrays["y_test"],
                  n_classes, f"real: IDX files (MNIST format) from {directory.resolve()}")


def _unpickle(path: Path) -> dict:
    if not path.is_file():
        raise FileNotFoundError(f"CIFAR batch missing: {path}")
    with open(path, "rb") as handle:  # the CIFAR format is pickled: load only files you trust
        raw = pickle.load(handle, encoding="bytes")
    return {(k.decode() if isinstance(k, bytes) else k): v for k, v in raw.items()}


def _cifar_grey(batch: dict, file: str) -> np.ndarray:
    data = np.asarray(batch.get("data"))
    if data.ndim != 2 or data.shape[1] != 3 * 32 * 32:
        raise ValueError(f"{file}: 'data' must be (n, 3072) uint8, got {data.shape}")
    rgb = data.reshape(-1, 3, 32, 32).astype(np.float32) / 255
    grey = LUMA[0] * rgb[:, 0] + LUMA[1] * rgb[:, 1] + LUMA[2] * rgb[:, 2]
    return np.clip(grey, 0, 1).astype(np.float32)[:, None]


def load_cifar_directory(path, coarse: bool = False, name: str | None = None) -> Domain:
    """CIFAR-10 or CIFAR-100 ("python version" pickled batches) in greyscale, with their own split.

    ``path`` is the ``cifar-10-batches-py`` / ``cifar-100-python`` folder or a folder holding exactly one of
    them.  CIFAR-10: data_batch_1..5 and test_batch; CIFAR-100: train and test, with the 100 fine labels or,
    if ``coarse``, the 20 superclasses.  Greyscale = 0.299 R + 0.587 G + 0.114 B, / 255.
    """
    directory = Path(path)
    if not directory.is_dir():
        raise FileNotFoundError(f"CIFAR directory not found: {directory}")
    nested = [directory / f for f in (CIFAR10_FOLDER, CIFAR100_FOLDER) if (directory / f).is_dir()]
    if len(nested) == 1:
        directory = nested[0]
    is10 = (directory / CIFAR10_TRAIN[0]).is_file() or (directory / "test_batch").is_file()
    is100 = (directory / "train").is_file() or (directory / "test").is_file()
    if is10 == is100:
        raise FileNotFoundError(f"no CIFAR batches in {directory}: expected {', '.join(CIFAR10_TRAIN)} and "
                                "test_batch (CIFAR-10) or train and test (CIFAR-100)")
    if is10:
        if coarse:
            raise ValueError("coarse labels exist only for CIFAR-100")
        missing = [f for f in (*CIFAR10_TRAIN, "test_batch") if not (directory / f).is_file()]
        if missing:
            raise FileNotFoundError(f"CIFAR-10 batches missing in {directory}: {', '.join(missing)}")
        train_files, test_files, key, n_classes, what = CIFAR10_TRAIN, ("test_batch",), "labels", 10, "CIFAR-10"
    else:
        missing = [f for f in ("train", "test") if not (directory / f).is_file()]
        if missing:
            raise FileNotFoundError(f"CIFAR-100 files missing in {directory}: {', '.join(missing)}")
        key = "coarse_labels" if coarse else "fine_labels"
        train_files, test_files, n_classes = ("train",), ("test",), 20 if coarse else 100
        what = f"CIFAR-100 ({'20 coarse' if coarse else '100 fine'} labels)"
    parts = []
    for files in (train_files, test_files):
        xs, ys = [], []
        for file in files:
            batch = _unpickle(directory / file)
            if key not in batch:
                raise ValueError(f"{file}: no {key!r} entry (keys: {', '.join(map(str, batch))})")
            x, y = _cifar_grey(batch, file), np.asarray(batch[key], dtype=np.int64)
            if len(x) != len(y):
                raise ValueError(f"{file}: {len(x)} images but {len(y)} labels")
            xs.append(x)
            ys.append(y)
        parts += [np.concatenate(xs), np.concatenate(ys)]
    return Domain(name or f"cifar:{directory.name}{'-coarse' if coarse else ''}", parts[0], parts[1], parts[2],
                  parts[3], n_classes, f"real: {what} python batches from {directory.resolve()}, converted to "
                  "greyscale (0.299 R + 0.587 G + 0.114 B)")
