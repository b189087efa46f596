"""The figure registry: every notebooks/<paper>/<id>.md with its <id>.yaml, and parameter validation.

A figure's YAML declares its parameters (type, range or choices), its profiles, the inputs it
reads other than reference data (whose reads are recorded at run time), the other papers'
subpackages it imports, and a per-cell timeout. Parameters and profiles shared by several
figures live in a fragment `_<name>.yaml` beside them, which a figure names with
`extends: _<name>.yaml`. See notebooks/README.md.

`needs` (a figure's own, never a fragment's) names, per paper item of data/reference/<paper>/items.yaml,
the values of list parameters that item's criterion reads: `needs: {fig02: {models: [linear, mlp, cnn]}}`.
A nested list is met by any one of its values (an offline stand-in or the paper's own data). Every profile,
override and paper-scale run must keep them, so a run that would fail in the criterion (or judge a claim
on a subject it dropped) is refused before it starts. It is not hashed: it decides which runs may start,
not what a run computes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from intellimetry import CHAPTERS, PAPERS, paths
from intellimetry.pipeline.prepare import check_names

PROFILES = ("quick", "full")
CUSTOM = "custom"
# `smoke` is optional: the tiny sizes the test suite runs; a figure without one runs quick there.
SMOKE = "smoke"
DECLARABLE_PROFILES = (*PROFILES, SMOKE)
TYPES = ("int", "float", "bool", "str", "list[int]", "list[float]", "list[str]")
DEFAULT_TIMEOUT_S = 600


class ParameterError(ValueError):
    """A parameter value that the figure's YAML does not allow."""


class RegistryError(ValueError):
    """A malformed notebook/YAML pair."""


@dataclass(frozen=True)
class ParamSpec:
    name: str
    type: str
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None
    help: str = ""

    def allowed(self) -> str:
        """Plain words for what this parameter accepts (used in every error message)."""
        if self.choices is not None:
            text = f"one of {', '.join(map(str, self.choices))}"
        else:
            text = "true or false" if self.type == "bool" else f"a value of type {self.type}"
        bounds = []
        if self.min is not None:
            bounds.append(f">= {self.min}")
        if self.max is not None:
            bounds.append(f"<= {self.max}")
        if bounds:
            text += (" with every item " if self.type.startswith("list") else " ") + " and ".join(bounds)
        return text

    def parse(self, text: str):
        """Turn a command-line string into a checked value."""
        if self.type.startswith("list["):
            items = [t.strip() for t in text.strip("[]").split(",") if t.strip()]
            return self.check([_parse_scalar(self, self.type[5:-1], t) for t in items])
        return self.check(_parse_scalar(self, self.type, text))

    def check(self, value):
        """Return `value` if allowed, else raise ParameterError naming the parameter."""
        if self.type.startswith("list["):
            if not isinstance(value, list) or not value:
                raise self._error(value)
            for item in value:
                self._check_scalar(self.type[5:-1], item, value)
            return value
        self._check_scalar(self.type, value, value)
        return value

    def _check_scalar(self, kind: str, item, whole) -> None:
        ok = {
            "int": isinstance(item, int) and not isinstance(item, bool),
            "float": isinstance(item, (int, float)) and not isinstance(item, bool)
            and math.isfinite(item),
            "bool": isinstance(item, bool),
            "str": isinstance(item, str),
        }[kind]
        if not ok or (self.choices is not None and item not in self.choices):
            raise self._error(whole)
        if self.min is not None and item < self.min or self.max is not None and item > self.max:
            raise self._error(whole)

    def _error(self, value) -> ParameterError:
        return ParameterError(f"parameter {self.name!r}: {value!r} is not allowed; expected {self.allowed()}")


def _met(need, value: list) -> bool:
    """A need is one value, or a list of alternatives of which any one will do."""
    return any(v in value for v in need) if isinstance(need, list) else need in value


def _wanted(need) -> str:
    return f"one of {' or '.join(map(str, need))}" if isinstance(need, list) else str(need)


def _listed(value: list) -> str:
    return ",".join(map(str, value))


def _parse_scalar(spec: ParamSpec, kind: str, text: str):
    try:
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
        if kind == "bool":
            return {"true": True, "false": False}[text.lower()]
        return text
    except (ValueError, KeyError):
        raise spec._error(text) from None


@dataclass(frozen=True)
class PaperScale:
    """How a figure runs on the paper's own data or model (YAML key `paper_scale`): what it uses
    offline, the overrides of each paper-scale run (`make fig` PARAMS), and the files it expects."""
    offline: str
    params: tuple[str, ...]
    layout: str

    def commands(self, fig_id: str) -> list[str]:
        return [f'make fig ID={fig_id} PARAMS="{params}"' for params in self.params]


