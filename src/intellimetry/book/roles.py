"""Sphinx roles that put numbers from the runs (and the paper's reference values) into the book's prose.

    {result}`survival-fig01-levels:limited.alpha_fit%.2f`   our value, from the figure's JSON sidecar
    ```{figure-values} survival-fig01-levels```             the page's figure from here on, so roles after it
    {result}`limited.alpha_fit%.2f`                         name only the value ({result}, {direction},
                                                            {verdict}, {param}; an explicit id still wins)
    {param}`n_events%,`                                     a parameter the figure ran with (its sidecar)
    {param}`@full:n_events%,`                               ... or as a profile of its YAML declares it
    {paper}`survival/levels.yaml:levels.limited.condition`  the paper's value, from data/reference/
    {build}`profile`                                        the profile / commit the book was built from
    {build}`notebook_minutes%.0f`                           the notebooks' total run time of this copy
    {verdict}`aiq-fig07-force:fig07`                        the verdict the figure's run gave a paper item
    {recorded}`full:chapters.survival.minutes%.0f`          from the committed record of a profile's runs
                                                            (data/runs/<profile>.json, intellimetry.book.runs);
                                                            'not run at full' where it holds none, marked
                                                            where no longer current (book.records.marker)
    {direction}`aiq-fig08-gravity:rho%rises/falls`          a direction word from a value's sign: the first
                                                            word when it is positive, the second when negative
    {direction}`aiq-fig08-gravity:alpha>2%above/below`      ... or when it is above / below a threshold
    {direction}`aiq-fig08-gravity:rho%rises/falls/stays`    ... and a third word for a value on the line
    ```{provenance} survival-fig01-levels```                the figure block: reproduce command, run time,
                                                            commit, notebook links, parameter table
    ```{build-table}```                                     that line for every figure in the book
    ```{profile-runs} full survival```                      that line for a chapter's recorded runs of a profile

A missing figure, key or file is a Sphinx warning, so `jupyter-book build -W` fails instead of
printing a blank; so is a value no reader should see in prose: nan, inf, None, or a list or mapping
(Python syntax), which format_value refuses.
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

import yaml
from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from intellimetry import CHAPTERS, paths
from intellimetry.book import records
from intellimetry.book.figblock import add_nodes, block_nodes, run_time
from intellimetry.pipeline.project import Project
from intellimetry.pipeline.registry import RegistryError, load_figure
from intellimetry.pipeline.schedule import runs_path
from intellimetry.verdicts import value_at

logger = logging.getLogger(__name__)


class LookupFailed(KeyError):
    pass


@lru_cache(maxsize=None)
def _load(path: str, mtime: float):
    text = Path(path).read_text(encoding="utf-8")
    return json.loads(text) if path.endswith(".json") else yaml.safe_load(text)


def load_file(path: Path, env=None):
    """Read a JSON/YAML file; with `env`, the current page is rebuilt whenever the file changes."""
    if env is not None:
        env.note_dependency(str(path))
    if not path.exists():
        raise LookupFailed(f"{path} does not exist (was the figure built? run `make book`)")
    return _load(str(path), path.stat().st_mtime)


def dig(data, dotted: str):
    """data['a']['b'] for 'a.b'; list items by index."""
    try:
        return value_at(data, dotted)
    except KeyError as err:
        raise LookupFailed(err.args[0]) from None


SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


class Unprintable(LookupFailed):
    """A value that would render as nan, inf, None or Python syntax in the book's prose."""


