"""Verdict inputs live in the library: a value that a criterion reads is returned by a function in
src/intellimetry, where tests see it, never computed in a notebook cell (issue 32, rule 8).

The check follows each read key from the notebook's save_figure(..., values=...) back through the
notebook's assignments: a library call (its arguments are inputs, not statistics), a parameter or a
constant is fine; arithmetic, a comparison, a comprehension or a call of numpy, pandas or a builtin
that computes (sum, max, round ...) on the way is a statistic computed in the notebook.
"""
from __future__ import annotations

import ast

import jupytext
import pytest

from intellimetry import CHAPTERS, paths, verdicts
from intellimetry.pipeline.project import Project

# Calls that only change a value's type or container, or walk over it, not compute from it.
CONVERSIONS = {"dict", "list", "tuple", "float", "int", "bool", "str", "zip", "range", "enumerate", "len", "tqdm",
               "sorted", "reversed", "np.array", "np.asarray", "numpy.array", "numpy.asarray"}
# Methods that compute a statistic from the array or frame they are called on.
COMPUTING_METHODS = {"mean", "sum", "std", "var", "max", "min", "median", "argmax", "argmin", "prod", "cumsum",
                     "count", "round", "all", "any", "corr", "quantile", "nunique", "value_counts"}


class Notebook:
    """A notebook's code: what it imports from intellimetry and its assignments.

    A *data* name holds something a library call returned, or is computed from one; parameters and
    constants are not data, so arithmetic on parameters (a range, a count) is fine in a notebook.
    """

    def __init__(self, code: str):
        self.tree = ast.parse(code)
        self.library: set[str] = set()
        self.assigned: dict[str, list[ast.expr]] = {}
        self.loops: dict[str, ast.expr] = {}  # loop variable -> what it iterates over
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("intellimetry"):
                self.library |= {alias.asname or alias.name for alias in node.names}
            elif isinstance(node, ast.Import):
                self.library |= {a.asname or a.name for a in node.names if a.name.startswith("intellimetry")}
            elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and node.value is not None:
                for target in getattr(node, "targets", [getattr(node, "target", None)]):
                    for name in _names(target):
                        self.assigned.setdefault(name, []).append(
                            node.value if not isinstance(node, ast.AugAssign) else ast.BinOp(
                                left=ast.Name(id=name), op=node.op, right=node.value))
            elif isinstance(node, ast.For | ast.comprehension):
                for name in _names(node.target):
                    self.loops[name] = node.iter

    def values_expression(self) -> ast.expr | None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "save_figure":
                for keyword in node.keywords:
                    if keyword.arg == "values":
                        return keyword.value
                return node.args[2] if len(node.args) > 2 else None
        return None

    def is_library_call(self, call: ast.expr) -> bool:
        if not isinstance(call, ast.Call):
            return False
        root = call.func
        while isinstance(root, ast.Attribute | ast.Subscript | ast.Call):
            root = root.func if isinstance(root, ast.Call) else root.value
        return isinstance(root, ast.Name) and root.id in self.library

    def is_data(self, name: str, seen: frozenset = frozenset()) -> bool:
        if name in seen or name in self.library:
            return False
        if name in self.loops and self.touches_data(self.loops[name], seen | {name}):
            return True
        return any(self.is_library_call(source) or self.touches_data(source, seen | {name})
                   for source in self.assigned.get(name, []))

    def touches_data(self, expr: ast.expr, seen: frozenset = frozenset()) -> bool:
        return any(isinstance(n, ast.Name) and self.is_data(n.id, seen) for n in ast.walk(expr)) or any(
            self.is_library_call(n) for n in ast.walk(expr))

    def inline(self, expr: ast.expr, seen: frozenset = frozenset()) -> str | None:
        """Why `expr` computes a statistic in the notebook (a short description), or None if it does not."""
        if isinstance(expr, ast.Constant):
            return None
        if isinstance(expr, ast.Name):
            if expr.id in self.library or expr.id in seen:
                return None
            if expr.id in self.loops and self.touches_data(self.loops[expr.id]):
                return f"{expr.id}: a loop over data in the notebook"
            return next((f"{expr.id}: {why}" for source in self.assigned.get(expr.id, [])
                         if (why := self.inline(source, seen | {expr.id}))), None)
        if isinstance(expr, ast.Attribute | ast.Subscript | ast.Starred):
            return self.inline(expr.value, seen)
        if isinstance(expr, ast.Dict):
            return next((why for v in expr.values if (why := self.inline(v, seen))), None)
        if isinstance(expr, ast.List | ast.Tuple | ast.Set):
            return next((why for v in expr.elts if (why := self.inline(v, seen))), None)
        if isinstance(expr, ast.Call):
            return self._call(expr, seen)
        if isinstance(expr, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            return self._comprehension(expr, seen)
        if self.touches_data(expr):
            return f"{type(expr).__name__} at line {getattr(expr, 'lineno', '?')}"
        return None  # arithmetic on parameters and constants

    def _comprehension(self, comp, seen: frozenset) -> str | None:
        """Collecting library results one per key is fine; filtering or computing on data is not."""
        targets = frozenset(n for g in comp.generators for n in _names(g.target))
        for generator in comp.generators:
            if any(self.touches_data(condition) for condition in generator.ifs):
                return f"a filter on data at line {comp.lineno}"
            if why := self.inline(generator.iter, seen | targets):  # a later loop walks an earlier one's items
                return why
        parts = [comp.key, comp.value] if isinstance(comp, ast.DictComp) else [comp.elt]
        return next((f"{why} (in a comprehension)" for part in parts if (why := self.inline(part, seen | targets))),
                    None)

    def _arguments(self, call: ast.Call, seen: frozenset) -> str | None:
        args = [*call.args, *(k.value for k in call.keywords)]
        return next((why for a in args if (why := self.inline(a, seen))), None)

    def _call(self, call: ast.Call, seen: frozenset) -> str | None:
        """A library call may take statistics, but not ones the notebook computed; a conversion or a
        method passes its value on; anything else computes, which matters when it touches data."""
        func = call.func
        if self.is_library_call(call) or ast.unparse(func) in CONVERSIONS:
            return self._arguments(call, seen)
        if isinstance(func, ast.Attribute) and func.attr in COMPUTING_METHODS and self.touches_data(func.value):
            return f"{ast.unparse(func)}(...) at line {call.lineno}"
        root = func.value if isinstance(func, ast.Attribute) else None
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        if isinstance(root, ast.Name) and (root.id in self.assigned or root.id in seen):
            return self.inline(func.value, seen) or self._arguments(call, seen)  # a method of a value held here
        if self.touches_data(call):
            return f"{ast.unparse(func)}(...) at line {call.lineno}"
        return None

    def key_expression(self, values: ast.expr, key: str) -> list[ast.expr]:
        """The expressions that give the values' dotted `key`: its entry, followed down through dict
        literals the notebook wrote, or every ** spread it may come from."""
        head, _, rest = key.partition(".")
        sources = self.assigned.get(values.id, []) if isinstance(values, ast.Name) else []
        if sources and (not self.is_data(values.id) or any(isinstance(s, ast.Dict) for s in sources)):
            return [e for source in sources for e in self.key_expression(source, key)]  # a dict the notebook built
        if not isinstance(values, ast.Dict):
            return [values]
        for k, v in zip(values.keys, values.values):
            if isinstance(k, ast.Constant) and k.value == head:
                return self.key_expression(v, rest) if rest else [v]
        return [v for k, v in zip(values.keys, values.values) if k is None]


def _names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for elt in target.elts for n in _names(elt)]
    return []


