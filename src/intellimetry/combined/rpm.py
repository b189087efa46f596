"""A generator of Raven's-progressive-matrix problems in the paper's machine-readable form (its Section 4).

An N-RPM problem is a 3 x 3 grid of cells; every cell holds N characteristics (colour, size, shape, ...),
each taking one of N values 0 ... N-1. The eight cells other than the bottom-right one are shown (8 N
inputs: 24 for 3-RPM, 48 for 6-RPM) and the agent generates the missing cell (N outputs).

**The paper's rule** (``rule="progression"``): every characteristic changes along the rows or along the
columns, never both; it "starts at some random value and is then randomly changed to an unused value as
the row or column changes". The sentence admits several readings (``progression``; the reasons for the
book's choice are in data/reference/combined/rpm-readings.yaml). Along its direction every line (a row,
or a column) holds three distinct values:

* ``shared`` (the book's reading): one random order of distinct values per characteristic, the same in
  every line, so the characteristic is constant across the other direction. 12 grids per characteristic
  for N = 3 (1,728 3-RPM problems, the paper's "1500 possible"). Answer: v(0,2) + v(2,0) - v(0,0).
* ``cyclic``: x, x + s, x + 2s modulo N, the step s shared by the three lines, each line its own start;
  s and 2s not multiples of N (s in {1, 2} for N = 3, {1, 2, 4, 5} for N = 6). Answer: v(0,2) + v(2,0) -
  v(0,0) modulo N, so the agent must learn modular arithmetic.
* ``bounded``: as cyclic without wrapping (x + 2s within 0 ... N-1, s in ±1 ... ±(N-1)/2). Answer:
  v(0,2) + v(2,0) - v(0,0). For N = 3 only 0, 1, 2 and 2, 1, 0 remain (64 distinct 3-RPM problems).
* ``independent``: every line its own random order of distinct values. For N = 3 the answer is the value
  its line has not used; for N > 3 any of the N - 2 unused values fits, so the answer is not determined.

Under shared, cyclic and bounded a problem has exactly one answer (the tests check it by brute force).

**Beyond the paper** (an option, not used by the paper's figures): the rule types of the RAVEN family of
generators, applied per characteristic along rows or columns: ``constant`` (every line constant),
``progression`` (as above), ``arithmetic`` (third = first ± second, same sign in every line; modulo N
only under cyclic) and ``distribute-three`` (three distinct values, each line a rotation of the first by
one more place). A problem whose shown cells fit more than one answer under its own rule types is drawn
again, so difficulty can be graded by the mix of rule types.
"""
from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass

import numpy as np

from intellimetry.checks import check_choice, check_float, check_int

# the readings of the paper's rule (appended, so that a set's seed stream stays that of its index)
PROGRESSIONS = ("cyclic", "bounded", "shared", "independent")
BOOK_READING = "shared"  # data/reference/combined/rpm-readings.yaml
RULES = ("progression", "constant", "arithmetic", "distribute-three")
DIRECTIONS = ("rows", "columns")
# The paper's problem sets: 3-RPM "200 tests out of 1500", 6-RPM "90 % ... 9000 tests" and "1400 tests" = 14 %.
PAPER_SET_SIZES = {3: 1500, 6: 10000}
TEST_FRACTION = 0.1  # the paper's 90 / 10 split
MAX_DRAWS_PER_PROBLEM = 200  # draws of a unique-answer problem (x 10: repeated draws before a set is too big)


@dataclass(frozen=True)
class Rule:
    """How one characteristic varies: rule type, direction (the lines are rows or columns), and its
    parameter (the step of a progression, the sign of an arithmetic rule, the rotation of distribute-three)."""

    kind: str
    direction: str
    parameter: int = 0


@dataclass(frozen=True, eq=False)
class Problem:
    """One N-RPM problem: ``grid[row, column, characteristic]`` (3 x 3 x N ints) and the rule of each characteristic."""

    grid: np.ndarray
    rules: tuple[Rule, ...]
    progression: str

    @property
    def n(self) -> int:
        return int(self.grid.shape[2])

    @property
    def shown(self) -> np.ndarray:
        """The eight shown cells in reading order, (8, N)."""
        return self.grid.reshape(9, self.n)[:8]

    @property
    def answer(self) -> np.ndarray:
        return self.grid[2, 2].copy()

    def inputs(self) -> np.ndarray:
        """The agent's input vector: the shown cells' values in reading order, 8 N floats."""
        return self.shown.reshape(-1).astype(np.float32)


