"""The combined-test experiments as functions the notebooks call: trained agents, the tables, handicapping,
the amount of training and weight convergence.

Agents are trained in cohorts (one task, one recipe, many seeds and handicaps, trained side by side) and
every cohort's outcome (final scores, and when asked the per-epoch curves) is one JSON record in the shared
model cache (:mod:`intellimetry.cache`, namespace ``combined-agents``). Its key holds the recipe, the
handicaps and seeds, the fingerprints of the problem sets and :data:`CODE` (the source of everything that
trains and scores), so figures that ask for the same cohort share it, and a rebuild never retrains.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np

from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.checks import check_choice, check_float, check_int
from intellimetry.combined import rpm, training
from intellimetry.combined.agents import LARGE, SMALL, Adam, Agents, Topology
from intellimetry.combined.claims import paper_table_for, table_claim_from_rows, versus_paper
from intellimetry.combined.scoring import (
    CARTPOLE_WINDOW,
    THRESHOLDS,
    difficulty,
    difficulty_weights,
    mixed_score,
)
from intellimetry.combined.training import CARTPOLE, RPM_TESTS
from intellimetry.parallel import parallel_map, task_seed

TASKS = ("3-RPM", "6-RPM", CARTPOLE, "Mixed")
AGENT_NAMES = {"3-RPM": "3-RPM", "6-RPM": "6-RPM", CARTPOLE: "CartPole", "Mixed": "Mixed", "Random": "Random"}
TOPOLOGIES = {"small": SMALL, "large": LARGE}


@dataclass(frozen=True)
class Sets:
    """The RPM problem sets every figure shares: size and reading of the generator (``progression``, see
    :mod:`intellimetry.combined.rpm`) per test, and the seed."""

    progression_3rpm: str = rpm.BOOK_READING
    progression_6rpm: str = rpm.BOOK_READING
    size_3rpm: int = rpm.PAPER_SET_SIZES[3]
    size_6rpm: int = rpm.PAPER_SET_SIZES[6]
    seed: int = 0

    def __post_init__(self):
        check_choice("progression_3rpm", self.progression_3rpm, rpm.PROGRESSIONS)
        check_choice("progression_6rpm", self.progression_6rpm, rpm.PROGRESSIONS)
        check_int("size_3rpm", self.size_3rpm, 10)
        check_int("size_6rpm", self.size_6rpm, 10)
        check_int("seed", self.seed, 0)

    def get(self, test: str) -> rpm.ProblemSet:
        check_choice("RPM test", test, tuple(RPM_TESTS))
        if test == "3-RPM":
            return _problem_set(3, self.size_3rpm, self.seed, self.progression_3rpm)
        return _problem_set(6, self.size_6rpm, self.seed, self.progression_6rpm)


@lru_cache(maxsize=8)
def _problem_set(n: int, size: int, seed: int, progression: str) -> rpm.ProblemSet:
    return rpm.problem_set(n, size, seed, progression)


@dataclass(frozen=True)
class Recipe:
    """How a cohort is trained: task, topology ("small": 24 -> 3, "large": 48 -> 6), epochs (RPM: passes
    over the training problems; CartPole: episodes; Mixed: rounds of one CartPole episode and one problem of
    each RPM test in ``mixed_tests``), Adam's learning rate, the RPM minibatch, and ``train_problems``: how
    many of the training split's problems an RPM agent learns from (0 = all; Figs. 3-4 vary it), and
    ``epoch_problems``: an RPM specialist's problems per epoch (0 = one pass over them; the readings figure
    gives 3-RPM and 6-RPM the same number of steps)."""

    task: str
    topology: str
    epochs: int
    learning_rate: float = 0.001
    batch_size: int = 32
    mixed_tests: tuple[str, ...] = ()
    train_problems: int = 0
    epoch_problems: int = 0

    def __post_init__(self):
        check_choice("task", self.task, TASKS)
        check_choice("topology", self.topology, tuple(TOPOLOGIES))
        check_int("epochs", self.epochs, 0)
        check_float("learning_rate", self.learning_rate, 0, low_open=True)
        check_int("batch_size", self.batch_size, 1)
        check_int("train_problems", self.train_problems, 0)
        check_int("epoch_problems", self.epoch_problems, 0)
        for test in self.mixed_tests:
            check_choice("mixed test", test, tuple(RPM_TESTS))
        if self.topology == "small" and (self.task == "6-RPM" or "6-RPM" in self.mixed_tests):
            raise ValueError("6-RPM needs the large topology (48 inputs, 6 outputs); allowed: topology='large'")

    @property
    def network(self) -> Topology:
        return TOPOLOGIES[self.topology]

    def to_dict(self) -> dict:
        return asdict(self)


def _training_data(recipe: Recipe, sets: Sets) -> dict:
    tests = recipe.mixed_tests if recipe.task == "Mixed" else ((recipe.task,) if recipe.task in RPM_TESTS else ())
    data = {}
    for test in tests:
        problems = sets.get(test)
        chosen = problems.train[: recipe.train_problems] if recipe.train_problems else problems.train
        if recipe.train_problems > len(problems.train):
            raise ValueError(f"train_problems {recipe.train_problems} exceeds the {len(problems.train)} training "
                             f"problems of {test}")
        data[test] = (problems.x[chosen], problems.y[chosen])
    return data


def evaluate(agents: Agents, tests: Sequence[str], sets: Sets, cartpole_episodes: int, seed: int) -> dict:
    """Each agent's score V on every test: RPM on the test split, CartPole over greedy episodes."""
    scores = {}
    for test in tests:
        if test in RPM_TESTS:
            problems = sets.get(test)
            scores[test] = training.rpm_scores(agents, problems.x[problems.test], problems.y[problems.test])
        else:
            scores[test] = training.cartpole_scores(agents, cartpole_episodes, seed)
    return {test: values.tolist() for test, values in scores.items()}


