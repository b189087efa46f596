"""The YAML's `needs`: parameter values a paper item's criterion reads are checked before a run starts
(issue 36, item 7), on the real figures, on the command line, and for malformed declarations."""
from __future__ import annotations

import pytest

from intellimetry import paths
from intellimetry.aiq.study import paper_domain
from intellimetry.pipeline import lanes, runner
from intellimetry.pipeline.registry import ParameterError, RegistryError, discover, load_figure
from intellimetry.verdicts import load_items
from tests.conftest import NOTEBOOK, SPEC

FIGURES = discover(paths.NOTEBOOKS_DIR)
NEEDING = {fig_id: figure for fig_id, figure in FIGURES.items() if figure.needs}
FIG02 = "survival-fig02-mnist-decay"


def test_an_override_dropping_a_model_the_criterion_ranks_is_refused_naming_both():
    with pytest.raises(ParameterError) as refused:
        FIGURES[FIG02].resolve("quick", {"models": "linear,cnn"})
    message = str(refused.value)
    assert "parameter 'models' = linear,cnn lacks mlp" in message
    assert "survival item 'fig02'" in message and "data/reference/survival/items.yaml" in message


def test_an_override_keeping_the_needed_values_is_accepted():
    figure = FIGURES[FIG02]
    assert figure.resolve("quick", {"models": "cnn,mlp,linear"})["models"] == ["cnn", "mlp", "linear"]
    assert figure.resolve("full", {"datasets": "mnist1d"})["datasets"] == ["mnist1d"]  # not a need


def test_a_stand_in_or_the_papers_own_domain_meets_a_need_and_every_item_missing_one_is_named():
    figure = FIGURES["aiq-fig16-suite"]
    paper = "mnist,fashion-mnist,cifar10,cifar100,cartpole"
    assert figure.resolve("quick", {"suite": paper})["suite"] == paper.split(",")
    with pytest.raises(ParameterError) as refused:
        figure.resolve("quick", {"suite": "digits,shapes10,shapes100,cartpole"})
    message = str(refused.value)
    assert "lacks one of digits-hard or fashion-mnist" in message
    assert "item 'fig16'" in message and "item 'fig17'" in message


def test_the_command_line_refuses_before_anything_runs(tmp_path, monkeypatch, capsys):
    def must_not_run(*args, **kwargs):
        raise AssertionError("a refused override must not reach execution")

    # the execution loops live in pipeline.lanes, which holds its own names of these
    for module in (runner, lanes):
        monkeypatch.setattr(module, "execute_locked", must_not_run)
        monkeypatch.setattr(module, "prepare_all", must_not_run)
    code = runner.main(["--figures-dir", str(tmp_path), "run", FIG02, "models=linear,cnn",
                        "--profile", "quick", "--jobs", "1"])
    assert code == 2
    error = capsys.readouterr().err
    assert f"error: {FIG02}: parameter 'models'" in error and "item 'fig02'" in error
    assert not any(tmp_path.rglob("*"))  # not even a staging folder


@pytest.mark.parametrize("fig_id", NEEDING)
def test_every_needing_item_exists_and_is_judged_on_that_figure(fig_id):
    figure = NEEDING[fig_id]
    items = {item["id"]: item for item in load_items(figure.paper)["items"]}
    for item_id in figure.needs:
        assert item_id in items, f"{fig_id}: needs names {item_id!r}, not an item of {figure.paper}"
        assert items[item_id].get("figure") == fig_id


# How each figure names a value of its list parameter in the values its criteria order (same_order).
ORDERED_AS = {FIG02: str, "soc-fig15-avalanches": lambda d: f"d{d}",
              "aiq-fig05-entropy": paper_domain, "aiq-fig16-suite": paper_domain}


def _orders(criterion: dict) -> list[list]:
    if "all" in criterion:
        return [order for part in criterion["all"] for order in _orders(part)]
    return [criterion["order"]] if criterion.get("test") == "same_order" else []


