"""Recommenders for the recommendation figure: item popularity, and GRU4Rec-style and SASRec-style
next-item models in torch, trained on the leave-one-out histories, with their failure counts.

Both neural models embed the items, encode a user's recent items in order and score every item by a
dot product of the encoding with the item's embedding (the same table as the input, as in SASRec).
GRU4Rec-style: a one-layer GRU (Hidasi et al. 2016) and a linear projection. SASRec-style: learned
positions and causal self-attention blocks (Kang & McAuley 2018). Both are trained at every position
of a user's last `max_len` items with a cross-entropy over the next item: a sampled softmax against
`negatives` uniformly drawn items per batch (the original papers also sample negatives; on one CPU
core the full softmax over thousands of items costs several times more), or the full softmax with 0.

Trained models live in the shared model cache (`intellimetry.cache`, namespace `survival-recsys`),
keyed by the log's fingerprint, the model and the recipe: a rebuild never retrains.
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.checks import check_choice, check_float, check_int
from intellimetry.survival.failure_counts import failure_counts, failure_counts_from_embeddings
from intellimetry.survival.recommendation.logs import Split

MODEL_KINDS = ("popularity", "gru4rec", "sasrec")
KIND_NAMES = {"popularity": "Popularity", "gru4rec": "GRU4Rec", "sasrec": "SASRec"}
SCORE_BATCH = 1024  # users encoded at once when scoring


@dataclass(frozen=True)
class ModelSpec:
    """One recommender: its kind, width `dim`, and SASRec's blocks and heads (dropout for both)."""
    kind: str
    dim: int = 0
    blocks: int = 2
    heads: int = 1
    dropout: float = 0.2

    def __post_init__(self):
        check_choice("model kind", self.kind, MODEL_KINDS)
        if self.kind != "popularity":
            check_int(f"{self.kind} dim", self.dim, 2, 4096)
            check_int("blocks", self.blocks, 1, 64)
            check_int("heads", self.heads, 1, self.dim)
            if self.dim % self.heads:
                raise ValueError(f"SASRec's dim ({self.dim}) must be a multiple of its heads ({self.heads})")
            check_float("dropout", self.dropout, 0.0, 0.9)

    @property
    def label(self) -> str:
        name = KIND_NAMES[self.kind]
        return name if self.kind == "popularity" else f"{name} d={self.dim}"


@dataclass(frozen=True)
class Recipe:
    """How the neural models are trained (Adam, mini-batches of users' last windows)."""
    epochs: int = 30
    batch_size: int = 128
    learning_rate: float = 1e-3
    max_len: int = 50
    negatives: int = 256
    seed: int = 0

    def __post_init__(self):
        check_int("epochs", self.epochs, 1, 100000)
        check_int("batch_size", self.batch_size, 1, 1 << 20)
        check_float("learning_rate", self.learning_rate, 1e-7, 1.0)
        check_int("max_len", self.max_len, 2, 10000)
        check_int("negatives", self.negatives, 0)
        check_int("seed", self.seed, 0)


INIT_STD = 0.02  # embeddings and linear maps start small, so first scores are near-uniform (as RecBole)


def small_init(net: nn.Module) -> None:
    for module in net.modules():
        if isinstance(module, (nn.Embedding, nn.Linear)):
            nn.init.normal_(module.weight, std=INIT_STD)
        if isinstance(module, nn.Embedding) and module.padding_idx is not None:
            nn.init.zeros_(module.weight[module.padding_idx])
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)


class GRU4Rec(nn.Module):
    def __init__(self, n_items: int, dim: int, dropout: float):
        super().__init__()
        self.items = nn.Embedding(n_items + 1, dim, padding_idx=0)  # index 0 pads
        self.dropout = nn.Dropout(dropout)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.project = nn.Linear(dim, dim)
        small_init(self)

    def forward(self, sequences: torch.Tensor) -> torch.Tensor:
        """(B, L) item indices + 1, left-padded with 0 -> (B, L, dim) encodings."""
        states, _ = self.gru(self.dropout(self.items(sequences)))
        return self.project(states)


