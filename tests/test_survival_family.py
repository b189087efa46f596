"""Our GPT-2 family: the parameter count by hand, the cache (no retraining, retraining on a new recipe),
learning, the tokenizer's round trip, the schedule, and refused recipes."""
from __future__ import annotations

import dataclasses
import math

import pytest
import torch
from transformers import GPT2Config, GPT2LMHeadModel

from intellimetry.survival.language import family, scoring

WORDS = ("the cat sat on a mat while every dog ran past quickly and one bird sang softly near "
         "old trees under grey clouds before rain came down over quiet fields").split()


def english_texts(n_texts: int = 12, words_per_text: int = 60) -> list[str]:
    """A few KB of deterministic pseudo-English (a fixed word list walked with a stride)."""
    texts = []
    for t in range(n_texts):
        words = [WORDS[(7 * t + 5 * i + i // 3) % len(WORDS)] for i in range(words_per_text)]
        texts.append(" ".join(words).capitalize() + ".\nNew line, café: 3.5%!")
    return texts


TINY = family.Recipe(vocab_size=300, context=16, batch_size=4, steps=30, learning_rate=1e-2, warmup_steps=3,
                     seed=0, sizes=((1, 8, 2), (1, 16, 2)), validation_fraction=0.1)


@pytest.fixture(scope="module")
def cache_root(tmp_path_factory):
    return tmp_path_factory.mktemp("family-cache")


@pytest.fixture(scope="module")
def trained(cache_root):
    return family.train_family(english_texts(), TINY, cache_root=cache_root, progress=False)


def test_non_embedding_parameters_match_the_gpt2_block_formula():
    d, n_layer, vocab, context = 8, 2, 50, 16
    block = (2 * d                    # ln_1 gain and bias
             + d * 3 * d + 3 * d      # attn.c_attn: query, key, value
             + d * d + d              # attn.c_proj
             + 2 * d                  # ln_2
             + d * 4 * d + 4 * d      # mlp.c_fc
             + 4 * d * d + d)         # mlp.c_proj
    assert block == 12 * d * d + 13 * d == 872
    expected = n_layer * block + 2 * d  # + ln_f; the output layer is the (tied) token embedding
    model = GPT2LMHeadModel(GPT2Config(vocab_size=vocab, n_positions=context, n_embd=d, n_layer=n_layer, n_head=2))
    assert scoring.non_embedding_parameters(model) == expected == 1760
    total = sum(p.numel() for p in model.parameters())  # parameters() yields the tied matrix once
    assert total == expected + vocab * d + context * d


def test_the_recipes_span_two_decades_of_non_embedding_parameters():
    for recipe in (family.QUICK_RECIPE, family.FULL_RECIPE):
        counts = [n_layer * (12 * d * d + 13 * d) + 2 * d for n_layer, d, _ in recipe.sizes]
        assert len(counts) >= 6 and counts == sorted(counts)
        assert math.log10(counts[-1] / counts[0]) >= 2


def test_members_are_trained_with_their_sizes_and_records(trained):
    assert [m.name for m in trained] == ["gpt2-L1-d8-h2", "gpt2-L1-d16-h2"]
    for member, (n_layer, d, n_head) in zip(trained, TINY.sizes):
        assert (member.config.n_layer, member.config.n_embd, member.config.n_head) == (n_layer, d, n_head)
        assert member.non_embedding_params == n_layer * (12 * d * d + 13 * d) + 2 * d
        assert not member.model.training and member.model.dtype == torch.float32
        record = member.record
        assert record["trained_now"] and record["steps"] == TINY.steps
        assert record["tokens_seen"] == TINY.steps * TINY.batch_size * TINY.context
        assert record["validation_loss"] < record["initial_validation_loss"]


def test_a_trained_member_predicts_its_training_text_better_than_at_initialisation(trained):
    member = trained[1]
    ids = family.encode_texts(english_texts(), member.tokenizer)
    untrained = family.initial_model(member.config, seed=1)
    before = family.mean_loss(untrained, ids, TINY.context)
    after = family.mean_loss(member.model, ids, TINY.context)
    assert before == pytest.approx(math.log(member.config.vocab_size), abs=0.3)  # near uniform at init
    assert after < before - 1.0


def test_a_second_call_loads_from_the_cache_and_a_new_recipe_retrains(trained, cache_root):
    again = family.train_family(english_texts(), TINY, cache_root=cache_root, progress=False)
    for first, second in zip(trained, again):
        assert not second.record["trained_now"]
        assert second.record["validation_loss"] == first.record["validation_loss"]
        for (name, a), (_, b) in zip(first.model.state_dict().items(), second.model.state_dict().items()):
            assert torch.equal(a, b), name
    more_steps = dataclasses.replace(TINY, steps=TINY.steps + 1)
    retrained = family.train_family(english_texts(), more_steps, cache_root=cache_root, progress=False)
    assert all(m.record["trained_now"] for m in retrained)
    other_text = family.train_family(english_texts()[:-1], TINY, cache_root=cache_root, progress=False)
    assert all(m.record["trained_now"] for m in other_text)


def test_training_is_deterministic_and_stores_weights_beside_a_record(trained, tmp_path):
    fresh = family.train_family(english_texts(), TINY, cache_root=tmp_path, progress=False)
    for first, second in zip(trained, fresh):
        assert second.record["trained_now"]
        for (name, a), (_, b) in zip(first.model.state_dict().items(), second.model.state_dict().items()):
            assert torch.equal(a, b), name
    stored = sorted(p.name.split(".", 1)[1] for p in (tmp_path / "survival-family").iterdir())
    assert stored == ["json", "json", "safetensors", "safetensors", "tokenizer.json"]


def test_adding_a_size_trains_only_the_new_size(trained, cache_root):
    grown = dataclasses.replace(TINY, sizes=TINY.sizes + ((2, 8, 4),))
    members = family.train_family(english_texts(), grown, cache_root=cache_root, progress=False)
    assert [m.record["trained_now"] for m in members] == [False, False, True]


def test_the_tokenizer_round_trips_text_and_has_one_special_token(trained):
    tokenizer = trained[0].tokenizer
    eos = tokenizer.convert_tokens_to_ids(family.EOS)
    assert tokenizer.all_special_ids == [eos]
    assert len(tokenizer) <= TINY.vocab_size
    for text in english_texts()[:3] + ["  Unseen words: naïve Ωmega, 日本語\ttabs\n\nend "]:
        ids = tokenizer(text)["input_ids"]
        assert eos not in ids
        assert tokenizer.decode(ids) == text


def test_the_stream_separates_texts_with_end_of_text(trained):
    tokenizer = trained[0].tokenizer
    eos = tokenizer.convert_tokens_to_ids(family.EOS)
    stream = family.encode_texts(["a cat", "a dog"], tokenizer).tolist()
    assert stream == tokenizer("a cat")["input_ids"] + [eos] + tokenizer("a dog")["input_ids"] + [eos]


def test_the_learning_rate_warms_up_linearly_then_decays_by_a_cosine():
    recipe = dataclasses.replace(TINY, steps=11, warmup_steps=2, learning_rate=1.0, min_lr_ratio=0.1)
    rates = [family.learning_rate_at(step, recipe) for step in range(recipe.steps)]
    assert rates[:3] == pytest.approx([0.5, 1.0, 1.0])
    assert rates[-1] == pytest.approx(0.1)
    assert rates[6] == pytest.approx(0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * 4 / 8)))  # = 0.55, halfway
    assert all(a >= b for a, b in zip(rates[1:], rates[2:]))


@pytest.mark.parametrize("change, field", [
    ({"steps": 0}, "recipe.steps"),
    ({"vocab_size": 100}, "recipe.vocab_size"),
    ({"learning_rate": -1e-3}, "recipe.learning_rate"),
    ({"warmup_steps": 30}, "recipe.warmup_steps"),
    ({"sizes": ((1, 8, 2),)}, "recipe.sizes"),
    ({"sizes": ((1, 8, 2), (1, 10, 4))}, "n_embd 10 must be divisible by n_head 4"),
    ({"sizes": ((1, 8, 2), (0, 8, 2))}, "recipe.sizes[1].n_layer"),
    ({"sizes": ((1, 8, 2), (1, 8, 2))}, "must not repeat"),
    ({"validation_fraction": 0.0}, "recipe.validation_fraction"),
])
def test_a_bad_recipe_is_refused_naming_the_field(change, field):
    with pytest.raises(ValueError, match=field.replace("[", r"\[").replace("]", r"\]")):
        dataclasses.replace(TINY, **change)


def test_bad_texts_are_refused(tmp_path):
    with pytest.raises(ValueError, match="texts must be a non-empty list of strings"):
        family.train_family("one string", TINY, cache_root=tmp_path, progress=False)
    with pytest.raises(ValueError, match="too few for recipe.context"):
        family.train_family(["too short"], TINY, cache_root=tmp_path, progress=False)
