"""Failure counts over a language-model-sized vocabulary in bounded memory.

150,000 candidates × 100,000 events would be a 60 GB float32 score matrix; the blocked
computation must add no more than 1 GiB of peak memory and finish in < 5 minutes on 2 cores.

    .venv/bin/python benchmarks/bench_failure_counts.py [--events 100000] [--vocabulary 150000] [--dim 64]
"""
from __future__ import annotations

import argparse
import resource
import time

import numpy as np
import torch

from intellimetry.survival import failure_counts_from_embeddings

TARGET_EXTRA_MIB = 1024
TARGET_S = 300.0


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--vocabulary", type=int, default=150_000)
    parser.add_argument("--dim", type=int, default=64)
    args = parser.parse_args()
    generator = torch.Generator().manual_seed(0)
    hidden = torch.randn(args.events, args.dim, generator=generator)
    embeddings = torch.randn(args.vocabulary, args.dim, generator=generator)
    reference = torch.randint(0, args.vocabulary, (args.events,), generator=generator)
    baseline = peak_rss_mib()
    started = time.monotonic()
    counts = failure_counts_from_embeddings(hidden, embeddings, reference)
    elapsed = time.monotonic() - started
    extra = peak_rss_mib() - baseline
    full_matrix_gib = args.events * args.vocabulary * 4 / 2**30
    print(f"failure counts: {args.events:,} events × {args.vocabulary:,} candidates (d = {args.dim}) in "
          f"{elapsed:.1f} s; peak memory +{extra:.0f} MiB (the whole score matrix would be "
          f"{full_matrix_gib:.0f} GiB); median failures {np.median(counts):.0f}; "
          f"targets: < {TARGET_S:.0f} s, < +{TARGET_EXTRA_MIB} MiB")
    return 0 if elapsed < TARGET_S and extra < TARGET_EXTRA_MIB else 1


if __name__ == "__main__":
    raise SystemExit(main())
