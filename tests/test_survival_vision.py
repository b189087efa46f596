"""The vision figure of Zhan et al. (2025), Figure 3: captions from generation parameters, the CNN
family's failure counts, the contrastive dual encoder, and the model cache."""
import numpy as np
import pytest
import torch
from torch import nn

from intellimetry.images import SHAPES, TEXTURES, make_shapes
from intellimetry.survival.controls import random_ranker_counts
from intellimetry.survival.vision import classifiers, retrieval
from intellimetry.survival.vision.captions import caption, captions, position_phrase, tokenize, vocabulary
from intellimetry.survival.vision.data import ShapeSet
from intellimetry.survival.vision.study import above_chance, size_gain, task_summary, training_check
from intellimetry.verdicts import judge_figure, load_items

RADII = (0.1, 0.3)


# --------------------------------------------------------------------------- captions

def test_caption_states_each_parameter_in_words():
    triangle, checker = SHAPES.index("triangle"), TEXTURES.index("checker")
    assert caption(triangle, checker, -0.15, -0.15, 0.25, False, 0.2, RADII) == \
        "a large dark checkered triangle at the top left"
    outline, solid = SHAPES.index("square-outline"), TEXTURES.index("solid")
    assert caption(outline, solid, 0.0, 0.01, 0.15, True, 0.2, RADII) == \
        "a small bright plain square outline in the centre"
    assert caption(0, 0, 0.19, 0.0, 0.15, True, 0.2, RADII).endswith("disc on the right")
    assert caption(0, 0, 0.0, 0.19, 0.15, True, 0.2, RADII).endswith("disc at the bottom")


def test_position_thirds_cover_every_phrase_once():
    phrases = {position_phrase(row, column) for row in range(3) for column in range(3)}
    assert len(phrases) == 9 and "in the centre" in phrases and "at the bottom right" in phrases


def test_make_shapes_parameters_leave_the_images_unchanged_and_match_the_labels():
    x, y = make_shapes(100, n_images=200, image_size=12, seed=5)
    x2, y2, params = make_shapes(100, n_images=200, image_size=12, seed=5, with_params=True)
    np.testing.assert_array_equal(x, x2)  # AIQ's images for existing seeds stay as they were
    np.testing.assert_array_equal(y, y2)
    np.testing.assert_array_equal(y, 10 * params["shape"] + params["texture"])  # class = 10 * shape + texture
    assert np.abs(params["offset_x"]).max() <= 0.05 and params["radius"].min() >= 0.28


def test_captions_match_what_the_images_show():
    x, _, params = make_shapes(100, n_images=400, image_size=24, seed=2, offset=0.25, radius_range=RADII,
                               with_params=True)
    texts = captions(params, 0.25, RADII)
    # where the shape is: the centroid of the pixels that differ most from the background
    images = x[:, 0] - np.median(x[:, 0], axis=(1, 2), keepdims=True)
    weight = np.where(params["bright"][:, None, None], images, -images).clip(min=0) ** 2
    columns = (weight.sum(axis=1) * np.arange(24)).sum(axis=1) / weight.sum(axis=(1, 2))
    left = np.array(["left" in text.split() for text in texts])
    right = np.array(["right" in text.split() for text in texts])
    assert left.sum() > 50 and right.sum() > 50
    assert columns[left].mean() < 11.5 - 2 < 11.5 + 2 < columns[right].mean()
    for text, shape, bright in zip(texts, params["shape"], params["bright"]):
        assert ("bright" if bright else "dark") in text.split()
        assert SHAPES[shape].replace("-", " ").split()[-1] in text.split()


def test_tokenize_pads_with_zero_and_rejects_unknown_words():
    words = vocabulary()
    ids = tokenize(["a small dark ring in the centre", "a large bright plain disc"])
    assert ids.shape == (2, 7) and ids[1, 5:].tolist() == [0, 0]
    assert [words[i] for i in ids[1, :5]] == ["a", "large", "bright", "plain", "disc"]
    with pytest.raises(ValueError, match="zebra"):
        tokenize(["a zebra"])


# --------------------------------------------------------------------------- classification

