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
from intellimetry.aiq.domains.cartpole import (
    CARTPOLE_ID,
    CARTPOLE_MAX_STEPS,
    cartpole_classification,
    cartpole_episode_return,
    check_cartpole_physics,
    heuristic_policy,
    make_cartpole,
)
from intellimetry.aiq.domains.catalog import CONTROL_DOMAINS, DEFAULT_OPTIONS, DOMAINS, IMAGE_DOMAINS, load_domain
from intellimetry.aiq.domains.domain import Domain
from intellimetry.aiq.domains.loaders import (
    CIFAR10_FOLDER,
    CIFAR10_TRAIN,
    CIFAR100_FOLDER,
    IDX_FILES,
    IDX_IMAGE_MAGIC,
    IDX_LABEL_MAGIC,
    LUMA,
    load_cifar_directory,
    load_idx_directory,
)
from intellimetry.aiq.domains.variants import (
    MIXTURE_LABELS,
    MIXTURE_SIZES,
    NOISE_MODES,
    class_subset,
    common_shape,
    duplicated,
    mixture,
    with_noise,
)
from intellimetry.images import (
    DARK_SHAPE_PROBABILITY,
    SHAPE_CHUNK,
    SHAPE_OFFSET,
    SHAPE_RADIUS,
    SHAPES,
    TEXTURES,
    jitter_images,
    make_shapes,
)

__all__ = [
    "Domain",
    "CONTROL_DOMAINS", "DEFAULT_OPTIONS", "DOMAINS", "IMAGE_DOMAINS", "load_domain",
    "DARK_SHAPE_PROBABILITY", "SHAPE_CHUNK", "SHAPE_OFFSET", "SHAPE_RADIUS", "SHAPES", "TEXTURES", "jitter_images",
    "make_shapes",
    "MIXTURE_LABELS", "MIXTURE_SIZES", "NOISE_MODES", "class_subset", "common_shape", "duplicated", "mixture",
    "with_noise",
    "CIFAR10_FOLDER", "CIFAR10_TRAIN", "CIFAR100_FOLDER", "IDX_FILES", "IDX_IMAGE_MAGIC", "IDX_LABEL_MAGIC", "LUMA",
    "load_cifar_directory", "load_idx_directory",
    "CARTPOLE_ID", "CARTPOLE_MAX_STEPS", "cartpole_classification", "cartpole_episode_return",
    "check_cartpole_physics", "heuristic_policy", "make_cartpole",
]