class _Tracker:
    """Per-epoch curves of a training run: the task's score and each agent's weight change."""

    def __init__(self, agents: Agents, recipe: Recipe, sets: Sets):
        self.agents, self.recipe = agents, recipe
        self.before = agents.flat()
        self.score, self.change = [], []
        self.test = sets.get(recipe.task) if recipe.task in RPM_TESTS else None

    def __call__(self, epoch: int, lengths) -> None:
        now = self.agents.flat()
        self.change.append(np.linalg.norm(now - self.before, axis=1).tolist())
        self.before = now
        if self.test is not None:
            self.score.append(training.rpm_scores(self.agents, self.test.x[self.test.test],
                                                  self.test.y[self.test.test]).tolist())
        elif lengths is not None:
            self.score.append((np.asarray(lengths) / training.CARTPOLE_MAX_STEPS).tolist())


def _cohort_record(recipe: Recipe, removed: list[int], seeds: list[int], sets: Sets, tests: tuple[str, ...],
                   cartpole_episodes: int, eval_seed: int, track: bool, progress: bool) -> dict:
    agents = Agents(recipe.network, removed, seeds)
    tracker = _Tracker(agents, recipe, sets) if track else None
    started, cpu = time.perf_counter(), time.process_time()
    training.train(agents, recipe.task, recipe.epochs, recipe.learning_rate, recipe.batch_size,
                   _training_data(recipe, sets), tracker, progress, recipe.epoch_problems or None)
    record = {"recipe": recipe.to_dict(), "removed": removed, "seeds": seeds,
              "scores": evaluate(agents, tests, sets, cartpole_episodes, eval_seed),
              "seconds": round(time.perf_counter() - started, 2),
              "cpu_seconds": round(time.process_time() - cpu, 2)}
    if tracker is not None:
        record["curve"], record["weight_change"] = tracker.score, tracker.change
    return record


# What a cached cohort depends on besides its own inputs (see intellimetry.cache).
CODE = TrainingCode("combined-agents", 1, packages=("numpy",), definitions=(
    Agents, Adam, Topology, training.rpm_step, training.rpm_epoch, training.rpm_scores, training._rollout,
    training._normalised_returns, training.cartpole_episode, training.cartpole_scores, training.train,
    training.rpm_epoch_of_one, training.agent_rngs, training.epoch_order, rpm.draw_problem, rpm.problem_set,
    rpm.score_answers,
    Recipe, evaluate, _Tracker, _cohort_record, _training_data))