def test_classification_failures_follow_a_hand_computed_ranking():
    # a linear model whose class scores are the pixels themselves: scores known by construction
    model = nn.Sequential(nn.Flatten(), nn.Linear(4, 4, bias=False))
    with torch.no_grad():
        model[1].weight.copy_(torch.eye(4))
    images = np.array([[0.1, 0.5, 0.3, 0.9],   # true 1: only class 3 scores higher -> 1 failure
                       [0.4, 0.4, 0.2, 0.1],   # true 1: tied with class 0, which counts for the subject -> 0
                       [0.2, 0.3, 0.4, 0.5]],  # true 0: every other class higher -> 3
                      dtype=np.float32).reshape(3, 1, 2, 2)
    labels = np.array([1, 1, 0])
    assert classifiers.classification_failures(model, images, labels).tolist() == [1, 0, 3]


def test_shape_cnn_sizes_grow_with_width_and_reject_tiny_images():
    sizes = [sum(p.numel() for p in classifiers.shape_cnn(w, 100, 16).parameters()) for w in (2, 4, 8)]
    assert sizes == sorted(sizes) and classifiers.shape_cnn(2, 100, 16)(torch.zeros(3, 1, 16, 16)).shape == (3, 100)
    with pytest.raises(ValueError, match="image_size must be at least 8"):
        classifiers.shape_cnn(2, 100, 4)


def tiny_classifier_recipe(epochs=1, batch_size=64):
    return classifiers.ClassifierRecipe(ShapeSet(300, 100, 8, 0), (2, 3), epochs, batch_size, 0.01, 0, base_width=2)


def test_width_scaled_learning_rates_follow_the_fan_in():
    # shape_cnn: conv (fan-in 1·9, fixed), conv (w·9), conv (2w·9), linear (4w·side²): at 4× the base
    # width every weight but the first convolution's learns 4× slower; biases never scale
    cnn = classifiers.shape_cnn
    groups = classifiers.width_scaled_groups(cnn(16, 100, 16), cnn(4, 100, 16), 0.01)
    rates = {group["name"]: group["lr"] for group in groups}
    assert rates == pytest.approx({"0.weight": 0.01, "0.bias": 0.01, "3.weight": 0.0025, "3.bias": 0.01,
                                   "6.weight": 0.0025, "6.bias": 0.01, "10.weight": 0.0025, "10.bias": 0.01})
    same = classifiers.width_scaled_groups(cnn(4, 100, 16), cnn(4, 100, 16), 0.01)
    assert all(group["lr"] == 0.01 for group in same)  # at the base width: the plain recipe
    with pytest.raises(ValueError, match="same architecture"):
        classifiers.width_scaled_groups(cnn(4, 100, 16), nn.Linear(3, 3), 0.01)


def test_one_training_step_moves_each_weight_by_its_scaled_rate():
    # Adam's first step moves every weight with a gradient by lr·g/(|g| + eps), i.e. by its group's lr
    recipe = tiny_classifier_recipe(batch_size=300)  # one epoch of one batch: exactly one step
    model = classifiers.initial_classifier(8, 8, seed=1)
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    data = recipe.data.generate()
    classifiers.train_width_scaled(model, classifiers.shape_cnn(2, 100, 8), *data["train"], recipe, seed=0)
    steps = {name: (p.detach() - before[name]).abs().max().item() for name, p in model.named_parameters()}
    assert steps["0.weight"] == pytest.approx(0.01, rel=1e-3) and steps["6.bias"] == pytest.approx(0.01, rel=1e-3)
    for name in ("3.weight", "6.weight", "10.weight"):  # fan-in 4× the base model's
        assert steps[name] == pytest.approx(0.0025, rel=1e-3)


def test_family_is_trained_once_then_loaded_from_the_cache(tmp_path):
    first = classifiers.train_family(tiny_classifier_recipe(), cache_root=tmp_path)
    second = classifiers.train_family(tiny_classifier_recipe(), cache_root=tmp_path)
    assert [m["record"]["trained_now"] for m in first.values()] == [True, True]
    assert [m["record"]["trained_now"] for m in second.values()] == [False, False]
    for name in first:
        np.testing.assert_array_equal(first[name]["failures"], second[name]["failures"])
        assert first[name]["failures"].max() <= 99 and first[name]["params"] == second[name]["params"]
    changed = classifiers.train_family(tiny_classifier_recipe(epochs=2), cache_root=tmp_path)
    assert [m["record"]["trained_now"] for m in changed.values()] == [True, True]  # a new recipe retrains