def cyclic_steps(n: int) -> list[int]:
    """Steps s of a cyclic progression over n values: x, x + s, x + 2s (mod n) all distinct."""
    return [s for s in range(1, n) if (2 * s) % n != 0]


def bounded_steps(n: int) -> list[int]:
    """Steps s of a bounded progression over n values: x, x + s, x + 2s inside 0 ... n-1 for some x."""
    half = (n - 1) // 2
    return [s for s in range(-half, half + 1) if s != 0]


def _check_setup(n, progression, rules) -> tuple[int, str, tuple[str, ...]]:
    n = check_int("n (characteristics and values)", n, 3, 12)
    check_choice("progression", progression, PROGRESSIONS)
    rules = tuple(rules)
    if not rules:
        raise ValueError(f"rules must name at least one rule type; allowed: {', '.join(RULES)}")
    for rule in rules:
        check_choice("rule", rule, RULES)
    if progression == "independent" and n > 3 and rules != ("progression",):
        raise ValueError("the independent reading has no unique answer for n > 3, so it cannot be mixed with "
                         "rules that need one; use rules=('progression',)")
    return n, progression, rules


# ----------------------------------------------------------------------------- drawing one line set

def _progression_line_sets(n, progression, count, rng) -> tuple[np.ndarray, np.ndarray]:
    """``count`` characteristics' lines under a reading of the paper's rule, (count, 3 lines, 3 values), and
    each one's step (0 where the reading has none), drawn together."""
    if progression in ("shared", "independent"):
        # a random start, then random unused values: the first three of a random order of the n values
        lines = 1 if progression == "shared" else 3
        orders = np.argsort(rng.random((count, lines, n)), axis=2)[..., :3]
        return np.broadcast_to(orders, (count, 3, 3)).copy(), np.zeros(count, dtype=np.int64)
    steps = np.array(cyclic_steps(n) if progression == "cyclic" else bounded_steps(n))
    step = steps[rng.integers(len(steps), size=count)]
    if progression == "cyclic":
        starts = rng.integers(0, n, size=(count, 3))
        return (starts[..., None] + step[:, None, None] * np.arange(3)) % n, step
    low, high = np.maximum(0, -2 * step), np.minimum(n - 1, n - 1 - 2 * step)
    starts = rng.integers(low[:, None], high[:, None] + 1, size=(count, 3))
    return starts[..., None] + step[:, None, None] * np.arange(3), step


def _progression_lines(n, progression, rng) -> tuple[np.ndarray, int]:
    lines, step = _progression_line_sets(n, progression, 1, rng)
    return lines[0], int(step[0])


def _arithmetic_lines(n, progression, rng) -> tuple[np.ndarray, int]:
    sign = int(rng.choice([1, -1]))
    lines = []
    while len(lines) < 3:
        a, b = rng.integers(0, n, size=2)
        c = a + sign * b
        if progression == "cyclic":
            lines.append((a, b, c % n))
        elif 0 <= c < n:
            lines.append((a, b, c))
    return np.array(lines), sign


def _distribute_three_lines(n, rng) -> tuple[np.ndarray, int]:
    values = rng.choice(n, size=3, replace=False)
    shift = int(rng.choice([1, 2]))
    return np.array([np.roll(values, -shift * line) for line in range(3)]), shift


def _lines(kind, n, progression, rng) -> tuple[np.ndarray, int]:
    """Three lines of three values for one characteristic (rows of the result = the lines)."""
    if kind == "progression":
        return _progression_lines(n, progression, rng)
    if kind == "constant":
        return np.repeat(rng.integers(0, n, size=3)[:, None], 3, axis=1), 0
    if kind == "arithmetic":
        return _arithmetic_lines(n, progression, rng)
    return _distribute_three_lines(n, rng)


# ----------------------------------------------------------------------------- checking a rule

def _line_values(values: np.ndarray, direction: str) -> np.ndarray:
    """A characteristic's 3 x 3 values arranged as its lines (rows of the result)."""
    return values if direction == "rows" else values.T


