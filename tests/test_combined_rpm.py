"""The RPM generator: every problem has exactly one answer under its rules (checked against a brute-force
enumeration of every grid each rule allows), and the cyclic and bounded progressions differ as specified."""
from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pytest

from intellimetry.combined import rpm


def _grid_lines(lines: list[tuple[int, int, int]]) -> set[tuple]:
    """Every 3 x 3 grid whose three lines (rows) come from ``lines``, as rows and transposed as columns."""
    grids = set()
    for chosen in itertools.product(lines, repeat=3):
        grid = np.array(chosen)
        grids.add(tuple(grid.ravel()))
        grids.add(tuple(grid.T.ravel()))
    return grids


@lru_cache(maxsize=None)
def allowed_grids(kind: str, n: int, progression: str) -> frozenset:
    """Brute force, independent of the generator: every grid of one characteristic that ``kind`` allows."""
    wrap = progression == "cyclic"
    grids: set[tuple] = set()
    orders = list(itertools.permutations(range(n), 3))
    if kind == "progression" and progression == "shared":  # one order of distinct values, in every line
        for order in orders:
            grid = np.array([order] * 3)
            grids |= {tuple(grid.ravel()), tuple(grid.T.ravel())}
    elif kind == "progression" and progression == "independent":  # each line its own order
        grids |= _grid_lines(orders)
    elif kind == "progression":
        for step in range(-(n - 1), n):
            lines = [(x, x + step, x + 2 * step) for x in range(n)]
            if wrap:
                lines = [tuple(v % n for v in line) for line in lines]
            lines = [line for line in lines if len(set(line)) == 3 and all(0 <= v < n for v in line)]
            grids |= _grid_lines(lines)
    elif kind == "constant":
        grids |= _grid_lines([(x, x, x) for x in range(n)])
    elif kind == "arithmetic":
        for sign in (1, -1):
            lines = [(a, b, (a + sign * b) % n if wrap else a + sign * b) for a in range(n) for b in range(n)]
            grids |= _grid_lines([line for line in lines if 0 <= line[2] < n])
    else:
        for triple in itertools.permutations(range(n), 3):
            for shift in (1, 2):
                grid = np.array([np.roll(triple, -shift * line) for line in range(3)])
                grids |= {tuple(grid.ravel()), tuple(grid.T.ravel())}
    return frozenset(grids)


def answers_by_brute_force(grid: np.ndarray, kinds: list[str], progression: str) -> list[set[int]]:
    n = grid.shape[2]
    found = []
    for k, kind in enumerate(kinds):
        values = grid[:, :, k].copy()
        candidates = set()
        for value in range(n):
            values[2, 2] = value
            if tuple(values.ravel()) in allowed_grids(kind, n, progression):
                candidates.add(value)
        found.append(candidates)
    return found


@pytest.mark.parametrize("n, progression, size", [(3, "cyclic", 1500), (6, "cyclic", 300), (6, "bounded", 300),
                                                   (3, "shared", 1500), (6, "shared", 300), (3, "independent", 300)])
def test_every_problem_of_a_set_has_exactly_one_answer_consistent_with_its_rule(n, progression, size):
    problems = rpm.problem_set(n, size, seed=1, progression=progression)
    assert len({row.tobytes() for row in problems.x}) == size  # distinct problems
    for index in range(size):
        grid = rpm.grid_of(problems, index)
        found = answers_by_brute_force(grid, ["progression"] * n, progression)
        assert found == [{int(v)} for v in problems.y[index]], (index, grid[:, :, 0])


@pytest.mark.parametrize("n, progression", [(3, "cyclic"), (3, "bounded"), (6, "cyclic"), (6, "bounded")])
def test_raven_rule_problems_have_exactly_one_answer_under_their_own_rules(n, progression):
    rng = np.random.default_rng(7)
    for _ in range(150):
        problem = rpm.draw_problem(n, rng, progression, rules=rpm.RULES)
        kinds = [rule.kind for rule in problem.rules]
        assert answers_by_brute_force(problem.grid, kinds, progression) == [{int(v)} for v in problem.answer]
        assert rpm.consistent_answers(problem) == [{int(v)} for v in problem.answer]


