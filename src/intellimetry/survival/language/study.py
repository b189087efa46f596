"""The language experiments as functions the notebooks call (Figs. 6-13): failure counts of a model
on documents or on a task's answers, cached by content so the figures that share a model and a test
set score it once; decay rates and levels per test set; decay rate against model size per task.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.survival.decay_rate import estimate_decay_rate
from intellimetry.survival.failure_counts import failure_counts_from_embeddings
from intellimetry.survival.language import scoring
from intellimetry.survival.levels import classify_level
from intellimetry.survival.scaling import fit_scaling

COUNTS_CODE = TrainingCode(
    namespace="survival-lm-counts", version=1,
    definitions=(scoring.document_failure_counts, scoring._sliding_window_counts, scoring.answer_failure_counts,
                 scoring._hidden_states_cached, scoring._count_targets, failure_counts_from_embeddings),
    packages=("torch", "transformers"))


def fingerprint(texts) -> str:
    """sha256 of a sequence of strings (order matters), the test set's part of a cache key."""
    digest = hashlib.sha256()
    for text in texts:
        digest.update(hashlib.sha256(text.encode()).digest())
    return digest.hexdigest()


def document_counts(lm: scoring.LanguageModel, texts, *, min_prefix: int, max_tokens: int,
                    cache_root=None, progress: bool = True) -> dict:
    """`scoring.score_documents`, cached by model, documents and the position rule."""
    texts = list(texts)
    inputs = {"kind": "documents", "model": lm.identity, "texts": fingerprint(texts),
              "min_prefix": min_prefix, "max_tokens": max_tokens}
    return _cached(inputs, cache_root, lambda: scoring.score_documents(
        lm, texts, min_prefix=min_prefix, max_tokens=max_tokens, progress=progress))


def answer_counts(lm: scoring.LanguageModel, examples, *, cache_root=None, progress: bool = True) -> dict:
    """`scoring.score_answers` on (prompt, answer) examples, cached by model and examples."""
    examples = list(examples)
    inputs = {"kind": "answers", "model": lm.identity,
              "examples": fingerprint(json.dumps([e.prompt, e.answer]) for e in examples)}
    return _cached(inputs, cache_root, lambda: scoring.score_answers(lm, examples, progress=progress))


def _cached(inputs: dict, cache_root, compute) -> dict:
    cache = ModelCache(COUNTS_CODE, root=cache_root)
    key = cache.key(**inputs)
    stored = cache.lookup(key, ".npz")
    if stored is not None:
        with np.load(stored) as saved:
            return {"counts": saved["counts"], "events_per_document": saved["events_per_document"].tolist()}
    result = compute()

    def write(tmp):
        with open(tmp, "wb") as stream:
            np.savez(stream, counts=result["counts"], events_per_document=np.asarray(result["events_per_document"]))

    cache.store_file(key, ".npz", write)
    return result


def decay_rates(counts_by_set: dict, k_min: int, k_max: int, resamples: int, rng: np.random.Generator) -> dict:
    """Per test set: the decay-rate estimate (MLE with bootstrap interval, level, log-binned LS and R²),
    the share of events solved at the first try and the mean failure count."""
    rows = {}
    for name, counts in counts_by_set.items():
        counts = np.asarray(counts)
        if counts.size == 0 or not ((counts >= k_min) & (counts <= k_max)).any():
            raise ValueError(f"test set {name!r} has no failure counts in [{k_min}, {k_max}] "
                             f"({counts.size} events): score more events or widen the range")
        rows[name] = {**estimate_decay_rate(counts, k_min, k_max, resamples, rng),
                      "first_try": float((counts == 0).mean()), "mean_failures": float(counts.mean())}
    return rows


def levels(rates_by_model: dict) -> dict:
    """{model: {test set: level}} from decay-rate rows."""
    return {model: {name: row["level"] for name, row in rows.items()} for model, rows in rates_by_model.items()}


def level_counts(rates_by_model: dict) -> dict:
    """How many (model, test set) pairs reach each level: the figure's headline."""
    found = [row["level"] for rows in rates_by_model.values() for row in rows.values()]
    return {level: found.count(level) for level in ("Limited", "Capable", "Autonomous")}


def size_scaling(alphas_by_member: dict, params_by_member: dict) -> dict:
    """Per test set: the log-log least-squares line of α on non-embedding size over the family,
    its slope, p-value and R², and the decades of size it spans."""
    members = list(params_by_member)
    sizes = np.array([params_by_member[m] for m in members], dtype=float)
    test_sets = next(iter(alphas_by_member.values())).keys()
    lines = {}
    for name in test_sets:
        alphas = np.array([alphas_by_member[m][name] for m in members], dtype=float)
        fit = fit_scaling(sizes, alphas)
        lines[name] = {**fit.as_dict(), "alphas": alphas.tolist(), "sizes": sizes.tolist(),
                       "decades": float(np.log10(sizes.max() / sizes.min())),
                       "rises": bool(fit.slope > 0), "level_of_largest": classify_level(alphas[-1])}
    return lines


def rising_share(lines: dict, alpha: float = 0.05) -> dict:
    """How many test sets have a positive slope, and how many a significantly positive one."""
    positive = [name for name, line in lines.items() if line["slope"] > 0]
    significant = [name for name in positive if lines[name]["p"] < alpha]
    return {"sets": len(lines), "positive": len(positive), "significant": len(significant),
            "share_positive": len(positive) / len(lines) if lines else float("nan")}
