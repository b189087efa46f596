"""AIQ task domains on known answers: named domains, variants, paper-scale loaders and CartPole."""
from __future__ import annotations

import gzip
import itertools
import math
import pickle
import warnings

import numpy as np
import pytest

from intellimetry.aiq.domains import (
    DOMAINS,
    IMAGE_DOMAINS,
    Domain,
    cartpole_classification,
    cartpole_episode_return,
    class_subset,
    duplicated,
    heuristic_policy,
    load_cifar_directory,
    load_domain,
    load_idx_directory,
    make_cartpole,
    mixture,
    with_noise,
)


@pytest.fixture(scope="module")
def digits() -> Domain:
    return load_domain("digits")


@pytest.fixture(scope="module")
def shapes10() -> Domain:
    return load_domain("shapes10")


@pytest.fixture(scope="module")
def shapes100() -> Domain:
    return load_domain("shapes100")


def flat(x: np.ndarray) -> np.ndarray:
    return x.reshape(len(x), -1)


def logistic_accuracy(domain: Domain) -> float:
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = LogisticRegression(max_iter=200).fit(flat(domain.x_train), domain.y_train)
    return float(model.score(flat(domain.x_test), domain.y_test))


def check_format(domain: Domain, input_shape: tuple[int, ...]) -> None:
    for x, y in ((domain.x_train, domain.y_train), (domain.x_test, domain.y_test)):
        assert x.dtype == np.float32 and y.dtype == np.int64
        assert x.shape == (len(y), *input_shape)
        assert y.min() >= 0 and y.max() < domain.n_classes
        if domain.is_image:
            assert x.min() >= 0 and x.max() <= 1
    assert domain.is_image == (len(input_shape) == 3)
    assert domain.source.split(":")[0] in ("real", "generated", "real digits, transformed")
    assert "stand-in" in domain.source


# ------------------------------------------------------------------ named domains

def test_digits_is_the_real_scikit_learn_set_split_stratified(digits):
    check_format(digits, (1, 8, 8))
    assert len(digits.y_train) + len(digits.y_test) == 1797
    assert len(digits.y_test) == 450  # ceil(0.25 * 1797)
    assert digits.n_classes == 10 and "MNIST" in digits.source
    # stratified: every class has about a quarter of its images in the test set
    totals = np.bincount(digits.y_train, minlength=10) + np.bincount(digits.y_test, minlength=10)
    assert np.all(np.abs(np.bincount(digits.y_test, minlength=10) - 0.25 * totals) <= 1)
    # pixel values are scikit-learn's 0..16 scaled to [0, 1]: 17 levels
    assert set(np.unique(digits.x_train * 16).round(4)) <= set(range(17))


@pytest.mark.parametrize("name, options", [("digits", {}), ("digits-hard", {}),
                                           ("shapes10", {"n_images": 300}), ("shapes100", {"n_images": 400})])
def test_domains_are_deterministic_per_seed(name, options):
    a, b = load_domain(name, seed=3, **options), load_domain(name, seed=3, **options)
    for part in ("x_train", "y_train", "x_test", "y_test"):
        np.testing.assert_array_equal(getattr(a, part), getattr(b, part))
    assert a.fingerprint() == b.fingerprint()
    c = load_domain(name, seed=4, **options)
    assert c.fingerprint() != a.fingerprint()
    assert not np.array_equal(c.x_test, a.x_test)
    if name != "digits":  # the generated images themselves change with the seed, not just the split
        pool_a = {row.tobytes() for row in flat(np.concatenate([a.x_train, a.x_test]))}
        pool_c = {row.tobytes() for row in flat(np.concatenate([c.x_train, c.x_test]))}
        assert not pool_a & pool_c


