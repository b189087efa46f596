"""Task domains for the AIQ measures (Pereyda & Holder 2025), offline.

The paper measures MNIST, Fashion-MNIST, CIFAR-10 and CIFAR-100 (all greyscale), class subsets, noisy and
duplicated MNIST, mixtures of two domains (for the dissimilarity measure) and CartPole with changed force and
gravity (as observation -> action classification).  Nothing here downloads anything.  Offline stand-ins:

==============  =====================================================================  ==================
name            what it is                                                             stands in for
==============  =====================================================================  ==================
``digits``      real: scikit-learn's 1,797 handwritten digits, 8x8, 10 classes         MNIST
``digits-hard`` the same digits, seeded affine jitter (rotation, scale, shift) + noise  Fashion-MNIST
``shapes10``    generated 16x16 textured shapes, class = shape (texture is nuisance)   CIFAR-10
``shapes100``   generated 16x16 textured shapes, class = shape x texture               CIFAR-100
``cartpole``    observation -> action pairs of a controller on gymnasium CartPole-v1   CartPole (2D)
==============  =====================================================================  ==================

Variants (:func:`class_subset`, :func:`with_noise`, :func:`duplicated`, :func:`mixture`) are pure functions
that return a new :class:`Domain` with a descriptive name.  At paper scale, :func:`load_idx_directory` reads
MNIST / Fashion-MNIST IDX files and :func:`load_cifar_directory` the CIFAR python batches from a directory
the user supplies.

Arrays are float32 (images ``(n, 1, h, w)`` in [0, 1], vectors ``(n, d)``) with int64 labels; a Domain holds
read-only views of them (copy before writing in place; ``torch.tensor(x)`` copies, ``torch.from_numpy``
warns about read-only memory).
"""
from __future__ import annotations

import gzip
import hashlib
import math
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

IMAGE_DOMAINS: dict[str, str] = {
    "digits": "MNIST (real handwritten digits, 8x8, from scikit-learn)",
    "digits-hard": "Fashion-MNIST (the digits with affine jitter and pixel noise: harder, same format)",
    "shapes10": "CIFAR-10 in greyscale (generated textured shapes, 10 classes)",
    "shapes100": "CIFAR-100 in greyscale (generated textured shapes, 100 classes)",
}
CONTROL_DOMAINS: dict[str, str] = {
    "cartpole": "CartPole (observation -> action pairs of a controller on gymnasium's CartPole-v1)",
}
DOMAINS: tuple[str, ...] = (*IMAGE_DOMAINS, *CONTROL_DOMAINS)

SHAPES = ("disc", "ring", "square", "square-outline", "triangle", "plus", "flower", "ellipse", "crescent",
          "half-disc")
TEXTURES = ("solid", "stripes-horizontal", "stripes-vertical", "stripes-diagonal", "stripes-antidiagonal",
            "checker", "concentric", "radial-gradient", "linear-gradient", "speckle")
NOISE_MODES = ("replace", "add")
MIXTURE_LABELS = ("concatenate", "shared")
MIXTURE_SIZES = ("max", "min")

CARTPOLE_ID = "CartPole-v1"
CARTPOLE_MAX_STEPS = 200  # the paper's performance is t / 200

IDX_FILES = {"x_train": "train-images-idx3-ubyte", "y_train": "train-labels-idx1-ubyte",
             "x_test": "t10k-images-idx3-ubyte", "y_test": "t10k-labels-idx1-ubyte"}
IDX_IMAGE_MAGIC, IDX_LABEL_MAGIC = 2051, 2049
CIFAR10_FOLDER, CIFAR100_FOLDER = "cifar-10-batches-py", "cifar-100-python"
CIFAR10_TRAIN = tuple(f"data_batch_{i}" for i in range(1, 6))
# shapes generator (tuned so that logistic regression scores about like on greyscale CIFAR: ~0.28 / ~0.09)
SHAPE_OFFSET = 0.05  # centre offset, fraction of the image size
DARK_SHAPE_PROBABILITY = 0.2  # dark shape on a bright background
SHAPE_RADIUS = (0.28, 0.38)  # fraction of the image size
SHAPE_CHUNK = 512  # images rendered at a time
LUMA = (0.299, 0.587, 0.114)  # ITU-R BT.601, as PIL's "L" conversion


