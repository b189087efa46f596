"""The registry test of the architecture guide, over the real notebooks and book."""
from __future__ import annotations

import ast
import re

import jupytext
import nbformat
import papermill
import pytest

from intellimetry import paths
from intellimetry.pipeline.registry import ParameterError, ParamSpec, RegistryError, discover, load_figure

FIGURES = discover(paths.NOTEBOOKS_DIR)
BOOK_PAGES = sorted(p for p in paths.BOOK_DIR.rglob("*.md")
                    if not {"_build", "generated", "_vendor"} & set(p.relative_to(paths.BOOK_DIR).parts))


def parameters_cell(figure) -> str:
    cells = [c for c in jupytext.read(figure.notebook).cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{figure.id}: needs exactly one cell tagged 'parameters'"
    return cells[0].source


def test_there_are_figures_and_every_notebook_has_a_yaml():
    assert "survival-fig01-levels" in FIGURES
    notebooks = {p.stem for p in paths.NOTEBOOKS_DIR.glob("*/*.md")}
    assert notebooks == set(FIGURES)


@pytest.mark.parametrize("fig_id", FIGURES)
def test_yaml_keys_equal_what_papermill_finds(fig_id, tmp_path):
    figure = FIGURES[fig_id]
    converted = tmp_path / f"{fig_id}.ipynb"
    nbformat.write(jupytext.read(figure.notebook), converted)
    found = papermill.inspect_notebook(str(converted))
    assert set(found) == set(figure.params)


@pytest.mark.parametrize("fig_id", FIGURES)
def test_parameters_cell_holds_literals_equal_to_the_quick_profile(fig_id):
    figure = FIGURES[fig_id]
    defaults = {}
    for statement in ast.parse(parameters_cell(figure)).body:
        assert isinstance(statement, ast.Assign) and len(statement.targets) == 1, \
            f"{fig_id}: the parameters cell may only assign literals"
        defaults[statement.targets[0].id] = ast.literal_eval(statement.value)  # raises if not a literal
    assert defaults == figure.profiles["quick"]


@pytest.mark.parametrize("fig_id", FIGURES)
def test_every_figure_appears_exactly_once_in_the_book(fig_id):
    labels = [page for page in BOOK_PAGES
              for _ in re.finditer(rf"^:name: {re.escape(fig_id)}\s*$", page.read_text(), re.M)]
    assert len(labels) == 1, f"{fig_id} is labelled {len(labels)} times in the book: {labels}"


@pytest.mark.parametrize("fig_id, profile", [(f, p) for f in FIGURES for p in FIGURES[f].profiles])
def test_every_declared_profile_resolves_with_what_its_criteria_need(fig_id, profile):
    figure = FIGURES[fig_id]
    values = figure.resolve(profile)  # types, ranges and the YAML's `needs` (load_figure checks them too)
    assert set(values) == set(figure.params)
    figure.check_needs(values)


def test_param_spec_parsing_and_errors():
    spec = ParamSpec("alpha", "float", min=1.0, max=2.0)
    assert spec.parse("1.25") == 1.25
    with pytest.raises(ParameterError, match="'alpha': 'abc' is not allowed; expected a value of type float"):
        spec.parse("abc")
    with pytest.raises(ParameterError, match="<= 2.0"):
        spec.parse("2.5")
    with pytest.raises(ParameterError):
        spec.parse("nan")
    dims = ParamSpec("dims", "list[int]", min=1)
    assert dims.parse("1,2,3") == [1, 2, 3]
    with pytest.raises(ParameterError, match="every item >= 1"):
        dims.parse("0,2")
    choice = ParamSpec("estimator", "str", choices=("mle", "lsq"))
    with pytest.raises(ParameterError, match="one of mle, lsq"):
        choice.parse("median")
    flag = ParamSpec("plot", "bool")
    assert flag.parse("True") is True
    with pytest.raises(ParameterError):
        flag.check(1)


def assert_refused(path, text: str, match: str) -> None:
    """Writing `text` to the figure YAML `path` makes load_figure refuse it with `match`."""
    path.write_text(text)
    with pytest.raises(RegistryError, match=match):
        load_figure(path)


def test_malformed_yaml_is_reported_with_its_path(tmp_path):
    folder = tmp_path / "survival"
    folder.mkdir()
    (folder / "survival-fig09-bad.md").write_text("# x\n")
    bad = folder / "survival-fig09-bad.yaml"
    assert_refused(bad, "parameters:\n  a: {type: int}\nprofiles:\n  quick: {a: 1}\n",
                   "'quick' and 'full' are both required")
    assert_refused(bad, "parameters:\n  a: {type: int, max: 3}\nprofiles:\n  quick: {a: 1}\n  full: {a: 9}\n",
                   "profile 'full'.*'a'")
    assert_refused(folder / "nope-fig01-x.yaml", "", "figure id must be")


def test_a_fragment_gives_shared_parameters_and_the_figure_adds_its_own(tmp_path):
    folder = tmp_path / "aiq"
    folder.mkdir()
    (folder / "_shared.yaml").write_text(
        "parameters:\n  n: {type: int, min: 1}\n  seed: {type: int}\n"
        "profiles:\n  quick: {n: 4, seed: 0}\n  full: {n: 100}\n  smoke: {n: 2}\n")
    (folder / "aiq-fig09-one.md").write_text("# x\n")
    (folder / "aiq-fig09-one.yaml").write_text(
        "title: t\nextends: _shared.yaml\nparameters:\n  width: {type: int}\n"
        "profiles:\n  quick: {width: 8}\n  full: {width: 64, n: 200}\n")
    figure = load_figure(folder / "aiq-fig09-one.yaml")
    assert figure.resolve("quick") == {"n": 4, "seed": 0, "width": 8}
    assert figure.resolve("full") == {"n": 200, "seed": 0, "width": 64}  # the figure's own value wins
    assert figure.resolve("smoke") == {"n": 2, "seed": 0, "width": 8}
    assert list(discover(tmp_path)) == ["aiq-fig09-one"]  # a fragment is not a figure
    one = folder / "aiq-fig09-one.yaml"
    assert_refused(one, "extends: shared.yaml\nprofiles: {quick: {}, full: {}}\n", "expected a file _<name>.yaml")
    (folder / "_shared.yaml").write_text("title: not here\n")
    assert_refused(one, "extends: _shared.yaml\nprofiles: {quick: {}, full: {}}\n", "a fragment holds only")


def test_discover_can_collect_errors_and_keep_the_good_figures(tmp_path):
    folder = tmp_path / "soc"
    folder.mkdir()
    for name, text in {"soc-fig01-good": "profiles: {quick: {}, full: {}}\n",
                       "soc-fig02-bad": "profiles: {quick: {}, full: {}\n"}.items():
        (folder / f"{name}.md").write_text("# x\n")
        (folder / f"{name}.yaml").write_text(text)
    errors = []
    assert list(discover(tmp_path, errors)) == ["soc-fig01-good"]
    assert len(errors) == 1 and "soc-fig02-bad.yaml, line 2, column 1: not valid YAML" in errors[0]
    with pytest.raises(RegistryError, match="soc-fig02-bad.yaml, line 2"):
        discover(tmp_path)


def test_the_layout_and_the_id_grammar_are_defined_once_in_paths(tmp_path):
    assert paths.is_figure_id("aiq-fig01-intelligence-space") and paths.is_figure_id("gindex-tab01-models")
    assert not paths.is_figure_id("nope-fig01-x") and not paths.is_figure_id("aiq-fig1-x")
    with pytest.raises(ValueError, match="not a figure id: expected <paper>-fig<NN>-<slug>"):
        paths.paper_of("aiq_fig01")
    assert paths.sidecar_path(tmp_path, "soc-fig15-avalanches", "quick") == \
        tmp_path / "quick" / "soc" / "soc-fig15-avalanches.json"
    assert paths.figure_dir(tmp_path, "soc-fig15-avalanches") == tmp_path / "soc"  # the book's copy


def test_a_study_chapter_names_figures_and_lists_the_papers_it_uses_under_depends(tmp_path):
    """A chapter that is not a paper (intellimetry.STUDIES) has figure ids, folders and `depends` like a
    paper's; it may depend on papers, and no figure may depend on it (it is no library for another chapter)."""
    assert paths.is_figure_id("agreement-fig01-matrix") and paths.paper_of("agreement-fig02-agreement") == "agreement"
    folder = tmp_path / "agreement"
    folder.mkdir()
    (folder / "agreement-fig01-matrix.md").write_text("# x\n")
    spec = folder / "agreement-fig01-matrix.yaml"
    spec.write_text("title: t\ndepends: [survival, aiq, combined, gindex, agitb]\nprofiles: {quick: {}, full: {}}\n")
    figure = load_figure(spec)
    assert figure.paper == "agreement" and figure.depends == ("survival", "aiq", "combined", "gindex", "agitb")
    assert_refused(spec, "depends: [agreement]\nprofiles: {quick: {}, full: {}}\n", "own paper 'agreement'")
    (tmp_path / "aiq").mkdir()
    (tmp_path / "aiq" / "aiq-fig09-one.md").write_text("# x\n")
    assert_refused(tmp_path / "aiq" / "aiq-fig09-one.yaml", "depends: [agreement]\nprofiles: {quick: {}, full: {}}\n",
                   r"depends names 'agreement' \(a study")


def test_a_figures_library_hash_leaves_out_the_chapters_it_does_not_depend_on(tmp_path):
    """A paper's figure is not stale when the study's subpackage changes (another chapter's code); the
    study's figure covers the papers it lists under `depends`, the studies' library subjects/ and no other
    chapter; a paper's figure leaves subjects/ out (no paper imports it)."""
    from intellimetry import CHAPTERS
    from intellimetry.pipeline.hashing import excluded_subpackages, library_sources
    from intellimetry.pipeline.registry import Figure

    for name in (*CHAPTERS, "subjects", "stats", "pipeline", "book"):
        (tmp_path / "src" / "intellimetry" / name).mkdir(parents=True)
        (tmp_path / "src" / "intellimetry" / name / "__init__.py").write_text("")
    (tmp_path / "src" / "intellimetry" / "paths.py").write_text("")

    def figure(fig_id: str, depends: tuple = ()) -> Figure:
        return Figure(id=fig_id, paper=paths.paper_of(fig_id), notebook=tmp_path / f"{fig_id}.md",
                      spec_path=tmp_path / f"{fig_id}.yaml", title="", timeout=60, inputs=(), depends=depends,
                      params={}, profiles={})

    paper = library_sources(figure("aiq-fig07-force"), tmp_path)
    assert "agreement" in excluded_subpackages(figure("aiq-fig07-force"))
    assert "subjects" in excluded_subpackages(figure("aiq-fig07-force"))
    assert paper == [f"src/intellimetry/{name}" for name in ("aiq", "paths.py", "stats")]
    study = figure("agreement-fig01-matrix", ("survival", "aiq", "combined", "gindex", "agitb"))
    assert library_sources(study, tmp_path) == [f"src/intellimetry/{name}" for name in (
        "agitb", "agreement", "aiq", "combined", "gindex", "paths.py", "stats", "subjects", "survival")]  # not soc