def fits_rule(values, kind: str, direction: str, n: int, progression: str) -> bool:
    """Does the complete 3 x 3 grid ``values`` of one characteristic follow rule ``kind`` along ``direction``
    (for some choice of the rule's parameter) in this progression variant?"""
    lines = _line_values(np.asarray(values, dtype=np.int64), direction)
    if lines.min() < 0 or lines.max() >= n:
        return False
    if kind == "constant":
        return bool((lines == lines[:, :1]).all())
    if kind == "progression":
        distinct = all(len(set(line.tolist())) == 3 for line in lines)
        if progression in ("shared", "independent"):
            return distinct and (progression == "independent" or bool((lines == lines[0]).all()))
        diffs = np.diff(lines, axis=1)
        if progression == "cyclic":
            diffs %= n
            steps = cyclic_steps(n)
        else:
            steps = bounded_steps(n)
        return bool((diffs == diffs[0, 0]).all() and int(diffs[0, 0]) in steps)
    if kind == "arithmetic":
        for sign in (1, -1):
            third = lines[:, 0] + sign * lines[:, 1]
            if progression == "cyclic":
                third %= n
            if (third == lines[:, 2]).all():
                return True
        return False
    if len(set(lines[0].tolist())) != 3:
        return False
    return any(all((lines[line] == np.roll(lines[0], -shift * line)).all() for line in range(3))
               for shift in (1, 2))


def _allowed_lines(n: int, progression: str) -> list[list[tuple[int, ...]]]:
    """Groups of lines one characteristic may use together (three lines from the same group make a grid)."""
    if progression in ("shared", "independent"):
        orders = [tuple(int(v) for v in order) for order in itertools.permutations(range(n), 3)]
        return [[order] for order in orders] if progression == "shared" else [orders]
    if progression == "cyclic":
        return [[tuple((x + k * s) % n for k in range(3)) for x in range(n)] for s in cyclic_steps(n)]
    return [[(x, x + s, x + 2 * s) for x in range(n) if 0 <= x + 2 * s < n] for s in bounded_steps(n)]


def characteristic_grids(n: int, progression: str) -> int:
    """How many distinct 3 x 3 grids one characteristic can take under a reading (rows or columns), by
    enumeration; a whole N-RPM problem has this to the power N. Cheap for small n; for "independent" it
    enumerates P(n, 3)^3 grids."""
    n = check_int("n", n, 3, 12)
    check_choice("progression", progression, PROGRESSIONS)
    grids = set()
    for group in _allowed_lines(n, progression):
        for lines in itertools.product(group, repeat=3):
            grid = np.array(lines)
            grids.add(grid.tobytes())
            grids.add(np.ascontiguousarray(grid.T).tobytes())
    return len(grids)


def consistent_answers(problem: Problem, rules: tuple[str, ...] | None = None) -> list[set[int]]:
    """Per characteristic, every value of the missing cell with which the grid follows one of ``rules``
    (default: the problem's own rule type of that characteristic) along rows or columns."""
    found = []
    for k, rule in enumerate(problem.rules):
        kinds = rules if rules is not None else (rule.kind,)
        candidates = set()
        for value in range(problem.n):
            values = problem.grid[:, :, k].copy()
            values[2, 2] = value
            if any(fits_rule(values, kind, direction, problem.n, problem.progression)
                   for kind in kinds for direction in DIRECTIONS):
                candidates.add(value)
        found.append(candidates)
    return found


# ----------------------------------------------------------------------------- problems and sets

def draw_problem(n: int, rng: np.random.Generator, progression: str = BOOK_READING,
                 rules=("progression",)) -> Problem:
    """One N-RPM problem: each characteristic draws a rule type from ``rules``, a direction, and its lines.
    The paper's rule alone has exactly one answer (but under the independent reading with N > 3); with
    other rule types, a draw whose shown cells admit a second answer is repeated."""
    n, progression, rules = _check_setup(n, progression, rules)
    if rules == ("progression",):
        return _draw_progressions(n, progression, rng)
    for _ in range(MAX_DRAWS_PER_PROBLEM):
        grid = np.zeros((3, 3, n), dtype=np.int64)
        chosen = []
        for k in range(n):
            kind = rules[int(rng.integers(len(rules)))]
            direction = DIRECTIONS[int(rng.integers(2))]
            lines, parameter = _lines(kind, n, progression, rng)
            grid[:, :, k] = lines if direction == "rows" else lines.T
            chosen.append(Rule(kind, direction, parameter))
        problem = Problem(grid, tuple(chosen), progression)
        if all(len(c) == 1 for c in consistent_answers(problem)):
            return problem
    raise RuntimeError(f"no {n}-RPM problem with a unique answer in {MAX_DRAWS_PER_PROBLEM} draws (rules {rules})")


