"""Failure counts: how many candidates a subject scores strictly above the reference answer.

On one test event the subject ranks every candidate answer; the failures before success are the
candidates it would try before the reference (its rank minus one). Ties count in the subject's
favour (strict "greater than"), and excluded candidates (items a user already interacted with, in
recommendation) never count. Work is done in blocks of events and candidates, so the temporary
memory is bounded by `block_elements` however large the vocabulary or the number of events.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

BLOCK_ELEMENTS = 2**24  # comparisons held in memory at once (16 M booleans ≈ 16 MB)


def failure_counts(scores, reference, mask=None, block_elements: int = BLOCK_ELEMENTS) -> np.ndarray:
    """Failures per event for a (events × candidates) score array (numpy, torch or a memory map).

    `reference[i]` is the index of event i's reference answer. `mask` (optional) marks excluded
    candidates: a boolean array shaped like `scores` (True = excluded) or, per event, a sequence of
    excluded candidate indices. Returns int64 counts, one per event.
    """
    n_events, n_candidates = _shape(scores)
    reference = _check_reference(reference, n_events, n_candidates)
    rows = max(1, block_elements // max(n_candidates, 1))
    counts = np.empty(n_events, dtype=np.int64)
    for start in range(0, n_events, rows):
        stop = min(start + rows, n_events)
        block = _as_numpy(scores[start:stop])
        block_mask = _block_mask(mask, start, stop, n_candidates)
        counts[start:stop] = _count_block(block, reference[start:stop], block_mask)
    return counts


def failure_counts_from_embeddings(queries, candidates, reference, mask=None, bias=None,
                                   block_elements: int = BLOCK_ELEMENTS) -> np.ndarray:
    """Failures when scores are dot products: queries (events × d) against candidates (n × d).

    This is a language model's head (hidden states × output embeddings, plus an optional `bias`)
    or a dense retriever; the score matrix is computed block by block and never held whole.
    """
    import torch

    queries, candidates = torch.as_tensor(queries), torch.as_tensor(candidates)
    n_events, n_candidates = queries.shape[0], candidates.shape[0]
    reference = _check_reference(reference, n_events, n_candidates)
    bias = None if bias is None else torch.as_tensor(bias, dtype=candidates.dtype)
    rows = max(1, block_elements // max(n_candidates, 1))
    counts = np.empty(n_events, dtype=np.int64)
    with torch.no_grad():
        for start in range(0, n_events, rows):
            stop = min(start + rows, n_events)
            block = queries[start:stop] @ candidates.T
            if bias is not None:
                block = block + bias
            block_mask = _block_mask(mask, start, stop, n_candidates)
            counts[start:stop] = _count_block(_as_numpy(block), reference[start:stop], block_mask)
    return counts


def _count_block(block: np.ndarray, reference: np.ndarray, block_mask: np.ndarray | None) -> np.ndarray:
    target = block[np.arange(block.shape[0]), reference][:, None]
    above = block > target
    if block_mask is not None:
        above &= ~block_mask
    return above.sum(axis=1)


def _shape(scores) -> tuple[int, int]:
    shape = tuple(scores.shape)
    if len(shape) != 2:
        raise ValueError(f"scores must be 2-D (events × candidates), got shape {shape}")
    return shape


def _check_reference(reference, n_events: int, n_candidates: int) -> np.ndarray:
    reference = _as_numpy(reference).astype(np.int64).reshape(-1)
    if reference.size != n_events:
        raise ValueError(f"need one reference index per event: {reference.size} for {n_events} events")
    if reference.size and (reference.min() < 0 or reference.max() >= n_candidates):
        raise ValueError(f"reference indices must lie in [0, {n_candidates - 1}]")
    return reference


def _block_mask(mask, start: int, stop: int, n_candidates: int) -> np.ndarray | None:
    if mask is None:
        return None
    if isinstance(mask, Sequence) and not isinstance(mask, np.ndarray):
        block = np.zeros((stop - start, n_candidates), dtype=bool)
        for row, excluded in enumerate(mask[start:stop]):
            block[row, np.asarray(excluded, dtype=np.int64)] = True
        return block
    block = _as_numpy(mask[start:stop]).astype(bool)
    if block.shape != (stop - start, n_candidates):
        raise ValueError(f"a boolean mask must have the scores' shape; got rows of {block.shape[1:]} "
                         f"for {n_candidates} candidates")
    return block


def _as_numpy(array) -> np.ndarray:
    """numpy view of a numpy array, memory map slice or torch tensor (moved to the CPU)."""
    if hasattr(array, "detach"):
        tensor = array.detach().cpu()
        # numpy has no bfloat16; widening to float32 keeps every comparison exact
        narrow_float = tensor.dtype.is_floating_point and tensor.element_size() < 4
        return tensor.float().numpy() if narrow_float else tensor.numpy()
    return np.asarray(array)