def keys_read(item: dict) -> set[str]:
    """The dotted keys of the values that an item's criteria, measured conditions and control read."""
    criteria = [item["criterion"], item.get("qualitative"), *item.get("measured", [])]
    keys = {k for c in criteria if c for k in verdicts.keys_read(c)}
    if isinstance(item.get("control"), dict) and item["control"].get("values"):
        keys.add(str(item["control"]["values"]))
    return keys


def notebook_code(path) -> str:
    """The code cells of a text notebook, IPython magics left out."""
    cells = [c.source for c in jupytext.read(path).cells if c.cell_type == "code"]
    return "\n".join(line for cell in cells for line in cell.splitlines() if not line.lstrip().startswith(("%", "!")))


def _covered_items():
    for chapter in CHAPTERS:
        if not paths.reference_exists(f"{chapter}/{verdicts.ITEMS_FILE}"):
            continue
        for item in verdicts.load_items(chapter)["items"]:
            if item.get("figure"):
                yield pytest.param(item, id=f"{chapter}-{item['id']}")


@pytest.fixture(scope="module")
def figures():
    return Project.at().figures()  # the registry, read once for all items (about a second a read)


@pytest.mark.parametrize("item", list(_covered_items()))
def test_every_value_a_verdict_reads_comes_from_the_library(item, figures):
    figure = figures[item["figure"]]
    notebook = Notebook(notebook_code(figure.notebook))
    values = notebook.values_expression()
    assert values is not None, f"{item['figure']} passes no values= to save_figure"
    problems = [f"{key}: {why}" for key in sorted(keys_read(item))
                for expr in notebook.key_expression(values, key) if (why := notebook.inline(expr))]
    assert not problems, (f"{item['figure']} computes what item {item['id']} reads in the notebook, not in "
                          f"src/intellimetry: {problems}")