def format_value(value, spec: str = "") -> str:
    """Python's format spec, or `sciN`: N significant digits as a × 10ⁿ (`sci0`: just 10ⁿ, rounded).

    Raises Unprintable for None, nan, inf, a list or a mapping: prose says what a value is, and a
    table of several values formats each one.
    """
    if value is None or isinstance(value, dict | list | tuple):
        raise Unprintable(f"{value!r} cannot be printed in prose (quote one number, or build a table cell by cell)")
    if isinstance(value, float) and not math.isfinite(value):
        raise Unprintable(f"{value!r} is not a number a reader can use: the run measured nothing here")
    if spec.startswith("sci"):
        return _scientific(float(value), int(spec[3:] or 2))
    if spec:
        return format(value, spec)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def _scientific(value: float, digits: int) -> str:
    if value == 0:
        return "0"
    if digits == 0:
        return "10" + str(round(math.log10(abs(value)))).translate(SUPERSCRIPT)
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    power = "10" + str(int(exponent)).translate(SUPERSCRIPT)
    return power if mantissa in ("1", "1." + "0" * (digits - 1)) else f"{mantissa} × {power}"


def format_parameters(parameters: dict | None) -> str:
    return ", ".join(f"{k} = {v}" for k, v in (parameters or {}).items())


def split_reference(text: str) -> tuple[str, str, str]:
    """'source:key.path%fmt' -> (source, key.path, fmt); `%` because `|` would split a table cell."""
    body, _, spec = text.partition("%")
    source, sep, key = body.partition(":")
    if not sep or not key:
        raise LookupFailed(f"{text!r} should look like source:key.path%format")
    return source.strip(), key.strip(), spec.strip()


CURRENT_FIGURE = "intellimetry_figure"  # env.temp_data key: the page's figure, set by {figure-values}


def split_figure_reference(env, text: str) -> tuple[str, str, str]:
    """'<figure id>:key%fmt', or 'key%fmt' for the figure a {figure-values} above set on this page."""
    if ":" in text.partition("%")[0]:
        fig_id, key, spec = split_reference(text)
    else:
        body, _, spec = text.partition("%")
        fig_id, key, spec = env.temp_data.get(CURRENT_FIGURE), body.strip(), spec.strip()
        if fig_id is None:
            raise LookupFailed(f"{text!r} names no figure: write <figure id>:{body.strip()}, or put "
                               "```{figure-values} <figure id>``` above it on the page")
    try:
        paths.paper_of(fig_id)
    except ValueError as err:
        raise LookupFailed(str(err)) from None
    return fig_id, key, spec


def sidecar_path(srcdir: Path, fig_id: str) -> Path:
    """A figure's sidecar as the book build copied it: <srcdir>/generated/<paper>/<id>.json."""
    return paths.sidecar_path(Path(srcdir) / paths.GENERATED, fig_id)


def _role(lookup):
    def role(name, rawtext, text, lineno, inliner, options=None, content=None):
        env = inliner.document.settings.env
        try:
            value = lookup(env, text)
        except (LookupFailed, ValueError, TypeError) as err:
            logger.warning(f"{{{name}}}`{text}`: {err}", location=(env.docname, lineno))
            return [nodes.problematic(rawtext, rawtext)], []
        return [nodes.inline(rawtext, value, classes=[f"intellimetry-{name}"])], []
    return role


def lookup_result(env, text: str) -> str:
    fig_id, key, spec = split_figure_reference(env, text)
    return format_value(dig(load_file(sidecar_path(Path(env.srcdir), fig_id), env)["values"], key), spec)


def lookup_direction(env, text: str) -> str:
    """'<figure id>:<key>[>threshold]%up/down[/level]': `up` when the value is above the threshold (0
    unless given), `down` when below, `level` when equal (an error without it: no direction to state)."""
    fig_id, key, spec = split_figure_reference(env, text)
    key, _, threshold = key.partition(">")
    words = [word.strip() for word in spec.split("/")]
    if len(words) not in (2, 3) or not all(words):
        raise LookupFailed(f"{text!r}: give two words after % (e.g. %rises/falls), and a third for equal")
    value = dig(load_file(sidecar_path(Path(env.srcdir), fig_id), env)["values"], key.strip())
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise Unprintable(f"{text!r}: {value!r} has no direction")
    line = float(threshold) if threshold.strip() else 0.0
    if value == line:
        if len(words) == 3:
            return words[2]
        raise LookupFailed(f"{text!r}: the value equals {line}, so neither {words[0]!r} nor {words[1]!r} is true "
                           "(add a third word for equal)")
    return words[0] if value > line else words[1]


