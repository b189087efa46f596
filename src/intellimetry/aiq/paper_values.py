"""The AIQ paper's own numbers, shaped like our figures' values, so that a test can apply each item's
criterion to them (issue 32: the paper must pass its own criteria).

Each function builds the keys its item's criterion reads from data/reference/aiq/paper.yaml. The paper
gives single numbers without intervals: an interval the criterion reads is the number itself. Where
the criterion also reads a statement the paper makes in words, the function says which value stands
for it. The items' `measured` conditions ask that the networks learnt their domains (accuracy above
twice chance); the paper prints no accuracies, but its proportion curves (Figs. 11 and 12) are those of
trained MNIST and CIFAR10 classifiers, which stands as an accuracy of 1 (:data:`LEARNT`).
"""
from __future__ import annotations

from intellimetry.paths import load_reference

LEARNT = 1.0  # the paper's networks learnt their domains; it prints no accuracy for Figs. 11 and 12


def _paper() -> dict:
    return load_reference("aiq/paper.yaml")


def _point(value: float) -> list[float]:
    return [float(value), float(value)]


def fig11() -> dict:
    """DS of MNIST with itself (§3.2.1), by networks that learnt MNIST."""
    return {"dissimilarity": float(_paper()["dissimilarity"]["self_mnist"]), "performance_mean": LEARNT}


def fig12() -> dict:
    """DS of MNIST with CIFAR10 (§3.2.2), by networks that learnt both; "falls slightly below the
    even-performance diagonal" stands as the whole curve below it (share 1)."""
    return {"dissimilarity": float(_paper()["dissimilarity"]["mnist_cifar10"]), "share_below_diagonal": 1.0,
            "v_first": LEARNT, "v_second": LEARNT}


def fig14() -> dict:
    """R of DS on the gravity difference (§3.2.4); "symmetric about its diagonal" stands as a mirror R of 1."""
    r = float(_paper()["dissimilarity"]["gravity_r"])
    return {"r_dissimilarity_vs_gravity_difference": r, "r_interval": _point(r), "symmetry_r": 1.0,
            "symmetry_r_interval": _point(1.0)}


def fig15() -> dict:
    """R of MCCP with the stepwise DS (§3.3.1)."""
    r = float(_paper()["dissimilarity"]["complexity_vs_stepwise_r"])
    return {"r_complexity_vs_stepwise": r, "r_complexity_vs_stepwise_interval": _point(r)}


def fig18() -> dict:
    """The paper's similarity of DS and |ΔMCCP| (§3.3.4, a dot product of undefined normalisation), read
    as the correlation our criterion takes."""
    r = float(_paper()["dissimilarity"]["dot_product_vs_complexity_gap"])
    return {"pearson_ds_vs_mccp_gap": r, "pearson_ds_vs_mccp_gap_interval": _point(r)}

