"""The figure registry: every notebooks/<paper>/<id>.md with its <id>.yaml, and parameter validation.

A figure's YAML declares its parameters (type, range or choices), its profiles, the inputs it
reads, the other library subpackages it imports, and a per-cell timeout. See notebooks/README.md.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from intellimetry import PAPERS

PROFILES = ("quick", "full")
CUSTOM = "custom"
# `smoke` is optional: the tiny sizes the test suite runs; a figure without one runs quick there.
SMOKE = "smoke"
DECLARABLE_PROFILES = (*PROFILES, SMOKE)
FIGURE_ID = re.compile(r"^(?P<paper>[a-z]+)-(?:fig|tab)\d{2}-[a-z0-9]+(?:-[a-z0-9]+)*$")
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
        return values


def load_figure(spec_path: Path) -> Figure:
    """Read and check one <id>.yaml (and that its notebook exists)."""
    spec_path = Path(spec_path)
    fig_id = spec_path.stem
    where = f"{spec_path}"
    match = FIGURE_ID.match(fig_id)
    if not match or match["paper"] not in PAPERS:
        raise RegistryError(f"{where}: figure id must be <paper>-fig<NN>-<slug> with paper in {PAPERS}")
    if spec_path.parent.name != match["paper"]:
        raise RegistryError(f"{where}: a {match['paper']} figure belongs in notebooks/{match['paper']}/")
    notebook = spec_path.with_suffix(".md")
    if not notebook.exists():
        raise RegistryError(f"{where}: no notebook {notebook.name} beside it")
    raw = yaml.safe_load(spec_path.read_text(encoding="utf-8")) or {}
    unknown = set(raw) - {"title", "timeout", "inputs", "depends", "parameters", "profiles"}
    if unknown:
        raise RegistryError(f"{where}: unknown keys {sorted(unknown)}")
    params = {name: _param_spec(name, decl, where) for name, decl in (raw.get("parameters") or {}).items()}
    profiles = raw.get("profiles") or {}
    _check_profiles(profiles, params, where)
    depends = tuple(raw.get("depends") or ())
    for dep in depends:
        if dep not in PAPERS:
            raise RegistryError(f"{where}: depends names {dep!r}; allowed: {', '.join(PAPERS)}")
    figure = Figure(
        id=fig_id, paper=match["paper"], notebook=notebook, spec_path=spec_path,
        title=str(raw.get("title", fig_id)), timeout=int(raw.get("timeout", DEFAULT_TIMEOUT_S)),
        inputs=tuple(raw.get("inputs") or ()), depends=depends, params=params, profiles=profiles)
    for profile in profiles:
        try:
            figure.resolve(profile)
        except ParameterError as err:
            raise RegistryError(f"{where}: profile {profile!r}: {err}") from None
    return figure


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


def discover(notebooks_dir: Path) -> dict[str, Figure]:
    """All figures under notebooks_dir, by id, sorted by id."""
    figures = {}
    for md in sorted(Path(notebooks_dir).glob("*/*.md")):
        if not md.with_suffix(".yaml").exists():
            raise RegistryError(f"{md}: notebook has no {md.stem}.yaml beside it")
    for spec_path in sorted(Path(notebooks_dir).glob("*/*.yaml")):
        figure = load_figure(spec_path)
        figures[figure.id] = figure
    return figures