def lookup_param(env, text: str) -> str:
    """A parameter: '[<figure id>][@<profile>]:name%fmt', or 'name%fmt' for the page's figure. Without
    a profile, the value the figure's run used (its sidecar); with one, that profile of its YAML.
    An item of a list parameter by index: 'name.0'."""
    body, _, spec = text.partition("%")
    source, sep, name = body.rpartition(":")
    fig_part, _, profile = source.partition("@")
    fig_id, name, _ = split_figure_reference(env, f"{fig_part}:{name}" if fig_part else name)
    if not profile.strip():
        parameters = load_file(sidecar_path(Path(env.srcdir), fig_id), env).get("parameters") or {}
    else:
        parameters = _profile_parameters(env, fig_id, profile.strip())
    if name.split(".")[0] not in parameters:
        raise LookupFailed(f"{fig_id} has no parameter {name!r} (it has: {', '.join(parameters) or 'none'})")
    return format_value(dig(parameters, name), spec.strip())


def _profile_parameters(env, fig_id: str, profile: str) -> dict:
    spec_path = paths.figure_dir(paths.NOTEBOOKS_DIR, fig_id) / f"{fig_id}.yaml"
    env.note_dependency(str(spec_path))
    try:
        return load_figure(spec_path).resolve(profile)
    except (RegistryError, ValueError, KeyError) as err:
        raise LookupFailed(f"{fig_id}, profile {profile!r}: {err}") from None


def lookup_paper(env, text: str) -> str:
    name, key, spec = split_reference(text)
    return format_value(dig(load_file(paths.REFERENCE_DIR / name, env), key), spec)


def lookup_verdict(env, text: str) -> str:
    fig_id, item_id, _ = split_figure_reference(env, text.strip())
    verdicts = load_file(sidecar_path(Path(env.srcdir), fig_id), env).get("verdicts", {})
    if item_id not in verdicts:
        raise LookupFailed(f"{fig_id} recorded no verdict for item {item_id!r} (recorded: {sorted(verdicts)}); "
                           "is the item's figure this one in items.yaml, and was the figure re-run?")
    return verdicts[item_id]["verdict"]


def lookup_recorded(env, text: str) -> str:
    """A value of a profile's record; 'not run at <profile>' for a figure or chapter it does not hold yet (a
    fresh clone builds), and the entry marked where it is no longer current (records.marker): in full at its
    first quote on a page, shortly after."""
    profile, key, spec = split_reference(text)
    record = profile_record(env, profile)
    section, _, rest = key.partition(".")
    target = rest.partition(".")[0]
    if section in ("figures", "chapters") and target not in (record.get(section) or {}):
        _check_known(section, target)
        return NOT_RUN_AT.format(profile=profile)
    value = format_value(dig(record, key), spec)
    note = _page_note(env, profile, record, section, target)
    return f"{value} {note}" if note else value


NOT_RUN_AT = "not run at {profile}"
MARKED = "intellimetry_recorded_marked"  # env.temp_data: the entries a page has already marked in full


def profile_record(env, profile: str) -> dict:
    """data/runs/<profile>.json, or an empty record where there is none (a fresh clone has no full runs)."""
    try:
        return load_file(runs_path(profile), env)
    except LookupFailed:
        return {"profile": profile, "figures": {}, "chapters": {}}


def _check_known(section: str, target: str) -> None:
    """A figure or chapter the record lacks must at least exist: a typo is an error, not 'not run'."""
    if section == "chapters":
        known = target in CHAPTERS
    else:
        spec = paths.figure_dir(paths.NOTEBOOKS_DIR, target) / f"{target}.yaml" if paths.is_figure_id(target) else None
        known = spec is not None and spec.is_file()
    if not known:
        raise LookupFailed(f"no {'chapter' if section == 'chapters' else 'figure'} {target!r}")


@lru_cache(maxsize=1)
def _checkout() -> tuple[Project, dict]:
    project = Project.at()
    return project, project.figures()