def _draw_progressions(n: int, progression: str, rng: np.random.Generator) -> Problem:
    """A problem of the paper's rule alone, every characteristic drawn at once. It has one answer under
    shared, cyclic and bounded (module docstring; the tests check it by brute force); under independent
    with N > 3 the reading itself leaves N - 2 answers open."""
    rows = rng.integers(2, size=n) == 0
    lines, steps = _progression_line_sets(n, progression, n, rng)
    grids = np.where(rows[:, None, None], lines, lines.transpose(0, 2, 1))  # (characteristic, row, column)
    rules = tuple(Rule("progression", DIRECTIONS[0] if row else DIRECTIONS[1], int(step))
                  for row, step in zip(rows, steps))
    return Problem(np.ascontiguousarray(grids.transpose(1, 2, 0)).astype(np.int64), rules, progression)


@dataclass(frozen=True, eq=False)
class ProblemSet:
    """A fixed set of distinct N-RPM problems and its train / test split (indices into the set)."""

    n: int
    progression: str
    rules: tuple[str, ...]
    seed: int
    x: np.ndarray  # (size, 8 N) float32 inputs
    y: np.ndarray  # (size, N) int64 answers
    train: np.ndarray  # indices
    test: np.ndarray

    @property
    def size(self) -> int:
        return len(self.y)

    def fingerprint(self) -> str:
        digest = hashlib.sha256()
        for array in (self.x, self.y, self.train, self.test):
            digest.update(np.ascontiguousarray(array).tobytes())
        return digest.hexdigest()

    def describe(self) -> dict:
        return {"n": self.n, "progression": self.progression, "rules": list(self.rules), "seed": self.seed,
                "size": self.size, "train": len(self.train), "test": len(self.test)}


def problem_set(n: int, size: int | None = None, seed: int = 0, progression: str = BOOK_READING,
                rules=("progression",), test_fraction: float = TEST_FRACTION) -> ProblemSet:
    """``size`` distinct problems (default: the paper's 1,500 for 3-RPM, 10,000 for 6-RPM), split at random
    into ``1 - test_fraction`` for training and ``test_fraction`` for testing (the paper's 90 / 10)."""
    n, progression, rules = _check_setup(n, progression, rules)
    size = PAPER_SET_SIZES.get(n, 1500) if size is None else check_int("size", size, 2)
    seed = check_int("seed", seed, 0)
    test_fraction = check_float("test_fraction", test_fraction, 0.0, 1.0, low_open=True, high_open=True)
    rng = np.random.default_rng([seed, n, PROGRESSIONS.index(progression)])
    seen, problems, misses = set(), [], 0
    # Drawing a set as large as a reading's whole space (bounded 3-RPM, or shared 3-RPM at the full profile's
    # 1,728) takes about `size` draws per problem at the end: stop only after 20 x size repeats in a row,
    # a chance below e^-20 of giving up with one problem still to find.
    while len(problems) < size and misses < max(MAX_DRAWS_PER_PROBLEM * 10, 20 * size):
        problem = draw_problem(n, rng, progression, rules)
        key = problem.grid.tobytes()
        misses = misses + 1 if key in seen else 0
        if key not in seen:
            seen.add(key)
            problems.append(problem)
    if len(problems) < size:
        raise ValueError(f"size {size} is more than the distinct {n}-RPM problems found ({len(problems)}) with "
                         f"progression {progression!r} and rules {list(rules)}; ask for fewer")
    order = rng.permutation(size)
    n_test = max(1, round(test_fraction * size))
    return ProblemSet(n, progression, rules, seed, np.stack([p.inputs() for p in problems]),
                      np.stack([p.answer for p in problems]), np.sort(order[n_test:]), np.sort(order[:n_test]))


def grid_of(problem_set: ProblemSet, index: int) -> np.ndarray:
    """The full 3 x 3 x N grid of problem ``index`` of a set (shown cells and answer)."""
    n = problem_set.n
    cells = np.concatenate([problem_set.x[index].reshape(8, n).astype(np.int64), problem_set.y[index][None]])
    return cells.reshape(3, 3, n)


def score_answers(predicted, answers) -> np.ndarray:
    """The paper's score per problem: the share of characteristics answered correctly (0 ... 1).

    ``predicted`` are the agent's raw outputs (..., N): rounded to the nearest value (the agent generates
    the answer, it does not choose among candidates)."""
    predicted, answers = np.asarray(predicted, dtype=float), np.asarray(answers)
    if predicted.shape != answers.shape:
        raise ValueError(f"predicted answers {predicted.shape} must have the answers' shape {answers.shape}")
    return (np.rint(predicted) == answers).mean(axis=-1)