def test_generated_image_domains_format_and_balance(shapes10, shapes100):
    hard = load_domain("digits-hard")
    check_format(hard, (1, 8, 8))
    assert len(hard.y_train) + len(hard.y_test) == 1797 and "Fashion-MNIST" in hard.source
    for domain, k in ((shapes10, 10), (shapes100, 100)):
        check_format(domain, (1, 16, 16))
        assert domain.n_classes == k and f"CIFAR-{k}" in domain.source
        counts = np.bincount(np.concatenate([domain.y_train, domain.y_test]), minlength=k)
        assert counts.sum() == 2000 and np.all(counts == 2000 // k)
        assert 0.1 < domain.x_train.std() < 0.4  # neither blank nor saturated
    assert set(IMAGE_DOMAINS) == {"digits", "digits-hard", "shapes10", "shapes100"}
    assert load_domain("shapes10", n_images=250).name == "shapes10[n_images=250]"
    with pytest.raises(ValueError, match="stratified split"):
        load_domain("shapes100", n_images=300)


def test_jitter_changes_digits_but_keeps_labels(digits):
    hard = load_domain("digits-hard")
    np.testing.assert_array_equal(hard.y_train, digits.y_train)  # same seed -> same split
    assert np.abs(hard.x_train - digits.x_train).mean() > 0.1
    clean = load_domain("digits-hard", max_rotation=0, scale_range=(1, 1), max_shift=0, noise=0)
    np.testing.assert_allclose(clean.x_train, digits.x_train, atol=1e-6)  # the identity transform
    noisy = load_domain("digits-hard", max_rotation=0, scale_range=(1, 1), max_shift=0, noise=0.1)
    mid = (digits.x_train > 0.2) & (digits.x_train < 0.8)  # where clipping to [0, 1] cannot bite
    residual = (noisy.x_train - digits.x_train)[mid]
    assert residual.std() == pytest.approx(0.1, abs=0.005) and abs(residual.mean()) < 0.005


def test_image_domains_are_learnable_but_not_trivially(digits, shapes10, shapes100):
    acc = {name: logistic_accuracy(d) for name, d in
           (("digits", digits), ("digits-hard", load_domain("digits-hard")),
            ("shapes10", shapes10), ("shapes100", shapes100))}
    # measured with seed 0: 0.969, 0.822, 0.232, 0.084 (seeds 1-3: shapes10 0.21-0.27, shapes100 0.09-0.10)
    assert acc["digits"] > 0.9
    assert 0.5 < acc["digits-hard"] < acc["digits"] - 0.05
    assert 0.18 < acc["shapes10"] < 0.6  # chance 0.1, 500 test images: sd of chance ~ 0.013
    assert 0.03 < acc["shapes100"] < acc["shapes10"] - 0.05  # chance 0.01


def test_shapes100_classes_are_shape_times_texture(shapes100):
    """Both factors of a shapes100 class are visible: each alone is learnable above its chance of 0.1."""
    def factor(of):
        return Domain("factor", shapes100.x_train, of(shapes100.y_train), shapes100.x_test, of(shapes100.y_test),
                      10, "generated: test")

    assert logistic_accuracy(factor(lambda y: y // 10)) > 0.18  # shape (measured 0.278)
    assert logistic_accuracy(factor(lambda y: y % 10)) > 0.15  # texture (measured 0.202)


# ------------------------------------------------------------------ variants

def test_class_subset_keeps_only_those_classes_and_reindexes(digits):
    sub = class_subset(digits, [7, 2, 5])
    assert sub.n_classes == 3 and sub.name == "digits[7,2,5]"
    for part in ("train", "test"):
        x, y = getattr(digits, f"x_{part}"), getattr(digits, f"y_{part}")
        sx, sy = getattr(sub, f"x_{part}"), getattr(sub, f"y_{part}")
        for new, old in enumerate((7, 2, 5)):
            np.testing.assert_array_equal(sx[sy == new], x[y == old])
        assert len(sy) == np.isin(y, [7, 2, 5]).sum()
    for bad in ([], [1, 1], [10], [-1]):
        with pytest.raises(ValueError, match="distinct labels"):
            class_subset(digits, bad)


def test_duplicated_multiplies_the_training_set_exactly(digits):
    dup = duplicated(digits, 3)
    assert len(dup.y_train) == 3 * len(digits.y_train) == 4041
    np.testing.assert_array_equal(dup.x_train[len(digits.y_train):2 * len(digits.y_train)], digits.x_train)
    np.testing.assert_array_equal(dup.x_test, digits.x_test)
    assert len(duplicated(digits, 2, test=True).y_test) == 900
    assert duplicated(digits, 1).fingerprint() != digits.fingerprint()  # renamed "digitsx1"
    with pytest.raises(ValueError, match="positive integer"):
        duplicated(digits, 0)


def test_noise_level_zero_is_identity_and_level_one_destroys_the_images(digits):
    same = with_noise(digits, 0.0, seed=1)
    np.testing.assert_array_equal(same.x_train, digits.x_train)
    np.testing.assert_array_equal(same.x_test, digits.x_test)
    noise = with_noise(digits, 1.0, seed=1)
    r = np.corrcoef(noise.x_train.ravel(), digits.x_train.ravel())[0, 1]
    assert abs(r) < 0.02
    assert noise.x_train.mean() == pytest.approx(0.5, abs=0.01)
    assert noise.x_train.var() == pytest.approx(1 / 12, abs=0.005)  # uniform on [0, 1]
    np.testing.assert_array_equal(noise.y_train, digits.y_train)
    part = with_noise(digits, 0.3, seed=1)
    assert (part.x_train != digits.x_train).mean() == pytest.approx(0.3, abs=0.01)
    assert part.name == "digits+noise0.3"
    added = with_noise(digits, 0.1, mode="add")
    check_format(added, (1, 8, 8))
    assert 0.03 < np.abs(added.x_train - digits.x_train).mean() < 0.1
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        with_noise(digits, 1.5)
    with pytest.raises(ValueError, match="replace, add"):
        with_noise(digits, 0.1, mode="salt")


def test_noise_on_vectors_stays_in_each_feature_range():
    pole = cartpole_classification(episodes=4)
    noisy = with_noise(pole, 1.0)
    low, high = pole.x_train.min(axis=0), pole.x_train.max(axis=0)
    assert np.all(noisy.x_test >= low) and np.all(noisy.x_test <= high)
    assert abs(np.corrcoef(noisy.x_train[:, 2], pole.x_train[:, 2])[0, 1]) < 0.1


def test_mixture_draws_from_each_domain_with_probability_p(digits, shapes10):
    only_1, only_2 = mixture(digits, shapes10, 1.0), mixture(digits, shapes10, 0.0)
    assert only_1.n_classes == only_2.n_classes == 20
    assert set(np.unique(only_1.y_train)) == set(range(10)) and set(np.unique(only_1.y_test)) <= set(range(10))
    assert set(np.unique(only_2.y_train)) == set(range(10, 20)) and only_2.y_test.min() >= 10
    # size: the larger domain's (shapes10: 1,500 / 500); images zero-padded, centred, to 16x16
    assert only_1.x_train.shape == (1500, 1, 16, 16) and len(only_1.y_test) == 500
    assert only_1.x_train[:, :, :4].max() == 0 and only_1.x_train[:, :, :, 12:].max() == 0
    known = {(row.tobytes(), int(label)) for row, label in zip(flat(digits.x_train), digits.y_train)}
    drawn = {(row.tobytes(), int(label)) for row, label in zip(flat(only_1.x_train[:, :, 4:12, 4:12]),
                                                               only_1.y_train)}
    assert drawn == known  # 1,500 draws from 1,347 images: every image, and each once before any repeat
    only_2_images = {row.tobytes() for row in flat(shapes10.x_train)}
    assert {row.tobytes() for row in flat(only_2.x_train)} == only_2_images  # 1,500 of 1,500, no repeats
    half = mixture(digits, shapes10, 0.3, seed=2)
    assert (half.y_train < 10).mean() == pytest.approx(0.3, abs=0.04)
    assert "probability 0.3" in half.source and half.name == "mix(digits,shapes10,p=0.3)"


def test_mixture_options(digits):
    itself = mixture(digits, digits, 0.5, labels="shared", size="min")
    assert itself.n_classes == 10
    known = {(row.tobytes(), int(label)) for row, label in zip(flat(digits.x_train), digits.y_train)}
    assert {(row.tobytes(), int(label)) for row, label in zip(flat(itself.x_train), itself.y_train)} <= known
    pole = cartpole_classification(episodes=3)
    mixed = mixture(digits, pole, 0.5, size=200)
    assert not mixed.is_image and mixed.x_train.shape == (200, 64) and mixed.n_classes == 12
    assert len(mixed.y_test) == round(200 * 450 / 1347)
    for kwargs, message in (({"p": 1.2}, r"\[0, 1\]"), ({"p": 0.5, "labels": "merge"}, "concatenate, shared"),
                            ({"p": 0.5, "size": "mean"}, "max, min")):
        with pytest.raises(ValueError, match=message):
            mixture(digits, digits, **kwargs)


# ------------------------------------------------------------------ errors and the Domain itself

def test_invalid_names_and_parameters_list_the_allowed_values():
    with pytest.raises(ValueError) as error:
        load_domain("mnist")
    assert all(name in str(error.value) for name in DOMAINS)
    with pytest.raises(ValueError, match="n_images, image_size"):
        load_domain("shapes10", colour=True)
    with pytest.raises(ValueError, match="between 0 and 1"):
        load_domain("digits", test_fraction=1.0)
    with pytest.raises(ValueError, match="positive"):
        make_cartpole(force_mag=0)
    with pytest.raises(ValueError, match="non-negative"):
        make_cartpole(gravity=-9.8)


def test_domain_validates_and_is_read_only(digits):
    x = np.zeros((3, 1, 2, 2), dtype=np.float32)
    with pytest.raises(ValueError, match="0..1"):
        Domain("bad", x, np.array([0, 1, 2]), x, np.array([0, 1, 1]), 2, "generated: test")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        Domain("bad", x + 2, np.array([0, 1, 1]), x, np.array([0, 1, 1]), 2, "generated: test")
    with pytest.raises(ValueError):
        digits.x_train[0, 0, 0, 0] = 1.0
    assert len(digits.fingerprint()) == 64 and digits.fingerprint() == load_domain("digits").fingerprint()


# ------------------------------------------------------------------ paper-scale loaders

def write_idx(path, array: np.ndarray, magic: int, compress: bool) -> None:
    header = np.array([magic, *array.shape], dtype=">i4").tobytes()
    data = header + array.astype(np.uint8).tobytes()
    if compress:
        with gzip.open(f"{path}.gz", "wb") as handle:
            handle.write(data)
    else:
        path.write_bytes(data)


def test_idx_loader_reads_tiny_files(tmp_path):
    rng = np.random.default_rng(0)
    train, test = rng.integers(0, 256, (5, 28, 28)), rng.integers(0, 256, (3, 28, 28))
    write_idx(tmp_path / "train-images-idx3-ubyte", train, 2051, compress=True)
    write_idx(tmp_path / "train-labels-idx1-ubyte", np.array([0, 1, 9, 3, 1]), 2049, compress=True)
    write_idx(tmp_path / "t10k-images-idx3-ubyte", test, 2051, compress=False)
    write_idx(tmp_path / "t10k-labels-idx1-ubyte", np.array([2, 0, 1]), 2049, compress=False)
    domain = load_idx_directory(tmp_path)
    assert domain.x_train.shape == (5, 1, 28, 28) and domain.x_train.dtype == np.float32
    np.testing.assert_allclose(domain.x_test[:, 0] * 255, test, atol=1e-4)
    assert domain.y_train.tolist() == [0, 1, 9, 3, 1] and domain.n_classes == 10
    assert domain.source.startswith("real: IDX") and str(tmp_path.resolve()) in domain.source
    (tmp_path / "t10k-labels-idx1-ubyte").unlink()
    with pytest.raises(FileNotFoundError, match="t10k-labels-idx1-ubyte"):
        load_idx_directory(tmp_path)
    write_idx(tmp_path / "t10k-labels-idx1-ubyte", np.array([2, 0, 1]), 2051, compress=False)
    with pytest.raises(ValueError, match="magic number 2051, expected 2049"):
        load_idx_directory(tmp_path)
    with pytest.raises(FileNotFoundError, match="not found"):
        load_idx_directory(tmp_path / "nowhere")


def write_batch(path, rgb: np.ndarray, labels: dict) -> None:
    batch = {b"data": rgb.reshape(len(rgb), -1).astype(np.uint8),
             **{key.encode(): list(value) for key, value in labels.items()}}
    with open(path, "wb") as handle:
        pickle.dump(batch, handle)


def test_cifar10_loader_reads_tiny_batches_in_greyscale(tmp_path):
    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()
    rng = np.random.default_rng(1)
    for i in range(1, 6):
        write_batch(folder / f"data_batch_{i}", rng.integers(0, 256, (2, 3, 32, 32)), {"labels": [i, 9 - i]})
    pure = np.zeros((3, 3, 32, 32))
    pure[0, 0], pure[1, 1], pure[2, 2] = 255, 255, 255  # pure red, green, blue
    write_batch(folder / "test_batch", pure, {"labels": [0, 1, 2]})
    domain = load_cifar_directory(tmp_path)  # the parent folder is accepted too
    assert domain.x_train.shape == (10, 1, 32, 32) and domain.n_classes == 10
    assert domain.y_train.tolist() == [1, 8, 2, 7, 3, 6, 4, 5, 5, 4]
    np.testing.assert_allclose(domain.x_test[:, 0, 5, 5], [0.299, 0.587, 0.114], atol=1e-6)
    assert "greyscale" in domain.source and "CIFAR-10" in domain.source
    with pytest.raises(ValueError, match="only for CIFAR-100"):
        load_cifar_directory(folder, coarse=True)
    (folder / "data_batch_4").unlink()
    with pytest.raises(FileNotFoundError, match="data_batch_4"):
        load_cifar_directory(folder)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="test_batch"):
        load_cifar_directory(empty)


def test_cifar100_loader_fine_and_coarse(tmp_path):
    white = np.full((2, 3, 32, 32), 255)
    write_batch(tmp_path / "train", white, {"fine_labels": [99, 3], "coarse_labels": [19, 0]})
    write_batch(tmp_path / "test", white[:1], {"fine_labels": [50], "coarse_labels": [7]})
    fine, coarse = load_cifar_directory(tmp_path), load_cifar_directory(tmp_path, coarse=True)
    assert fine.n_classes == 100 and fine.y_train.tolist() == [99, 3]
    assert coarse.n_classes == 20 and coarse.y_test.tolist() == [7]
    np.testing.assert_allclose(fine.x_train, 1.0, atol=1e-6)
    (tmp_path / "test").unlink()
    with pytest.raises(FileNotFoundError, match="test"):
        load_cifar_directory(tmp_path)


# ------------------------------------------------------------------ CartPole

def test_cartpole_force_and_gravity_are_applied_step_by_step():
    env = make_cartpole(force_mag=3.0, gravity=50.0, seed=5)
    assert env.unwrapped.force_mag == 3.0 and env.unwrapped.gravity == 50.0
    observation, _ = env.reset(seed=5)
    x, x_dot, theta, theta_dot = (float(v) for v in observation)
    new, *_ = env.step(1)
    # gymnasium's Euler step (Florian 2007 equations), pole mass 0.1, cart 1.0, half-length 0.5, tau 0.02
    force, gravity, mp, total, half, tau = 3.0, 50.0, 0.1, 1.1, 0.5, 0.02
    temp = (force + mp * half * theta_dot ** 2 * math.sin(theta)) / total
    theta_acc = (gravity * math.sin(theta) - math.cos(theta) * temp) / (
        half * (4 / 3 - mp * math.cos(theta) ** 2 / total))
    x_acc = temp - mp * half * theta_acc * math.cos(theta) / total
    expected = [x + tau * x_dot, x_dot + tau * x_acc, theta + tau * theta_dot, theta_dot + tau * theta_acc]
    np.testing.assert_allclose(new, expected, rtol=1e-5, atol=1e-6)
    default = make_cartpole(seed=5)
    default.reset(seed=5)
    assert not np.allclose(default.step(1)[0], new)  # the defaults (10 N, 9.8) give another step


def test_cartpole_episodes_end_sooner_under_more_gravity_and_force():
    def alternating():  # pushes cancel: the pole falls under gravity alone
        counter = itertools.count()
        return lambda observation: next(counter) % 2

    def mean_length(policy_factory, **physics):
        env = make_cartpole(**physics)
        return np.mean([cartpole_episode_return(env, policy_factory(), seed=s) for s in range(8)])

    by_gravity = [mean_length(alternating, gravity=g) for g in (0.0, 9.8, 50.0, 360.0)]
    assert by_gravity == sorted(by_gravity, reverse=True) and by_gravity[0] > 2 * by_gravity[-1]
    by_force = [mean_length(lambda: (lambda observation: 1), force_mag=f) for f in (1.0, 10.0, 20.0)]
    assert by_force == sorted(by_force, reverse=True) and by_force[0] > 2 * by_force[-1]


def test_heuristic_policy_balances_for_200_steps():
    env = make_cartpole()
    lengths = [cartpole_episode_return(env, heuristic_policy, seed=s) for s in range(10)]
    assert min(lengths) >= 150 and max(lengths) == 200  # the step limit is 200
    long_env = make_cartpole(max_steps=500)
    assert cartpole_episode_return(long_env, heuristic_policy, seed=0) == 500
    assert cartpole_episode_return(make_cartpole(gravity=360.0), heuristic_policy, seed=0) < 50
    with pytest.raises(ValueError, match="0 or 1"):
        cartpole_episode_return(env, lambda observation: 2, seed=0)


def test_cartpole_classification_labels_are_the_policy_actions():
    domain = cartpole_classification(episodes=8, seed=1)
    check_format(domain, (4,))
    assert domain.n_classes == 2 and "heuristic_policy" in domain.source and "gravity 9.8" in domain.source
    assert len(domain.y_train) == 6 * 200 and len(domain.y_test) == 2 * 200  # split by episode
    for x, y in ((domain.x_train, domain.y_train), (domain.x_test, domain.y_test)):
        assert [heuristic_policy(o) for o in x] == y.tolist()
    assert 0.3 < domain.y_train.mean() < 0.7
    again = cartpole_classification(episodes=8, seed=1)
    assert again.fingerprint() == domain.fingerprint()
    assert cartpole_classification(episodes=8, seed=2).fingerprint() != domain.fingerprint()
    heavy = load_domain("cartpole", gravity=360.0, episodes=4)
    assert heavy.name == "cartpole(force=10,gravity=360)" and len(heavy.y_train) < 3 * 50
    with pytest.raises(ValueError, match="episodes"):
        cartpole_classification(episodes=1)


def test_mixture_of_vector_domains_at_the_ends_of_the_p_grid():
    # p = 0 and p = 1 draw nothing from one side: the empty part must still reshape and pad
    rng = np.random.default_rng(0)
    a = Domain("a", rng.random((20, 4)), rng.integers(0, 2, 20), rng.random((8, 4)), rng.integers(0, 2, 8), 2, "t")
    b = Domain("b", rng.random((20, 4)), rng.integers(0, 2, 20), rng.random((8, 4)), rng.integers(0, 2, 8), 2, "t")
    for p, source in ((0.0, b), (1.0, a)):
        mixed = mixture(a, b, p, labels="shared")
        assert mixed.x_train.shape == (20, 4)
        rows = {tuple(r) for r in source.x_train}
        assert all(tuple(r) in rows for r in mixed.x_train)