def run_cohort(recipe: Recipe, removed: Sequence[int], seeds: Sequence[int], sets: Sets, tests: Sequence[str],
               cartpole_episodes: int = 20, eval_seed: int = 0, track: bool = False, cache_root=None,
               progress: bool = True) -> dict:
    """Train (or load from the model cache) one cohort: agent i with ``removed[i]`` nodes taken from every
    hidden layer and seed ``seeds[i]``; then score every agent on ``tests``. With ``track``, the record also
    holds per epoch the task's score of every agent (``curve``) and its weight change (``weight_change``)."""
    removed, seeds = [int(r) for r in removed], [check_int("seed", s, 0) for s in seeds]
    tests = tuple(check_choice("test", t, training.TESTS) for t in tests)
    cartpole_episodes = check_int("cartpole_episodes", cartpole_episodes, 1)
    fingerprints = {test: sets.get(test).fingerprint() for test in RPM_TESTS
                    if test in tests or test == recipe.task or test in recipe.mixed_tests}
    cache = ModelCache(CODE, cache_root)
    key = cache.key(recipe=recipe.to_dict(), removed=removed, seeds=seeds, sets=fingerprints, tests=list(tests),
                    cartpole_episodes=cartpole_episodes, eval_seed=int(eval_seed), track=bool(track))
    with cache.claim(key):  # a figure run beside this one waits, then reuses the cohort
        record = cache.load_json(key)
        if record is None or record.get("key") != key:
            record = _cohort_record(recipe, removed, seeds, sets, tests, cartpole_episodes, int(eval_seed), track,
                                    progress)
            record["key"] = key
            cache.store_json(key, record)
    return record


def agent_seeds(base: int, count: int, offset: int = 0) -> list[int]:
    """Seeds of ``count`` agents: fixed by (base, offset, index), so a larger cohort keeps the first ones."""
    return [int(base) * 100_003 + int(offset) * 1_009 + i for i in range(check_int("agents", count, 1))]


# ----------------------------------------------------------------------------- the tables

@dataclass(frozen=True)
class Budget:
    """The training of the tables' agents: RPM epochs, CartPole episodes, mixed rounds, and evaluation."""

    rpm_epochs: int
    cartpole_episodes: int
    mixed_epochs: int
    learning_rate: float = 0.001
    batch_size: int = 32
    eval_episodes: int = 20

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class TableResult:
    """A table's numbers (``summary``, what the figure records), each trained cohort's record by task
    (``records``: scores, per-epoch score and weight change) and the negative control (``control``: the
    same ranking statistics with every row's agents replaced by random agents)."""

    summary: dict
    records: dict
    control: dict