class SASRec(nn.Module):
    def __init__(self, n_items: int, dim: int, dropout: float, blocks: int, heads: int, max_len: int):
        super().__init__()
        self.items = nn.Embedding(n_items + 1, dim, padding_idx=0)
        self.positions = nn.Embedding(max_len, dim)
        self.dropout = nn.Dropout(dropout)
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=dim, dropout=dropout,
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, blocks, enable_nested_tensor=False)
        self.input_norm, self.norm = nn.LayerNorm(dim), nn.LayerNorm(dim)
        small_init(self)

    def forward(self, sequences: torch.Tensor) -> torch.Tensor:
        length = sequences.shape[1]
        x = self.items(sequences) + self.positions(torch.arange(length, device=sequences.device))
        x = self.dropout(self.input_norm(x)) * (sequences > 0).unsqueeze(-1)  # padded steps carry nothing
        causal = nn.Transformer.generate_square_subsequent_mask(length, device=sequences.device)
        return self.norm(self.blocks(x, mask=causal, is_causal=True))


def build_network(spec: ModelSpec, n_items: int, max_len: int) -> nn.Module:
    if spec.kind == "gru4rec":
        return GRU4Rec(n_items, spec.dim, spec.dropout)
    if spec.kind == "sasrec":
        return SASRec(n_items, spec.dim, spec.dropout, spec.blocks, spec.heads, max_len)
    raise ValueError(f"{spec.kind!r} has no network; neural kinds: gru4rec, sasrec")


def non_embedding_parameters(net: nn.Module) -> int:
    """Parameters outside the item and position tables (the model-size axis of the figure)."""
    tables = {id(p) for m in net.modules() if isinstance(m, nn.Embedding) for p in m.parameters()}
    return sum(p.numel() for p in net.parameters() if id(p) not in tables)


# --------------------------------------------------------------------------- training

def padded_windows(sequences, max_len: int) -> np.ndarray:
    """The last `max_len` items of each sequence as indices + 1, left-padded with 0: (N, max_len)."""
    out = np.zeros((len(sequences), max_len), dtype=np.int64)
    for row, sequence in enumerate(sequences):
        tail = np.asarray(sequence[-max_len:], dtype=np.int64)
        if tail.size:
            out[row, -tail.size:] = tail + 1
    return out


def training_pairs(histories, max_len: int) -> tuple[np.ndarray, np.ndarray]:
    """Inputs and next-item targets over each history's last max_len + 1 items (0 = no target)."""
    windows = padded_windows([h[-(max_len + 1):] for h in histories], max_len + 1)
    inputs, targets = windows[:, :-1], windows[:, 1:].copy()
    targets[inputs == 0] = 0  # a user's first item has no preceding item to be predicted from
    return inputs, targets


def _batch_loss(net: nn.Module, inputs: torch.Tensor, targets: torch.Tensor, negatives: int,
                generator: torch.Generator) -> torch.Tensor:
    """Cross-entropy of the next item: over every item (negatives = 0) or against `negatives` items
    drawn uniformly for the batch (a sampled softmax; a draw equal to the target is left out)."""
    keep = targets > 0
    encodings, wanted = net(inputs)[keep], targets[keep]
    table = net.items.weight
    if not negatives:
        return F.cross_entropy(encodings @ table[1:].T, wanted - 1)
    drawn = torch.randint(1, table.shape[0], (negatives,), generator=generator)
    positive = (encodings * table[wanted]).sum(-1, keepdim=True)
    negative = (encodings @ table[drawn].T).masked_fill(drawn[None, :] == wanted[:, None], float("-inf"))
    return F.cross_entropy(torch.cat([positive, negative], 1), torch.zeros(len(wanted), dtype=torch.long))


def train_network(spec: ModelSpec, histories, n_items: int, recipe: Recipe) -> tuple[nn.Module, dict]:
    """A freshly initialised network trained on the histories; the same seed gives the same weights."""
    torch.manual_seed(recipe.seed)
    net = build_network(spec, n_items, recipe.max_len)
    inputs, targets = (torch.as_tensor(a) for a in training_pairs(histories, recipe.max_len))
    optimiser = torch.optim.Adam(net.parameters(), lr=recipe.learning_rate)
    order, generator = np.random.default_rng(recipe.seed), torch.Generator().manual_seed(recipe.seed)
    started, curve = time.perf_counter(), []
    net.train()
    for _ in range(recipe.epochs):
        losses = []
        for batch in np.array_split(order.permutation(len(inputs)), max(1, math.ceil(len(inputs) / recipe.batch_size))):
            optimiser.zero_grad()
            loss = _batch_loss(net, inputs[batch], targets[batch], recipe.negatives, generator)
            loss.backward()
            optimiser.step()
            losses.append(loss.item())
        curve.append(float(np.mean(losses)))
    net.eval()
    return net, {"train_seconds": time.perf_counter() - started, "loss_curve": curve, "final_loss": curve[-1],
                 "positions": int((targets > 0).sum()), "torch_threads": torch.get_num_threads()}


