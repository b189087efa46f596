"""Our own model family for the scaling experiment: GPT-2-style causal LMs of several sizes, trained on CPU.

The paper (Figs. 12-13) plots the decay rate of a model family against its non-embedding parameter
count (Kaplan et al.'s measure of size). Published families differ in data, tokenizer and training
budget; here every member shares one :class:`Recipe`: one byte-level BPE tokenizer trained on the
training text, one context length, one batch size, the same number of optimiser steps for every
size (so every member sees the same tokens in the same order: a larger model gains only from its
size) and one AdamW schedule (linear warmup, then cosine decay). Only (n_layer, n_embd, n_head)
changes between members.

Caching: the tokenizer and every member live in the shared model cache (:mod:`intellimetry.cache`,
namespace ``survival-family``). A member's key is the sha256 of the recipe's training fields (not
its list of sizes, so adding a size keeps the others), its own size, the sha256 of the training
text and of the tokenizer, and of :data:`FAMILY_CODE` (the source of the training definitions, the
versions of torch, transformers and tokenizers). Weights are one safetensors file beside a JSON
record, so a rebuild loads instead of retraining; a record that is unreadable or does not match its
key is ignored and retrained.

Threads: ``torch.set_num_threads`` is left to the caller. Training is deterministic for a given
thread count; a different count can change the last bits of the float sums.
"""
from __future__ import annotations

import hashlib
import math
import time
import warnings
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import torch
from safetensors.torch import load_model, save_model
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.checks import check_float, check_int
from intellimetry.parallel import in_process, parallel_map
from intellimetry.survival.language.scoring import non_embedding_parameters

EOS = "<|endoftext|>"
BYTE_ALPHABET = 256  # a byte-level BPE starts from one token per byte
HEARTBEAT_SECONDS = 30.0
MAX_VALIDATION_TOKENS = 16384  # caps the held-out evaluation (its standard error is then ~0.02 nats)