def test_recipes_reject_bad_inputs():
    with pytest.raises(ValueError, match="at least two different widths"):
        classifiers.ClassifierRecipe(ShapeSet(300, 100, 8, 0), (4,), 1, 64, 0.01, 0, 4)
    with pytest.raises(ValueError, match="base_width must be an integer >= 1"):
        classifiers.ClassifierRecipe(ShapeSet(300, 100, 8, 0), (4, 8), 1, 64, 0.01, 0, 0)
    with pytest.raises(ValueError, match="n_train must be an integer >= 100"):
        ShapeSet(10, 100, 8, 0)
    with pytest.raises(ValueError, match="retrieval|sizes must list"):
        retrieval.RetrievalRecipe(ShapeSet(300, 100, 8, 0), ((4, 16),), 10, 32, 0.01, 0)


# --------------------------------------------------------------------------- retrieval

def test_info_nce_is_low_when_each_caption_picks_its_image():
    assert retrieval.info_nce(10 * torch.eye(4)).item() < 0.01
    assert retrieval.info_nce(torch.zeros(4, 4)).item() == pytest.approx(np.log(4))


def test_contrastive_dual_encoder_beats_chance_on_a_seeded_toy_set(tmp_path):
    data = ShapeSet(2000, 100, 16, 3, offset=0.2, radius_range=(0.2, 0.35))
    recipe = retrieval.RetrievalRecipe(data, ((4, 16), (6, 24)), steps=250, batch_size=64, learning_rate=0.005,
                                       seed=0)
    members = retrieval.train_encoders(recipe, cache_root=tmp_path)
    chance_recall, chance_mean = 1 / 100, 99 / 2
    for member in members.values():
        assert member["recall_at_1"] >= 5 * chance_recall
        assert member["failures"].mean() < chance_mean / 3
        assert member["record"]["final_loss"] < member["record"]["initial_loss"]
    again = retrieval.train_encoders(recipe, cache_root=tmp_path)
    assert not any(m["record"]["trained_now"] for m in again.values())


def test_retrieval_failures_count_images_scored_above_the_captioned_one():
    model = retrieval.initial_encoder((2, 8), 8, seed=0)
    tokens = tokenize(["a small dark ring in the centre"] * 5)
    images = np.random.default_rng(0).random((5, 1, 8, 8), dtype=np.float32)
    failures = retrieval.retrieval_failures(model, tokens, images)
    # one caption for all: its score for each image is the same row, so failures are ranks in that row
    with torch.no_grad():
        row = (model.embed_text(tokens[:1]) @ model.embed_images(images).T)[0].numpy()
    assert failures.tolist() == [int((row > row[i]).sum()) for i in range(5)]


# --------------------------------------------------------------------------- the criterion's reading

def _rate(alpha, low, high, params, status="measured"):
    return {"alpha": alpha, "ci_low": low, "ci_high": high, "status": status, "params": params, "above_chance": True}


def test_the_size_gain_uses_measured_rates_only():
    rows = {"small": _rate(0.5, 0.4, 0.6, 1000), "mid": _rate(0.7, 0.6, 0.8, 5000),
            "large": _rate(0.9, 0.85, 0.95, 9000)}
    gain = size_gain(rows)
    assert (gain["smallest"], gain["largest"], gain["size_gain_measured"]) == ("small", "large", True)
    assert gain["size_gain"] == pytest.approx(0.4) and gain["size_gain_interval"] == pytest.approx([0.25, 0.55])
    for status in ("not a power law", "too few events"):
        unmeasured = size_gain({**rows, "large": _rate(0.9, 0.85, 0.95, 9000, status)})
        assert not unmeasured["size_gain_measured"]
        assert (unmeasured["size_gain"], unmeasured["size_gain_interval"]) == (0.0, [0.0, 0.0])
    bound = size_gain({**rows, "small": _rate(None, None, None, 1000, "bound")})  # no rate at all
    assert not bound["size_gain_measured"] and bound["size_gain"] == 0.0


