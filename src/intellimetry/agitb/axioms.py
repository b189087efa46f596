"""The twelve AGITB tests (the paper's version, reference release v1.0.1, known defects fixed).

Every test runs repetitions; each repetition draws its own seed from a per-test stream of the
suite's seed, so a failure is reported with the seed that replays exactly that repetition
(`replay`). A test passes when all its repetitions pass and fails at the first that does not.
"""
from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from intellimetry.agitb.inputs import (
    ALL_ONES,
    admissible_array,
    all_admissible_pairs,
    circular_random,
    invert,
    match,
    match_sequences,
    random_input,
    structured_pattern,
    trivial,
)
from intellimetry.agitb.protocol import Model, Subject
from intellimetry.agitb.wilcoxon import consistently_slower

Factory = Callable[[], Model]


@dataclass(frozen=True)
class Settings:
    """Every constant of the testbed. SimulatedInfinity is both a learning budget (time steps)
    and the repetition count of the heavier tests."""
    simulated_infinity: int = 5000
    repetitions: int = 100             # tests 1, 2 and 4
    runs_per_trial: int = 20           # tests 10 and 11
    sequence_length: int = 7
    z_threshold: float = 3.090         # one-sided Wilcoxon, p ≈ 0.001
    min_wilcoxon_pairs: int = 20
    liveness_batches: int = 100
    liveness_structured: int = 25
    liveness_min_seconds: float = 100e-6
    liveness_max_batch: int = 10**6
    liveness_spike_factor: float = 10.0

    def __post_init__(self):
        for name in ("simulated_infinity", "repetitions", "runs_per_trial", "sequence_length", "liveness_batches"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.sequence_length < 2:
            raise ValueError(f"sequence_length must be at least 2, got {self.sequence_length}")


class Failed(Exception):
    """An assertion of a test did not hold; the message says which."""


@dataclass
class Context:
    factory: Factory
    settings: Settings
    rng: np.random.Generator

    @property
    def budget(self) -> int:
        return self.settings.simulated_infinity

    def fresh(self) -> Subject:
        return Subject(self.factory())

    def warmed(self, length: int | None = None) -> Subject:
        """Model(random, w): a fresh model fed a random admissible sequence of length w
        (w uniform in [0, SimulatedInfinity] unless given)."""
        if length is None:
            length = int(self.rng.integers(0, self.budget + 1))
        subject = self.fresh()
        if length:
            subject.feed_all(admissible_array(self.rng, length))
        return subject

    def learnable_sequence(self) -> list[int]:
        n = self.settings.sequence_length
        for _ in range(math.ceil(self.budget / n)):
            candidate = circular_random(self.rng, n)
            if self.fresh().learns(candidate, self.budget):
                return candidate
        raise Failed(f"no learnable random sequence of length {n} found in {math.ceil(self.budget / n)} attempts")


def require(condition: bool, message: str) -> None:
    if not condition:
        raise Failed(message)


# --- the twelve tests: one repetition each ------------------------------------------------------

def uninformed_start(c: Context) -> None:
    require(c.fresh() == c.fresh(), "two fresh models differ")


def determinism(c: Context) -> None:
    a, b = c.fresh(), c.fresh()
    length = int(c.rng.integers(0, c.budget + 1))
    warm_up = admissible_array(c.rng, length) if length else []
    a.feed_all(warm_up)
    b.feed_all(warm_up)
    for x in range(ALL_ONES + 1):
        a.feed(x)
        b.feed(x)
        require(a == b, f"two models fed the same inputs differ after input {x}")


def trace(c: Context) -> None:
    a = c.warmed()
    keyed = a.key() is not None
    seen: set | list = {a.key()} if keyed else [a.copy()]
    for step, x in enumerate(c.rng.integers(0, ALL_ONES + 1, size=c.budget - 1).tolist()):
        a.feed(x)
        if keyed:
            key = a.key()
            require(key not in seen, f"the model returned to an earlier state after {step + 1} inputs")
            seen.add(key)
        else:
            require(all(a != earlier for earlier in seen),
                    f"the model returned to an earlier state after {step + 1} inputs")
            seen.append(a.copy())


def time_order(c: Context) -> None:
    for x in range(ALL_ONES + 1):
        a = c.warmed()
        b = a.copy()
        a.feed_all([x, invert(x)])
        b.feed_all([invert(x), x])
        require(a != b, f"feeding {x} then {invert(x)} leaves the same model as the reverse order")


def absolute_refractory_period(c: Context) -> None:
    for x in range(ALL_ONES + 1):
        require(c.fresh().learns([x, invert(x)], c.budget), f"a fresh model cannot learn {{{x}, {invert(x)}}}")
        if x:
            require(not c.fresh().learns([x, x], c.budget), f"a fresh model learns the non-admissible {{{x}, {x}}}")


def inevitable_saturation(c: Context) -> None:
    a = c.fresh()
    for _ in range(c.budget):
        if not a.learns(c.learnable_sequence(), c.budget):
            break
    else:
        raise Failed(f"a continually trained model still learned every one of {c.budget} new sequences")
    for x1, x2 in all_admissible_pairs():
        require(a.copy().learns([int(x1), int(x2)], c.budget), f"the saturated model cannot learn {{{x1}, {x2}}}")


def temporal_adaptability(c: Context) -> None:
    a = c.fresh()
    n = c.settings.sequence_length
    require(a.learns(trivial(n), c.budget), f"a fresh model cannot learn trivial({n})")
    require(a.learns(trivial(n + 1), c.budget), f"after trivial({n}) the model cannot learn trivial({n + 1})")


def content_sensitivity(c: Context) -> None:
    base = c.learnable_sequence()
    t_base = c.fresh().time_to_learn(base, c.budget)
    for _ in range(c.budget):
        other = circular_random(c.rng, len(base))
        if other == base:
            continue
        t = c.fresh().time_to_learn(other, c.budget)
        if t < c.budget and t != t_base:
            return
    raise Failed(f"no other learnable sequence took a different time than {t_base} steps")


def context_sensitivity(c: Context) -> None:
    sequence = c.learnable_sequence()
    t_fresh = c.fresh().time_to_learn(sequence, c.budget)
    for _ in range(c.budget):
        if c.warmed(1 + int(c.rng.integers(0, c.budget + 1))).time_to_learn(sequence, c.budget) != t_fresh:
            return
    raise Failed(f"every experienced model took the same {t_fresh} steps as a fresh one")


def denoising(c: Context) -> None:
    n = c.settings.sequence_length
    score = zeros = ones = 0
    for _ in range(c.settings.runs_per_trial):
        sequence, corrupted = noisy_sequence(c.rng, n)
        a = c.fresh()
        for _ in range(5 * n):
            a.feed_all(sequence)
        a.feed_all([corrupted, *sequence[1:]])
        score += match(a.prediction, sequence[0])
        zeros += match(0, sequence[0])
        ones += match(ALL_ONES, sequence[0])
    require(score > zeros and score > ones,
            f"denoised score {score} does not beat all-zeros {zeros} and all-ones {ones}")


def noisy_sequence(rng, n: int) -> tuple[list[int], int]:
    """One run of test 10: a cyclic sequence and the corrupted first element, an admissible input
    other than sequence[0] (masked by sequence[1] and sequence[-1])."""
    sequence = _sequence_with_room_for_noise(rng, n)
    corrupted = sequence[0]
    while corrupted == sequence[0]:
        corrupted = random_input(rng, sequence[1], sequence[-1])
    return sequence, corrupted


def _sequence_with_room_for_noise(rng, n: int) -> list[int]:
    # If seq[1] | seq[-1] covers every bit, 0 is the only admissible first element and no corruption
    # exists (the reference implementation looped forever here): draw again.
    while True:
        sequence = circular_random(rng, n)
        if sequence[1] | sequence[-1] != ALL_ONES:
            return sequence


def generalisation(c: Context) -> None:
    n, runs = c.settings.sequence_length, c.settings.runs_per_trial
    score = 0
    for _ in range(runs):
        generator = c.warmed(c.budget)
        prefix, continuation = generator.generate(10 * n), generator.generate(n)
        a = c.fresh()
        a.feed_all(prefix)
        score += match_sequences(a.generate(n), continuation)
    chance = runs * n * 10 / 2
    require(score > chance, f"predicted continuations scored {score}, not above chance ({chance:g})")


def measure_liveness(c: Context) -> dict:
    """Per-batch feed times of a blank and an experienced model on the same batches, the spike
    limit (spike factor × median blank time) and the Wilcoxon verdict on "consistently slower"."""
    s = c.settings
    blank, complex_ = c.fresh(), c.warmed(c.budget)
    batch = max(_batch_size(blank, c), _batch_size(complex_, c))
    blank_times, complex_times = [], []
    for index in range(s.liveness_batches):
        inputs = (structured_pattern(index, batch) if index < s.liveness_structured
                  else admissible_array(c.rng, batch))
        pairs = [(blank, blank_times), (complex_, complex_times)]
        for subject, times in (pairs[::-1] if index % 2 else pairs):  # alternate the order: warm caches favour neither
            times.append(_timed_feed(subject.copy(), inputs))
    limit = s.liveness_spike_factor * float(np.median(blank_times))
    return {"batch": batch, "blank": blank_times, "complex": complex_times, "limit": limit,
            **consistently_slower(complex_times, blank_times, s.z_threshold, s.min_wilcoxon_pairs)}


def liveness(c: Context) -> None:
    m = measure_liveness(c)
    require(max(m["blank"]) <= m["limit"], f"a blank-model batch took {max(m['blank']):.2e} s, over {m['limit']:.2e} s")
    require(max(m["complex"]) <= m["limit"],
            f"an experienced-model batch took {max(m['complex']):.2e} s, over {m['limit']:.2e} s")
    require(not m["slower"], f"the experienced model is consistently slower (Wilcoxon z = {m['z']:.2f})")


def _batch_size(subject: Subject, c: Context) -> int:
    """Double the batch until one timed feed of a copy takes at least liveness_min_seconds."""
    batch = 1
    while batch < c.settings.liveness_max_batch:
        if _timed_feed(subject.copy(), admissible_array(c.rng, batch)) >= c.settings.liveness_min_seconds:
            break
        batch *= 2
    return min(batch, c.settings.liveness_max_batch)


def _timed_feed(subject: Subject, inputs: np.ndarray) -> float:
    # Hand the model its inputs in the form it eats, so no conversion is timed.
    inputs = inputs if hasattr(subject.model, "feed_many") else inputs.tolist()
    # Python's cyclic garbage collector would add pauses that belong to the host, not the model.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        started = time.perf_counter()
        subject.feed_all(inputs)
        return time.perf_counter() - started
    finally:
        if was_enabled:
            gc.enable()


# --- the suite ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Test:
    number: int
    name: str
    run: Callable[[Context], None]
    repetitions: str  # "repetitions", "simulated_infinity" or "once"


TESTS = (
    Test(1, "uninformed start", uninformed_start, "repetitions"),
    Test(2, "determinism", determinism, "repetitions"),
    Test(3, "trace", trace, "simulated_infinity"),
    Test(4, "time", time_order, "repetitions"),
    Test(5, "absolute refractory period", absolute_refractory_period, "once"),
    Test(6, "inevitable saturation", inevitable_saturation, "simulated_infinity"),
    Test(7, "temporal adaptability", temporal_adaptability, "once"),
    Test(8, "content sensitivity", content_sensitivity, "simulated_infinity"),
    Test(9, "context sensitivity", context_sensitivity, "simulated_infinity"),
    Test(10, "denoising", denoising, "simulated_infinity"),
    Test(11, "generalisation", generalisation, "simulated_infinity"),
    Test(12, "real-time liveness", liveness, "simulated_infinity"),
)
TEST_NUMBERS = tuple(t.number for t in TESTS)


@dataclass
class Result:
    number: int
    name: str
    verdict: str                 # "pass", "fail" or "not reached"
    seconds: float = 0.0
    repetitions_run: int = 0
    failure_seed: int | None = None
    message: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def repetition_count(test: Test, settings: Settings) -> int:
    return {"repetitions": settings.repetitions, "simulated_infinity": settings.simulated_infinity,
            "once": 1}[test.repetitions]


def repetition_seeds(seed: int, test_number: int):
    """The seeds of a test's repetitions: its own stream, so running a subset of tests changes nothing."""
    stream = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(test_number,)))
    while True:
        yield int(stream.integers(0, 2**63 - 1))


