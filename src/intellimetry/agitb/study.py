"""The AGITB chapter's experiments as functions the notebooks call: the search-space formulas checked
by enumeration, an example input, one candidate adapting to a repeated sequence, the test suite's
verdicts summarised, and the benchmark table beside what this code implements."""
from __future__ import annotations

import hashlib
import inspect
import json
from dataclasses import asdict

import numpy as np
import pandas as pd

from intellimetry.agitb import axioms, inputs, kernels, models, protocol, wilcoxon
from intellimetry.agitb.axioms import Context, Result, Settings, measure_liveness, noisy_sequence, run_suite
from intellimetry.agitb.inputs import ALL_ONES, BITS, SEQUENCE_LENGTH, match, random_input
from intellimetry.agitb.models import load_model
from intellimetry.agitb.protocol import Subject
from intellimetry.agitb.search_space import count_all, count_cyclic_refractory, count_refractory, enumerate_counts
from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.parallel import parallel_map

# --------------------------------------------------------------------------- Figure 0: the search space


def formula_checks(check_steps, check_bits) -> pd.DataFrame:
    """One row per (steps, bits): the number of sequences of every kind counted by brute force and by
    formula, and whether they agree (small cases only: enumeration is exponential)."""
    checks = []
    for n in check_steps:
        for b in check_bits:
            counted = enumerate_counts(n, b)
            formula = {"all": count_all(n, b), "refractory": count_refractory(n, b),
                       "cyclic_refractory": count_cyclic_refractory(n, b)}
            checks.append({"n_steps": n, "bits": b, **{f"{k}_enumerated": v for k, v in counted.items()},
                           **{f"{k}_formula": v for k, v in formula.items()}, "agree": counted == formula})
    return pd.DataFrame(checks)


# --------------------------------------------------------------------------- Figure 1: inputs

def bits_on(x: int) -> int:
    """How many of an input's bits are on."""
    return bin(x).count("1")


def input_with_bits(rng: np.random.Generator, bits_set: int = 4) -> int:
    """The first random input with exactly `bits_set` bits on (the paper's example has four)."""
    x = random_input(rng)
    while bits_on(x) != bits_set:
        x = random_input(rng)
    return x


# --------------------------------------------------------------------------- Figure 2: adaptation

