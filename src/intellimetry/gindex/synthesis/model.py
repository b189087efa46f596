"""The GPT-2 models: named sizes, seeded initialisation and the non-embedding parameter count."""
from __future__ import annotations

# name -> (n_layer, n_embd, n_head). At least 2 layers: copying a slot value from the specification needs an
# attention circuit across two layers. N (non-embedding) ≈ 25k, 100k, 336k; on one CPU thread, a step of 16
# sequences of ~40 tokens takes ~12, ~21, ~42 ms, so 300 steps of all three take ~25 s.
SIZES = {"tiny": (2, 32, 2), "small": (2, 64, 4), "medium": (3, 96, 4)}


def _check_size(size: str) -> tuple[int, int, int]:
    if size not in SIZES:
        raise ValueError(f"size: unknown model size {size!r}; allowed: {', '.join(SIZES)}")
    return SIZES[size]


def build_model(size: str, vocab_size: int, n_positions: int, seed: int, dropout: float = 0.0, tokenizer=None):
    """A randomly initialised GPT-2 (`GPT2LMHeadModel`) of a named size; the same seed gives the same weights."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    n_layer, n_embd, n_head = _check_size(size)
    special = ({"bos_token_id": None, "eos_token_id": None} if tokenizer is None else
               {"bos_token_id": tokenizer.bos_id, "eos_token_id": tokenizer.eos_id, "pad_token_id": tokenizer.pad_id})
    config = GPT2Config(vocab_size=vocab_size, n_positions=n_positions, n_layer=n_layer, n_embd=n_embd,
                        n_head=n_head, resid_pdrop=dropout, embd_pdrop=dropout, attn_pdrop=dropout, **special)
    with torch.random.fork_rng(devices=[]):  # seeded initialisation without touching the caller's RNG
        torch.manual_seed(seed)
        model = GPT2LMHeadModel(config)
    model.loss_type = "ForCausalLM"  # what transformers falls back to anyway, without its warning
    return model


def non_embedding_parameters(model) -> int:
    """Parameters outside embedding tables (token, position) and the output projection (Kaplan et al.'s N)."""
    import torch

    excluded = {id(p) for module in model.modules() if isinstance(module, torch.nn.Embedding)
                for p in module.parameters()}
    output = model.get_output_embeddings()
    if output is not None:
        excluded |= {id(p) for p in output.parameters()}
    unique = {id(p): p for p in model.parameters()}
    return sum(p.numel() for key, p in unique.items() if key not in excluded)


def _config_shape(model) -> tuple[int, int, int, int]:
    """(n_layer, n_embd, n_head, n_positions) of a GPT-2-like config."""
    def get(*names) -> int:  # the first of several names a config may use; 0 if none is set
        return next((getattr(model.config, n) for n in names if getattr(model.config, n, None) is not None), 0)

    return (int(get("n_layer", "num_hidden_layers", "num_layers")), int(get("n_embd", "hidden_size")),
            int(get("n_head", "num_attention_heads", "num_heads")), int(get("n_positions", "max_position_embeddings")))
