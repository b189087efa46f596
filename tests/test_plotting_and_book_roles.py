"""save_figure's files and sidecar; the book roles that quote them; atomic writes."""
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest

from intellimetry import atomic
from intellimetry.book.check import prose_in_tex, svg_text_sizes
from intellimetry.book.roles import LookupFailed, cache_reuse, dig, format_value, split_reference
from intellimetry.plotting import save_figure
from intellimetry.provenance import RUN_CONTEXT_ENV


def small_figure():
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [3, 1, 2])
    return fig


def test_save_figure_under_the_runner_writes_files_and_sidecar(tmp_path, monkeypatch):
    context = {"figure_id": "survival-fig99-test", "profile": "quick", "parameters": {"n": 2},
               "hash": "abc", "output_dir": str(tmp_path), "commit": "1234"}
    monkeypatch.setenv(RUN_CONTEXT_ENV, json.dumps(context))
    fig = small_figure()
    path = save_figure(fig, "survival-fig99-test", values={"alpha": np.float64(2.5), "counts": np.arange(3)})
    sidecar = json.loads(path.read_text())
    assert sidecar["values"] == {"alpha": 2.5, "counts": [0, 1, 2]}
    assert sidecar["profile"] == "quick" and sidecar["parameters"] == {"n": 2} and sidecar["commit"] == "1234"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "survival-fig99-test.json", "survival-fig99-test.png", "survival-fig99-test.svg"]
    svg = (tmp_path / "survival-fig99-test.svg").read_bytes()
    save_figure(fig, "survival-fig99-test")
    assert (tmp_path / "survival-fig99-test.svg").read_bytes() == svg  # deterministic output
    with pytest.raises(ValueError, match="one notebook, one figure id"):
        save_figure(fig, "survival-fig98-other")
    plt.close(fig)


def test_save_figure_by_hand_goes_to_the_interactive_folder(tmp_path, monkeypatch):
    from intellimetry.plotting import save as save_module

    monkeypatch.delenv(RUN_CONTEXT_ENV, raising=False)
    monkeypatch.setattr(save_module.paths, "FIGURES_DIR", tmp_path)
    fig = small_figure()
    path = save_figure(fig, "soc-fig01-test", values={"x": 1})
    assert path == tmp_path / "interactive" / "soc" / "soc-fig01-test.json"
    assert json.loads(path.read_text())["profile"] == "interactive"
    plt.close(fig)


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "result.json"
    atomic.write_json(target, {"a": 1})
    with pytest.raises(RuntimeError):
        with atomic.atomic_path(target) as tmp:
            tmp.write_text('{"a": 2, "trunc')
            raise RuntimeError("crash mid-write")
    assert json.loads(target.read_text()) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]


def test_role_references_and_formatting():
    assert split_reference("survival-fig01-levels:limited.alpha%.2f") == (
        "survival-fig01-levels", "limited.alpha", ".2f")
    assert dig({"a": {"b": [10, 20]}}, "a.b.1") == 20
    with pytest.raises(LookupFailed, match="no key 'a.c'"):
        dig({"a": {"b": 1}}, "a.c")
    with pytest.raises(LookupFailed):
        split_reference("no-colon-here")
    assert format_value(1.23456) == "1.23"
    assert format_value(20000, ",") == "20,000"
    assert format_value(True) == "yes"
    assert format_value(5.166e15, "sci2") == "5.2 × 10¹⁵"
    assert format_value(2.0668e26, "sci3") == "2.07 × 10²⁶"
    assert format_value(1e-4, "sci2") == "10⁻⁴"
    assert format_value(2.0668e26, "sci0") == "10²⁶"


def test_svg_text_size_is_judged_per_text_with_its_largest_part():
    svg = ('<svg viewBox="0 0 400 300"><text style="font-size: 10px">10<tspan style="font-size: 7px">−2</tspan>'
           '</text><text style="font-size: 6px"> </text><text style="font-size: 9px">label</text></svg>')
    assert svg_text_sizes(svg) == [10.0, 9.0]


def test_prose_or_roles_inside_a_formula_are_found():
    assert prose_in_tex("{paper}`survival/x.yaml:price` per GPU, Apple's value of")
    assert prose_in_tex("30,000 per GPU and a market value of")
    assert not prose_in_tex(r"P(k) \propto k^{-\alpha}, \text{for all events} k \ge 1")


def test_a_recorded_run_says_how_many_trained_items_it_reused():
    said = " ({} of {} trained items reused from the model cache)"
    assert cache_reuse({"model_cache": {"hits": 9, "misses": 0}}) == said.format(9, 9)
    assert cache_reuse({"model_cache": {"hits": 4, "misses": 5}}) == said.format(4, 9)
    # a first run, or a record from before the cache was recorded, says nothing
    assert cache_reuse({"model_cache": {"hits": 0, "misses": 5}}) == ""
    assert cache_reuse({"wall_time_s": 3.0}) == ""