def run_test(test: Test, factory: Factory, settings: Settings, seed: int) -> Result:
    started = time.perf_counter()
    seeds = repetition_seeds(seed, test.number)
    count = repetition_count(test, settings)
    for done in range(count):
        rep_seed = next(seeds)
        try:
            test.run(Context(factory, settings, np.random.default_rng(rep_seed)))
        except Failed as failure:
            return Result(test.number, test.name, "fail", time.perf_counter() - started, done + 1, rep_seed,
                          f"repetition {done + 1}: {failure}")
    return Result(test.number, test.name, "pass", time.perf_counter() - started, count)


def run_suite(factory: Factory, settings: Settings, seed: int, tests=TEST_NUMBERS, stop_at_first_failure: bool = False,
              progress: Callable[[Result], None] | None = None) -> list[Result]:
    """Run the chosen tests in order. With stop_at_first_failure (the paper's all-or-nothing rule)
    the tests after the first failure are reported as "not reached"."""
    unknown = set(tests) - set(TEST_NUMBERS)
    if unknown:
        raise ValueError(f"unknown test numbers {sorted(unknown)}; allowed: 1 to 12")
    results, stopped = [], False
    for test in TESTS:
        if test.number not in tests:
            continue
        result = Result(test.number, test.name, "not reached") if stopped else run_test(test, factory, settings, seed)
        stopped = stopped or (stop_at_first_failure and result.verdict == "fail")
        results.append(result)
        if progress:
            progress(result)
    return results


def replay(test_number: int, repetition_seed: int, factory: Factory, settings: Settings) -> str | None:
    """Run one repetition with its recorded seed; the failure message, or None if it passes."""
    test = next(t for t in TESTS if t.number == test_number)
    try:
        test.run(Context(factory, settings, np.random.default_rng(repetition_seed)))
    except Failed as failure:
        return str(failure)
    return None
