"""The reproduce page's paper-scale table: every figure that takes a path or a model id is in it, its
commands pass the runner's parameter checks, and the registry refuses a malformed `paper_scale`."""
from __future__ import annotations

import shlex
from dataclasses import replace

import pytest

from intellimetry import paths
from intellimetry.book.paper_scale import missing_paper_scale, table_markdown, takes_path_or_model
from intellimetry.pipeline.registry import RegistryError, discover, load_figure
from intellimetry.pipeline.runner import split_targets
from tests.conftest import SPEC, write_figure

FIGURES = discover(paths.NOTEBOOKS_DIR)
TABLE = "\n".join(table_markdown(FIGURES))


def table_ids(table: str) -> set[str]:
    return {fig_id for fig_id in FIGURES if f"{{ref}}`{fig_id} <{fig_id}>`" in table}


def test_every_figure_taking_a_path_or_model_id_is_in_the_table():
    taking = {fig_id for fig_id, figure in FIGURES.items() if takes_path_or_model(figure)}
    # known answers: the MNIST folder, the BEIR folder and retriever ids, the language model, AIQ's data folder
    assert {"survival-fig02-mnist-decay", "survival-fig04-search", "survival-fig05-recommendation",
            "survival-fig09-writing", "aiq-fig05-entropy", "aiq-fig16-suite"} <= taking
    assert "survival-fig01-levels" not in taking and "survival-fig03-vision" not in taking
    assert missing_paper_scale(FIGURES) == []
    assert taking <= table_ids(TABLE)


def test_the_coverage_check_catches_a_figure_without_paper_scale():
    bare = {**FIGURES, "survival-fig02-mnist-decay": replace(FIGURES["survival-fig02-mnist-decay"], paper_scale=None)}
    assert missing_paper_scale(bare) == ["survival-fig02-mnist-decay"]
    assert "survival-fig02-mnist-decay" not in table_ids("\n".join(table_markdown(bare)))


def test_the_table_is_on_the_reproduce_page():
    text = (paths.BOOK_DIR / "reproduce.md").read_text(encoding="utf-8")
    assert "```{paper-scale-table}" in text


@pytest.mark.parametrize("fig_id", [f for f in FIGURES if FIGURES[f].paper_scale])
def test_each_paper_scale_command_passes_the_runners_checks(fig_id):
    figure = FIGURES[fig_id]
    for command in figure.paper_scale.commands(fig_id):
        assert f"`{command}`" in TABLE
        make, verb, id_word, params_word = shlex.split(command)  # as the shell hands them to make
        assert (make, verb, id_word) == ("make", "fig", f"ID={fig_id}")
        ids, overrides = split_targets([id_word.removeprefix("ID="), *params_word.removeprefix("PARAMS=").split()])
        assert ids == [fig_id]
        resolved = figure.resolve("quick", overrides)  # paths need not exist to pass
        assert any(resolved[name] != figure.resolve("quick")[name] for name in overrides)


def yaml_with(paper_scale: str) -> str:
    return SPEC + paper_scale


@pytest.mark.parametrize("paper_scale, message", [
    ("paper_scale: /data/mnist\n", "exactly the keys"),
    ("paper_scale: {offline: digits, params: n=5}\n", "exactly the keys"),
    ("paper_scale: {offline: digits, params: n=5, layout: a folder, command: x}\n", "exactly the keys"),
    ("paper_scale: {offline: digits, params: [], layout: a folder}\n", "non-empty 'name=value"),
    ("paper_scale: {offline: '', params: n=5, layout: a folder}\n", "offline must be a non-empty text"),
    ("paper_scale: {offline: digits, params: data_dir=/x, layout: a folder}\n", "unknown parameter 'data_dir'"),
    ("paper_scale: {offline: digits, params: n=5000, layout: a folder}\n", "'n': 5000 is not allowed"),
    ("paper_scale: {offline: digits, params: n=5 n=6, layout: a folder}\n", "given twice"),
    ("paper_scale: {offline: digits, params: n, layout: a folder}\n", "must look like name=value"),
])
def test_the_registry_refuses_a_malformed_paper_scale(tmp_path, paper_scale, message):
    write_figure(tmp_path, "survival-fig01-tiny")
    spec = tmp_path / "notebooks" / "survival" / "survival-fig01-tiny.yaml"
    spec.write_text(yaml_with(paper_scale))
    with pytest.raises(RegistryError, match="paper_scale") as err:
        load_figure(spec)
    assert message in str(err.value) and str(spec) in str(err.value)


def test_a_valid_paper_scale_is_read_and_a_fragments_is_inherited(tmp_path):
    write_figure(tmp_path, "survival-fig01-tiny")
    folder = tmp_path / "notebooks" / "survival"
    spec = folder / "survival-fig01-tiny.yaml"
    spec.write_text(yaml_with("paper_scale:\n  offline: three points\n  params: [n=50, 'n=60 reads=x.yaml']\n"
                              "  layout: nothing\n"))
    scale = load_figure(spec).paper_scale
    assert scale.commands("survival-fig01-tiny") == ['make fig ID=survival-fig01-tiny PARAMS="n=50"',
                                                     'make fig ID=survival-fig01-tiny PARAMS="n=60 reads=x.yaml"']
    (folder / "_shared.yaml").write_text("paper_scale: {offline: shared, params: n=7, layout: none}\n")
    spec.write_text("extends: _shared.yaml\n" + SPEC)
    assert load_figure(spec).paper_scale.params == ("n=7",)
