"""The measure x subject sweep: every subject and seed through the five measures, in parallel, cached.

`Design` fixes the subjects (families x capacities x budgets, the three baselines, seeds), the worlds
and each measure's settings. `run_sweep(design)` evaluates every subject in every world and on AGITB
through `intellimetry.parallel.parallel_map` (locally, or on a Dask cluster), builds the suite-level
quantities the measures need (AIQ's space, the mixed test's weights, the g-index's distances) and
returns the matrix: for every measure an array (subjects, seeds). The whole record is stored in the
model cache under a key of the design, so a second figure of the chapter reads it instead of
recomputing it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from intellimetry.agitb.axioms import TESTS, Settings, run_suite
from intellimetry.agreement import measures, runs
from intellimetry.aiq.measures import dissimilarity, mccp, mccp_curve
from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.checks import check_choice, check_int
from intellimetry.combined.scoring import difficulty, difficulty_weights, mixed_score
from intellimetry.gindex.gindex import experience, g_index, task_contributions
from intellimetry.parallel import parallel_map
from intellimetry.stats.bounded_power_law import fit_bounded_power_law
from intellimetry.subjects import kernels, learners, online, worlds
from intellimetry.subjects.learners import FAMILIES, Spec
from intellimetry.survival.decay_rate import estimate_decay_rate
from intellimetry.survival.failure_counts import failure_counts

LEARNER_KINDS = FAMILIES + ("lookup",)  # the subjects that learn: "learners only" in the subset analysis
TESTS_RUN = tuple(test.run for test in TESTS if test.number in runs.AGITB_TESTS)


@dataclass(frozen=True)
class Design:
    families: tuple[str, ...]
    capacities: tuple[int, ...]
    budgets: tuple[int, ...]
    seeds: int
    world_seed: int
    test_episodes: int
    simulated_infinity: int
    repetitions: int
    runs_per_trial: int
    mix_shares: tuple[float, ...]
    curve_chunks: int
    curve_agents: int
    reference_capacity: int
    decay_resamples: int

    def __post_init__(self):
        for family in self.families:
            check_choice("family", family, FAMILIES)
        for value in (*self.capacities, *self.budgets):
            check_int("capacity or budget", value, 1)
        check_int("seeds", self.seeds, 1)
        check_int("test_episodes", self.test_episodes, 1)
        if len(self.mix_shares) < 2 or self.mix_shares[0] != 0 or self.mix_shares[-1] != 1:
            raise ValueError(f"mix_shares must run from 0 to 1, got {self.mix_shares}")

    @property
    def settings(self) -> Settings:
        return Settings(simulated_infinity=self.simulated_infinity, repetitions=self.repetitions,
                        runs_per_trial=self.runs_per_trial)

    @property
    def reference(self) -> Spec:
        """The network that mixes worlds for AIQ and times the worlds' difficulty for the mixed test."""
        return Spec("mlp", self.reference_capacity, max(self.budgets), self.world_seed)


def subjects(design: Design) -> list[Spec]:
    """Every subject without its seed (seed 0): learners by family, capacity and budget, then lookup
    per budget, then constant and random."""
    specs = [Spec(f, c, b) for f in design.families for c in design.capacities for b in design.budgets]
    specs += [Spec("lookup", 0, b) for b in design.budgets]
    return specs + [Spec("constant"), Spec("random")]


def seeded(spec: Spec, seed: int) -> Spec:
    return Spec(spec.kind, spec.capacity, spec.budget, seed)


def make_tests(design: Design) -> runs.Tests:
    chosen = worlds.make_worlds(seed=design.world_seed)
    rng = np.random.default_rng([design.world_seed, 5])
    return runs.Tests(tuple(chosen), tuple(w.sample(design.test_episodes, runs.EPISODE_LENGTH, rng)
                                               for w in chosen))


def agitb_key(spec: Spec) -> tuple:
    """AGITB trains a subject itself (SimulatedInfinity): subjects differing only in budget are one."""
    return spec.kind, spec.capacity, spec.seed


def sweep_records(design: Design, workers: int = 1, progress: bool = True) -> tuple[runs.Tests, list, list]:
    tests = make_tests(design)
    bases = subjects(design)
    tasks, seen = [], set()
    for base in bases:
        for seed in range(design.seeds):
            spec = seeded(base, seed)
            tasks.append((spec, agitb_key(spec) not in seen))
            seen.add(agitb_key(spec))
    order = sorted(range(len(tasks)), key=lambda i: runs.expected_cost(tasks[i]), reverse=True)
    done = parallel_map(runs.subject_task, [tasks[i] for i in order], workers=workers,
                        shared=(tests, max(design.budgets), design.settings), desc="subjects", progress=progress)
    records = [None] * len(tasks)
    for position, index in enumerate(order):
        records[index] = done[position]
    agitb = {agitb_key(spec): r["agitb"] for (spec, has), r in zip(tasks, records) if has}
    for (spec, _), record in zip(tasks, records):
        record["agitb"] = agitb[agitb_key(spec)]
    return tests, bases, records


def suite_inputs(design: Design, tests: runs.Tests, records: list) -> dict:
    """What the measures need from the whole suite, as plain numbers: the worlds' MCCPs over the pool
    and their dissimilarities (AIQ), the reference network's learning curves (the mixed test's
    difficulty) and the domain distances Ω (g-index)."""
    sizes = np.array([r["sizes"] for r in records], dtype=float)
    accuracy = np.array([r["accuracy"] for r in records])
    curves = measures.learning_curves(tests, design.reference, design.curve_chunks, design.curve_agents)
    return {"mccps": measures.world_complexities(sizes, accuracy).tolist(),
            "ds": measures.dissimilarities(tests, design.reference, design.mix_shares, design.world_seed).tolist(),
            "curves": [c.tolist() for c in curves], "omega": measures.domain_distance(tests).tolist()}


