"""Variants of a domain: class subsets, noise, duplication and mixtures of two domains."""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from intellimetry.aiq.domains.domain import Domain
from intellimetry.checks import check_choice

NOISE_MODES = ("replace", "add")
MIXTURE_LABELS = ("concatenate", "shared")
MIXTURE_SIZES = ("max", "min")


def class_subset(domain: Domain, classes: Sequence[int]) -> Domain:
    """Only the samples of ``classes``; labels re-indexed 0..k-1 in the order given (classes[i] -> i)."""
    classes = [int(c) for c in classes]
    if not classes or len(set(classes)) != len(classes) or min(classes) < 0 or max(classes) >= domain.n_classes:
        raise ValueError(f"classes must be distinct labels in 0..{domain.n_classes - 1}, got {classes}")
    lookup = np.full(domain.n_classes, -1, dtype=np.int64)
    lookup[classes] = np.arange(len(classes))
    parts = []
    for x, y in ((domain.x_train, domain.y_train), (domain.x_test, domain.y_test)):
        keep = lookup[y] >= 0
        parts += [x[keep], lookup[y[keep]]]
    return Domain(f"{domain.name}[{','.join(map(str, classes))}]", parts[0], parts[1], parts[2], parts[3],
                  len(classes), f"{domain.source}; subset: classes {classes} relabelled 0..{len(classes) - 1}")


def with_noise(domain: Domain, level: float, seed: int = 0, mode: str = "replace") -> Domain:
    """The domain with noise in every input, train and test (the paper's noisy MNIST).

    ``mode="replace"`` (default): each pixel / feature independently becomes uniform noise with probability
    ``level`` -- U(0, 1) for images, U(min, max) of that feature over the training set for vectors -- so
    level 0 is the domain itself and level 1 carries no information about the labels.
    ``mode="add"``: Gaussian noise of sd ``level`` (images: clipped to [0, 1]; vectors: sd times the
    feature's training-set sd).
    """
    check_choice("noise mode", mode, NOISE_MODES)
    level = float(level)
    if not (0 <= level <= 1 if mode == "replace" else level >= 0) or not math.isfinite(level):
        raise ValueError(f"noise level must lie in [0, 1] for mode 'replace' and be >= 0 for 'add', got {level}")
    rng = np.random.default_rng(seed)
    if domain.is_image:
        low, high, sd = np.float32(0.0), np.float32(1.0), np.float32(1.0)
    else:
        low, high = domain.x_train.min(axis=0), domain.x_train.max(axis=0)
        sd = domain.x_train.std(axis=0)
    noisy = []
    for x in (domain.x_train, domain.x_test):
        if mode == "replace":
            hit = rng.random(x.shape) < level
            out = np.where(hit, low + (high - low) * rng.random(x.shape, dtype=np.float32), x)
        else:
            out = x + level * sd * rng.standard_normal(x.shape, dtype=np.float32)
        if domain.is_image:
            out = np.clip(out, 0, 1)
        noisy.append(out.astype(np.float32))
    tag = "noise" if mode == "replace" else "addnoise"
    return Domain(f"{domain.name}+{tag}{level:g}", noisy[0], domain.y_train, noisy[1], domain.y_test,
                  domain.n_classes, f"{domain.source}; noise: {mode} at level {level:g}, seed {seed}")


def duplicated(domain: Domain, copies: int, test: bool = False) -> Domain:
    """The training set repeated ``copies`` times (blocks in order); the test set unchanged unless ``test``.

    (The paper duplicates MNIST's test set too; that leaves every accuracy unchanged.)
    """
    if int(copies) != copies or copies < 1:
        raise ValueError(f"copies must be a positive integer, got {copies}")
    copies = int(copies)
    rep = lambda a: np.concatenate([a] * copies)  # noqa: E731
    x_te, y_te = (rep(domain.x_test), rep(domain.y_test)) if test else (domain.x_test, domain.y_test)
    return Domain(f"{domain.name}x{copies}", rep(domain.x_train), rep(domain.y_train), x_te, y_te,
                  domain.n_classes, f"{domain.source}; training set repeated {copies} times"
                  + (" (test set too)" if test else ""))


