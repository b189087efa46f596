"""Failure counts of causal LMs: known logits, chunking, the K-prefix rule, teacher forcing, loading."""
import numpy as np
import pytest
import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from intellimetry.survival.language import scoring

WORDS = ["<eos>", "a", "b", "c", "d", "e", "f", "g", "h"]


def word_tokenizer():
    backend = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="<eos>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="<eos>")


def tiny_gpt2(n_layer=2, n_positions=64, seed=0):
    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=len(WORDS), n_positions=n_positions, n_embd=8, n_layer=n_layer, n_head=2,
                        bos_token_id=0, eos_token_id=0)
    return GPT2LMHeadModel(config).double().eval()


def wrap(model, tokenizer=None):
    return scoring.LanguageModel("tiny", model, tokenizer or word_tokenizer(), identity="test")


def brute_force(model, ids, targets):
    """Failures from the plain forward pass's full logits (one call over the whole sequence)."""
    with torch.no_grad():
        logits = model(torch.as_tensor(ids).unsqueeze(0)).logits[0].numpy()
    return np.array([(logits[t - 1] > logits[t - 1, ids[t]]).sum() for t in targets])


def test_known_logits_give_exact_counts_with_ties_for_the_model():
    # n_layer 0 and a zero-weight final norm: every hidden state is the norm's bias (1, 0), so the
    # logits are the first column of the tied embedding: [.., 3, 1, 3, 0, 2, ...] for every position.
    model = tiny_gpt2(n_layer=0)
    with torch.no_grad():
        model.transformer.ln_f.weight.zero_()
        model.transformer.ln_f.bias.copy_(torch.tensor([1.0] + [0.0] * 7))
        model.transformer.wte.weight[:, 0] = torch.tensor([-9.0, 3, 1, 3, 0, 2, -1, -2, -3])
    lm = wrap(model)
    ids = [1, 1, 2, 3, 4, 5, 6]  # targets 1..6 -> failures 0, 3, 0 (3 ties with 1), 4, 2, 5
    assert scoring.document_failure_counts(lm, ids, min_prefix=1).tolist() == [0, 3, 0, 4, 2, 5]


@pytest.mark.parametrize("chunk", [1, 3, 100])
def test_chunked_kv_cache_matches_one_plain_forward_pass(chunk):
    model = tiny_gpt2()
    ids = np.random.default_rng(1).integers(1, len(WORDS), size=40)
    counts = scoring.document_failure_counts(wrap(model), ids, min_prefix=5, chunk_tokens=chunk)
    assert counts.tolist() == brute_force(model, ids, range(5, 40)).tolist()


def test_only_positions_after_a_prefix_of_k_tokens_are_events_and_special_tokens_never_targets():
    model = tiny_gpt2()
    ids = np.array([1, 2, 3, 4, 0, 5, 6, 0, 7, 8])  # 0 is <eos>, a special token
    counts = scoring.document_failure_counts(wrap(model), ids, min_prefix=4)
    targets = [4 + i for i, token in enumerate(ids[4:]) if token != 0]
    assert counts.tolist() == brute_force(model, ids, targets).tolist()
    assert scoring.document_failure_counts(wrap(model), ids[:4], min_prefix=4).size == 0


def test_sliding_windows_score_each_target_once_with_at_least_context_minus_stride_tokens():
    model = tiny_gpt2(n_positions=8)
    ids = np.random.default_rng(2).integers(1, len(WORDS), size=30)
    counts = scoring.document_failure_counts(wrap(model), ids, min_prefix=3, window_stride=4)
    assert counts.size == 30 - 3
    # targets 3..7 in the first window [0, 8); target t >= 8 in the window starting at 4 * (t // 4) - 4,
    # where it is among the last 4 (the stride) and sees at least 8 - 4 tokens
    expected = brute_force(model, ids[:8], range(3, 8)).tolist()
    for t in range(8, 30):
        start = 4 * (t // 4) - 4
        expected += brute_force(model, ids[start:start + 8], [t - start]).tolist()
    assert counts.tolist() == expected


def test_teacher_forcing_counts_only_the_answer_tokens():
    model, tokenizer = tiny_gpt2(), word_tokenizer()
    lm = wrap(model, tokenizer)
    counts = scoring.answer_failure_counts(lm, "a b c d", " e f g")
    ids = tokenizer("a b c d e f g")["input_ids"]
    assert counts.tolist() == brute_force(model, ids, [4, 5, 6]).tolist()
    # one answer token after a longer prompt is one event
    assert scoring.answer_failure_counts(lm, "a b c d e f", " g").size == 1
    with pytest.raises(ValueError, match="empty"):
        scoring.answer_failure_counts(lm, "a b", "")


def test_non_embedding_parameters_of_gpt2_by_hand():
    model = tiny_gpt2()
    d, layers = 8, 2
    # per block: two layer norms (2*2d), attention c_attn (d*3d + 3d) and c_proj (d*d + d), MLP (d*4d + 4d, 4d*d + d)
    block = 4 * d + (3 * d * d + 3 * d) + (d * d + d) + (4 * d * d + 4 * d) + (4 * d * d + d)
    assert scoring.non_embedding_parameters(model) == layers * block + 2 * d  # + the final norm


def test_untied_output_embedding_counts_as_an_embedding():
    config = LlamaConfig(vocab_size=len(WORDS), hidden_size=8, intermediate_size=16, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, tie_word_embeddings=False,
                         bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model = LlamaForCausalLM(config)
    total = sum(p.numel() for p in model.parameters())
    assert scoring.non_embedding_parameters(model) == total - 2 * len(WORDS) * 8


def test_a_saved_local_model_loads_and_an_unknown_id_is_refused_offline(tmp_path, monkeypatch):
    model, tokenizer = tiny_gpt2().float(), word_tokenizer()
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    lm = scoring.load_language_model(str(tmp_path))
    assert lm.identity.startswith("local:") and lm.context == 64
    assert lm.non_embedding_params == scoring.non_embedding_parameters(model)
    assert scoring.score_documents(lm, ["a b c d e f"], min_prefix=2, max_tokens=5,
                                   progress=False)["events_per_document"] == [3]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ValueError, match="no-such/model"):
        scoring.load_language_model("no-such/model")


def test_bad_arguments_name_the_parameter():
    lm = wrap(tiny_gpt2())
    with pytest.raises(ValueError, match="min_prefix"):
        scoring.document_failure_counts(lm, [1, 2, 3], min_prefix=0)
    with pytest.raises(ValueError, match="max_tokens"):
        scoring.score_documents(lm, ["a b"], min_prefix=4, max_tokens=3)


def test_a_conversion_saved_meanwhile_by_another_process_is_kept(tmp_path):
    lm = wrap(tiny_gpt2().float())
    target = tmp_path / "converted"
    scoring._save_atomically(lm, target)  # the other process's copy
    first = (target / "config.json").stat().st_mtime_ns
    scoring._save_atomically(lm, target)  # ours lands second: no error, the first copy stays
    assert (target / "config.json").stat().st_mtime_ns == first
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging folder left behind