def test_a_hand_checked_problem_and_an_ambiguous_one():
    # colour and size progress down the columns, shape along the rows (cyclic, N = 3): answer [2, 2, 0]
    grid = np.array([[[1, 2, 2], [1, 2, 0], [0, 1, 1]],
                     [[2, 1, 0], [2, 1, 1], [1, 0, 2]],
                     [[0, 0, 1], [0, 0, 2], [2, 2, 0]]])
    rules = tuple(rpm.Rule("progression", d, 1) for d in ("columns", "columns", "rows"))
    assert rpm.consistent_answers(rpm.Problem(grid, rules, "cyclic")) == [{2}, {2}, {0}]
    # characteristic 0 follows an arithmetic rule whose shown rows have second value 0 (third = first + 0 =
    # first - 0), so the sign decides the answer; characteristics 1 and 2 are constant along the rows
    first = np.array([[2, 0, 2], [1, 0, 1], [0, 1, 1]])
    constant = np.repeat(np.arange(3)[:, None], 3, axis=1)
    ambiguous = np.stack([first, constant, constant], axis=2)
    rules = (rpm.Rule("arithmetic", "rows", 1), rpm.Rule("constant", "rows"), rpm.Rule("constant", "rows"))
    # bounded: 0 - 1 is out of range, so only 0 + 1 = 1 remains; cyclic: 0 - 1 = 2 (mod 3) fits as well,
    # a problem the generator must never emit
    assert rpm.consistent_answers(rpm.Problem(ambiguous, rules, "bounded")) == [{1}, {2}, {2}]
    assert rpm.consistent_answers(rpm.Problem(ambiguous, rules, "cyclic")) == [{1, 2}, {2}, {2}]


def _lines(problem: rpm.Problem, k: int) -> np.ndarray:
    values = problem.grid[:, :, k]
    return values if problem.rules[k].direction == "rows" else values.T


def test_cyclic_progressions_wrap_modulo_n_and_bounded_ones_never_do():
    rng = np.random.default_rng(3)
    wrapped = 0
    for _ in range(300):
        cyclic, bounded = rpm.draw_problem(6, rng, "cyclic"), rpm.draw_problem(6, rng, "bounded")
        for k in range(6):
            steps = np.diff(_lines(cyclic, k), axis=1) % 6
            assert (steps == steps[0, 0]).all() and steps[0, 0] in (1, 2, 4, 5)
            raw = np.diff(_lines(cyclic, k), axis=1)
            wrapped += not (raw == raw[0, 0]).all()
            exact = np.diff(_lines(bounded, k), axis=1)
            assert (exact == exact[0, 0]).all() and exact[0, 0] in (-2, -1, 1, 2)
        shown = cyclic.grid
        assert (cyclic.answer == (shown[0, 2] + shown[2, 0] - shown[0, 0]) % 6).all()
        assert (bounded.answer == bounded.grid[0, 2] + bounded.grid[2, 0] - bounded.grid[0, 0]).all()
    assert wrapped > 100  # cyclic lines wrap around often


def test_bounded_3rpm_has_only_64_distinct_problems():
    assert rpm.bounded_steps(3) == [-1, 1] and rpm.cyclic_steps(3) == [1, 2] and rpm.cyclic_steps(6) == [1, 2, 4, 5]
    assert rpm.problem_set(3, 64, progression="bounded").size == 64
    with pytest.raises(ValueError, match=r"distinct 3-RPM problems found \(64\)"):
        rpm.problem_set(3, 65, progression="bounded")


def test_sets_have_the_papers_sizes_and_split():
    problems = rpm.problem_set(3)
    assert (problems.size, len(problems.train), len(problems.test)) == (1500, 1350, 150)
    assert problems.x.shape == (1500, 24) and problems.y.shape == (1500, 3)
    assert not set(problems.train) & set(problems.test)
    assert rpm.PAPER_SET_SIZES[6] == 10000
    with pytest.raises(ValueError, match="unknown progression 'modular'; allowed: cyclic, bounded"):
        rpm.problem_set(3, progression="modular")


def test_the_shared_reading_keeps_one_order_of_unused_values_in_every_line():
    rng = np.random.default_rng(11)
    starts = []
    for _ in range(400):
        problem = rpm.draw_problem(6, rng, "shared")
        assert problem.inputs().shape == (48,) and problem.answer.shape == (6,)
        for k in range(6):
            lines = _lines(problem, k)
            assert len(set(lines[0].tolist())) == 3  # a start, then two values not used before
            assert (lines == lines[0]).all()  # the same order in every line: constant across the other way
            assert not (lines.T == lines.T[0]).all()
            starts.append(int(lines[0, 0]))
        # the missing value is what the other lines show in its place, also v(0,2) + v(2,0) - v(0,0)
        g = problem.grid
        assert (problem.answer == g[0, 2] + g[2, 0] - g[0, 0]).all()
    counts = np.bincount(starts, minlength=6)
    assert counts.min() > 0.8 * len(starts) / 6  # every value starts about equally often


