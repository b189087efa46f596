"""Arithmetic word problems for the mathematics tasks (GSM8K-, CMath- and MATH-like): ten templates,
each drawing its numbers from a seeded generator and stating the same problem in English and in
Chinese, with its solution as exact arithmetic steps (:func:`worked_solution` writes them out)."""
from __future__ import annotations

import random
from dataclasses import dataclass

NAMES = ("Mia", "Tom", "Ana", "Leo", "Sara", "Ben", "Lily", "Omar", "Nina", "Raj")
CHINESE_NAMES = ("小明", "小红", "小华", "小丽", "小刚", "小芳", "小军", "小雪")
ARITHMETIC = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "×": lambda a, b: a * b,
              "÷": lambda a, b: a // b}


@dataclass(frozen=True)
class WordProblem:
    """The same problem in English and Chinese, with its solution as (a, operator, b, result) steps."""
    template: str
    english: str
    chinese: str
    steps: tuple[tuple[int, str, int, int], ...]

    @property
    def answer(self) -> int:
        return self.steps[-1][3]


def _steps(*operations: tuple[int | None, str, int]) -> tuple[tuple[int, str, int, int], ...]:
    """Chain operations; a None left operand means the previous step's result."""
    steps, previous = [], None
    for left, operator, right in operations:
        left = previous if left is None else left
        if operator == "÷" and left % right:
            raise ValueError(f"{left} ÷ {right} is not exact")
        previous = ARITHMETIC[operator](left, right)
        steps.append((left, operator, right, previous))
    return tuple(steps)


def _pencils(r: random.Random, name: str, zh: str) -> WordProblem:
    packs, each = r.randint(3, 12), r.randint(4, 12)
    given = r.randint(1, packs * each - 1)
    return WordProblem(
        "pencils",
        f"{name} buys {packs} packs of pencils with {each} pencils in each pack and gives away {given} pencils. "
        "How many pencils are left?",
        f"{zh}买了{packs}盒铅笔，每盒{each}支，送给同学{given}支。{zh}还剩多少支铅笔？",
        _steps((packs, "×", each), (None, "-", given)))


def _cookies(r: random.Random, name: str, zh: str) -> WordProblem:
    trays, each = r.randint(2, 9), r.randint(6, 15)
    morning = r.randint(1, trays * each - 2)
    afternoon = r.randint(1, trays * each - morning - 1)
    return WordProblem(
        "cookies",
        f"A baker makes {trays} trays of cookies with {each} cookies on each tray. She sells {morning} cookies "
        f"in the morning and {afternoon} in the afternoon. How many cookies are left?",
        f"面包店烤了{trays}盘饼干，每盘{each}块。上午卖出{morning}块，下午卖出{afternoon}块。还剩多少块饼干？",
        _steps((trays, "×", each), (None, "-", morning), (None, "-", afternoon)))


def _books(r: random.Random, name: str, zh: str) -> WordProblem:
    books, price, pen = r.randint(2, 6), r.randint(3, 15), r.randint(1, 9)
    money = books * price + pen + r.randint(1, 40)
    return WordProblem(
        "books",
        f"{name} has {money} dollars and buys {books} books at {price} dollars each and a pen for {pen} dollars. "
        "How many dollars are left?",
        f"{zh}有{money}元，买了{books}本书，每本{price}元，又买了一支{pen}元的钢笔。{zh}还剩多少元？",
        _steps((books, "×", price), (None, "+", pen), (money, "-", books * price + pen)))


def _groups(r: random.Random, name: str, zh: str) -> WordProblem:
    size, count, apples = r.randint(2, 8), r.randint(3, 12), r.randint(2, 9)
    return WordProblem(
        "groups",
        f"{size * count} students are split into groups of {size}. Each group gets {apples} apples. "
        "How many apples are needed in total?",
        f"{size * count}名学生每{size}人一组，每组发{apples}个苹果。一共需要多少个苹果？",
        _steps((size * count, "÷", size), (None, "×", apples)))


def _reading(r: random.Random, name: str, zh: str) -> WordProblem:
    weekday, weekend, weeks = r.randint(2, 15), r.randint(5, 30), r.randint(2, 4)
    return WordProblem(
        "reading",
        f"{name} reads {weekday} pages on each of the 5 weekdays and {weekend} pages on each of the 2 weekend "
        f"days. How many pages does {name} read in {weeks} weeks?",
        f"{zh}每周5个工作日每天读{weekday}页书，2个周末日每天读{weekend}页。{zh}{weeks}周一共读多少页？",
        _steps((weekday, "×", 5), (weekend, "×", 2), (weekday * 5, "+", weekend * 2),
               (weekday * 5 + weekend * 2, "×", weeks)))