def _pad_to(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Zero-pad every non-batch axis of ``x`` to ``shape``, centred (odd extra at the end)."""
    if x.shape[1:] == shape:
        return x
    pads = [(0, 0)] + [((t - s) // 2, (t - s) - (t - s) // 2) for s, t in zip(x.shape[1:], shape)]
    return np.pad(x, pads)


def common_shape(d1: Domain, d2: Domain) -> tuple[int, ...]:
    """Input shape of a mixture: elementwise max for two image domains, else the longer flat vector."""
    if d1.is_image and d2.is_image:
        return tuple(max(a, b) for a, b in zip(d1.input_shape, d2.input_shape))
    return (max(math.prod(d1.input_shape), math.prod(d2.input_shape)),)


def _draw(n_from: int, size: int, rng) -> np.ndarray:
    """``n_from`` indices into ``size`` samples: without replacement while possible, then cycling through
    fresh permutations (so every sample is used as evenly as possible)."""
    reps = -(-n_from // size) if n_from else 0
    return np.concatenate([rng.permutation(size) for _ in range(reps)] or [np.zeros(0, np.int64)])[:n_from]


def mixture(d1: Domain, d2: Domain, p: float, seed: int = 0, labels: str = "concatenate",
            size: str | int = "max") -> Domain:
    """The combined domain O(p) of the dissimilarity measure: each sample from d1 with probability p.

    For the training and the test set separately, each of the n samples independently comes from d1 with
    probability p, else from d2 (so the d1 count is Binomial(n, p)); the samples of each source are drawn
    without replacement while possible, then by cycling through fresh permutations, and the result is
    shuffled.  n is the larger of the two domains' set sizes (``size="max"``), the smaller (``"min"``,
    never repeats a sample) or an int for the training set (the test set then gets that int times d1's
    test/train size ratio).
    Inputs are zero-padded, centred, to :func:`common_shape` (an image mixed with a vector domain is
    flattened first).  ``labels="concatenate"`` keeps the label spaces apart (d2's labels offset by
    d1.n_classes); ``labels="shared"`` keeps both as they are (n_classes = the larger): use it when both
    domains mean the same thing by a label, e.g. a domain mixed with itself, where the paper notes that
    "each mixture ends up being an exact copy of the original domain", or CartPole variants.
    """
    p = float(p)
    if not 0 <= p <= 1:
        raise ValueError(f"p must lie in [0, 1], got {p}")
    check_choice("label mode", labels, MIXTURE_LABELS)
    if not isinstance(size, (int, np.integer)):
        check_choice("mixture size", size, MIXTURE_SIZES)
    elif size < 1:
        raise ValueError(f"an integer mixture size must be positive, got {size}")
    rng = np.random.default_rng(seed)
    shape = common_shape(d1, d2)
    image = d1.is_image and d2.is_image
    offset = d1.n_classes if labels == "concatenate" else 0
    n_classes = d1.n_classes + d2.n_classes if labels == "concatenate" else max(d1.n_classes, d2.n_classes)
    out = []
    for part in ("train", "test"):
        (x1, y1), (x2, y2) = ((getattr(d, f"x_{part}"), getattr(d, f"y_{part}")) for d in (d1, d2))
        if size == "max":
            n = max(len(y1), len(y2))
        elif size == "min":
            n = min(len(y1), len(y2))
        else:
            ratio = len(d1.y_test) / len(d1.y_train) if part == "test" else 1.0
            n = max(1, round(int(size) * ratio))
        k1 = int((rng.random(n) < p).sum())
        if (k1 and not len(y1)) or (n - k1 and not len(y2)):
            raise ValueError(f"cannot draw {part} samples from an empty {part} set")
        i1, i2 = _draw(k1, len(y1), rng), _draw(n - k1, len(y2), rng)
        xs = [x if image else x.reshape(len(x), int(np.prod(x.shape[1:]))) for x in (x1[i1], x2[i2])]  # len 0 ok
        x = np.concatenate([_pad_to(xs[0], shape), _pad_to(xs[1], shape)])
        y = np.concatenate([y1[i1], y2[i2] + offset])
        order = rng.permutation(n)
        out += [x[order], y[order]]
    return Domain(f"mix({d1.name},{d2.name},p={p:g})", out[0], out[1], out[2], out[3], n_classes,
                  f"mixture: each sample from [{d1.source}] with probability {p:g}, else from [{d2.source}]; "
                  f"inputs zero-padded to {shape}; labels {labels}"
                  + (f" (second domain offset by {offset})" if offset else "") + f"; seed {seed}")
