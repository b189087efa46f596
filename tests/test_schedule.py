"""How a build uses the machine: longest figures first, a share of the cores per kernel, the summary,
one chapter at a time, and trained models made once when notebooks run side by side."""
from __future__ import annotations

import io
import json
import multiprocessing

import pytest

from intellimetry.cache import ModelCache, TrainingCode
from intellimetry.pipeline import schedule
from intellimetry.pipeline.registry import ParameterError
from intellimetry.pipeline.runner import plan, run


def test_longest_first_uses_the_sidecar_then_the_records_then_a_default(tmp_path):
    sidecar = tmp_path / "a.json"
    sidecar.write_text(json.dumps({"wall_time_s": 12.5}))
    records = [{"a": 99.0, "b": 40.0}, {"b": 7.0, "c": 3.0}]
    assert schedule.expected_seconds(sidecar, "a", records) == 12.5  # its own last run wins
    assert schedule.expected_seconds(tmp_path / "none.json", "b", records) == 40.0  # first record that has it
    assert schedule.expected_seconds(tmp_path / "none.json", "c", records) == 3.0
    assert schedule.expected_seconds(tmp_path / "none.json", "d", records) == schedule.UNKNOWN_SECONDS
    seconds = {"a": 12.5, "b": 40.0, "c": 3.0, "d": 12.5}
    assert schedule.longest_chains_first(["a", "b", "c", "d"], seconds, key=str, chain=lambda _: None) \
        == ["b", "a", "d", "c"]


def test_figures_sharing_a_fragment_run_as_one_chain_in_figure_order():
    # fig29 was timed longest because it trained the models fig23 and fig24 measure: the chain
    # (fig23, fig24, fig29) still starts with fig23, and the chain's total puts it first
    seconds = {"aiq-fig23": 5.0, "aiq-fig24": 6.0, "aiq-fig29": 70.0, "soc-fig15": 40.0, "gindex-fig09": 27.0}
    fragment = {"aiq-fig23": "_cartpole3d.yaml", "aiq-fig24": "_cartpole3d.yaml", "aiq-fig29": "_cartpole3d.yaml"}
    items = ["soc-fig15", "aiq-fig29", "gindex-fig09", "aiq-fig24", "aiq-fig23"]
    assert schedule.longest_chains_first(items, seconds, key=str, chain=fragment.get) == \
        ["aiq-fig23", "aiq-fig24", "aiq-fig29", "soc-fig15", "gindex-fig09"]


def test_a_committed_record_gives_each_figures_time(tmp_path):
    schedule.runs_path("quick", tmp_path).write_text(json.dumps(
        {"figures": {"x-fig01-a": {"wall_time_s": 4.0}, "x-fig02-b": {"wall_time_s": None}}}))
    assert schedule.recorded_seconds("quick", tmp_path) == {"x-fig01-a": 4.0}
    assert schedule.recorded_seconds("full", tmp_path) == {}  # no record: nothing known


@pytest.mark.parametrize("jobs, cores, share", [(1, 2, "2"), (2, 2, "1"), (3, 2, "1"), (2, 16, "8")])
def test_each_kernel_gets_its_share_of_the_cores(jobs, cores, share):
    limits = schedule.thread_environment(jobs, environ={}, cores=cores)
    assert set(limits) == set(schedule.THREAD_VARIABLES) and set(limits.values()) == {share}


def test_a_thread_limit_the_user_set_is_kept():
    limits = schedule.thread_environment(2, environ={"OMP_NUM_THREADS": "4"}, cores=2)
    assert "OMP_NUM_THREADS" not in limits and limits["NUMBA_NUM_THREADS"] == "1"


def test_the_summary_names_the_slowest_figures_and_adds_up_cache_use():
    built = [{"figure_id": f"f{i}", "wall_time_s": float(i), "cpu_time_s": 2.0,
              "model_cache": {"hits": i % 2, "misses": 1}} for i in range(7)]
    text = schedule.summary(30.0, built, fresh=3, jobs=2)
    assert "7 figure(s) run in 30 s with 2 at once (14 CPU s in their kernels); 3 up to date" in text
    assert "slowest: f6 6 s, f5 5 s, f4 4 s, f3 3 s, f2 2 s" in text
    assert "3 trained item(s) reused, 7 trained" in text


def test_a_run_orders_figures_longest_first_and_ends_with_the_summary(mini_project):
    fig_times = {"survival-fig01-tiny": 1.0, "soc-fig02-tiny": 50.0}
    tasks = plan(mini_project, [])
    ordered = schedule.longest_chains_first(tasks, fig_times, key=lambda t: t.figure.id, chain=lambda t: None)
    assert [t.figure.id for t in ordered] == ["soc-fig02-tiny", "survival-fig01-tiny"]
    report = io.StringIO()
    run(mini_project, [], jobs=2, out=report)
    assert "summary: 2 figure(s) run in" in report.getvalue() and "slowest: " in report.getvalue()
    report = io.StringIO()
    run(mini_project, [], jobs=2, out=report)  # nothing stale: no summary of nothing
    assert "nothing to run" in report.getvalue()


def test_one_paper_at_a_time(mini_project):
    assert [t.figure.id for t in plan(mini_project, [], papers=["soc"])] == ["soc-fig02-tiny"]
    with pytest.raises(ParameterError, match="unknown paper.*allowed: survival"):
        plan(mini_project, [], papers=["nope"])


def _make_item(root: str, started, log: str) -> None:
    """Look up an item, else 'train' it (append to log) and store it, under the item's claim."""
    cache = ModelCache(TrainingCode("claim-test", 1, (_make_item,), packages=()), root)
    key = cache.key(seed=0)
    started.wait()
    with cache.claim(key):
        if cache.load_json(key) is None:
            with open(log, "a") as out:
                out.write("trained\n")
            cache.store_json(key, {"weights": [1, 2, 3]})


def test_two_processes_needing_one_item_make_it_once(tmp_path):
    context = multiprocessing.get_context("spawn")
    started = context.Event()
    log = tmp_path / "log.txt"
    workers = [context.Process(target=_make_item, args=(str(tmp_path / "cache"), started, str(log)))
               for _ in range(2)]
    for worker in workers:
        worker.start()
    started.set()
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0, 0]
    assert log.read_text() == "trained\n"


def test_usage_counts_items_found_and_made_once_each(tmp_path, monkeypatch):
    from intellimetry import cache as cache_module

    monkeypatch.setattr(cache_module, "_first_looks", {})
    cache = ModelCache(TrainingCode("usage-test", 1, (_make_item,), packages=()), tmp_path)
    made, found = cache.key(seed=1), cache.key(seed=2)
    cache.store_json(found, {"x": 1})
    cache_module._first_looks.clear()  # as if stored by an earlier run
    assert cache.load_json(made) is None
    cache.store_json(made, {"x": 2})
    assert cache.load_json(made) == {"x": 2}  # found now, but it was made by this process
    assert cache.load_json(found) == {"x": 1} and cache.lookup(found, ".json") is not None
    assert cache_module.usage() == {"hits": 1, "misses": 1}