@dataclass(frozen=True)
class Recipe:
    """How every member of the family is trained; only ``sizes`` (n_layer, n_embd, n_head) differs."""
    vocab_size: int            # BPE vocabulary, the end-of-text token included
    context: int               # n_positions: tokens per training window
    batch_size: int            # windows per optimiser step
    steps: int                 # optimiser steps for EVERY size: each member sees batch_size*context*steps tokens
    learning_rate: float       # AdamW peak learning rate
    warmup_steps: int          # linear warmup from 0 to the peak, then cosine decay to min_lr_ratio * peak
    seed: int
    sizes: tuple[tuple[int, int, int], ...]
    min_lr_ratio: float = 0.1
    weight_decay: float = 0.1  # on matrices only (not on biases and LayerNorm gains)
    beta2: float = 0.95
    grad_clip: float = 1.0     # gradient-norm clip
    validation_fraction: float = 0.05  # the text's last tokens, held out for the validation loss

    def __post_init__(self):
        check_int("recipe.vocab_size", self.vocab_size, BYTE_ALPHABET + 1)
        check_int("recipe.context", self.context, 2)
        check_int("recipe.batch_size", self.batch_size, 1)
        check_int("recipe.steps", self.steps, 1)
        check_float("recipe.learning_rate", self.learning_rate, 0.0, low_open=True)
        check_int("recipe.warmup_steps", self.warmup_steps, 0, self.steps - 1)
        check_int("recipe.seed", self.seed, 0)
        check_float("recipe.min_lr_ratio", self.min_lr_ratio, 0.0, 1.0)
        check_float("recipe.weight_decay", self.weight_decay, 0.0)
        check_float("recipe.beta2", self.beta2, 0.0, 1.0, high_open=True)
        check_float("recipe.grad_clip", self.grad_clip, 0.0, low_open=True)
        check_float("recipe.validation_fraction", self.validation_fraction, 0.0, 0.5, low_open=True)
        _check_sizes(self.sizes)

    def training_fields(self) -> dict:
        """Everything but ``sizes``: what a member's cache key shares with its siblings."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "sizes"}

    def to_dict(self) -> dict:
        return asdict(self)


def _check_sizes(sizes) -> None:
    if not isinstance(sizes, tuple) or len(sizes) < 2:
        raise ValueError(f"recipe.sizes must be a tuple of at least 2 (n_layer, n_embd, n_head) triples, got {sizes!r}")
    for i, size in enumerate(sizes):
        if not isinstance(size, tuple) or len(size) != 3:
            raise ValueError(f"recipe.sizes[{i}] must be a tuple (n_layer, n_embd, n_head), got {size!r}")
        n_layer, n_embd, n_head = (check_int(f"recipe.sizes[{i}].{name}", value, 1)
                                   for name, value in zip(("n_layer", "n_embd", "n_head"), size))
        if n_embd % n_head:
            raise ValueError(f"recipe.sizes[{i}]: n_embd {n_embd} must be divisible by n_head {n_head}")
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"recipe.sizes must not repeat a size, got {sizes!r}")


# Quick: 6 sizes, 3.3k to 0.79M non-embedding parameters (2.4 decades), 102k tokens each: about 40 CPU
# seconds on one core (tokenizer included), halved from 200 steps for issue 19's ten-minute first build.
# The learning rate is the highest that kept the held-out loss falling with size at 200 steps (3e-3
# made the largest member worse than the next smaller one).
QUICK_RECIPE = Recipe(vocab_size=2048, context=64, batch_size=16, steps=100, learning_rate=2e-3,
                      warmup_steps=10, seed=0,
                      sizes=((1, 16, 2), (1, 32, 2), (2, 48, 4), (2, 64, 4), (3, 96, 4), (4, 128, 4)))
# Full: 6 sizes, 12.8k to 1.8M non-embedding parameters (2.1 decades), 1.6M tokens each (8 times
# quick's, at 4 times its context): about 30 min on 2 CPU cores. Two larger sizes (6 layers, up to
# 4.7M) would add about an hour here; the text gives well over 1.6M tokens (20M characters), so no
# member repeats it.
FULL_RECIPE = Recipe(vocab_size=8192, context=256, batch_size=16, steps=400, learning_rate=1.5e-3,
                     warmup_steps=40, seed=0,
                     sizes=((1, 32, 2), (2, 48, 4), (2, 64, 4), (3, 96, 4), (4, 128, 4), (4, 192, 6)))


@dataclass(frozen=True, eq=False)
class FamilyMember:
    name: str
    config: GPT2Config
    model: GPT2LMHeadModel        # eval mode, float32
    tokenizer: PreTrainedTokenizerFast
    non_embedding_params: int
    record: dict                  # training summary; record["trained_now"]: False when loaded from the cache


# --------------------------------------------------------------------------- tokenizer and text

def text_fingerprint(texts: list[str]) -> str:
    """sha256 of the texts, each prefixed by its length (so splitting the same characters differently differs)."""
    digest = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


def train_tokenizer(texts: list[str], vocab_size: int) -> PreTrainedTokenizerFast:
    """A GPT-2-style byte-level BPE learned from ``texts``, with ``<|endoftext|>`` as its only special token."""
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[EOS], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    backend.train_from_iterator(texts, trainer)
    return wrap_tokenizer(backend)


def wrap_tokenizer(backend: Tokenizer) -> PreTrainedTokenizerFast:
    """The Hugging Face face of a ``tokenizers`` BPE: ``tok(text)["input_ids"]``, ``all_special_ids``, decode."""
    return PreTrainedTokenizerFast(tokenizer_object=backend, eos_token=EOS, clean_up_tokenization_spaces=False)


def tokenizer_fingerprint(tokenizer: PreTrainedTokenizerFast) -> str:
    return hashlib.sha256(tokenizer.backend_tokenizer.to_str().encode()).hexdigest()


def encode_texts(texts: list[str], tokenizer: PreTrainedTokenizerFast) -> torch.Tensor:
    """One stream of token ids: the texts in order, each followed by ``<|endoftext|>`` (as GPT-2 was trained)."""
    eos = tokenizer.convert_tokens_to_ids(EOS)
    stream = []
    for ids in tokenizer(list(texts))["input_ids"]:
        stream.extend(ids)
        stream.append(eos)
    return torch.tensor(stream, dtype=torch.long)


def split_stream(stream: torch.Tensor, recipe: Recipe) -> tuple[torch.Tensor, torch.Tensor]:
    """(training ids, held-out ids): the held-out part is the stream's last ``validation_fraction``."""
    held_out = max(int(len(stream) * recipe.validation_fraction), recipe.context + 1)
    train, validation = stream[:-held_out], stream[-held_out:]
    if len(train) < 2 * (recipe.context + 1):
        raise ValueError(f"texts give {len(stream)} tokens: too few for recipe.context {recipe.context} "
                         f"(need at least {3 * (recipe.context + 1)} with the held-out part)")
    return train, validation