def table(tests: Sequence[str], topology: str, budget: Budget, sets: Sets, agents: int, seed: int = 0,
          cache_root=None, progress: bool = True) -> TableResult:
    """Table 1 (tests 3-RPM, CartPole; small topology) or Table 2 (with 6-RPM; large): every agent on every
    test, the difficulty of each test measured on the specialists' own training, its weight (Eq. 1) and
    every agent's mixed score (Eq. 3), and the ranking statistics with intervals over agents
    (:func:`intellimetry.combined.claims.table_claim`) for the trained rows and, as the control, for rows of
    random agents scored by the same code with the same weights."""
    tests = tuple(tests)
    epochs = {CARTPOLE: budget.cartpole_episodes, "Mixed": budget.mixed_epochs}
    rpm_tests = tuple(t for t in tests if t in RPM_TESTS)
    rows, curves, records = {}, {}, {}
    for offset, task in enumerate((*tests, "Mixed")):
        recipe = Recipe(task, topology, epochs.get(task, budget.rpm_epochs), budget.learning_rate,
                        budget.batch_size, mixed_tests=rpm_tests if task == "Mixed" else ())
        record = run_cohort(recipe, [0] * agents, agent_seeds(seed, agents, offset), sets, tests,
                            budget.eval_episodes, seed, track=True, cache_root=cache_root, progress=progress)
        records[task], rows[task] = record, record["scores"]
        curves[task] = np.asarray(record["curve"])
    rows["Random"] = random_scores(tests, sets, agents, budget.eval_episodes, seed)
    difficulties = {test: difficulty(curves[test], THRESHOLDS[test], CARTPOLE_WINDOW if test == CARTPOLE else 1)
                    for test in tests}
    weights = difficulty_weights({test: d["epochs"] for test, d in difficulties.items()})
    summary = summarise_table(rows, tests, weights) | {
        "difficulty": difficulties, "weights": weights, "topology": TOPOLOGIES[topology].to_dict(),
        "agents_per_row": agents, "budget": budget.to_dict(),
        "training_seconds": {t: r["seconds"] for t, r in records.items()}}
    named = {AGENT_NAMES[task]: row for task, row in rows.items()}
    paper_rows = paper_table_for(tests)["rows"]
    summary |= table_claim_from_rows(named, tests, weights) | {
        "vs_paper": versus_paper(named, tests, weights, paper_rows)}
    control_rows = {AGENT_NAMES[task]: random_scores(tests, sets, agents, budget.eval_episodes,
                                                     task_seed("combined-control", seed, task))
                    for task in rows}
    control = summarise_table({task: control_rows[AGENT_NAMES[task]] for task in rows}, tests, weights) | {
        "agents_per_row": agents, **table_claim_from_rows(control_rows, tests, weights),
        "vs_paper": versus_paper(control_rows, tests, weights, paper_rows)}
    return TableResult(summary, records, {key: value for key, value in control.items() if key != "rows"})


def random_scores(tests: Sequence[str], sets: Sets, agents: int, episodes: int, seed: int) -> dict:
    """The random agents' scores on every test (random answers, random pushes)."""
    scores = {}
    for test in tests:
        if test in RPM_TESTS:
            problems = sets.get(test)
            scores[test] = training.random_rpm_scores(RPM_TESTS[test], problems.y[problems.test], agents, seed)
        else:
            scores[test] = training.random_cartpole_scores(agents, episodes, seed)
    return {test: np.asarray(values).tolist() for test, values in scores.items()}


def summarise_table(rows: dict[str, dict[str, list]], tests: Sequence[str], weights: dict[str, float]) -> dict:
    """Mean and s.d. per agent and test, each agent's mixed score, and who wins where: ``specialists_best_own``
    (every single-test agent scores highest on its own test), ``best_mixed_agent``, ``worst_mixed_agent``."""
    table_rows = {}
    for task, scores in rows.items():
        per_agent = np.array([[scores[t][i] for t in tests] for i in range(len(scores[tests[0]]))])
        mixed = [mixed_score(dict(zip(tests, row)), weights) for row in per_agent]
        table_rows[AGENT_NAMES[task]] = {
            **{t: float(np.mean(scores[t])) for t in tests}, "Mixed": float(np.mean(mixed)),
            "sd": {**{t: float(np.std(scores[t])) for t in tests}, "Mixed": float(np.std(mixed))}}
    best_own = {t: max(table_rows, key=lambda name, t=t: table_rows[name][t]) for t in tests}
    by_mixed = sorted(table_rows, key=lambda name: table_rows[name]["Mixed"])
    return {"rows": table_rows, "tests": list(tests), "best_on": best_own,
            "specialists_best_own": all(best_own[t] == AGENT_NAMES[t] for t in tests),
            "best_mixed_agent": by_mixed[-1], "worst_mixed_agent": by_mixed[0]}


# ----------------------------------------------------------------------------- handicap and training amount

