"""The page's figure ({figure-values}), the {param} role, and the migration and its rendered-text check."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from intellimetry import paths
from intellimetry.book import migrate, pagetext, split, tables
from intellimetry.book.roles import CURRENT_FIGURE, LookupFailed, lookup_param, lookup_result, split_figure_reference

FIG = "survival-fig01-levels"


def fake_env(srcdir, current=None):
    env = SimpleNamespace(srcdir=str(srcdir), temp_data={}, note_dependency=lambda path: None)
    if current:
        env.temp_data[CURRENT_FIGURE] = current
    return env


def write_sidecar(root, fig_id, values, parameters):
    path = paths.sidecar_path(root, fig_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"values": values, "parameters": parameters}), encoding="utf-8")


def test_a_role_names_its_figure_or_takes_the_pages():
    assert split_figure_reference(fake_env("."), f"{FIG}:a.b%.2f") == (FIG, "a.b", ".2f")
    assert split_figure_reference(fake_env(".", FIG), "a.b%.2f") == (FIG, "a.b", ".2f")
    assert split_figure_reference(fake_env(".", "aiq-fig07-force"), f"{FIG}:a") == (FIG, "a", "")
    with pytest.raises(LookupFailed, match="names no figure"):
        split_figure_reference(fake_env("."), "a.b")
    with pytest.raises(LookupFailed, match="not a figure id"):
        split_figure_reference(fake_env("."), "nonsense:a.b")


def test_result_and_param_read_the_pages_figure(tmp_path):
    write_sidecar(tmp_path / paths.GENERATED, FIG, {"fit": 1.23456}, {"n_events": 20000})
    env = fake_env(tmp_path, FIG)
    assert lookup_result(env, "fit%.2f") == "1.23"
    assert lookup_param(env, "n_events%,") == "20,000"
    assert lookup_param(fake_env(tmp_path), f"{FIG}:n_events") == "20000"
    with pytest.raises(LookupFailed, match="no parameter 'missing'.*n_events"):
        lookup_param(env, "missing")


def test_param_reads_an_item_of_a_list_by_index(tmp_path):
    write_sidecar(tmp_path / paths.GENERATED, FIG, {}, {"sides": [64, 128, 256]})
    env = fake_env(tmp_path, FIG)
    assert lookup_param(env, "sides.1") == "128"
    with pytest.raises(LookupFailed):
        lookup_param(env, "sides.3")
    with pytest.raises(LookupFailed, match="cannot be printed in prose"):
        lookup_param(env, "sides")  # a whole list is not prose


def test_param_reads_a_profile_from_the_figures_yaml(tmp_path):
    quick = lookup_param(fake_env(tmp_path, FIG), "@quick:n_events")
    full = lookup_param(fake_env(tmp_path), f"{FIG}@full:n_events")
    assert int(full) > int(quick) > 0  # the full profile draws more events than quick
    with pytest.raises(LookupFailed, match="unknown profile"):
        lookup_param(fake_env(tmp_path, FIG), "@huge:n_events")


PAGE = """# Title

{result}`%(fig)s:a`

## Figure 1

Text {result}`%(fig)s:fit%%.2f` and {result}`%(fig)s:n_events%%,`, {verdict}`%(fig)s:fig01`,
{result}`aiq-fig07-force:rho` of another figure.

```bash
## a shell comment, not a heading
```