# --------------------------------------------------------------------------- the Domain

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


def _check_choice(kind: str, value, allowed) -> None:
    if value not in allowed:
        raise ValueError(f"unknown {kind} {value!r}; allowed: {', '.join(map(str, allowed))}")


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


# --------------------------------------------------------------------------- named domains

DEFAULT_OPTIONS: dict[str, dict] = {
    "digits": {},
    "digits-hard": {"max_rotation": 20.0, "scale_range": (0.85, 1.15), "max_shift": 0.5, "noise": 0.1},
    "shapes10": {"n_images": 2000, "image_size": 16},
    "shapes100": {"n_images": 2000, "image_size": 16},
    "cartpole": {"force_mag": 10.0, "gravity": 9.8, "episodes": 20, "max_steps": CARTPOLE_MAX_STEPS,
                 "policy": None},
}


def load_domain(name: str, seed: int = 0, test_fraction: float = 0.25, **options) -> Domain:
    """One named domain (see the module docstring), seeded and deterministic.

    ``seed`` drives the train/test split and, for generated domains, the generator.  ``options`` (listed
    in ``DEFAULT_OPTIONS[name]``) tune a generator; a domain made with non-default options carries them in
    its name, e.g. ``shapes10[n_images=500]``.
    """
    _check_choice("domain", name, DOMAINS)
    test_fraction = _check_fraction(test_fraction)
    unknown = sorted(set(options) - set(DEFAULT_OPTIONS[name]))
    if unknown:
        allowed = ", ".join(DEFAULT_OPTIONS[name]) or "none"
        raise ValueError(f"unknown option(s) {', '.join(unknown)} for domain {name!r}; allowed: {allowed}")
    opts = {**DEFAULT_OPTIONS[name], **options}
    changed = {k: v for k, v in options.items() if v != DEFAULT_OPTIONS[name][k] and k != "policy"}
    label = name + ("[" + ",".join(f"{k}={v}" for k, v in sorted(changed.items())) + "]" if changed else "")
    if name == "digits":
        x, y = _digit_images()
        x_tr, x_te, y_tr, y_te = _split(x, y, seed, test_fraction)
        return Domain(label, x_tr, y_tr, x_te, y_te, 10,
                      "real: scikit-learn's 8x8 handwritten digits (1,797 images; offline stand-in for MNIST); "
                      f"stratified split, seed {seed}")
    if name == "digits-hard":
        x, y = _digit_images()
        x = jitter_images(x, seed=seed, **opts)
        x_tr, x_te, y_tr, y_te = _split(x, y, seed, test_fraction)
        return Domain(label, x_tr, y_tr, x_te, y_te, 10,
                      "real digits, transformed: scikit-learn's 8x8 handwritten digits with seeded affine jitter "
                      f"(rotation up to {opts['max_rotation']:g} deg, scale {opts['scale_range'][0]:g}-"
                      f"{opts['scale_range'][1]:g}, shift up to {opts['max_shift']:g} px) and Gaussian pixel "
                      f"noise sd {opts['noise']:g} (offline stand-in for Fashion-MNIST: a harder 10-class "
                      f"image task, not clothing); seed {seed}")
    if name in ("shapes10", "shapes100"):
        n_classes = 10 if name == "shapes10" else 100
        x, y = make_shapes(n_classes, seed=seed, **opts)
        x_tr, x_te, y_tr, y_te = _split(x, y, seed, test_fraction)
        what = "shape (texture drawn at random)" if n_classes == 10 else "shape x texture"
        return Domain(label, x_tr, y_tr, x_te, y_te, n_classes,
                      f"generated: {len(y)} procedural {opts['image_size']}x{opts['image_size']} "
                      f"greyscale textured shapes, class = {what}, random position, scale, rotation, polarity "
                      f"and noisy background (offline stand-in for greyscale CIFAR-{n_classes}); seed {seed}")
    policy = opts.pop("policy") or heuristic_policy
    return cartpole_classification(policy=policy, seed=seed, test_fraction=test_fraction, **opts)


def _digit_images() -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_digits

    digits = load_digits()
    return (digits.images / 16.0).astype(np.float32)[:, None], digits.target.astype(np.int64)