# --------------------------------------------------------------------------- models

def model_config(size: tuple[int, int, int], vocab_size: int, eos_id: int, context: int) -> GPT2Config:
    """GPT-2 with the given depth and width, no dropout (each window is seen about once)."""
    n_layer, n_embd, n_head = size
    return GPT2Config(vocab_size=vocab_size, n_positions=context, n_embd=n_embd, n_layer=n_layer, n_head=n_head,
                      resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=eos_id, eos_token_id=eos_id)


def size_name(size: tuple[int, int, int]) -> str:
    n_layer, n_embd, n_head = size
    return f"gpt2-L{n_layer}-d{n_embd}-h{n_head}"


def _member_seed(seed: int, size: tuple[int, int, int]) -> int:
    """The initialisation seed of one size: from the recipe seed and the size, not from the size's position."""
    digest = hashlib.sha256(f"survival-family:{seed}:{size}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def initial_model(config: GPT2Config, seed: int) -> GPT2LMHeadModel:
    """A randomly initialised model; the caller's global torch generator is left as it was."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = GPT2LMHeadModel(config)
    return model.float()


def learning_rate_at(step: int, recipe: Recipe) -> float:
    """Linear warmup over ``warmup_steps``, then cosine decay to ``min_lr_ratio`` of the peak at the last step."""
    if step < recipe.warmup_steps:
        return recipe.learning_rate * (step + 1) / recipe.warmup_steps
    progress = (step - recipe.warmup_steps) / max(recipe.steps - 1 - recipe.warmup_steps, 1)
    floor = recipe.min_lr_ratio
    return recipe.learning_rate * (floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress)))


def _optimiser(model: torch.nn.Module, recipe: Recipe) -> torch.optim.AdamW:
    matrices = [p for p in model.parameters() if p.dim() >= 2]
    vectors = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": matrices, "weight_decay": recipe.weight_decay}, {"params": vectors, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=recipe.learning_rate, betas=(0.9, recipe.beta2))


def _windows(ids: torch.Tensor, starts: torch.Tensor, context: int) -> torch.Tensor:
    return torch.stack([ids[s:s + context + 1] for s in starts.tolist()])


def _window_loss(model: GPT2LMHeadModel, batch: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    """Cross-entropy of each window's tokens 1..context given the tokens before them (context predictions)."""
    logits = model(input_ids=batch[:, :-1]).logits
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), batch[:, 1:].flatten(), reduction=reduction)


