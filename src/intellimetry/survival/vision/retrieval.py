"""Text-to-image retrieval on generated shapes (the stand-in for MS COCO and Flickr30k in the paper's
Figure 3): each test image's caption is a query, every test image a candidate; failures = images
scored strictly above the captioned one.

The model is a dual encoder trained from scratch with a symmetric InfoNCE loss (CLIP's): a text
encoder (word embeddings averaged over the caption, then a two-layer MLP) and an image encoder (the
classifiers' CNN with an embedding head), both L2-normalised and compared by a dot product scaled by
a learned temperature. Members differ in (CNN width, embedding size) only.

Caching as for the classifiers (namespace ``survival-vision-retrieval``).
"""
from __future__ import annotations

import functools
import hashlib
import math
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.checks import check_float, check_int
from intellimetry.survival.failure_counts import failure_counts_from_embeddings
from intellimetry.survival.vision.captions import captions, tokenize, vocabulary
from intellimetry.survival.vision.classifiers import shape_cnn
from intellimetry.survival.vision.data import ShapeSet
from intellimetry.survival.vision.store import load_or_train, parameter_count

INITIAL_TEMPERATURE = 0.07  # CLIP's
MAX_LOGIT_SCALE = 100.0
EMBED_BATCH = 1024


class TextEncoder(nn.Module):
    """Mean of the caption's word embeddings (padding ignored), then Linear-ReLU-Linear."""

    def __init__(self, vocab_size: int, dim: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        present = (tokens > 0).unsqueeze(-1).float()
        mean = (self.embedding(tokens) * present).sum(1) / present.sum(1).clamp(min=1.0)
        return self.mlp(mean)


class DualEncoder(nn.Module):
    """Caption and image embeddings on the unit sphere, and the learned logit scale between them."""

    def __init__(self, vocab_size: int, width: int, dim: int, image_size: int):
        super().__init__()
        self.text = TextEncoder(vocab_size, dim)
        self.image = shape_cnn(width, dim, image_size)
        self.log_scale = nn.Parameter(torch.tensor(math.log(1 / INITIAL_TEMPERATURE)))

    def embed_text(self, tokens) -> torch.Tensor:
        return F.normalize(self.text(torch.as_tensor(tokens)), dim=-1)

    def embed_images(self, images) -> torch.Tensor:
        return F.normalize(self.image(torch.as_tensor(images, dtype=torch.float32)), dim=-1)

    def logits(self, tokens, images) -> torch.Tensor:
        """(captions × images) similarity logits."""
        scale = self.log_scale.exp().clamp(max=MAX_LOGIT_SCALE)
        return scale * self.embed_text(tokens) @ self.embed_images(images).T


def info_nce(logits: torch.Tensor) -> torch.Tensor:
    """Symmetric contrastive loss: row i's caption should pick image i and image i its caption."""
    target = torch.arange(logits.shape[0])
    return (F.cross_entropy(logits, target) + F.cross_entropy(logits.T, target)) / 2


@dataclass(frozen=True)
class RetrievalRecipe:
    """How every dual encoder is trained; only ``sizes`` ((CNN width, embedding size) pairs) differs."""
    data: ShapeSet
    sizes: tuple[tuple[int, int], ...]
    steps: int
    batch_size: int
    learning_rate: float
    seed: int

    def __post_init__(self):
        if not isinstance(self.data, ShapeSet):
            raise ValueError(f"data must be a ShapeSet, got {type(self.data).__name__}")
        if len(self.sizes) < 2 or len(set(self.sizes)) != len(self.sizes):
            raise ValueError(f"sizes must list at least two different (width, dim) pairs, got {self.sizes!r}")
        for width, dim in self.sizes:
            check_int("width", width, 1)
            check_int("dim", dim, 2)
        check_int("steps", self.steps, 1)
        check_int("batch_size", self.batch_size, 2)
        check_float("learning_rate", self.learning_rate, 0.0, low_open=True)
        check_int("seed", self.seed, 0)

    def training_fields(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "sizes"}

    def to_dict(self) -> dict:
        return asdict(self)


def member_name(size: tuple[int, int]) -> str:
    return f"dual-w{size[0]}-d{size[1]}"


def initial_encoder(size: tuple[int, int], image_size: int, seed: int) -> DualEncoder:
    """A freshly initialised dual encoder; the caller's global torch generator is left as it was."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return DualEncoder(len(vocabulary()), *size, image_size)


def train_encoder(model: DualEncoder, tokens: np.ndarray, images: np.ndarray, steps: int, batch_size: int,
                  learning_rate: float, seed: int) -> dict:
    """Adam on the InfoNCE loss of random batches of (caption, image) pairs; batches come from a
    generator seeded by `seed` alone, so every size sees the same pairs in the same order."""
    tokens, images = torch.as_tensor(tokens), torch.as_tensor(images, dtype=torch.float32)
    optimiser = torch.optim.Adam(model.parameters(), lr=learning_rate)
    batches = torch.Generator().manual_seed(seed)
    started, losses = time.perf_counter(), []
    model.train()
    for _ in range(steps):
        batch = torch.randperm(len(tokens), generator=batches)[:batch_size]
        loss = info_nce(model.logits(tokens[batch], images[batch]))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    model.eval()
    tail = losses[-max(1, steps // 10):]
    return {"steps": steps, "initial_loss": losses[0], "final_loss": sum(tail) / len(tail),
            "train_seconds": time.perf_counter() - started, "torch_threads": torch.get_num_threads()}


@torch.no_grad()
def retrieval_failures(model: DualEncoder, tokens: np.ndarray, images: np.ndarray) -> np.ndarray:
    """Per caption: how many of the images score strictly above its own image (caption i describes image i)."""
    model.eval()
    queries = torch.cat([model.embed_text(chunk) for chunk in torch.as_tensor(tokens).split(EMBED_BATCH)])
    candidates = torch.cat([model.embed_images(chunk) for chunk in
                            torch.as_tensor(images, dtype=torch.float32).split(EMBED_BATCH)])
    return failure_counts_from_embeddings(queries, candidates, np.arange(len(queries)))


# What every cached encoder depends on besides its own inputs (see intellimetry.cache).
RETRIEVAL_CODE = TrainingCode("survival-vision-retrieval", 1, definitions=(
    ShapeSet, shape_cnn, TextEncoder, DualEncoder, info_nce, RetrievalRecipe, initial_encoder, train_encoder,
    captions, tokenize, vocabulary))


@functools.lru_cache(maxsize=2)  # the figure asks twice: to train and score, and for example captions
def caption_data(data: ShapeSet) -> dict:
    """The images with their captions and caption tokens, split as the ShapeSet splits them."""
    generated = data.generate()
    texts = captions(generated["params"], data.offset, data.radius_range)
    n = data.n_train
    tokens = tokenize(texts)
    return {"train": (tokens[:n], generated["train"][0]), "test": (tokens[n:], generated["test"][0]),
            "captions": texts,  # the captions' words are data too: a new wording retrains
            "fingerprint": hashlib.sha256("\n".join([generated["fingerprint"], *texts]).encode()).hexdigest()}


def train_encoders(recipe: RetrievalRecipe, cache_root: Path | str | None = None) -> dict[str, dict]:
    """Per dual encoder (in the recipe's order): its failure counts on the test captions, recall@1,
    parameter count and training record (``trained_now`` False when it came from the cache)."""
    cache = ModelCache(RETRIEVAL_CODE, cache_root)
    data = caption_data(recipe.data)
    members = {}
    for size in recipe.sizes:
        seed = recipe.seed * 1000 + 7 * size[0] + size[1]  # from the size, not its position in the list
        key = cache.key(item="dual-encoder", recipe=recipe.training_fields(), size=list(size),
                        data=data["fingerprint"])
        model, record = load_or_train(
            cache, key, lambda z=size, s=seed: initial_encoder(z, recipe.data.image_size, s),
            lambda m: train_encoder(m, *data["train"], recipe.steps, recipe.batch_size, recipe.learning_rate,
                                    recipe.seed))
        failures = retrieval_failures(model, *data["test"])
        members[member_name(size)] = {"failures": failures, "recall_at_1": float(np.mean(failures == 0)),
                                      "params": parameter_count(model), "width": size[0], "dim": size[1],
                                      "record": record}
    return members
