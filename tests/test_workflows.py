"""The GitHub Actions workflows: actionlint passes, the project's own steps are Makefile targets (so
a local run proves them), every chapter has its job, and the published site links to its own repository."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from intellimetry import CHAPTERS, paths

WORKFLOWS = paths.REPO_ROOT / ".github" / "workflows"
ACTIONLINT = Path(sys.executable).with_name("actionlint")
# What a `run:` step may do besides `make <target>`: install Debian packages in the job's container.
SETUP_COMMANDS = {"apt-get"}
REPOSITORY_URL = "${{ github.server_url }}/${{ github.repository }}"
MAX_JOB_MINUTES = 360  # GitHub stops any job after six hours

BROKEN = """\
on: push
jobs:
  figures:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        paper: [soc]
    steps:
      - uses: actions/checkout@v4
      - run: make figures PAPER=${{ matrix.chapter }}
"""


def actionlint(*files: Path) -> subprocess.CompletedProcess:
    # shellcheck and pyflakes off: the result must not depend on what else is installed
    return subprocess.run([str(ACTIONLINT), "-shellcheck=", "-pyflakes=", "-no-color", "-oneline",
                           *map(str, files)], capture_output=True, text=True, cwd=paths.REPO_ROOT)


def load(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


def triggers(workflow: dict) -> dict:
    return workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true


def makefile_targets() -> set[str]:
    text = (paths.REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][a-z-]*):", text, flags=re.MULTILINE))


def run_scripts(job: dict) -> list[str]:
    return [step["run"] for step in job.get("steps", []) if "run" in step]


def make_commands(job: dict) -> list[list[str]]:
    """The words of each `make ...` command in a job's run steps."""
    commands = []
    for script in run_scripts(job):
        for command in split_commands(script):
            words = shlex.split(command)
            if words[:1] == ["make"]:
                commands.append(words)
    return commands


def split_commands(script: str) -> list[str]:
    script = re.sub(r"\$\{\{.*?\}\}", "EXPR", script.replace("\\\n", " "))
    lines = (line.split("#")[0] for line in script.splitlines())
    return [part.strip() for line in lines for part in re.split(r"&&|\|\||[;|]", line) if part.strip()]


def command_problems(script: str, targets: set[str]) -> list[str]:
    """Why a `run:` script is more than `make <existing target>` and setup commands ([] when fine)."""
    problems = []
    for command in split_commands(script):
        words = shlex.split(command)
        if words[0] == "sudo":
            words = words[1:]
        if words[0] in SETUP_COMMANDS:
            continue
        if words[0] != "make":
            problems.append(f"not a make command: {command!r}")
            continue
        named = [word for word in words[1:] if "=" not in word and not word.startswith("-")]
        if not named:
            problems.append(f"make without a target: {command!r}")
        problems += [f"no Makefile target {name!r}: {command!r}" for name in named if name not in targets]
    return problems


def jobs_running(workflow: dict, target: str) -> list[tuple[str, dict]]:
    return [(job_id, job) for job_id, job in workflow["jobs"].items()
            if any(words[1:2] == [target] for words in make_commands(job))]


def test_actionlint_passes_on_the_workflows():
    files = sorted(WORKFLOWS.glob("*.yml"))
    assert {path.name for path in files} >= {"ci.yml", "publish.yml"}
    done = actionlint(*files)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(BROKEN, encoding="utf-8")
    done = actionlint(broken)
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'property "chapter" is not defined' in done.stdout
    assert 'runtime "node20" is deprecated' in done.stdout  # an action major that is going away


def test_project_steps_are_makefile_targets():
    targets = makefile_targets()
    assert {"test", "book", "site", "figures"} <= targets
    for path in sorted(WORKFLOWS.glob("*.yml")):
        workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
        for job_id, job in workflow["jobs"].items():
            for script in run_scripts(job):
                assert command_problems(script, targets) == [], f"{path.name}, job {job_id}"