@lru_cache(maxsize=None)
def _status(path: str, mtime: float, fig_id: str) -> records.Status:
    project, figures = _checkout()
    return records.status_details(project, _load(path, mtime), fig_id, figures)


def recorded_status(env, profile: str, fig_id: str) -> records.Status:
    """Whether a figure's entry in the profile's record is current in this checkout; the page is re-read
    when a file its hash covers changes."""
    path = runs_path(profile)
    if not path.exists():
        return records.Status(False, ["not recorded"])
    status = _status(str(path), path.stat().st_mtime, fig_id)
    root = _checkout()[0].root
    for name in status.covered:
        if (root / name).is_file():  # Sphinx re-reads a page on every build whose dependency is missing
            env.note_dependency(str(root / name))
    return status


def _page_note(env, profile: str, record: dict, section: str, target: str) -> str:
    """The marker of a quoted entry that is not current (for a chapter total: how many of its figures)."""
    marked = env.temp_data.setdefault(MARKED, set())
    short = (section, target) in marked  # marked in full once per page; a paragraph of its values stays legible
    marked.add((section, target))
    if section == "figures":
        return records.marker(record["figures"][target], recorded_status(env, profile, target), short)
    if section != "chapters":
        return ""
    ids = [fig_id for fig_id in record.get("figures") or {} if paths.paper_of(fig_id) == target]
    stale = [fig_id for fig_id in ids if not recorded_status(env, profile, fig_id).current]
    if not stale:
        return ""
    return "(not all current)" if short else f"({len(stale)} of these {len(ids)} figures not current)"


def lookup_build(env, text: str) -> str:
    key, _, spec = text.partition("%")
    build = load_file(Path(env.srcdir) / paths.GENERATED / "build.json", env)
    return format_value(dig(build, key.strip()), spec.strip())


class FigureValuesDirective(SphinxDirective):
    """Sets the page's figure: the {result}, {direction}, {verdict} and {param} roles after it that name
    no figure read this one's sidecar, up to the next such directive or the page's end. Renders nothing."""
    required_arguments = 1

    def run(self):
        fig_id = self.arguments[0]
        try:
            paths.paper_of(fig_id)
        except ValueError as err:
            logger.warning(f"figure-values: {err}", location=self.get_location())
            return []
        self.env.temp_data[CURRENT_FIGURE] = fig_id
        return []


class ProvenanceDirective(SphinxDirective):
    """The block under a figure (intellimetry.book.figblock): the command that reproduces it, run
    time, commit, links to its notebook (source, executed .ipynb, Binder) and its parameter table."""
    required_arguments = 1

    def run(self):
        fig_id = self.arguments[0]
        try:
            sidecar = load_file(sidecar_path(Path(self.env.srcdir), fig_id), self.env)
            build = load_file(Path(self.env.srcdir) / paths.GENERATED / "build.json", self.env)
            spec_path = paths.figure_dir(paths.NOTEBOOKS_DIR, fig_id) / f"{fig_id}.yaml"
            self.env.note_dependency(str(spec_path))
            figure = load_figure(spec_path)
        except (LookupFailed, RegistryError, ValueError) as err:
            logger.warning(f"provenance {fig_id}: {err}", location=self.get_location())
            return []
        return block_nodes(figure, sidecar, build.get("repository_url", ""),
                           build.get("repository_branch", "main"))


class BuildTableDirective(SphinxDirective):
    """A bullet list of every figure in this copy of the book: profile, parameters, run time."""

    def run(self):
        try:
            build = load_file(Path(self.env.srcdir) / paths.GENERATED / "build.json", self.env)
        except LookupFailed as err:
            logger.warning(f"build-table: {err}", location=self.get_location())
            return []
        items = nodes.bullet_list()
        for fig_id, info in build["figures"].items():
            params = format_parameters(info["parameters"])
            state = "" if info["up_to_date"] else " (older than the current code)"
            text = (f"{fig_id}: profile {info['profile']}{state}, commit {info['commit']}, "
                    f"{info['wall_time_s']} s; {params or 'no parameters'}")
            items += nodes.list_item("", nodes.paragraph(text, text))
        return [items]