@dataclass(frozen=True)
class Figure:
    id: str
    paper: str
    notebook: Path
    spec_path: Path
    title: str
    timeout: int
    inputs: tuple[str, ...]
    depends: tuple[str, ...]
    params: dict[str, ParamSpec] = field(hash=False)
    profiles: dict[str, dict] = field(hash=False)
    paper_scale: PaperScale | None = field(default=None, hash=False)
    requires: tuple[str, ...] = ()  # preparation steps (intellimetry.pipeline.prepare) run before it
    extends: str | None = None  # its `_<name>.yaml` fragment: figures sharing one share cached models
    # {item id: {list parameter: [value, or [alternatives]]}}: what each paper item's criterion reads
    needs: dict[str, dict[str, list]] = field(default_factory=dict, hash=False)

    def resolve(self, profile: str = "quick", overrides: dict[str, str] | None = None) -> dict:
        """Validated parameters: quick, full or smoke, plus string overrides (which make it `custom`)."""
        if profile not in DECLARABLE_PROFILES:
            raise ParameterError(f"unknown profile {profile!r}; allowed: {', '.join(DECLARABLE_PROFILES)}")
        values = dict(self.profiles["quick"])
        values.update(self.profiles.get(profile) or {})
        for name, text in (overrides or {}).items():
            if name not in self.params:
                raise ParameterError(
                    f"unknown parameter {name!r} for {self.id}; known: {', '.join(sorted(self.params))}")
            values[name] = self.params[name].parse(text)
        for name, value in values.items():
            self.params[name].check(value)
        self.check_needs(values)
        return values

    def check_needs(self, values: dict) -> None:
        """Refuse parameter values that drop one a paper item's criterion reads (the YAML's `needs`)."""
        problems = []
        for item, wanted in self.needs.items():
            for name, needed in wanted.items():
                missing = [need for need in needed if not _met(need, values[name])]
                if missing:
                    problems.append(
                        f"parameter {name!r} = {_listed(values[name])} lacks {', '.join(map(_wanted, missing))}, "
                        f"which the criterion of {self.paper} item {item!r} reads "
                        f"({paths.REFERENCE_FOLDER}/{self.paper}/items.yaml); {name} must include "
                        f"{', '.join(map(_wanted, needed))}")
        if problems:
            raise ParameterError("; ".join(problems))


SPEC_KEYS = {"title", "timeout", "inputs", "depends", "extends", "parameters", "profiles", "paper_scale", "requires",
             "needs"}
FRAGMENT_KEYS = {"parameters", "profiles", "paper_scale", "requires"}
PAPER_SCALE_KEYS = ("offline", "params", "layout")


def read_yaml(path: Path) -> dict:
    """A YAML mapping, or a RegistryError naming the file, line and column of a syntax error."""
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        raise RegistryError(f"{path}{where}: not valid YAML: {problem}") from None
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise RegistryError(f"{path}: expected a mapping of keys (title, parameters, profiles, ...)")
    return raw


def _with_fragment(raw: dict, spec_path: Path) -> dict:
    """Merge the `extends:` fragment's parameters and profiles under the figure's own."""
    name = raw.get("extends")
    if name is None:
        return raw
    fragment_path = spec_path.parent / str(name)
    if not str(name).startswith("_") or fragment_path.suffix != ".yaml" or not fragment_path.is_file():
        raise RegistryError(f"{spec_path}: extends {name!r}: expected a file _<name>.yaml beside it")
    fragment = read_yaml(fragment_path)
    unknown = set(fragment) - FRAGMENT_KEYS
    if unknown:
        raise RegistryError(f"{fragment_path}: a fragment holds only {sorted(FRAGMENT_KEYS)}; "
                            f"unknown keys {sorted(unknown)}")
    merged = dict(raw)
    merged["parameters"] = {**(fragment.get("parameters") or {}), **(raw.get("parameters") or {})}
    profiles = {name: dict(values or {}) for name, values in (fragment.get("profiles") or {}).items()}
    for name, values in (raw.get("profiles") or {}).items():
        profiles[name] = {**profiles.get(name, {}), **(values or {})}
    merged["profiles"] = profiles
    if "paper_scale" not in raw and "paper_scale" in fragment:
        merged["paper_scale"] = fragment["paper_scale"]  # the figure's own replaces it whole
    if "requires" in fragment:
        merged["requires"] = [*_as_list(fragment["requires"]), *_as_list(raw.get("requires"))]
    return merged


def _check_inputs(inputs: tuple[str, ...], where: str) -> None:
    for item in inputs:
        if item == paths.REFERENCE_FOLDER or item.startswith(paths.REFERENCE_FOLDER + "/"):
            raise RegistryError(f"{where}: inputs: {item!r} need not be declared: the reference files a "
                                "figure reads (through paths.reference_file) are recorded and hashed "
                                "automatically; remove it")