def handicap_scores(task: str, topology: str, removed: Sequence[int], agents: int, epochs: int,
                    learning_rate: float, batch_size: int, sets: Sets, eval_episodes: int, seed: int = 0,
                    cache_root=None, progress: bool = True, chunks: int = 1,
                    workers: int = 1) -> tuple[np.ndarray, dict]:
    """Scores (levels, agents) of ``agents`` networks per handicap in ``removed``, each trained on ``task``
    for ``epochs`` (Figs. 2 and 5), and the cohort's record. Agent j of every level has the same seed, so
    levels differ by the handicap only.

    ``chunks`` > 1 splits the levels into that many cohorts (consecutive levels), each cached on its own
    and trained by ``workers`` processes (:func:`intellimetry.parallel.parallel_map`): an interrupted run
    keeps the finished chunks. Every agent has its own seed and generators, so the scores do not depend
    on the split; the record is then the chunks' records merged (:func:`merge_records`)."""
    removed = [int(r) for r in removed]
    chunks = check_int("chunks", chunks, 1, len(removed))
    recipe = Recipe(task, topology, epochs, learning_rate, batch_size)
    seeds = agent_seeds(seed, agents, offset=50)
    jobs = [(recipe, [removed[i] for i in group for _ in range(agents)], seeds * len(group), (task,), eval_episodes,
             seed, cache_root, progress and chunks == 1)
            for group in np.array_split(np.arange(len(removed)), chunks)]
    records = parallel_map(_cohort_job, jobs, workers=workers, shared=sets, desc=f"{task} handicap chunks",
                           progress=progress and chunks > 1)
    record = records[0] if chunks == 1 else merge_records(records)
    return np.asarray(record["scores"][task]).reshape(len(removed), agents), record


def _cohort_job(sets: Sets, job: tuple) -> dict:
    """:func:`run_cohort` on one chunk of a handicap study (a top-level function: it may run in a worker)."""
    recipe, removed, seeds, tests, eval_episodes, seed, cache_root, progress = job
    return run_cohort(recipe, removed, seeds, sets, tests, eval_episodes, seed, cache_root=cache_root,
                      progress=progress)


def merge_records(records: Sequence[dict]) -> dict:
    """One record for cohorts of one recipe trained apart: agents, seeds and scores concatenated in order,
    training time summed (the CPU time the agents cost, wherever they ran); the parts' keys kept."""
    recipes = {repr(record["recipe"]) for record in records}
    if len(recipes) != 1:
        raise ValueError(f"only cohorts of one recipe can be merged, got {len(recipes)} recipes")
    tests = list(records[0]["scores"])
    return {"recipe": records[0]["recipe"],
            "removed": [r for record in records for r in record["removed"]],
            "seeds": [s for record in records for s in record["seeds"]],
            "scores": {test: [v for record in records for v in record["scores"][test]] for test in tests},
            "seconds": round(sum(record["seconds"] for record in records), 2),
            "cpu_seconds": round(sum(record.get("cpu_seconds", record["seconds"]) for record in records), 2),
            "keys": [record["key"] for record in records]}


def handicap_study(tasks: dict[str, tuple[str, str]], removed: Sequence[int], agents: int, epochs: dict[str, int],
                   learning_rate: float, batch_size: int, sets: Sets, eval_episodes: int, plateau_end: int,
                   seed: int = 0, cache_root=None, progress: bool = True, chunks: dict[str, int] | None = None,
                   workers: int = 1) -> dict:
    """Figs. 2 and 5: per name, a (task, topology) cohort handicapped at ``removed`` and trained for
    ``epochs[task]`` (:func:`handicap_scores`, in ``chunks[name]`` cohorts, default 1, trained by ``workers``
    processes), summarised by :func:`~intellimetry.combined.validity.handicap_validity`; and the negative
    control, the same networks untrained (0 epochs: the seeds' initial weights), scored and summarised by
    the same code. Returns {"summaries", "control", "scores", "control_scores", "records"}, each by name
    but records."""
    from intellimetry.combined.validity import handicap_validity

    chunks = dict(chunks or {})
    unknown = sorted(set(chunks) - set(tasks))
    if unknown:
        raise ValueError(f"chunks names {unknown}, not among the studied cohorts {sorted(tasks)}")
    found = {"summaries": {}, "control": {}, "scores": {}, "control_scores": {}, "records": []}
    for name, (task, topology) in tasks.items():
        for trained, key in ((epochs[task], "scores"), (0, "control_scores")):
            scores, record = handicap_scores(task, topology, removed, agents, trained, learning_rate, batch_size,
                                             sets, eval_episodes, seed, cache_root, progress,
                                             chunks.get(name, 1), workers)
            found[key][name] = scores
            found["summaries" if trained else "control"][name] = handicap_validity(removed, scores, plateau_end)
            if trained:
                found["records"].append(record)
    return found