def cache_reuse(info: dict) -> str:
    """' (N of M trained items reused from the model cache)' for a recorded run that reused any, else ''."""
    cache = info.get("model_cache") or {}
    hits, misses = cache.get("hits", 0), cache.get("misses", 0)
    return f" ({hits} of {hits + misses} trained items reused from the model cache)" if hits else ""


class ProfileRunsDirective(SphinxDirective):
    """A bullet list of one chapter's figures as recorded on a profile (data/runs/<profile>.json): wall
    time, verdicts, commit, date, machine, parameters and whether the entry is current, with what changed
    since where it is not; a figure the record lacks reads 'not run at <profile>'. The chapter's total first."""
    required_arguments = 2  # profile, paper

    def run(self):
        profile, paper = self.arguments
        if paper not in CHAPTERS:
            logger.warning(f"profile-runs {profile} {paper}: no chapter {paper!r}", location=self.get_location())
            return []
        record = profile_record(self.env, profile)
        recorded = record.get("figures") or {}
        ids = sorted(fig_id for fig_id in {*_checkout()[1], *recorded} if paths.paper_of(fig_id) == paper)
        items, stale = nodes.bullet_list(), 0
        for fig_id in ids:
            if fig_id in recorded:
                status = recorded_status(self.env, profile, fig_id)
                stale += not status.current
                text = run_line(fig_id, recorded[fig_id], status)
            else:
                text = f"{fig_id}: {NOT_RUN_AT.format(profile=profile)}"
            items += nodes.list_item("", nodes.paragraph(text, text))
        text = total_sentence(profile, (record.get("chapters") or {}).get(paper), stale)
        return [nodes.paragraph(text, text), items]


def run_line(fig_id: str, info: dict, status: records.Status) -> str:
    """One recorded run: time, verdicts, commit, date, machine, parameters; current, or what changed since."""
    verdicts = ", ".join(f"{item} {verdict}" for item, verdict in info["verdicts"].items()) or "no verdict"
    machine = info.get("machine") or {}
    state = records.marker(info, status) or "current"
    return (f"{fig_id}: {run_time(info.get('wall_time_s'))}{cache_reuse(info)}; {verdicts}; commit {info['commit']}, "
            f"{info.get('saved_at')}, {machine.get('cores')} CPU cores, {machine.get('memory_gib')} GiB; "
            f"{format_parameters(info['parameters']) or 'no parameters'}; {state}")


def total_sentence(profile: str, total: dict | None, stale: int) -> str:
    if not total:
        return f"The {profile} profile of this chapter is not recorded yet: no figure of it has a run recorded."
    return (f"The {profile} profile of this chapter, as last recorded: {total['figures']} figures, "
            f"{total['minutes']} minutes of notebooks in all" + (f"; {stale} of them not current." if stale else "."))


STATIC_DIR = Path(__file__).resolve().parent / "static"


def add_static_dir(app, config) -> None:
    """The figure block's stylesheet ships beside this module."""
    config.html_static_path.append(str(STATIC_DIR))


def setup(app):
    app.add_role("result", _role(lookup_result))
    app.add_role("paper", _role(lookup_paper))
    app.add_role("build", _role(lookup_build))
    app.add_role("verdict", _role(lookup_verdict))
    app.add_role("recorded", _role(lookup_recorded))
    app.add_role("direction", _role(lookup_direction))
    app.add_role("param", _role(lookup_param))
    app.add_directive("figure-values", FigureValuesDirective)
    app.setup_extension("intellimetry.book.tables")  # {value-table}: tables of these roles, written once
    add_nodes(app)
    app.connect("config-inited", add_static_dir)
    app.add_css_file("figure-block.css")
    app.add_directive("provenance", ProvenanceDirective)
    app.add_directive("build-table", BuildTableDirective)
    app.add_directive("profile-runs", ProfileRunsDirective)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
