"""Training: batches grouped by length, the learning-rate schedule and the AdamW loop."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np

_IGNORE_INDEX = -100  # label of positions that carry no loss (prompt, padding)


@dataclass
class TrainingRun:
    """What `train_model` spent: data tokens, padding, compute estimate and time."""

    tokens: int  # prompt + target tokens fed to the model, padding excluded
    padded_tokens: int  # positions fed including padding
    sequence_square_sum: int  # Σ over fed sequences of length², for the attention term
    seconds: float
    losses: list[float]


def collate(examples: Sequence[tuple[list[int], list[int]]], indices: Sequence[int], pad_id: int):
    """Right-padded input ids, attention mask and labels (-100 on prompt and padding) of a batch of examples."""
    import torch

    length = max(len(examples[i][0]) + len(examples[i][1]) for i in indices)
    ids = torch.full((len(indices), length), pad_id, dtype=torch.long)
    mask = torch.zeros((len(indices), length), dtype=torch.long)
    labels = torch.full((len(indices), length), _IGNORE_INDEX, dtype=torch.long)
    for row, i in enumerate(indices):
        prompt, target = examples[i]
        n = len(prompt) + len(target)
        ids[row, :n] = torch.tensor(prompt + target)
        mask[row, :n] = 1
        labels[row, len(prompt):n] = torch.tensor(target)  # loss only on the program and its eos
    return ids, mask, labels


def _batches(lengths: Sequence[int], batch_size: int, seed: int, group: int = 8):
    """Endless stream of batches (lists of example indices), grouped by length to save padding.

    Seeded permutations of all examples (one per epoch) run back to back and are cut into windows of `group`
    batches; a window is sorted by length, cut into batches, and its batches are shuffled. After k whole
    windows the examples used are the first k * batch_size * group of the stream, so each has been used
    equally often, ± 1 (exactly equally when that number is a multiple of the example count).
    """
    rng = np.random.default_rng(seed)
    window = batch_size * group
    pending: list[int] = []
    while True:
        while len(pending) < window:
            pending.extend(rng.permutation(len(lengths)).tolist())
        chunk, pending = pending[:window], pending[window:]
        chunk.sort(key=lambda i: lengths[i])  # stable: ties keep the permutation's order
        batches = [chunk[k:k + batch_size] for k in range(0, window, batch_size)]
        yield from (batches[k] for k in rng.permutation(len(batches)))


def learning_rate_factor(step: int, steps: int, warmup_fraction: float = 0.1) -> float:
    """Multiplier of the learning rate at update `step` (0-based) of `steps`: linear warm-up over the first
    max(1, round(warmup_fraction * steps)) updates up to 1, then linear decay; never 0, 1/(steps − warm-up)
    at the last update."""
    warmup = max(1, round(warmup_fraction * steps))
    return (step + 1) / warmup if step < warmup else (steps - step) / max(1, steps - warmup)


def program_loss(model, ids, mask, labels):
    """The mean cross-entropy of the labelled tokens (the program and its eos), as the model's own loss with
    `labels` computes it, but with the output layer run on those positions only: over a small model's
    vocabulary, projecting every prompt and padding position costs as much as the rest of the network."""
    import torch

    hidden = model.base_model(input_ids=ids, attention_mask=mask)[0]
    targets = labels[:, 1:]
    keep = targets != _IGNORE_INDEX
    logits = model.get_output_embeddings()(hidden[:, :-1][keep])
    return torch.nn.functional.cross_entropy(logits.float(), targets[keep])


def train_model(model, examples: Sequence[tuple[list[int], list[int]]], steps: int, batch_size: int,
                learning_rate: float, seed: int, pad_id: int, warmup_fraction: float = 0.1,
                weight_decay: float = 0.01, progress: bool = True) -> TrainingRun:
    """Train in place: AdamW, `learning_rate_factor` schedule, gradient norm clipped at 1.

    `examples` are (prompt ids, target ids); batches come from `_batches` (seeded, grouped by length).
    Deterministic given the seed, the initial weights and the thread count.
    """
    import torch
    from tqdm import tqdm

    optimiser = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.95), weight_decay=weight_decay)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser,
                                                 lambda step: learning_rate_factor(step, steps, warmup_fraction))
    stream = _batches([len(p) + len(t) for p, t in examples], batch_size, seed)
    tokens = padded = squares = 0
    losses = []
    start = time.perf_counter()
    model.train()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)  # dropout, if any
        bar = tqdm(range(steps), desc="training", disable=not progress, leave=False)
        for _ in bar:
            ids, mask, labels = collate(examples, next(stream), pad_id)
            loss = program_loss(model, ids, mask, labels)
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            lengths = mask.sum(dim=1)
            tokens += int(lengths.sum())
            squares += int((lengths ** 2).sum())
            padded += ids.numel()
            losses.append(loss.item())
            bar.set_postfix(loss=f"{losses[-1]:.3f}", refresh=False)
    model.eval()
    return TrainingRun(tokens, padded, squares, time.perf_counter() - start, losses)