# --------------------------------------------------------------------------- scoring and failure counts

def encode_users(net: nn.Module, histories, max_len: int) -> torch.Tensor:
    """Each user's encoding after their whole history (its last max_len items): (users, dim)."""
    windows = torch.as_tensor(padded_windows(histories, max_len))
    with torch.no_grad():
        return torch.cat([net(chunk)[:, -1] for chunk in windows.split(SCORE_BATCH)])


def popularity_scores(split: Split) -> np.ndarray:
    """How often each item occurs in the training histories."""
    return np.bincount(np.concatenate(split.histories), minlength=split.log.n_items).astype(np.float64)


def popularity_failures(split: Split) -> np.ndarray:
    scores = np.broadcast_to(popularity_scores(split), (len(split.targets), split.log.n_items))
    return failure_counts(scores, split.targets, mask=list(split.histories))


def network_failures(net: nn.Module, split: Split, max_len: int) -> np.ndarray:
    """Failures per user: unseen items scored strictly above the held-out one (seen items masked)."""
    with torch.no_grad():
        queries, items = encode_users(net, split.histories, max_len), net.items.weight[1:]
        return failure_counts_from_embeddings(queries, items, split.targets, mask=list(split.histories))


# --------------------------------------------------------------------------- through the model cache

# What every cached model depends on besides its inputs; bump the version when INIT_STD changes.
CODE = TrainingCode("survival-recsys", 1, definitions=(
    small_init, GRU4Rec, SASRec, build_network, padded_windows, training_pairs, _batch_loss, train_network))


@dataclass
class Trained:
    spec: ModelSpec
    net: nn.Module | None  # None for popularity
    record: dict


def load_or_train(spec: ModelSpec, split: Split, recipe: Recipe, cache_root: Path | str | None = None) -> Trained:
    """The trained model of this spec, log and recipe: from the cache, or trained and stored."""
    if spec.kind == "popularity":
        return Trained(spec, None, {"non_embedding_params": 0, "total_params": 0, "trained_now": False})
    cache = ModelCache(CODE, cache_root)
    key = cache.key(item="recommender", log=split.log.fingerprint, spec=asdict(spec), recipe=asdict(recipe))
    with cache.claim(key):  # a figure run beside this one waits, then loads it
        return _load_or_train(cache, key, spec, split, recipe)


def _load_or_train(cache: ModelCache, key: str, spec: ModelSpec, split: Split, recipe: Recipe) -> Trained:
    loaded = _load(cache, key, spec, split.log.n_items, recipe.max_len)
    if loaded is not None:
        return Trained(spec, loaded[0], {**loaded[1], "trained_now": False})
    net, summary = train_network(spec, split.histories, split.log.n_items, recipe)
    record = {**summary, "key": key, "spec": asdict(spec), "recipe": asdict(recipe),
              "non_embedding_params": non_embedding_parameters(net),
              "total_params": sum(p.numel() for p in net.parameters())}
    _store(cache, key, net, record)
    return Trained(spec, net, {**record, "trained_now": True})


def _load(cache: ModelCache, key: str, spec: ModelSpec, n_items: int, max_len: int):
    from safetensors.torch import load_model

    record, weights = cache.load_json(key), cache.lookup(key, ".safetensors")
    if record is None or weights is None:
        return None
    net = build_network(spec, n_items, max_len)
    try:
        if record.get("key") != key:
            raise ValueError(f"record key {record.get('key')!r}")
        load_model(net, str(weights))
    except Exception as error:  # safetensors raises its own types for a damaged or mismatched file
        warnings.warn(f"ignoring cached recommender {weights} ({error}); it is retrained", RuntimeWarning,
                      stacklevel=3)
        return None
    return net.eval(), record


def _store(cache: ModelCache, key: str, net: nn.Module, record: dict) -> None:
    from safetensors.torch import save_model

    cache.store_file(key, ".safetensors", lambda tmp: save_model(net, str(tmp)))  # weights before the record
    cache.store_json(key, record)


def failures(trained: Trained, split: Split, max_len: int) -> np.ndarray:
    if trained.net is None:
        return popularity_failures(split)
    return network_failures(trained.net, split, max_len)
