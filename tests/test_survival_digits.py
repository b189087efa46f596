"""Digit classifiers whose class scores feed the failure counts of Zhan et al. (2025), Figure 2."""
import gzip
import struct

import numpy as np
import pytest
import torch

from intellimetry.survival.digits import (
    MODEL_KINDS,
    build_model,
    cross_validated_scores,
    load_dataset,
    load_digits_dataset,
    load_idx_dataset,
    load_mnist1d_dataset,
    train_and_score,
)

PIXELS = (np.arange(3 * 4 * 5) * 17 % 256).astype(np.uint8).reshape(3, 4, 5)  # known bytes incl. 0 and 255
LABELS = np.array([7, 0, 9], dtype=np.uint8)


def write_idx(directory, split="test", compress=False, image_magic=2051, labels=LABELS):
    prefix = "t10k" if split == "test" else "train"
    images = struct.pack(">iiii", image_magic, *PIXELS.shape) + PIXELS.tobytes()
    label_bytes = struct.pack(">ii", 2049, len(labels)) + labels.tobytes()
    for name, data in ((f"{prefix}-images-idx3-ubyte", images), (f"{prefix}-labels-idx1-ubyte", label_bytes)):
        if compress:
            (directory / f"{name}.gz").write_bytes(gzip.compress(data))
        else:
            (directory / name).write_bytes(data)


def test_load_digits_dataset_is_scaled_8x8_images_with_labels_0_to_9():
    images, labels = load_digits_dataset()
    assert images.shape == (1797, 1, 8, 8) and images.dtype == np.float32
    assert labels.shape == (1797,) and labels.dtype == np.int64
    assert images.min() == 0.0 and images.max() == 1.0
    assert sorted(set(labels.tolist())) == list(range(10))


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize("split", ["train", "test"])
def test_idx_round_trip(tmp_path, compress, split):
    write_idx(tmp_path, split, compress)
    images, labels = load_idx_dataset(tmp_path, split)
    assert images.shape == (3, 1, 4, 5) and images.dtype == np.float32
    np.testing.assert_array_equal(images[:, 0], (PIXELS / 255.0).astype(np.float32))
    assert labels.dtype == np.int64 and labels.tolist() == [7, 0, 9]


def test_idx_rejects_wrong_magic_and_count_mismatch(tmp_path):
    write_idx(tmp_path, image_magic=2049)
    with pytest.raises(ValueError, match="magic"):
        load_idx_dataset(tmp_path)
    write_idx(tmp_path, labels=LABELS[:2])
    with pytest.raises(ValueError, match="3 images.*2 labels"):
        load_idx_dataset(tmp_path)


def test_idx_missing_file_and_bad_split(tmp_path):
    with pytest.raises(FileNotFoundError, match="t10k-images-idx3-ubyte"):
        load_idx_dataset(tmp_path)
    with pytest.raises(ValueError, match="'test'.*'train'|'train'.*'test'"):
        load_idx_dataset(tmp_path, split="validation")


@pytest.mark.parametrize("kind", MODEL_KINDS)
@pytest.mark.parametrize("side", [8, 28])
def test_build_model_gives_ten_scores_per_image(kind, side):
    model = build_model(kind, image_shape=(1, side, side))
    assert model(torch.zeros(5, 1, side, side)).shape == (5, 10)


def test_build_model_rejects_unknown_kind_and_linear_has_650_parameters():
    with pytest.raises(ValueError, match="'rnn'.*linear, mlp, cnn"):
        build_model("rnn")
    assert sum(p.numel() for p in build_model("linear").parameters()) == 64 * 10 + 10


def test_cross_validated_scores_are_deterministic_and_cover_every_image():
    images, labels = load_digits_dataset()
    first, acc1 = cross_validated_scores("linear", images, labels, epochs=2, seed=3)
    second, acc2 = cross_validated_scores("linear", images, labels, epochs=2, seed=3)
    assert first.shape == (1797, 10) and first.dtype == np.float32 and np.isfinite(first).all()
    np.testing.assert_array_equal(first, second)
    assert acc1 == acc2 == np.mean(first.argmax(axis=1) == labels)


def test_linear_model_learns_digits():
    images, labels = load_digits_dataset()
    _, accuracy = cross_validated_scores("linear", images, labels, epochs=15)
    assert accuracy > 0.9


def test_train_and_score_returns_test_logits_and_accuracy():
    images, labels = load_digits_dataset()
    scores, accuracy = train_and_score("linear", images[:1400], labels[:1400], images[1400:], labels[1400:],
                                       epochs=10)
    assert scores.shape == (397, 10) and scores.dtype == np.float32
    assert accuracy == np.mean(scores.argmax(axis=1) == labels[1400:]) and accuracy > 0.85


def test_mnist1d_is_the_benchmark_split_generated_offline_without_touching_global_random_state():
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    data = load_mnist1d_dataset()
    assert (np.random.get_state()[1] == before).all()  # the package seeds numpy globally; we restore it
    (train_x, train_y), (test_x, test_y) = data["train"], data["test"]
    assert train_x.shape == (4000, 1, 1, 40) and test_x.shape == (1000, 1, 1, 40) and train_x.dtype == np.float32
    assert sorted(set(train_y.tolist())) == list(range(10)) and test_y.dtype == np.int64
    again = load_mnist1d_dataset()
    np.testing.assert_array_equal(again["test"][0], test_x)  # seeded: the same signals every time
    described = load_dataset("mnist1d")
    assert "MNIST-1D" in described["description"]
    assert "4,000 for training, 1,000 for testing" in described["description"]


def test_cnn_reads_one_dimensional_signals():
    model = build_model("cnn", image_shape=(1, 1, 40))
    assert model(torch.zeros(3, 1, 1, 40)).shape == (3, 10)


def test_load_dataset_names_the_allowed_domains():
    with pytest.raises(ValueError, match="'mnist'.*digits, mnist1d, mnist-idx"):
        load_dataset("mnist")