def test_a_task_is_fitted_on_its_whole_support():
    rng = np.random.default_rng(0)
    members = {name: {"failures": np.minimum(rng.zipf(1.6, 3000) - 1, 199), "params": params,
                      "record": {"trained_now": False}} for name, params in (("a", 100), ("b", 1000), ("c", 10000))}
    summary = task_summary(members, "retrieval", 200, 20, np.random.default_rng(1))
    assert (summary["support"], summary["k_max"], summary["k_min"]) == (200, 199, 1)
    assert all(row["support"] == 200 and row["k_max"] == 199 for row in summary["models"].values())
    assert summary["rises_with_size"] is summary["scaling"]["rises"]
    with pytest.raises(ValueError, match="must lie in"):  # a count beyond the support is an error, not clipped
        task_summary({"a": {**members["a"], "failures": np.array([0, 1, 250])}}, "retrieval", 200, 20, rng)


# --------------------------------------------------------------------------- every member learned

def test_above_chance_uses_the_exact_binomial_interval():
    # 5 top-1 hits in 100 events: Clopper-Pearson 95 % lower end = Beta(0.025; 5, 96) = 0.0164 > 1/100
    five = above_chance(np.array([0] * 5 + [7] * 95), candidates=100)
    assert five["top1"] == 0.05 and five["top1_interval"][0] == pytest.approx(0.01643, abs=1e-4)
    assert five["chance"] == 0.01 and five["above_chance"]
    # 3 hits: 3 % is above 1 %, but the interval's lower end (0.0062) is not: it may be chance
    assert not above_chance(np.array([0] * 3 + [7] * 97), candidates=100)["above_chance"]
    # no hit: upper end 1 - 0.025^(1/100)
    none = above_chance(np.full(100, 9), candidates=100)
    assert none["top1_interval"] == pytest.approx([0.0, 1 - 0.025 ** (1 / 100)]) and not none["above_chance"]
    with pytest.raises(ValueError, match="at least one event"):
        above_chance(np.array([], dtype=int), candidates=100)


def _members_with_one_at_chance(rng):
    learned = {name: {"failures": np.minimum(rng.zipf(1.6, 3000) - 1, 199), "params": params,
                      "record": {"trained_now": False}} for name, params in (("a", 100), ("b", 1000))}
    # the widest member ranks like a random ranker: uniform failures over the 200 candidates
    dead = {"failures": random_ranker_counts(200, rng, n_events=3000), "params": 10000,
            "record": {"trained_now": False}}
    return {**learned, "c": dead}


def test_a_member_at_chance_is_flagged_and_makes_no_size_gain():
    rng = np.random.default_rng(0)
    summary = task_summary(_members_with_one_at_chance(rng), "retrieval", 200, 20, rng)
    assert [summary["models"][name]["above_chance"] for name in "abc"] == [True, True, False]
    check = training_check({"retrieval": summary})
    assert (check["all_above_chance"], check["at_chance"], check["members"]) == (False, ["c"], 3)
    assert check["smallest_margin"] < 0
    assert summary["largest"] == "c" and not summary["size_gain_measured"]  # the dead member's rate says nothing
    learned = task_summary({n: m for n, m in _members_with_one_at_chance(np.random.default_rng(0)).items() if n != "c"},
                           "retrieval", 200, 20, np.random.default_rng(1))
    assert training_check({"retrieval": learned})["all_above_chance"]


def _fig03_values(all_above_chance):
    task = {"size_gain": 0.5, "size_gain_interval": [0.3, 0.7]}
    claims = {"all_limited": True, "all_decaying": True, "classification": task, "retrieval": task,
              "measured": {"measured": True, "fewest_events_in_range": 500}}
    control = {**claims, "all_decaying": False, "trained": {"all_above_chance": False}}
    return {**claims, "trained": {"all_above_chance": all_above_chance}, "control": control}


def test_the_verdict_reads_a_member_at_chance_as_measured_nothing():
    registry = load_items("survival")
    assert judge_figure("survival-fig03-vision", _fig03_values(True), registry)["fig03"]["verdict"] == "reproduced"
    at_chance = judge_figure("survival-fig03-vision", _fig03_values(False), registry)["fig03"]
    assert at_chance["verdict"] == "inconclusive" and "every member learned" in at_chance["reason"]
