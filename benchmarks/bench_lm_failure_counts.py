"""Failure counting over SmolLM2's whole vocabulary against a plain forward pass of the same tokens.

One 5,000-token document of real text (the standard library's sources, always on the machine),
every position an event (min_prefix 1). Both runs go through the model in the same chunks with the
KV cache; the plain pass computes the full logits, ours applies the LM head block by block and
counts the tokens scored above the human's. Targets: counting adds at most 15 % to the plain pass's
time, and the process's peak memory stays under 4 GiB.

    .venv/bin/python benchmarks/bench_lm_failure_counts.py [--tokens 5000] [--repeats 3]
"""
from __future__ import annotations

import argparse
import resource
import statistics
import sysconfig
import time
from pathlib import Path

import numpy as np
import torch

from intellimetry.survival.language import scoring

TARGET_OVERHEAD = 0.15
TARGET_PEAK_GIB = 4.0


def peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # Linux reports KiB


def document_ids(lm, n_tokens: int) -> np.ndarray:
    """The first n_tokens of the standard library's sources, concatenated in sorted order."""
    ids = []
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        ids += lm.encode(path.read_text(encoding="utf-8", errors="replace"))
        if len(ids) >= n_tokens:
            return np.asarray(ids[:n_tokens])
    raise RuntimeError("the standard library has fewer tokens than asked for")


def plain_forward(lm, ids: np.ndarray) -> None:
    """The logits of every position, chunk by chunk with the KV cache (what any evaluation pays)."""
    past = None
    with torch.no_grad():
        for start in range(0, ids.size, scoring.CHUNK_TOKENS):
            chunk = torch.as_tensor(ids[start:start + scoring.CHUNK_TOKENS]).unsqueeze(0)
            out = lm.model(input_ids=chunk, past_key_values=past, use_cache=True)
            past = out.past_key_values


def timed(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tokens", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    lm = scoring.load_language_model()
    ids = document_ids(lm, args.tokens)
    counts = scoring.document_failure_counts(lm, ids, min_prefix=1)  # first: the peak is ours alone
    peak = peak_rss_gib()
    plain, ours = [], []
    for _ in range(args.repeats):  # interleaved, so drift in machine load hits both alike
        plain.append(timed(lambda: plain_forward(lm, ids)))
        ours.append(timed(lambda: scoring.document_failure_counts(lm, ids, min_prefix=1)))
    plain_s, ours_s = statistics.median(plain), statistics.median(ours)
    overhead = ours_s / plain_s - 1
    print(f"SmolLM2-135M (vocabulary {lm.model.get_output_embeddings().weight.shape[0]:,}), "
          f"{ids.size:,} tokens, {torch.get_num_threads()} threads, median of {args.repeats}:")
    print(f"  plain forward pass (full logits): {plain_s:.1f} s, {ids.size / plain_s:.0f} tokens/s")
    print(f"  failure counting:                 {ours_s:.1f} s, {ids.size / ours_s:.0f} tokens/s "
          f"({counts.size:,} events, median failures {np.median(counts):.0f})")
    print(f"  overhead {overhead:+.1%} (target <= {TARGET_OVERHEAD:.0%}); peak memory {peak:.2f} GiB "
          f"(target < {TARGET_PEAK_GIB:g} GiB)")
    return 0 if overhead <= TARGET_OVERHEAD and peak < TARGET_PEAK_GIB else 1


if __name__ == "__main__":
    raise SystemExit(main())
