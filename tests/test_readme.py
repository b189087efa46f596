"""A README that leads with results (issue 36, item 9): its block of verdict totals, papers and addresses is
generated from committed data (data/reference, data/runs/quick.json, book/_config.yml), and a test fails
when the committed README or CITATION.cff differs from what the generator writes."""
from __future__ import annotations

import copy
import json

import pytest

from intellimetry import paths
from intellimetry.book import readme, scoreboard
from intellimetry.pipeline.schedule import runs_path

RECORD = json.loads(runs_path("quick").read_text(encoding="utf-8"))
URL = "https://github.com/someone/book"


def _block(record: dict, url: str = URL) -> list[str]:
    from intellimetry.book import citations

    return readme.block_lines(url, record, scoreboard.recorded_rows(record), citations.load_papers(), "9.9.9")


def _all_papers_line(lines: list[str]) -> str:
    return next(line for line in lines if line.startswith("| **all papers**"))


def test_readme_and_citation_cff_are_up_to_date():
    stale = [path.name for path, text in readme.expected().items() if path.read_text(encoding="utf-8") != text]
    assert not stale, f"{', '.join(stale)} out of date: run `.venv/bin/python -m intellimetry.book readme`"


def test_the_totals_are_the_scoreboard_s_over_the_record():
    rows = scoreboard.recorded_rows(RECORD)
    counts = scoreboard.totals(rows)["all papers"]
    expected = " | ".join(str(counts.get(status, 0)) for status in scoreboard.CLAIM_COLUMNS)
    assert f"| **all papers** | {counts['items']} | {expected} |" in _all_papers_line(_block(RECORD))
    assert counts.get(scoreboard.NOT_RUN, 0) == 0  # every covered item has its verdict in the record


def test_a_changed_verdict_changes_the_block():
    # the check can fail: one reproduced verdict turned inconclusive moves one count between columns
    changed = copy.deepcopy(RECORD)
    fig_id, item = next((fig_id, item) for fig_id, entry in changed["figures"].items()
                        for item, verdict in entry["verdicts"].items() if verdict == "reproduced")
    changed["figures"][fig_id]["verdicts"][item] = "inconclusive"
    before, after = (scoreboard.recorded_rows(r) for r in (RECORD, changed))
    old, new = scoreboard.totals(before)["all papers"], scoreboard.totals(after)["all papers"]
    assert (new["reproduced"], new["inconclusive"]) == (old["reproduced"] - 1, old["inconclusive"] + 1)
    assert _all_papers_line(_block(changed)) != _all_papers_line(_block(RECORD))


def test_figures_missing_from_the_record_are_counted_as_not_run():
    lines = _block({"figures": {}})
    assert any(line.endswith("items name figures that have no verdict for them in the record yet.") for line in lines)
    assert "| **all papers** | " in _all_papers_line(lines) and "commit unknown" in "\n".join(lines)


def test_the_block_leads_with_the_online_book_and_the_papers():
    text = "\n".join(_block(RECORD))
    assert "Read it online at **https://someone.github.io/book/**" in text
    assert "[AIQ](https://someone.github.io/book/aiq/index.html)" in text
    assert "“Towards a Measure of General Machine Intelligence”" in text  # the g-index paper's title
    assert "`CITATION.cff` (version 9.9.9)" in text
    offline = "\n".join(_block(RECORD, url="https://gitlab.com/someone/book"))
    assert "Build it with `make book`" in offline and "github.io" not in offline


def test_only_the_block_is_rewritten():
    block = [readme.BEGIN, "new", readme.END]
    text = f"# Title\n\nbefore\n{readme.BEGIN}\nold\n{readme.END}\nafter\n"
    assert readme.rewrite_block(text, block) == f"# Title\n\nbefore\n{readme.BEGIN}\nnew\n{readme.END}\nafter\n"


@pytest.mark.parametrize("text", ["# no markers\n", f"{readme.BEGIN}\n{readme.END}\n{readme.BEGIN}\n{readme.END}\n",
                                  f"{readme.END}\n{readme.BEGIN}\n"])
def test_a_readme_without_one_block_is_refused(text, tmp_path):
    with pytest.raises(readme.ReadmeError, match="needs exactly one generated block"):
        readme.rewrite_block(text, [], tmp_path / "README.md")


def test_the_readme_keeps_the_two_commands_and_sends_machinery_to_the_book():
    text = (paths.REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert text.index("## What the book reproduces") < text.index("## Two commands")
    assert "make book    #" in text and "make test    #" in text
    assert "SLURMCluster" not in text and "## Design" not in text  # in book/reproduce.md and book/design.md
    reproduce = (paths.BOOK_DIR / "reproduce.md").read_text(encoding="utf-8")
    assert "SLURMCluster" in reproduce and "## Every verb" in reproduce
    assert "**Staleness**" in (paths.BOOK_DIR / "design.md").read_text(encoding="utf-8")


def test_the_check_command_names_a_stale_file(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "README.md"
    stale.write_text("old")
    monkeypatch.setattr(readme, "expected", lambda: {stale: "new"})
    monkeypatch.setattr(readme.paths, "REPO_ROOT", tmp_path)
    assert readme.main(["--check"]) == 1 and stale.read_text() == "old"
    assert "README.md is out of date: run `python -m intellimetry.book readme`" in capsys.readouterr().err
    assert readme.main([]) == 0 and stale.read_text() == "new"
