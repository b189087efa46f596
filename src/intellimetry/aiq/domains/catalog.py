"""The named domains (digits, digits-hard, shapes10, shapes100, cartpole), their options and load_domain."""
from __future__ import annotations

from intellimetry.aiq.domains.cartpole import CARTPOLE_MAX_STEPS, cartpole_classification, heuristic_policy
from intellimetry.aiq.domains.domain import Domain, _check_fraction, _split
from intellimetry.checks import check_choice
from intellimetry.images import digit_images, jitter_images, make_shapes

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
    check_choice("domain", name, DOMAINS)
    test_fraction = _check_fraction(test_fraction)
    unknown = sorted(set(options) - set(DEFAULT_OPTIONS[name]))
    if unknown:
        allowed = ", ".join(DEFAULT_OPTIONS[name]) or "none"
        raise ValueError(f"unknown option(s) {', '.join(unknown)} for domain {name!r}; allowed: {allowed}")
    opts = {**DEFAULT_OPTIONS[name], **options}
    changed = {k: v for k, v in options.items() if v != DEFAULT_OPTIONS[name][k] and k != "policy"}
    label = name + ("[" + ",".join(f"{k}={v}" for k, v in sorted(changed.items())) + "]" if changed else "")
    if name == "digits":
        x, y = digit_images()
        x_tr, x_te, y_tr, y_te = _split(x, y, seed, test_fraction)
        return Domain(label, x_tr, y_tr, x_te, y_te, 10,
                      "real: scikit-learn's 8x8 handwritten digits (1,797 images; offline stand-in for MNIST); "
                      f"stratified split, seed {seed}")
    if name == "digits-hard":
        x, y = digit_images()
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