@pytest.mark.parametrize("code, inline", [
    ("from intellimetry.x import f\nr = f(1)\nvalues = {'a': r['m'], **f(2)}\nsave_figure(fig, 'i', values=values)",
     False),
    ("import numpy as np\nfrom intellimetry.x import f\nr = f(1)\nm = np.mean(r)\n"
     "save_figure(fig, 'i', values={'a': m})", True),
    ("from intellimetry.x import f\nr = f(1)\nsave_figure(fig, 'i', values={'a': [x * 2 for x in r]})", True),
    ("from intellimetry.x import f\nr = f(1)\nsave_figure(fig, 'i', values={'a': float(r.mean)})", False),
    ("from intellimetry.x import f\nr = f(1)\nsave_figure(fig, 'i', values={'a': r.total / 2})", True),
    ("from intellimetry.x import f\nr = f(1)\nsave_figure(fig, 'i', values={'a': r.volume(len(r))})", False),
    ("from intellimetry.x import f\nr = f(1)\nsave_figure(fig, 'i', values={'a': f(r, k=2 * 3)})", False),
    # a statistic computed here and handed to a library summary: still computed in the notebook
    ("import numpy as np\nfrom intellimetry.x import f, g\nr = f(1)\nm = np.mean([x.mean for x in r])\n"
     "save_figure(fig, 'i', values={'a': g(m)})", True),
    ("from intellimetry.x import f\nr = f(1)\nsave_figure(fig, 'i', values={'a': {k: f(r[k]) for k in r}})", False),
    ("import numpy as np\nfrom intellimetry.x import f\nr = f(1)\nm = np.array([r[k].mean() for k in range(len(r))])\n"
     "save_figure(fig, 'i', values={'a': m})", True),
    ("from intellimetry.x import f\nr = f(1)\nsave_figure(fig, 'i', values={'a': {k: v for k, v in r if v > 1}})",
     True),
    ("from intellimetry.x import f\nr = f(1)\nfor x in r:\n    t = x\nsave_figure(fig, 'i', values={'a': t})", True),
])
def test_the_inline_check_on_known_notebooks(code, inline):
    notebook = Notebook(code)
    found = [notebook.inline(e) for e in notebook.key_expression(notebook.values_expression(), "a")]
    assert any(found) is inline, found


def test_the_inline_check_follows_the_dotted_key_it_reads():
    """A notebook may compute a column for its own table beside a library summary the verdict reads."""
    notebook = Notebook("from intellimetry.x import f\nr = f(1)\ng = {k: r[k] - 1 for k in r}\n"
                        "save_figure(fig, 'i', values={'a': {**r, 'gaps': g}})")
    values = notebook.values_expression()
    assert not any(notebook.inline(e) for e in notebook.key_expression(values, "a.lead"))
    assert all(notebook.inline(e) for e in notebook.key_expression(values, "a.gaps"))