def _garden(r: random.Random, name: str, zh: str) -> WordProblem:
    rows, each, roses = r.randint(3, 12), r.randint(4, 15), r.randint(5, 40)
    return WordProblem(
        "garden",
        f"A garden has {rows} rows of tulips with {each} tulips in each row, and {roses} roses. "
        "How many flowers are in the garden?",
        f"花园里有{rows}行郁金香，每行{each}朵，还有{roses}朵玫瑰。花园里一共有多少朵花？",
        _steps((rows, "×", each), (None, "+", roses)))


def _sharing(r: random.Random, name: str, zh: str) -> WordProblem:
    people, each = r.randint(2, 8), r.randint(3, 12)
    first = r.randint(1, people * each - 1)
    other, other_zh = NAMES[(NAMES.index(name) + 1) % len(NAMES)], \
        CHINESE_NAMES[(CHINESE_NAMES.index(zh) + 1) % len(CHINESE_NAMES)]
    return WordProblem(
        "sharing",
        f"{name} picks {first} apples and {other} picks {people * each - first} apples. They share all the "
        f"apples equally among {people} people. How many apples does each person get?",
        f"{zh}摘了{first}个苹果，{other_zh}摘了{people * each - first}个苹果。他们把苹果平均分给{people}个人，"
        "每人分到多少个？",
        _steps((first, "+", people * each - first), (None, "÷", people)))


def _bus(r: random.Random, name: str, zh: str) -> WordProblem:
    start = r.randint(10, 40)
    off, on = r.randint(1, start - 1), r.randint(1, 20)
    second = r.randint(1, start - off + on - 1)
    return WordProblem(
        "bus",
        f"A bus leaves with {start} passengers. At the first stop {off} get off and {on} get on. "
        f"At the second stop {second} get off. How many passengers are on the bus now?",
        f"一辆公交车上有{start}名乘客。第一站下车{off}人，上车{on}人。第二站下车{second}人。车上现在有多少名乘客？",
        _steps((start, "-", off), (None, "+", on), (None, "-", second)))


def _savings(r: random.Random, name: str, zh: str) -> WordProblem:
    weekly, weeks = r.randint(3, 20), r.randint(3, 10)
    weekly += (weekly * weeks) % 2  # an even total, so that half of it is a whole number
    return WordProblem(
        "savings",
        f"{name} saves {weekly} dollars every week for {weeks} weeks and then spends half of the savings. "
        f"How many dollars does {name} have left?",
        f"{zh}每周存{weekly}元，存了{weeks}周，然后花掉了一半。{zh}还剩多少元？",
        _steps((weekly, "×", weeks), (None, "÷", 2)))


def _stationery(r: random.Random, name: str, zh: str) -> WordProblem:
    notebook, pen, notebooks, pens = r.randint(2, 9), r.randint(1, 5), r.randint(2, 8), r.randint(2, 8)
    return WordProblem(
        "stationery",
        f"A notebook costs {notebook} dollars and a pen costs {pen} dollars. "
        f"How many dollars do {notebooks} notebooks and {pens} pens cost?",
        f"一本笔记本{notebook}元，一支笔{pen}元。买{notebooks}本笔记本和{pens}支笔一共要多少元？",
        _steps((notebook, "×", notebooks), (pen, "×", pens), (notebook * notebooks, "+", pen * pens)))


WORD_PROBLEMS = (_pencils, _cookies, _books, _groups, _reading, _garden, _sharing, _bus, _savings, _stationery)


def random_word_problem(rng: random.Random) -> WordProblem:
    template = rng.choice(WORD_PROBLEMS)
    return template(rng, rng.choice(NAMES), rng.choice(CHINESE_NAMES))


def worked_solution(problem: WordProblem) -> str:
    """One line per step, then the answer: "12 × 4 = 48\\n48 + 7 = 55\\nThe answer is 55."."""
    lines = [f"{a} {operator} {b} = {result}" for a, operator, b, result in problem.steps]
    return "\n".join([*lines, f"The answer is {problem.answer}."])