```{provenance} %(fig)s
```
""" % {"fig": FIG}


def test_migration_sets_the_sections_figure_and_turns_copied_parameters_into_param(tmp_path):
    write_sidecar(tmp_path / "quick", FIG, {"fit": 1.5, "n_events": 10, "a": 1}, {"n_events": 10})
    write_sidecar(tmp_path / "full", FIG, {"fit": 1.5, "n_events": 99, "a": 1}, {"n_events": 99})
    out = migrate.migrate_page(PAGE, tmp_path)
    assert f"{{result}}`{FIG}:a`" in out  # before any heading: unchanged
    assert f"## Figure 1\n\n```{{figure-values}} {FIG}\n```\n" in out
    assert "{result}`fit%.2f` and {param}`n_events%,`, {verdict}`fig01`" in out
    assert "{result}`aiq-fig07-force:rho`" in out
    assert out.count("figure-values") == 1  # the shell comment opened no section


def test_a_value_that_differs_from_its_parameter_in_one_profile_stays_a_result(tmp_path):
    write_sidecar(tmp_path / "quick", FIG, {"n_events": 10}, {"n_events": 10})
    write_sidecar(tmp_path / "full", FIG, {"n_events": 98}, {"n_events": 99})
    assert migrate.copied_parameters(FIG, tmp_path) == set()


def test_pagetext_finds_a_changed_word_and_ignores_layout(tmp_path):
    old = {"a.html": "<html><body><article><p>alpha  is\n 1.5</p></article><footer>x</footer></body></html>",
           "b.html": "<article>same</article>"}
    new = {"a.html": "<article><div><p>alpha is 1.6</p></div></article>", "b.html": "<article>same</article>"}
    for name, pages in (("old", old), ("new", new)):
        for page, html in pages.items():
            (tmp_path / name).mkdir(exist_ok=True)
            (tmp_path / name / page).write_text(html, encoding="utf-8")
    lines = pagetext.differences(pagetext.book_texts(tmp_path / "old"), pagetext.book_texts(tmp_path / "new"))
    assert lines == ["a.html: …alpha is [1.5] became [1.6]"]
    assert pagetext.main([str(tmp_path / "old"), str(tmp_path / "old")]) == 0


ROW = ("| {label} | {{result}}`digits.{key}.accuracy%.3f` | {{result}}`digits.{key}.alpha%.2f` "
       "[{{result}}`digits.{key}.lo`] |")
LABELS = {"linear": "Linear", "cnn-w4": "CNN, width four", "cnn-w16": "CNN, width sixteen"}
LONG_TABLE = ["| Model | Accuracy | α [interval] |", "|---|---|---|",
              *(ROW.format(key=key, label=label) for key, label in LABELS.items())]


def test_a_long_table_becomes_a_template_and_its_rows_and_expands_back():
    short = tables.compress(LONG_TABLE)
    assert short[1] == ROW.format(key="<key>", label="<1>")
    assert short[2:] == ["- linear | Linear", "- cnn-w4 | CNN, width four", "- cnn-w16 | CNN, width sixteen"]
    assert tables.expand(short) == LONG_TABLE  # the same rows, so the same rendered table


def test_rows_that_share_no_template_stay_as_written():
    mixed = LONG_TABLE[:3] + ["| Popularity | none | {result}`rates.popularity.alpha%.2f` |"]
    assert tables.compress(mixed) is None
    assert tables.expand([LONG_TABLE[0], LONG_TABLE[1].replace("digits.linear", "<key>"), "- digits.linear",
                          "| as | written | here |"])[-1] == "| as | written | here |"


def test_a_row_with_too_few_labels_or_cells_is_an_error():
    with pytest.raises(tables.TableError, match="needs more"):
        tables.expand(["| a | b |", "| <1> | <2> |", "- key | only one"])
    with pytest.raises(tables.TableError, match="2 cells, the header 3"):
        tables.expand(["| a | b | c |", "| <1> | x | y |", "| only | two |"])


CHAPTER = """# A chapter

```{figure-values} aiq-fig06-classes
```

Intro {result}`aiq-fig07-force:x`.

## The method

How it works.

(method-end)=
## Complexity

```{figure-values} aiq-fig06-classes
```

:::{figure} /generated/aiq/aiq-fig06-classes.svg
:name: aiq-fig06-classes
:::

```{provenance} aiq-fig06-classes
```

Classes: {result}`slope%.1f`, **{verdict}`fig06`**.

The force figure (Figure 7) shows {result}`aiq-fig07-force:rho`.

:::{figure} /generated/aiq/aiq-fig07-force.svg
:name: aiq-fig07-force
:::

```{provenance} aiq-fig07-force
```

Force: {verdict}`aiq-fig07-force:fig07`.
"""


def test_split_moves_each_figure_to_its_page_with_its_opening_paragraph():
    overview, pages = split.split_chapter(CHAPTER)
    text = "\n".join(overview)
    assert "## The method" in text and "## The figures" in text and "Complexity" not in text
    assert "(method-end)=" not in text  # the target goes with the heading under it
    assert "{result}`aiq-fig07-force:x`" in text and "figure-values" not in text
    (group,) = pages
    assert group.name == "complexity" and group.lines[:2] == ["(method-end)=", "# Complexity"]
    classes, force = group.children
    assert classes.name == "aiq-fig06-classes" and classes.lines[0].startswith("# Figure 6: MCCP complexity")
    assert "{result}`aiq-fig06-classes:slope%.1f`" in "\n".join(classes.lines)  # ids made explicit
    force_text = "\n".join(force.lines)
    assert "The force figure (Figure 7)" in force_text  # its opening paragraph moved with it
    page = migrate.set_page_figure(force_text, "aiq-fig07-force")
    assert "```{figure-values} aiq-fig07-force\n```" in page and "{verdict}`fig07`" in page
    assert "{result}`rho`" in page