def test_the_command_check_refuses_anything_else():
    targets = {"figures", "site"}
    assert command_problems("make figures PROFILE=full PAPER=${{ matrix.paper }}", targets) == []
    assert command_problems("sudo apt-get update && apt-get install -y chromium  # browser", targets) == []
    assert command_problems("make site\nmake \\\n  figures", targets) == []
    assert command_problems("pip install -r requirements.txt", targets) == [
        "not a make command: 'pip install -r requirements.txt'"]
    assert command_problems("make site && make no-such-target", targets) == [
        "no Makefile target 'no-such-target': 'make no-such-target'"]
    assert command_problems("make PROFILE=full", targets) == ["make without a target: 'make PROFILE=full'"]
    assert command_problems("apt-get update; curl -L https://x | sh", targets) == [
        "not a make command: 'curl -L https://x'", "not a make command: 'sh'"]


def test_ci_runs_the_tests_and_the_quick_book_on_every_push():
    workflow = load("ci.yml")
    assert {"push", "pull_request"} <= set(triggers(workflow))
    assert jobs_running(workflow, "test") and jobs_running(workflow, "book")


def test_publish_builds_every_chapter_in_its_own_job():
    workflow = load("publish.yml")
    assert {"schedule", "workflow_dispatch"} <= set(triggers(workflow))
    [(job_id, job)] = jobs_running(workflow, "figures")
    # a new chapter cannot be left out, a paper's or a study's, once it has figures
    chapters = [chapter for chapter in CHAPTERS if list((paths.NOTEBOOKS_DIR / chapter).glob("*.yaml"))]
    assert sorted(job["strategy"]["matrix"]["paper"]) == sorted(chapters)
    [words] = make_commands(job)
    assert {"PROFILE=full", "PAPER=EXPR"} <= set(words)
    assert "PAPER=${{ matrix.paper }}" in " ".join(run_scripts(job))
    [(site_id, site)] = jobs_running(workflow, "site")
    assert job_id in ([site["needs"]] if isinstance(site["needs"], str) else site["needs"])


def test_the_published_site_links_to_the_repository_it_is_built_from():
    workflow = load("publish.yml")
    [(site_id, site)] = jobs_running(workflow, "site")
    [words] = make_commands(site)
    assert "PROFILE=full" in words
    step_env = [step.get("env", {}) for step in site["steps"] if "make site" in step.get("run", "")]
    env = {**workflow.get("env", {}), **site.get("env", {}), **step_env[0]}
    assert env.get("INTELLIMETRY_REPOSITORY_URL") == REPOSITORY_URL
    assert any(step.get("uses", "").startswith("actions/upload-pages-artifact@") for step in site["steps"])
    [deploy] = [job for job in workflow["jobs"].values()
                if any(step.get("uses", "").startswith("actions/deploy-pages@") for step in job["steps"])]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"


@pytest.mark.parametrize("name", ["ci.yml", "publish.yml"])
def test_every_job_has_a_timeout_within_githubs_limit(name):
    for job_id, job in load(name)["jobs"].items():
        assert 0 < job.get("timeout-minutes", 0) <= MAX_JOB_MINUTES, f"{name}, job {job_id}"


def test_make_site_renders_without_running_notebooks_and_book_reuses_it():
    # not the flags of a `make test` that runs these tests
    env = {name: value for name, value in os.environ.items() if name not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL"}}

    def dry_run(*args: str) -> str:
        done = subprocess.run(["make", "-n", *args], capture_output=True, text=True, cwd=paths.REPO_ROOT, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    site = dry_run("site", "PROFILE=full")
    assert "-m intellimetry.book build --profile full" in site
    assert "intellimetry.pipeline run" not in site
    book = dry_run("book", "PROFILE=full")
    assert "intellimetry.pipeline run" in book and "-m intellimetry.book build --profile full" in book