def weight_changes(result: TableResult) -> dict[str, np.ndarray]:
    """Fig. 6's input: the weight change per epoch, (epochs, agents), of Table 1's 3-RPM, CartPole and mixed
    agents, by "rpm3", "cartpole", "mixed"."""
    return {name: np.asarray(result.records[task]["weight_change"])
            for name, task in (("rpm3", "3-RPM"), ("cartpole", CARTPOLE), ("mixed", "Mixed"))}


def training_share_scores(task: str, topology: str, shares: Sequence[float], agents: int, epochs: int,
                          learning_rate: float, batch_size: int, sets: Sets, seed: int = 0, cache_root=None,
                          progress: bool = True) -> tuple[np.ndarray, list[int], list[dict]]:
    """Scores (shares, agents) on the test split of networks trained on a ``share`` of the whole problem set
    (drawn from the training split; 0 = untrained), the number of training problems per share, and the
    cohorts' records."""
    problems = sets.get(task)
    counts = [round(check_float("share", s, 0, 1) * problems.size) for s in shares]
    rows, records = [], []
    for count in counts:
        recipe = Recipe(task, topology, epochs if count else 0, learning_rate, batch_size, train_problems=count)
        record = run_cohort(recipe, [0] * agents, agent_seeds(seed, agents, offset=70), sets, (task,),
                            cache_root=cache_root, progress=progress)
        rows.append(record["scores"][task])
        records.append(record)
    return np.asarray(rows), counts, records


def random_share_scores(task: str, shares: Sequence[float], agents: int, sets: Sets, seed: int = 0) -> np.ndarray:
    """Scores (shares, agents) of random-guess agents on ``task``'s test split, fresh ones per share: the
    training-share figures' negative control (a subject that learns nothing from any share)."""
    problems = sets.get(task)
    return np.asarray([training.random_rpm_scores(RPM_TESTS[task], problems.y[problems.test], agents,
                                                  task_seed("combined-share-control", seed, task, float(share)))
                       for share in shares])


# ----------------------------------------------------------------------------- profiles and run time

EPOCH_PARAMETER = {"3-RPM": "rpm_epochs", "6-RPM": "rpm_epochs", CARTPOLE: "cartpole_episodes",
                   "Mixed": "mixed_epochs"}


def training_profiles() -> dict:
    """The figures' shared settings per profile (notebooks/combined/_training.yaml, full and smoke over
    quick), so a page can state what the full profile runs beside what this build ran."""
    import yaml

    from intellimetry import paths

    profiles = yaml.safe_load(paths.project_file("notebooks/combined/_training.yaml").read_text())["profiles"]
    return {name: {**profiles["quick"], **(values or {})} for name, values in profiles.items()}


def scaled_cpu_seconds(records, agents_parameter: str, ran: dict, target: dict) -> float:
    """An estimate of the CPU seconds the cohorts in ``records`` would take with the settings ``target``
    instead of ``ran``: each cohort's measured CPU time scaled linearly by the ratio of agents, of epochs
    and, for an RPM specialist, of training problems. Agents trained side by side share overhead, so for
    CartPole this tends to overestimate."""
    total = 0.0
    for record in records:
        task = record["recipe"]["task"]
        factor = target[agents_parameter] / ran[agents_parameter]
        if record["recipe"]["epochs"]:
            factor *= target[EPOCH_PARAMETER[task]] / ran[EPOCH_PARAMETER[task]]
        if task in RPM_TESTS:
            size = "size_3rpm" if task == "3-RPM" else "size_6rpm"
            factor *= target[size] / ran[size]
        total += record.get("cpu_seconds", record["seconds"]) * factor
    return total
