"""Image generators shared by the chapters (AIQ's image domains, the Intelligence Test's vision
figures): the scikit-learn digits, their affine jitter, and procedural textured shapes."""
from __future__ import annotations

import math

import numpy as np

SHAPES = ("disc", "ring", "square", "square-outline", "triangle", "plus", "flower", "ellipse", "crescent",
          "half-disc")
TEXTURES = ("solid", "stripes-horizontal", "stripes-vertical", "stripes-diagonal", "stripes-antidiagonal",
            "checker", "concentric", "radial-gradient", "linear-gradient", "speckle")

# shapes generator (tuned so that logistic regression scores about like on greyscale CIFAR: ~0.28 / ~0.09)
SHAPE_OFFSET = 0.05  # centre offset, fraction of the image size
DARK_SHAPE_PROBABILITY = 0.2  # dark shape on a bright background
SHAPE_RADIUS = (0.28, 0.38)  # fraction of the image size
SHAPE_CHUNK = 512  # images rendered at a time


def digit_images() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's 1,797 handwritten digits as (N, 1, 8, 8) float32 in [0, 1] and int64 labels."""
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


def make_shapes(n_classes: int, n_images: int = 2000, image_size: int = 16, seed: int = 0,
                offset: float = SHAPE_OFFSET, radius_range: tuple[float, float] = SHAPE_RADIUS,
                with_params: bool = False):
    """The generator of ``shapes10`` / ``shapes100``: procedural greyscale textured shapes.

    Ten shapes (SHAPES) x ten textures (TEXTURES).  With 100 classes the class is ``10 * shape + texture``;
    with 10 classes the class is the shape and the texture is drawn uniformly (a nuisance, like colour
    and pose in CIFAR).  Classes are balanced (``n_images`` is rounded up to a multiple of n_classes).
    Per image, from one ``numpy.random.default_rng(seed)``:

    - shape: centre offset U(-offset, offset) x size in each axis (default 0.05), radius
      U(*radius_range) x size (default 0.28 to 0.38), rotation U(0, 360) degrees; rendered on a 2x
      supersampled grid and averaged down (anti-aliased);
    - texture in the image frame (stripes of period 4 px with random phase in four orientations,
      checker, concentric rings and gradients around the shape centre, or fresh binary speckle) in
      [0, 1], fills the shape as ``contrast * (0.3 + 0.7 * texture)`` with contrast U(0.3, 0.55);
    - polarity: a bright shape on a dark background (level U(0.05, 0.4)) or, with probability 0.2, a dark
      shape on a bright one (U(0.6, 0.95)); a linear background ramp of slope up to 0.2 per image width in
      a random direction, and Gaussian noise of sd U(0.03, 0.1); clipped to [0, 1].

    Returns ``x`` (n, 1, size, size) float32 and ``y`` int64 in shuffled order; with ``with_params`` also
    each image's generation parameters (:func:`_shape_parameters`). The defaults of ``offset`` and
    ``radius_range`` give AIQ's domains; other values draw from the same generator in the same order.
    """
    if n_classes not in (10, 100):
        raise ValueError(f"n_classes must be one of 10, 100; got {n_classes}")
    radius_low, radius_high = (float(v) for v in radius_range)
    if not 0 <= offset <= 0.5 or not 0 < radius_low <= radius_high <= 0.5:
        raise ValueError(f"need 0 <= offset <= 0.5 and radius_range (lo, hi) with 0 < lo <= hi <= 0.5 (fractions "
                         f"of the image size); got offset {offset}, radius_range {radius_range}")
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
    centre = s / 2 + rng.uniform(-offset, offset, (n, 2)) * s
    radius = rng.uniform(radius_low, radius_high, n) * s
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
    if with_params:
        return np.clip(images, 0, 1)[:, None], y.astype(np.int64), _shape_parameters(
            shape, texture, centre / s - 0.5, radius / s, angle, bright, contrast)
    return np.clip(images, 0, 1)[:, None], y.astype(np.int64)


def _shape_parameters(shape, texture, offset, radius, angle, bright, contrast) -> dict[str, np.ndarray]:
    """What :func:`make_shapes` drew per image: ``shape`` and ``texture`` (indices into SHAPES and
    TEXTURES), the centre's ``offset_x`` (right) and ``offset_y`` (down) and the ``radius``, as fractions
    of the image size, the rotation ``angle`` (radians), ``bright`` (a bright shape on a dark background)
    and the shape's ``contrast`` against the background."""
    return {"shape": shape.astype(np.int64), "texture": texture.astype(np.int64),
            "offset_x": offset[:, 0].astype(np.float64), "offset_y": offset[:, 1].astype(np.float64),
            "radius": radius.astype(np.float64), "angle": angle.astype(np.float64), "bright": bright.astype(bool),
            "contrast": contrast.astype(np.float64)}


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