@torch.no_grad()
def mean_loss(model: GPT2LMHeadModel, ids: torch.Tensor, context: int,
              max_tokens: int = MAX_VALIDATION_TOKENS, batch_size: int = 16) -> float:
    """Mean next-token cross-entropy (nats) over non-overlapping windows of ``context + 1`` ids from the start,
    up to about ``max_tokens`` predictions (at least one window)."""
    n_windows = min((len(ids) - 1) // context, max(max_tokens // context, 1))
    if n_windows < 1:
        raise ValueError(f"ids has {len(ids)} tokens: too few for one window of context {context}")
    was_training = model.training
    model.eval()
    starts = torch.arange(n_windows) * context
    total = 0.0
    for first in range(0, n_windows, batch_size):
        total += _window_loss(model, _windows(ids, starts[first:first + batch_size], context), "sum").item()
    model.train(was_training)
    return total / (n_windows * context)


def _train_step(model: GPT2LMHeadModel, optimiser: torch.optim.AdamW, batch: torch.Tensor, learning_rate: float,
                grad_clip: float) -> float:
    for group in optimiser.param_groups:
        group["lr"] = learning_rate
    loss = _window_loss(model, batch)
    optimiser.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimiser.step()
    return loss.item()


def train_member(config: GPT2Config, train_ids: torch.Tensor, validation_ids: torch.Tensor, recipe: Recipe,
                 seed: int, name: str = "", progress: bool = True) -> tuple[GPT2LMHeadModel, dict]:
    """Train one member; returns the model (eval mode) and its training record.

    Batches are windows at random offsets of ``train_ids``, drawn by a generator seeded with the
    recipe's seed alone, so every size sees the same windows in the same order."""
    started = time.perf_counter()
    model = initial_model(config, seed)
    initial_validation = mean_loss(model, validation_ids, recipe.context)
    optimiser = _optimiser(model, recipe)
    batches = torch.Generator().manual_seed(recipe.seed)
    log_every = max(1, recipe.steps // 20)
    losses, curve = [], []
    training_started = last_beat = time.perf_counter()
    model.train()
    for step in range(recipe.steps):
        starts = torch.randint(0, len(train_ids) - recipe.context - 1, (recipe.batch_size,), generator=batches)
        losses.append(_train_step(model, optimiser, _windows(train_ids, starts, recipe.context),
                                  learning_rate_at(step, recipe), recipe.grad_clip))
        if (step + 1) % log_every == 0 or step + 1 == recipe.steps:
            curve.append([step + 1, sum(losses[-log_every:]) / len(losses[-log_every:])])
        if progress and time.perf_counter() - last_beat > HEARTBEAT_SECONDS:
            last_beat = time.perf_counter()
            print(f"  {name}: step {step + 1}/{recipe.steps}, loss {losses[-1]:.3f}, "
                  f"{last_beat - training_started:.0f} s", flush=True)
    train_seconds = time.perf_counter() - training_started
    model.eval()
    tail = losses[-max(1, recipe.steps // 10):]
    tokens = recipe.steps * recipe.batch_size * recipe.context
    record = {"steps": recipe.steps, "tokens_seen": tokens, "final_train_loss": sum(tail) / len(tail),
              "initial_validation_loss": initial_validation,
              "validation_loss": mean_loss(model, validation_ids, recipe.context), "loss_curve": curve,
              "train_seconds": train_seconds, "tokens_per_second": tokens / train_seconds,
              "wall_seconds": time.perf_counter() - started, "torch_threads": torch.get_num_threads()}
    return model, record


# What every cached item depends on besides its own inputs (see intellimetry.cache).
FAMILY_CODE = TrainingCode("survival-family", 1, definitions=(
    Recipe, train_tokenizer, wrap_tokenizer, encode_texts, split_stream, model_config, initial_model,
    learning_rate_at, _optimiser, _windows, _window_loss, mean_loss, _train_step, train_member),
    packages=("torch", "transformers", "tokenizers"))


# --------------------------------------------------------------------------- the family, through the cache

def load_or_train_tokenizer(texts: list[str], vocab_size: int, cache: ModelCache,
                            fingerprint: str | None = None) -> PreTrainedTokenizerFast:
    """The cached tokenizer of these texts and vocabulary size, trained and stored when missing."""
    key = cache.key(item="tokenizer", text=fingerprint or text_fingerprint(texts), vocab_size=vocab_size)
    with cache.claim(key):  # a figure run beside this one waits, then reads it
        return _load_or_train_tokenizer(texts, vocab_size, cache, key)


def _load_or_train_tokenizer(texts: list[str], vocab_size: int, cache: ModelCache, key: str) -> PreTrainedTokenizerFast:
    path = cache.lookup(key, ".tokenizer.json")
    if path is not None:
        try:
            return wrap_tokenizer(Tokenizer.from_file(str(path)))
        except Exception as error:  # tokenizers raises its own exception types for a damaged file
            warnings.warn(f"ignoring unreadable tokenizer {path} ({error}); it is retrained",
                          RuntimeWarning, stacklevel=2)
    tokenizer = train_tokenizer(texts, vocab_size)
    cache.store_file(key, ".tokenizer.json", lambda tmp: tokenizer.backend_tokenizer.save(str(tmp)))
    return tokenizer


def _load_member(cache: ModelCache, key: str, config: GPT2Config) -> tuple[GPT2LMHeadModel, dict] | None:
    """The cached model and record, or None when either is missing, unreadable or not this member's."""
    record, weights = cache.load_json(key), cache.lookup(key, ".safetensors")
    if record is None or weights is None:
        return None
    model = GPT2LMHeadModel(config)
    try:
        if record.get("key") != key:
            raise ValueError(f"record key {record.get('key')!r}")
        load_model(model, str(weights))
    except Exception as error:  # safetensors raises its own types for a damaged or mismatched file
        warnings.warn(f"ignoring cached family member {weights} ({error}); it is retrained",
                      RuntimeWarning, stacklevel=3)
        return None
    return model.float().eval(), record


def _store_member(cache: ModelCache, key: str, model: GPT2LMHeadModel, record: dict) -> None:
    # weights first: a record is only ever beside complete weights
    cache.store_file(key, ".safetensors", lambda tmp: save_model(model, str(tmp)))
    cache.store_json(key, record)


def train_family(texts: list[str], recipe: Recipe, cache_root: Path | str | None = None,
                 progress: bool = True, workers: int = 1) -> list[FamilyMember]:
    """Train (or load from the model cache) one member per size of ``recipe``, in the recipe's order.

    ``texts``: the training documents (the last ``validation_fraction`` of their tokens is held out).
    ``cache_root``: the model cache's root (None: ``.cache/models``); items go in ``survival-family/``.
    Each member is stored as soon as it is trained, so an interrupted run keeps the finished ones.
    ``workers > 1`` (or a Dask cluster in use) trains the missing members side by side through
    :func:`intellimetry.parallel.parallel_map`; each still trains on this process's torch thread
    count, so the weights are those of ``workers=1`` (lower that count so that workers × threads
    fits the cores)."""
    if not isinstance(recipe, Recipe):
        raise ValueError(f"recipe must be a Recipe, got {type(recipe).__name__}")
    if isinstance(texts, str) or not texts or not all(isinstance(t, str) for t in texts):
        raise ValueError("texts must be a non-empty list of strings")
    workers = check_int("workers", workers, 1)
    cache = ModelCache(FAMILY_CODE, cache_root)
    fingerprint = text_fingerprint(texts)
    tokenizer = load_or_train_tokenizer(texts, recipe.vocab_size, cache, fingerprint)
    eos_id = tokenizer.convert_tokens_to_ids(EOS)
    plans = [_MemberPlan(size, size_name(size), model_config(size, len(tokenizer), eos_id, recipe.context),
                         cache.key(item="member", recipe=recipe.training_fields(), size=list(size), text=fingerprint,
                                   tokenizer=tokenizer_fingerprint(tokenizer)))
             for size in recipe.sizes]

    def streams():  # encoded only when some member must be trained
        return split_stream(encode_texts(texts, tokenizer), recipe)

    def record_of(plan: _MemberPlan, model: GPT2LMHeadModel, summary: dict) -> dict:
        return {**summary, "key": plan.key, "name": plan.name, "size": list(plan.size), "config": plan.config.to_dict(),
                "non_embedding_params": non_embedding_parameters(model),
                "total_params": sum(p.numel() for p in model.parameters()),
                "recipe": recipe.to_dict(), "text": fingerprint, "vocab_size": len(tokenizer)}

    if in_process(workers, len(plans)):
        trained = _train_here(plans, cache, recipe, streams, record_of, progress)
    else:
        trained = _train_in_workers(plans, cache, recipe, streams, record_of, workers, progress)
    members = []
    for plan, (model, record, trained_now) in zip(plans, trained):
        member = FamilyMember(plan.name, plan.config, model, tokenizer, record["non_embedding_params"],
                              {**record, "trained_now": trained_now})
        if progress:
            print(_summary_line(member), flush=True)
        members.append(member)
    return members


@dataclass(frozen=True)
class _MemberPlan:
    size: tuple[int, int, int]
    name: str
    config: GPT2Config
    key: str


def _train_here(plans, cache: ModelCache, recipe: Recipe, streams, record_of, progress: bool) -> list[tuple]:
    """(model, record, trained now) per member, one after the other in this process."""
    trained, encoded = [], None
    for plan in plans:
        with cache.claim(plan.key):  # a figure run beside this one waits, then loads the member
            loaded = _load_member(cache, plan.key, plan.config)
            if loaded is None:
                encoded = encoded or streams()
                model, summary = train_member(plan.config, *encoded, recipe, _member_seed(recipe.seed, plan.size),
                                              plan.name, progress)
                record = record_of(plan, model, summary)
                _store_member(cache, plan.key, model, record)
        trained.append((model, record, True) if loaded is None else (*loaded, False))
    return trained


def _train_in_workers(plans, cache: ModelCache, recipe: Recipe, streams, record_of, workers: int,
                      progress: bool) -> list[tuple]:
    """(model, record, trained now) per member: cached ones loaded, the others trained side by side,
    each stored as soon as it arrives."""
    trained = [None if loaded is None else (*loaded, False)
               for loaded in (_load_member(cache, plan.key, plan.config) for plan in plans)]
    missing = [i for i, found in enumerate(trained) if found is None]
    if not missing:
        return trained
    threads = torch.get_num_threads()  # every member trains on the caller's count, wherever it runs
    jobs = [(plans[i].config, recipe, _member_seed(recipe.seed, plans[i].size), threads) for i in missing]

    def store(j: int, outcome: tuple[GPT2LMHeadModel, dict]) -> None:
        plan, (model, summary) = plans[missing[j]], outcome
        record = record_of(plan, model, summary)
        with cache.claim(plan.key):
            _store_member(cache, plan.key, model, record)
        trained[missing[j]] = model, record, True

    parallel_map(_train_job, jobs, workers=workers, shared=streams(), desc="GPT-2 family", progress=progress,
                 on_result=store)
    return trained


def _train_job(streams: tuple[torch.Tensor, torch.Tensor],
               job: tuple[GPT2Config, Recipe, int, int]) -> tuple[GPT2LMHeadModel, dict]:
    """One member, wherever parallel_map runs it, on the thread count it is given."""
    config, recipe, seed, threads = job
    torch.set_num_threads(threads)
    return train_member(config, *streams, recipe, seed, progress=False)


def _summary_line(member: FamilyMember) -> str:
    r = member.record
    how = f"{r['train_seconds']:.1f} s, {r['tokens_per_second']:,.0f} tokens/s" if r["trained_now"] else "cached"
    return (f"{member.name}: {member.non_embedding_params:,} non-embedding params, {r['steps']} steps, "
            f"train loss {r['final_train_loss']:.3f}, held-out {r['validation_loss']:.3f} ({how})")