def load_figure(spec_path: Path) -> Figure:
    """Read and check one <id>.yaml (and that its notebook exists)."""
    spec_path = Path(spec_path)
    fig_id = spec_path.stem
    where = f"{spec_path}"
    if not paths.is_figure_id(fig_id):
        raise RegistryError(f"{where}: figure id must be {paths.FIGURE_ID_FORM} with paper one of the "
                            f"chapters {', '.join(CHAPTERS)}")
    paper = paths.paper_of(fig_id)
    if spec_path.parent.name != paper:
        raise RegistryError(f"{where}: a {paper} figure belongs in notebooks/{paper}/")
    notebook = spec_path.with_suffix(".md")
    if not notebook.exists():
        raise RegistryError(f"{where}: no notebook {notebook.name} beside it")
    raw = read_yaml(spec_path)
    unknown = set(raw) - SPEC_KEYS
    if unknown:
        raise RegistryError(f"{where}: unknown keys {sorted(unknown)}; allowed: {sorted(SPEC_KEYS)}")
    raw = _with_fragment(raw, spec_path)
    params = {name: _param_spec(name, decl, where) for name, decl in (raw.get("parameters") or {}).items()}
    profiles = raw.get("profiles") or {}
    _check_profiles(profiles, params, where)
    depends = tuple(raw.get("depends") or ())
    for dep in depends:
        if dep == paper:
            raise RegistryError(f"{where}: depends names the figure's own paper {dep!r}, which is "
                                "always hashed; list only other papers' subpackages")
        if dep not in PAPERS:  # papers' subpackages only: a study's is no library for another chapter
            study = " (a study: no figure imports a study's subpackage)" if dep in CHAPTERS else ""
            raise RegistryError(f"{where}: depends names {dep!r}{study}; allowed: {', '.join(PAPERS)}")
    inputs = tuple(raw.get("inputs") or ())
    _check_inputs(inputs, where)
    figure = Figure(
        id=fig_id, paper=paper, notebook=notebook, spec_path=spec_path,
        title=str(raw.get("title", fig_id)), timeout=int(raw.get("timeout", DEFAULT_TIMEOUT_S)),
        inputs=inputs, depends=depends, params=params, profiles=profiles, extends=raw.get("extends"),
        needs=_needs(raw.get("needs"), params, where))
    for profile in profiles:
        try:
            figure.resolve(profile)
        except ParameterError as err:
            raise RegistryError(f"{where}: profile {profile!r}: {err}") from None
    if "paper_scale" in raw:
        figure = replace(figure, paper_scale=_paper_scale(raw["paper_scale"], figure, where))
    if "requires" in raw:
        try:
            figure = replace(figure, requires=check_names(raw["requires"], where))
        except ValueError as err:
            raise RegistryError(str(err)) from None
    return figure


def _needs(raw, params: dict[str, ParamSpec], where: str) -> dict[str, dict[str, list]]:
    """Check `needs`: {item id: {list parameter: [value or [alternatives], ...]}}, every value allowed."""
    where = f"{where}: needs"
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, dict) and v for k, v in raw.items()):
        raise RegistryError(f"{where}: expected {{item id: {{parameter: [values]}}}}, the ids of "
                            f"data/reference/<paper>/items.yaml; found {raw!r}")
    for item, wanted in raw.items():
        for name, needed in wanted.items():
            spec = params.get(name)
            if spec is None or not spec.type.startswith("list"):
                lists = sorted(n for n, s in params.items() if s.type.startswith("list"))
                raise RegistryError(f"{where}: item {item!r} names {name!r}; allowed: a list parameter, one of "
                                    f"{', '.join(lists) or 'none'}")
            _check_needed(needed, spec, f"{where}: item {item!r}")
    return raw


def _check_needed(needed, spec: ParamSpec, where: str) -> None:
    """Each need a value the parameter allows, or a non-empty list of such alternatives."""
    if not isinstance(needed, list) or not needed:
        raise RegistryError(f"{where}: {spec.name} needs a non-empty list of values, got {needed!r}")
    for need in needed:
        try:
            spec.check(need if isinstance(need, list) else [need])
        except ParameterError as err:
            raise RegistryError(f"{where}: {err}") from None


def _as_list(value) -> list:
    """A `requires` value to merge: a list as it is, anything else as one item (checked later)."""
    return list(value) if isinstance(value, list | tuple) else [] if value is None else [value]