def test_a_hand_checked_shared_problem():
    # colour along the rows (2, 0, 1 in every row), size and shape down the columns
    colour = np.array([[2, 0, 1]] * 3)
    size = np.array([[1, 1, 1], [0, 0, 0], [2, 2, 2]])
    shape = np.array([[2, 2, 2], [1, 1, 1], [0, 0, 0]])
    grid = np.stack([colour, size, shape], axis=2)
    rules = (rpm.Rule("progression", "rows"), rpm.Rule("progression", "columns"), rpm.Rule("progression", "columns"))
    problem = rpm.Problem(grid, rules, "shared")
    assert rpm.consistent_answers(problem) == [{1}, {2}, {0}]
    # for N = 3 every order of three values is a cyclic progression, so a shared grid is also cyclic (one
    # with equal starts); for N = 6 the order 0, 3, 1 is no progression, cyclic or bounded
    assert rpm.consistent_answers(rpm.Problem(grid, rules, "cyclic")) == [{1}, {2}, {0}]
    six = np.zeros((3, 3, 6), dtype=np.int64)
    six[:, :, 0] = [[0, 3, 1]] * 3
    six[:, :, 1:] = np.array([[0, 1, 2]] * 3)[:, :, None]
    rules = (rpm.Rule("progression", "rows"),) * 6
    for reading, first in (("shared", {1}), ("cyclic", set()), ("bounded", set())):
        assert rpm.consistent_answers(rpm.Problem(six, rules, reading))[0] == first


def test_the_independent_reading_leaves_n_minus_2_answers_open_for_6_rpm():
    rng = np.random.default_rng(5)
    for _ in range(100):
        problem = rpm.draw_problem(6, rng, "independent")
        for k in range(6):
            found = set()
            for value in range(6):  # by hand: every line of one direction holds three distinct values
                values = problem.grid[:, :, k].copy()
                values[2, 2] = value
                if any(all(len(set(line)) == 3 for line in lines.tolist()) for lines in (values, values.T)):
                    found.add(value)
            unused = set(range(6)) - set(_lines(problem, k)[2, :2].tolist())  # along its own direction
            assert int(problem.answer[k]) in found and unused <= found and len(unused) == 4


@pytest.mark.parametrize("n, progression", [(3, p) for p in rpm.PROGRESSIONS] + [(6, "shared"), (6, "bounded")])
def test_the_counts_of_grids_per_characteristic_match_brute_force(n, progression):
    assert rpm.characteristic_grids(n, progression) == len(allowed_grids("progression", n, progression))


def test_only_the_shared_reading_has_about_the_papers_1500_problems():
    counts = {p: rpm.characteristic_grids(3, p) ** 3 for p in rpm.PROGRESSIONS}
    assert counts == {"cyclic": 96 ** 3, "bounded": 64, "shared": 1728, "independent": 420 ** 3}
    assert rpm.characteristic_grids(6, "shared") == 2 * 6 * 5 * 4
    assert rpm.BOOK_READING == "shared"
    problems = rpm.problem_set(6, 200, progression="shared")
    assert problems.x.shape == (200, 48) and problems.y.shape == (200, 6)


def test_a_set_as_large_as_the_readings_whole_space_is_drawn_whole_and_one_more_is_refused():
    # shared 3-RPM has 12^3 = 1,728 distinct problems: the full profile's readings figure asks for all of them
    # (it stopped five short when repeats in a row were capped at 2,000)
    whole = rpm.characteristic_grids(3, "shared") ** 3
    assert whole == 1728
    problems = rpm.problem_set(3, size=whole, progression="shared")
    assert len({row.tobytes() for row in problems.x}) == whole
    bounded = rpm.characteristic_grids(3, "bounded") ** 3
    refused = f"size {bounded + 1} is more than the distinct 3-RPM problems found \\({bounded}\\)"
    with pytest.raises(ValueError, match=refused):
        rpm.problem_set(3, size=bounded + 1, progression="bounded")