@pytest.mark.parametrize("fig_id", ORDERED_AS)
def test_every_name_a_criterion_orders_is_a_needed_value(fig_id):
    figure, name_of = FIGURES[fig_id], ORDERED_AS[fig_id]
    items = {item["id"]: item for item in load_items(figure.paper)["items"] if item.get("figure") == fig_id}
    for item_id, item in items.items():
        ordered = {name for key in ("criterion", "qualitative") if key in item for order in _orders(item[key])
                   for name in order}
        needed = {name_of(v) for needs in figure.needs.get(item_id, {}).values()
                  for need in needs for v in (need if isinstance(need, list) else [need])}
        assert ordered <= needed, f"{fig_id}, item {item_id}: orders {sorted(ordered - needed)} not in its needs"


def test_the_cartpole3d_needs_are_the_novelties_the_paper_names():
    paper = paths.load_reference("aiq/paper.yaml")["cartpole3d"]
    assert FIGURES["aiq-fig23-novelty-complexity"].needs == {"fig23": {"novelties": paper["most_complex"]}}
    assert FIGURES["aiq-fig24-novelty-dissimilarity"].needs == {"fig24": {"novelties": paper["most_dissimilar"]}}
    assert FIGURES["aiq-fig25-novelty-space"].needs == {"fig27": {"novelties": paper["bounding_tests"]}}


LIST_SPEC = SPEC.replace("profiles:", "  models: {type: \"list[str]\", choices: [a, b, c]}\nprofiles:").replace(
    'reads: ""}', 'reads: "", models: [a, b, c]}')


def _figure_yaml(tmp_path, text: str):
    folder = tmp_path / "survival"
    folder.mkdir(exist_ok=True)
    (folder / "survival-fig09-tiny.md").write_text(NOTEBOOK.format(fig_id="survival-fig09-tiny"))
    spec = folder / "survival-fig09-tiny.yaml"
    spec.write_text(text)
    return spec


def test_a_yaml_whose_own_profile_drops_a_needed_value_is_refused(tmp_path):
    needs = "needs:\n  fig09: {models: [a, c]}\n"
    assert load_figure(_figure_yaml(tmp_path, LIST_SPEC + needs)).needs == {"fig09": {"models": ["a", "c"]}}
    smoke = LIST_SPEC + "  smoke: {models: [a, b]}\n" + needs
    with pytest.raises(RegistryError, match=r"profile 'smoke': parameter 'models' = a,b lacks c.*item 'fig09'"):
        load_figure(_figure_yaml(tmp_path, smoke))
    scale = LIST_SPEC + needs + 'paper_scale: {offline: x, params: "models=a,b", layout: y}\n'
    with pytest.raises(RegistryError, match=r"paper_scale: params 'models=a,b': parameter 'models'"):
        load_figure(_figure_yaml(tmp_path, scale))


@pytest.mark.parametrize("needs, match", [
    ("{fig09: {n: [3]}}", r"item 'fig09' names 'n'; allowed: a list parameter, one of models"),
    ("{fig09: {nope: [a]}}", r"item 'fig09' names 'nope'"),
    ("{fig09: {models: [a, d]}}", r"item 'fig09': parameter 'models': \['d'\] is not allowed; expected one of a, b, c"),
    ("{fig09: {models: [[a, d]]}}", r"parameter 'models': \['a', 'd'\] is not allowed"),
    ("{fig09: {models: []}}", r"models needs a non-empty list of values"),
    ("[models]", r"expected \{item id: \{parameter: \[values\]\}\}"),
    ("{fig09: {}}", r"expected \{item id"),
])
def test_a_malformed_needs_is_refused_naming_what_is_allowed(tmp_path, needs, match):
    with pytest.raises(RegistryError, match=match):
        load_figure(_figure_yaml(tmp_path, LIST_SPEC + f"needs: {needs}\n"))