def adaptation(candidate: str, sequence: list[int], passes: int) -> dict:
    """A fresh `candidate` fed `sequence` `passes` times in a row: its prediction before each step,
    what it saw, the wrong bits (XOR), the bits right per step, and the first pass it predicts
    exactly (None if never)."""
    observed = sequence * passes
    predicted = Subject(load_model(candidate)()).process(observed)
    period = len(sequence)
    exact_from = next((t for t in range(0, len(observed), period)
                       if predicted[t:t + period] == observed[t:t + period]), None)
    return {"observed": observed, "predicted": predicted, "errors": [p ^ o for p, o in zip(predicted, observed)],
            "matches": [match(p, o) for p, o in zip(predicted, observed)],
            "first_exact_pass": None if exact_from is None else exact_from // period + 1}


def pass_scores(matches: list[int], sequence_length: int) -> dict:
    """Bits predicted right over the first and the last pass, out of BITS per step of a pass, and
    the gain from the first to the last (Fig. 2's claim: adapting to errors improves the prediction)."""
    first, last = sum(matches[:sequence_length]), sum(matches[-sequence_length:])
    return {"bits_right_first_pass": first, "bits_right_last_pass": last,
            "bits_per_pass": BITS * sequence_length, "bits_gained": last - first}


# --------------------------------------------------------------------------- Table 0: the verdicts

MARKS = {"pass": "✓", "fail": "✗", "not reached": "·"}
# Tests whose verdict rests on wall-clock timings, so it can change between runs with the same seed.
TIMED_TESTS = (12,)
LIVENESS_KEYS = ("batch", "z", "pairs", "slower", "limit")


def run_candidates(candidates: list[str], settings: Settings, seed: int, workers: int = 1,
                   progress: bool = True, cache_root=None) -> tuple[dict[str, list[Result]], dict[str, dict]]:
    """Every test on every candidate ("run every test" mode), and test 12's measurement for each:
    (results, liveness), both keyed by candidate in the order given. Candidates run through
    :func:`intellimetry.parallel.parallel_map` (``workers`` processes, or the Dask cluster in use);
    the seeded tests give the same verdicts for any ``workers``. Timings, and so test 12, also
    depend on what else runs on the machine at the time.

    Each finished candidate is kept in the model cache (namespace ``agitb-candidate-runs``): at the
    paper's SimulatedInfinity a heavy candidate takes about an hour, so an interrupted Table 0 resumes
    with the candidates it has not run. A cached candidate's times are those of the run that stored it."""
    jobs = [(name, settings, seed, cache_root) for name in candidates]
    outcomes = parallel_map(_candidate_run, jobs, workers=workers, desc="candidates", progress=progress)
    return ({name: rows for name, (rows, _) in zip(candidates, outcomes)},
            {name: liveness for name, (_, liveness) in zip(candidates, outcomes)})


def _suite_source_digest() -> str:
    """The source of every module a candidate's results depend on: the tests, the models, their kernels."""
    text = "".join(inspect.getsource(module) for module in (axioms, inputs, kernels, models, protocol, wilcoxon))
    return hashlib.sha256(text.encode()).hexdigest()


def _plain(value):
    """JSON-ready: numpy scalars as Python numbers."""
    return json.loads(json.dumps(value, default=lambda item: item.item()))


def _candidate_run(job: tuple) -> tuple[list[Result], dict]:
    """One candidate's suite, then its liveness measurement (its own generator from the seed), from the
    model cache when this candidate already ran with these settings, seed and test code."""
    name, settings, seed, cache_root = job
    cache = ModelCache(RUN_CODE, cache_root)
    key = cache.key(candidate=name, settings=asdict(settings), seed=int(seed), sources=_suite_source_digest())
    with cache.claim(key):
        record = cache.load_json(key)
        if record is None or record.get("key") != key:
            factory = load_model(name)
            rows = run_suite(factory, settings, seed)
            liveness = measure_liveness(Context(factory, settings, np.random.default_rng(seed)))
            record = {"key": key, "rows": [row.as_dict() for row in rows], "liveness": _plain(liveness)}
            cache.store_json(key, record)
    return [Result(**row) for row in record["rows"]], record["liveness"]


RUN_CODE = TrainingCode("agitb-candidate-runs", 1, packages=("numpy",),
                        definitions=(_candidate_run, run_suite, measure_liveness))


def first_failure(rows) -> int | None:
    """The number of the first test a candidate fails (None if it fails none)."""
    return next((r.number for r in rows if r.verdict == "fail"), None)


# The paper's central claim's null subjects: models that learn nothing (a constant and a uniformly
# random predictor), run in the same suite as the other candidates.
NULL_CANDIDATES = ("always-zero", "history-random")


def verdict_summary(results: dict, liveness: dict, null: tuple[str, ...] = NULL_CANDIDATES) -> dict:
    """Per candidate (key without dashes): tests passed, the first failure, the time taken, every
    test's result with its mark, and the liveness measurement; and the central claim's statistics
    (:func:`suite_claim`) over every candidate, and under ``control`` over the ``null`` candidates."""
    candidates = {name.replace("-", "_"): {
        "passed": sum(r.verdict == "pass" for r in rows),
        "first_failure": first_failure(rows),
        "seconds": sum(r.seconds for r in rows),
        "tests": {f"t{r.number}": {**r.as_dict(), "mark": MARKS[r.verdict]} for r in rows},
        "liveness": {k: liveness[name][k] for k in LIVENESS_KEYS},
    } for name, rows in results.items()}
    missing = [name for name in null if name not in results]
    if missing:
        raise ValueError(f"the control needs the null candidates {list(null)} among the candidates; missing {missing}")
    return {"candidates": candidates, **suite_claim(results),
            "control": {**suite_claim({name: results[name] for name in null}), "candidates": ", ".join(null)}}


def suite_claim(results: dict) -> dict:
    """The paper's central claim over a set of candidates (results by name): whether any passes every
    test, and every test whose verdict does not rest on timings (the seeded ones, reproducible
    exactly); whether each test is passed by at least one candidate (individually solvable, the
    paper's §1), the tests passed by none (as text: "6, 9", or "none") and the most tests one
    candidate passes."""
    numbers = sorted({r.number for rows in results.values() for r in rows})
    passed_by = {n: [name for name, rows in results.items() if any(r.number == n and r.verdict == "pass" for r in rows)]
                 for n in numbers}
    unpassed = [n for n in numbers if not passed_by[n]]
    return {"any_passes_all": any(all(r.verdict == "pass" for r in rows) for rows in results.values()),
            "any_passes_all_untimed": any(all(r.verdict == "pass" for r in rows if r.number not in TIMED_TESTS)
                                          for rows in results.values()),
            "each_test_passed_by_some": not unpassed,
            "tests_passed_by_none": ", ".join(map(str, unpassed)) or "none",
            "most_tests_passed": max(sum(r.verdict == "pass" for r in rows) for rows in results.values())}


def denoising_by_echo(rng: np.random.Generator, trials: int, runs_per_trial: int,
                      sequence_length: int = SEQUENCE_LENGTH) -> dict:
    """Test 10 scored for a model that predicts the corrupted input itself (as a lookup table does
    once the corruption has overwritten the successor of the sequence's last element): mean bits
    right per run for it and for the all-zeros and all-ones guesses, and the share of trials it
    passes (a trial passes when its score over `runs_per_trial` runs beats both guesses)."""
    runs = np.array([[match(c, s[0]), match(0, s[0]), match(ALL_ONES, s[0])]
                     for s, c in (noisy_sequence(rng, sequence_length) for _ in range(trials * runs_per_trial))])
    per_trial = runs.reshape(trials, runs_per_trial, 3).sum(axis=1)
    passed = (per_trial[:, 0] > per_trial[:, 1]) & (per_trial[:, 0] > per_trial[:, 2])
    echo, zeros, ones = runs.mean(axis=0)
    return {"echo_bits": float(echo), "zeros_bits": float(zeros), "ones_bits": float(ones),
            "echo_trial_pass_rate": float(passed.mean()), "trials": trials}


# --------------------------------------------------------------------------- Table 1: benchmarks

# What this code fixes of the properties the paper's Table 1 lists for AGITB
FROM_CODE = {"Interface modality": "Binary", "Input dimensionality": f"{BITS} bits",
             "Temporal sequence length": f"Short ({SEQUENCE_LENGTH}+)"}


def benchmark_table(paper: dict) -> tuple[list[list[str]], list[str]]:
    """The paper's Table 1 rows with a last column from this code (— where the code fixes nothing),
    and the column headings."""
    rows = [row + [FROM_CODE.get(row[0], "—")] for row in paper["rows"]]
    return rows, ["Property", *paper["columns"], "this book's AGITB"]


def code_matches_paper(rows: list[list[str]], paper: dict) -> dict:
    """For each property this code fixes: does the paper's AGITB column say the same?"""
    agitb_column = paper["columns"].index("AGITB") + 1
    matches = {row[0]: row[agitb_column] == row[-1] for row in rows if row[0] in FROM_CODE}
    return {"matches_paper": matches,
            "all_code_rows_match": all(row[agitb_column] == row[-1] for row in rows if row[0] in FROM_CODE)}