def _paper_scale(raw, figure: Figure, where: str) -> PaperScale:
    """Check `paper_scale`: {offline: text, params: "name=value ..." or a list of them, layout: text};
    every run's overrides must pass the figure's parameter checks (paths need not exist)."""
    where = f"{where}: paper_scale"
    if not isinstance(raw, dict) or set(raw) != set(PAPER_SCALE_KEYS):
        found = sorted(raw) if isinstance(raw, dict) else type(raw).__name__
        raise RegistryError(f"{where}: expected a mapping with exactly the keys {list(PAPER_SCALE_KEYS)}; "
                            f"found {found}")
    runs = [raw["params"]] if isinstance(raw["params"], str) else raw["params"]
    texts = {"offline": raw["offline"], "layout": raw["layout"]}
    if not isinstance(runs, list) or not runs or not all(isinstance(r, str) and r.strip() for r in runs):
        raise RegistryError(f"{where}: params must be a non-empty 'name=value ...' string or a list of them")
    for key, text in texts.items():
        if not isinstance(text, str) or not text.strip():
            raise RegistryError(f"{where}: {key} must be a non-empty text")
    for run in runs:
        try:
            figure.resolve("quick", _overrides(run))
        except ParameterError as err:
            raise RegistryError(f"{where}: params {run!r}: {err}") from None
    return PaperScale(offline=" ".join(texts["offline"].split()), params=tuple(" ".join(r.split()) for r in runs),
                      layout=" ".join(texts["layout"].split()))


def add_override(overrides: dict[str, str], word: str) -> None:
    """Add one command-line word `name=value` to `overrides`, refusing another shape or a name given twice
    (the one reading of overrides: the runner's command line and the YAMLs' paper_scale runs)."""
    name, sep, value = word.partition("=")
    name = name.strip()
    if not sep or not name:
        raise ParameterError(f"override {word!r} must look like name=value "
                             f"(or, if it is meant as a figure id, like {paths.FIGURE_ID_FORM})")
    if name in overrides:
        raise ParameterError(f"parameter {name!r} is given twice ({name}={overrides[name]} and "
                             f"{word}); give it once")
    overrides[name] = value.strip()


def _overrides(text: str) -> dict[str, str]:
    """'a=1 b=x,y' -> {'a': '1', 'b': 'x,y'}, as `make fig PARAMS=...` passes them to the runner."""
    overrides: dict[str, str] = {}
    for word in text.split():
        add_override(overrides, word)
    return overrides


def _param_spec(name: str, decl: dict, where: str) -> ParamSpec:
    if not isinstance(decl, dict) or decl.get("type") not in TYPES:
        raise RegistryError(f"{where}: parameter {name!r} needs a type, one of {', '.join(TYPES)}")
    extra = set(decl) - {"type", "min", "max", "choices", "help"}
    if extra:
        raise RegistryError(f"{where}: parameter {name!r} has unknown keys {sorted(extra)}")
    choices = decl.get("choices")
    return ParamSpec(name=name, type=decl["type"], min=decl.get("min"), max=decl.get("max"),
                     choices=tuple(choices) if choices is not None else None, help=decl.get("help", ""))


def _check_profiles(profiles: dict, params: dict, where: str) -> None:
    if "quick" not in profiles or "full" not in profiles:
        raise RegistryError(f"{where}: profiles 'quick' and 'full' are both required")
    for profile, values in profiles.items():
        if profile not in DECLARABLE_PROFILES:
            raise RegistryError(f"{where}: unknown profile {profile!r}; allowed: {DECLARABLE_PROFILES}")
        unknown = set(values or {}) - set(params)
        if unknown:
            raise RegistryError(f"{where}: profile {profile!r} sets undeclared parameters {sorted(unknown)}")
    missing = set(params) - set(profiles["quick"] or {})
    if missing:
        raise RegistryError(f"{where}: the quick profile must set every parameter; missing {sorted(missing)}")


def spec_files(notebooks_dir: Path) -> list[Path]:
    """Every figure YAML (fragments, named _<name>.yaml, are not figures)."""
    return sorted(p for p in Path(notebooks_dir).glob("*/*.yaml") if not p.name.startswith("_"))


def discover(notebooks_dir: Path, errors: list[str] | None = None) -> dict[str, Figure]:
    """All figures under notebooks_dir, by id, sorted by id.

    A broken notebook/YAML pair raises RegistryError, unless `errors` is given: then its message is
    appended there and the other figures are still returned.
    """
    def fail(message: str) -> None:
        if errors is None:
            raise RegistryError(message)
        errors.append(message)

    figures = {}
    for md in sorted(Path(notebooks_dir).glob("*/*.md")):
        if not md.with_suffix(".yaml").exists():
            fail(f"{md}: notebook has no {md.stem}.yaml beside it")
    for spec_path in spec_files(notebooks_dir):
        try:
            figure = load_figure(spec_path)
        except RegistryError as err:
            fail(str(err))
            continue
        figures[figure.id] = figure
    return figures