def _bilinear(images: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Sample ``images`` (n, h, w) at fractional pixel coordinates (n, H, W); zero outside."""
    n, h, w = images.shape
    padded = np.zeros((n, h + 2, w + 2), dtype=np.float32)
    padded[:, 1:-1, 1:-1] = images
    r = np.clip(rows + 1, 0, h + 1 - 1e-6)
    c = np.clip(cols + 1, 0, w + 1 - 1e-6)
    r0, c0 = np.floor(r).astype(np.int64), np.floor(c).astype(np.int64)
    fr, fc = (r - r0).astype(np.float32), (c - c0).astype(np.float32)
    r1, c1 = np.minimum(r0 + 1, h + 1), np.minimum(c0 + 1, w + 1)
    idx = np.arange(n)[:, None, None]
    return ((1 - fr) * (1 - fc) * padded[idx, r0, c0] + (1 - fr) * fc * padded[idx, r0, c1]
            + fr * (1 - fc) * padded[idx, r1, c0] + fr * fc * padded[idx, r1, c1])


def jitter_images(images: np.ndarray, seed: int = 0, max_rotation: float = 20.0,
                  scale_range: tuple[float, float] = (0.85, 1.15), max_shift: float = 0.5,
                  noise: float = 0.1) -> np.ndarray:
    """The generator of ``digits-hard``: a random affine map per image, then Gaussian pixel noise.

    Each image (n, 1, h, w) in [0, 1] is rotated by U(-max_rotation, max_rotation) degrees about its centre,
    scaled by U(*scale_range) and shifted by U(-max_shift, max_shift) pixels in each axis (bilinear,
    zero outside), then N(0, noise^2) is added to every pixel and the result clipped to [0, 1].
    """
    lo, hi = (float(v) for v in scale_range)
    if max_rotation < 0 or max_shift < 0 or noise < 0 or not 0 < lo <= hi:
        raise ValueError("max_rotation, max_shift and noise must be >= 0 and scale_range (lo, hi) 0 < lo <= hi")
    rng = np.random.default_rng(seed)
    x = np.asarray(images, dtype=np.float32)
    n, _, h, w = x.shape
    angle = np.deg2rad(rng.uniform(-max_rotation, max_rotation, n))
    scale = rng.uniform(lo, hi, n)
    shift = rng.uniform(-max_shift, max_shift, (n, 2))
    rr, cc = np.meshgrid(np.arange(h) - (h - 1) / 2, np.arange(w) - (w - 1) / 2, indexing="ij")
    cos, sin = (np.cos(angle) / scale)[:, None, None], (np.sin(angle) / scale)[:, None, None]
    dr, dc = rr[None] - shift[:, 0, None, None], cc[None] - shift[:, 1, None, None]
    # inverse map: output pixel -> source pixel
    src_r = cos * dr - sin * dc + (h - 1) / 2
    src_c = sin * dr + cos * dc + (w - 1) / 2
    out = _bilinear(x[:, 0], src_r, src_c) + rng.normal(0.0, noise, (n, h, w)).astype(np.float32)
    return np.clip(out, 0.0, 1.0).astype(np.float32)[:, None]


def _shape_mask(kind: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Membership of local coordinates (unit radius, shape frame) in shape ``kind`` of SHAPES."""
    rho2 = x * x + y * y
    if kind == 0:  # disc
        return rho2 <= 1.0
    if kind == 1:  # ring
        return (rho2 <= 1.0) & (rho2 >= 0.5 ** 2)
    box = np.maximum(np.abs(x), np.abs(y))
    if kind == 2:  # square
        return box <= 0.8
    if kind == 3:  # square outline
        return (box <= 0.85) & (box >= 0.45)
    if kind == 4:  # equilateral triangle, vertices on the unit circle
        normals = [(math.cos(a), math.sin(a)) for a in (-math.pi / 2, math.pi / 6, 5 * math.pi / 6)]
        return np.max([nx * x + ny * y for nx, ny in normals], axis=0) <= 0.5
    if kind == 5:  # plus
        return ((np.abs(x) <= 0.3) & (np.abs(y) <= 1.0)) | ((np.abs(y) <= 0.3) & (np.abs(x) <= 1.0))
    if kind == 6:  # five-lobed flower
        return np.sqrt(rho2) <= 0.6 + 0.4 * np.cos(5 * np.arctan2(y, x))
    if kind == 7:  # ellipse, aspect 1 : 0.45
        return x * x + (y / 0.45) ** 2 <= 1.0
    if kind == 8:  # crescent
        return (rho2 <= 1.0) & ((x - 0.5) ** 2 + y * y > 0.75 ** 2)
    return (rho2 <= 1.0) & (y >= -0.1)  # half disc


def _texture(kind: int, u: np.ndarray, v: np.ndarray, cu, cv, radius, phase, rng) -> np.ndarray:
    """Texture ``kind`` of TEXTURES in [0, 1] at image-frame pixel coordinates (u right, v down)."""
    period = 4.0
    if kind == 0:
        return np.ones_like(u)
    if kind in (1, 2, 3, 4):
        direction = {1: v, 2: u, 3: (u + v) / math.sqrt(2), 4: (u - v) / math.sqrt(2)}[kind]
        return 0.5 + 0.5 * np.sign(np.sin(2 * math.pi * direction / period + phase))
    if kind == 5:
        return 0.5 + 0.5 * np.sign(np.sin(2 * math.pi * u / 5 + phase) * np.sin(2 * math.pi * v / 5 + phase))
    rho = np.sqrt((u - cu) ** 2 + (v - cv) ** 2)
    if kind == 6:
        return 0.5 + 0.5 * np.sign(np.cos(2 * math.pi * rho / period))
    if kind == 7:
        return np.clip(1.0 - rho / radius, 0.0, 1.0)
    if kind == 8:
        return np.clip(0.5 + (u - cu) / (2 * radius), 0.0, 1.0)
    return (rng.random(u.shape) < 0.5).astype(np.float32)


def make_shapes(n_classes: int, n_images: int = 2000, image_size: int = 16, seed: int = 0):
    """The generator of ``shapes10`` / ``shapes100``: procedural greyscale textured shapes.

    Ten shapes (SHAPES) x ten textures (TEXTURES).  With 100 classes the class is ``10 * shape + texture``;
    with 10 classes the class is the shape and the texture is drawn uniformly (a nuisance, like colour
    and pose in CIFAR).  Classes are balanced (``n_images`` is rounded up to a multiple of n_classes).
    Per image, from one ``numpy.random.default_rng(seed)``:

    - shape: centre offset U(-0.05, 0.05) x size in each axis, radius U(0.28, 0.38) x size, rotation
      U(0, 360) degrees; rendered on a 2x supersampled grid and averaged down (anti-aliased);
    - texture in the image frame (stripes of period 4 px with random phase in four orientations,
      checker, concentric rings and gradients around the shape centre, or fresh binary speckle) in
      [0, 1], fills the shape as ``contrast * (0.3 + 0.7 * texture)`` with contrast U(0.3, 0.55);
    - polarity: a bright shape on a dark background (level U(0.05, 0.4)) or, with probability 0.2, a dark
      shape on a bright one (U(0.6, 0.95)); a linear background ramp of slope up to 0.2 per image width in
      a random direction, and Gaussian noise of sd U(0.03, 0.1); clipped to [0, 1].

    Returns ``x`` (n, 1, size, size) float32 and ``y`` int64 in shuffled order.
    """
    if n_classes not in (10, 100):
        raise ValueError(f"n_classes must be one of 10, 100; got {n_classes}")
    n_images, image_size = int(n_images), int(image_size)
    if n_images < 2 * n_classes or image_size < 8:
        raise ValueError(f"need n_images >= {2 * n_classes} (two per class) and image_size >= 8")
    rng = np.random.default_rng([seed, n_classes])
    n = -(-n_images // n_classes) * n_classes
    y = rng.permutation(np.arange(n) % n_classes)
    if n_classes == 100:
        shape, texture = y // 10, y % 10
    else:
        shape, texture = y, rng.integers(0, 10, n)
    s = image_size
    centre = s / 2 + rng.uniform(-SHAPE_OFFSET, SHAPE_OFFSET, (n, 2)) * s
    radius = rng.uniform(*SHAPE_RADIUS, n) * s
    angle = rng.uniform(0, 2 * math.pi, n)
    phase = rng.uniform(0, 2 * math.pi, n)
    contrast = rng.uniform(0.3, 0.55, n)
    bright = rng.random(n) >= DARK_SHAPE_PROBABILITY
    level = np.where(bright, rng.uniform(0.05, 0.4, n), rng.uniform(0.6, 0.95, n))
    ramp_angle = rng.uniform(0, 2 * math.pi, n)
    ramp = rng.uniform(0, 0.2, n)
    noise_sd = rng.uniform(0.03, 0.1, n)

    sign = np.where(bright, 1.0, -1.0)
    params = [a.astype(np.float32) for a in (centre[:, 0], centre[:, 1], radius, angle, phase, sign * contrast,
                                              level, ramp, ramp_angle, noise_sd)]
    images = np.empty((n, s, s), dtype=np.float32)
    for lo in range(0, n, SHAPE_CHUNK):  # bounded memory; the rng is used in the same order for any n
        part = slice(lo, lo + SHAPE_CHUNK)
        images[part] = _render_shapes(s, shape[part], texture[part], *(a[part] for a in params), rng=rng)
    return np.clip(images, 0, 1)[:, None], y.astype(np.int64)


def _render_shapes(s, shape, texture, cu, cv, radius, angle, phase, signed_contrast, level, ramp, ramp_angle,
                   noise_sd, rng) -> np.ndarray:
    """Render a chunk of shape images (see :func:`make_shapes`), 2x supersampled, before clipping."""
    grid = (np.arange(2 * s, dtype=np.float32) + 0.5) / 2  # supersampled pixel centres, in output pixels
    v, u = np.meshgrid(grid, grid, indexing="ij")
    n = len(shape)
    col = lambda a: a[:, None, None]  # noqa: E731
    du, dv = u[None] - col(cu), v[None] - col(cv)
    cos, sin = col(np.cos(angle)), col(np.sin(angle))
    lx, ly = (cos * du + sin * dv) / col(radius), (-sin * du + cos * dv) / col(radius)
    mask = np.zeros((n, 2 * s, 2 * s), dtype=np.float32)
    fill = np.zeros_like(mask)
    for k in range(10):
        m = shape == k
        mask[m] = _shape_mask(k, lx[m], ly[m])
        t = texture == k
        uu, vv = np.broadcast_to(u, (t.sum(), 2 * s, 2 * s)), np.broadcast_to(v, (t.sum(), 2 * s, 2 * s))
        fill[t] = _texture(k, uu, vv, col(cu[t]), col(cv[t]), col(radius[t]), col(phase[t]), rng)
    ramp_field = (col(np.cos(ramp_angle)) * (u[None] - s / 2) + col(np.sin(ramp_angle)) * (v[None] - s / 2)) / s
    images = col(level) + col(ramp) * ramp_field + mask * col(signed_contrast) * (0.3 + 0.7 * fill)
    images = images.reshape(n, s, 2, s, 2).mean(axis=(2, 4))
    return images + rng.standard_normal((n, s, s), dtype=np.float32) * col(noise_sd)


# --------------------------------------------------------------------------- variants

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
    _check_choice("noise mode", mode, NOISE_MODES)
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
    _check_choice("label mode", labels, MIXTURE_LABELS)
    if not isinstance(size, (int, np.integer)):
        _check_choice("mixture size", size, MIXTURE_SIZES)
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


# --------------------------------------------------------------------------- paper-scale loaders

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


# --------------------------------------------------------------------------- CartPole

def check_cartpole_physics(force_mag, gravity) -> tuple[float, float]:
    """CartPole's force magnitude (N, > 0) and gravity (m/s^2, >= 0) as floats, or a clear error."""
    force_mag, gravity = float(force_mag), float(gravity)
    if not (math.isfinite(force_mag) and force_mag > 0):
        raise ValueError(f"force_mag must be a positive finite number (paper: 1-20, normal 10), got {force_mag}")
    if not (math.isfinite(gravity) and gravity >= 0):
        raise ValueError(f"gravity must be a non-negative finite number (normal 9.8), got {gravity}")
    return force_mag, gravity


def make_cartpole(force_mag: float = 10.0, gravity: float = 9.8, seed: int = 0,
                  max_steps: int = CARTPOLE_MAX_STEPS):
    """gymnasium's CartPole-v1 with the given force magnitude (N) and gravity (m/s^2), at most ``max_steps``
    steps per episode (the paper scores t / 200).  The environment is reset once with ``seed``."""
    import gymnasium

    force_mag, gravity = check_cartpole_physics(force_mag, gravity)
    if int(max_steps) != max_steps or max_steps < 1:
        raise ValueError(f"max_steps must be a positive integer, got {max_steps}")
    env = gymnasium.make(CARTPOLE_ID, max_episode_steps=int(max_steps))
    env.unwrapped.force_mag = force_mag
    env.unwrapped.gravity = gravity
    env.reset(seed=seed)
    env.action_space.seed(seed)
    return env


def heuristic_policy(observation) -> int:
    """A deterministic balancing controller, the stand-in for the paper's trained agent.

    Push right (1) when ``theta + 0.5 theta_dot + 0.01 x + 0.1 x_dot > 0``, else left (0): the pole angle
    and its rate dominate; the small cart terms keep the cart from drifting off the track.
    """
    x, x_dot, theta, theta_dot = (float(v) for v in observation)
    return int(theta + 0.5 * theta_dot + 0.01 * x + 0.1 * x_dot > 0)


def cartpole_episode_return(env, policy: Callable, seed: int | None = None,
                            record: list | None = None) -> int:
    """Run one episode with ``policy(observation) -> action`` (0 left, 1 right); return the steps survived.

    The episode ends when the pole falls, the cart leaves the track, or the env's step limit is reached.
    If ``record`` is a list, (observation, action) pairs are appended to it.
    """
    limit = getattr(env.spec, "max_episode_steps", None) or 500
    observation, _ = env.reset(seed=seed)
    steps = 0
    while steps < limit:
        action = policy(observation)
        if action not in (0, 1):
            raise ValueError(f"the policy must return 0 or 1, got {action!r}")
        if record is not None:
            record.append((np.asarray(observation, dtype=np.float32), int(action)))
        observation, _, terminated, truncated, _ = env.step(int(action))
        steps += 1
        if terminated or truncated:
            break
    return steps


def cartpole_classification(force_mag: float = 10.0, gravity: float = 9.8, policy: Callable = heuristic_policy,
                            episodes: int = 20, seed: int = 0, test_fraction: float = 0.25,
                            max_steps: int = CARTPOLE_MAX_STEPS) -> Domain:
    """CartPole as classification: the (observation -> action) pairs of ``policy`` over ``episodes`` episodes.

    Episode i is reset with seed ``seed * 100003 + i``.  Inputs are the 4-float observations (x, x_dot,
    theta, theta_dot), labels the actions (2 classes).  The split is by episode (consecutive states are
    near-duplicates): round(test_fraction * episodes) seeded-chosen episodes, at least one, form the test set.
    """
    test_fraction = _check_fraction(test_fraction)
    if int(episodes) != episodes or episodes < 2:
        raise ValueError(f"episodes must be an integer >= 2 (train and test episodes), got {episodes}")
    episodes = int(episodes)
    env = make_cartpole(force_mag, gravity, seed=seed, max_steps=max_steps)
    records, lengths = [], []
    try:
        for i in range(episodes):
            rec: list = []
            lengths.append(cartpole_episode_return(env, policy, seed=seed * 100003 + i, record=rec))
            records.append(rec)
    finally:
        env.close()
    n_test = min(episodes - 1, max(1, round(test_fraction * episodes)))
    test_ids = set(np.random.default_rng(seed).permutation(episodes)[:n_test].tolist())
    parts = []
    for ids in ([i for i in range(episodes) if i not in test_ids], sorted(test_ids)):
        pairs = [pair for i in ids for pair in records[i]]
        parts += [np.array([o for o, _ in pairs], dtype=np.float32).reshape(-1, 4),
                  np.array([a for _, a in pairs], dtype=np.int64)]
    who = getattr(policy, "__qualname__", None) or repr(policy)
    return Domain(f"cartpole(force={force_mag:g},gravity={gravity:g})", parts[0], parts[1], parts[2], parts[3], 2,
                  f"generated: observation -> action pairs of {who} on gymnasium {CARTPOLE_ID} with force_mag "
                  f"{force_mag:g}, gravity {gravity:g}, {episodes} episodes of at most {max_steps} steps "
                  f"(mean length {np.mean(lengths):.1f}); stand-in for the paper's trained-agent data; seed {seed}")