def suite_quantities(tests: runs.Tests, inputs: dict) -> dict:
    """The suite's objects from its inputs: AIQ's space, the mixed test's difficulties and weights, Ω."""
    difficulties, weights = measures.mixed_weights(tests, [np.asarray(c) for c in inputs["curves"]])
    return {"space": measures.aiq_space(tests, inputs["mccps"], inputs["ds"]), "difficulties": difficulties,
            "weights": weights, "omega": np.asarray(inputs["omega"])}


def measure_matrix(design: Design, tests: runs.Tests, records: list, suite: dict) -> dict:
    """{measure: (subjects, seeds) list} and the decay-rate rows behind the first."""
    names = [w.name for w in tests.worlds]
    n_subjects = len(records) // design.seeds
    matrix = {m: np.full((n_subjects, design.seeds), np.nan) for m in measures.MEASURES}
    rates = []
    for index, record in enumerate(records):
        row, seed = divmod(index, design.seeds)
        rng = np.random.default_rng([design.world_seed, index, 3])
        rate = measures.decay_rate(record["histograms"], worlds.ALPHABET, design.decay_resamples, rng)
        rates.append({k: rate[k] for k in ("alpha", "ci_low", "ci_high", "status", "events_in_range")})
        cells = {
            "decay rate": np.nan if rate["alpha"] is None else rate["alpha"],
            "AIQ": measures.relative_aiq(suite["space"], record["accuracy"]),
            "mixed score": measures.mixed(record["accuracy"], names, suite["weights"]),
            "g-index": measures.gindex_of(record["accuracy"], suite["omega"], record["samples"], record["petaflops"]),
            "AGITB": record["agitb"]["passed"],
        }
        for measure, value in cells.items():
            matrix[measure][row, seed] = value
    return {"matrix": {m: v.tolist() for m, v in matrix.items()}, "rates": rates}


CODE = TrainingCode("agreement-sweep", 1, packages=("numpy", "numba"), definitions=(
    kernels._learn, kernels._predict, kernels.step, kernels.run_episodes, kernels.feed_sequence,
    learners.Network, learners.Lookup, learners.Constant, learners.Random, learners.make_learner,
    online.NetworkModel, online.LookupModel, online.ConstantModel, online.RandomModel,
    worlds.World, worlds.make_world, worlds.mixture_episodes,
    runs.evaluate_subject, runs.failures_in, runs.training_episodes, runs.agitb_passes, runs.subject_task,
    measures.mixing_curve, measures.dissimilarities, measures.learning_curves, measures.domain_distance,
    measures._oracle_accuracy, measures.decay_rate, measures.relative_aiq, measures.mixed, measures.gindex_of,
    measures.world_complexities, sweep_records, suite_inputs, measure_matrix,
    # the measures' own code in the paper chapters: a change there re-measures the cached matrix
    estimate_decay_rate, fit_bounded_power_law, failure_counts, mccp, mccp_curve, dissimilarity, run_suite, *TESTS_RUN,
    difficulty, difficulty_weights, mixed_score, g_index, task_contributions, experience))


def run_sweep(design: Design, workers: int = 1, progress: bool = True, cache_root=None) -> dict:
    """The sweep (from the model cache when this design was run before): the subjects, their records,
    the suite's quantities and the matrix {measure: (subjects, seeds) array} with its decay-rate rows."""
    cache = ModelCache(CODE, cache_root)
    key = cache.key(design=asdict(design))
    with cache.claim(key):
        stored = cache.load_json(key)
        if stored is None or stored.get("key") != key:
            tests, bases, records = sweep_records(design, workers, progress)
            inputs = suite_inputs(design, tests, records)
            stored = {"key": key, "subjects": [asdict(s) for s in bases], "records": records, "suite": inputs,
                      **measure_matrix(design, tests, records, suite_quantities(tests, inputs))}
            cache.store_json(key, stored)
    tests = make_tests(design)
    return {"tests": tests, "subjects": [Spec(**s) for s in stored["subjects"]], "records": stored["records"],
            "suite": suite_quantities(tests, stored["suite"]), "rates": stored["rates"],
            "matrix": {m: np.asarray(stored["matrix"][m], dtype=float) for m in measures.MEASURES}}  # JSON sorted them


def attributes(bases: list[Spec], records: list, seeds: int) -> dict:
    """Per subject: log2 capacity and budget (NaN where none), mean size and mean accuracy."""
    rows = [records[i * seeds:(i + 1) * seeds] for i in range(len(bases))]
    return {
        "capacity": np.array([np.log2(s.capacity) if s.kind in FAMILIES else np.nan for s in bases]),
        "budget": np.array([np.log2(s.budget) if s.learns else np.nan for s in bases]),
        "size": np.array([np.mean([np.mean(r["sizes"]) for r in row]) for row in rows]),
        "accuracy": np.array([np.mean([np.mean(r["accuracy"]) for r in row]) for row in rows]),
    }


def subset_rows(bases: list[Spec], matrix: dict) -> dict:
    """The subject subsets of the agreement analysis, as row indices."""
    from intellimetry.agreement.analysis import top_half

    kinds = np.array([s.kind for s in bases])
    chosen = {"all": np.arange(len(bases)), "learners": np.flatnonzero(np.isin(kinds, LEARNER_KINDS))}
    for family in FAMILIES:
        rows = np.flatnonzero(kinds == family)
        if rows.size:
            chosen[family] = rows
    chosen["top half"] = top_half(matrix)
    return chosen

