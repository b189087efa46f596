"""`make lab`: JupyterLab from .venv opens the MyST notebooks as notebooks (jupytext) on the project's kernel.

The server is started as `make lab` starts it, headless, on a free local port with a token and its own
runtime folder; every wait is bounded, so a hung server fails the test instead of hanging CI.
"""
from __future__ import annotations

import io
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import jupytext
import pytest
from jupyter_client import BlockingKernelClient
from jupytext import TextFileContentsManager

from intellimetry import paths
from intellimetry.pipeline.runner import run

NOTEBOOK = "notebooks/survival/survival-fig01-levels.md"
OVERRIDES = "jupyterlab-overrides.json"  # JupyterLab settings that `make env` and Binder's postBuild install
DOCMANAGER = "@jupyterlab/docmanager-extension:plugin"
JUPYTEXT_FACTORY = "Jupytext Notebook"  # the document factory jupyterlab-jupytext registers
KERNEL_NAME = "Python 3"
VENV_BIN = Path(sys.executable).parent
STARTUP_S = 90
REQUEST_S = 20


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Lab:
    def __init__(self, url: str, token: str, runtime: Path):
        self.url, self.token, self.runtime = url, token, runtime

    def request(self, path: str, method: str = "GET", body: dict | None = None) -> dict | None:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=REQUEST_S) as response:
            text = response.read()
        return json.loads(text) if text else None


def wait_until_up(lab: Lab, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"jupyter lab exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            lab.request("/api/status")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.5)
    pytest.fail(f"jupyter lab did not answer within {STARTUP_S} s:\n{log.read_text()[-3000:]}")


def connect(connection_file: Path) -> BlockingKernelClient:
    """A client of a kernel the server started, once its heartbeat answers (before, the client takes
    the silent heartbeat for a dead kernel)."""
    deadline = time.monotonic() + STARTUP_S
    while not connection_file.exists():
        if time.monotonic() > deadline:
            pytest.fail(f"no connection file {connection_file.name} within {STARTUP_S} s")
        time.sleep(0.2)
    client = BlockingKernelClient(connection_file=str(connection_file))
    client.load_connection_file()
    client.start_channels()
    while not client.hb_channel.is_beating():
        if time.monotonic() > deadline:
            client.stop_channels()
            pytest.fail(f"the kernel's heartbeat did not answer within {STARTUP_S} s")
        time.sleep(0.2)
    client.wait_for_ready(timeout=STARTUP_S)
    return client


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """`jupyter lab` from .venv rooted at the repository, as `make lab` runs it; always shut down."""
    tmp = tmp_path_factory.mktemp("lab")
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_PREFER_ENV_PATH": "1", "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
           "JUPYTER_CONFIG_DIR": str(tmp / "config")}  # no user config: only the environment's
    env.pop("INTELLIMETRY_RUN", None)
    log = tmp / "lab.log"
    command = [str(VENV_BIN / "jupyter"), "lab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
               f"--port={port}", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={paths.REPO_ROOT}"]
    with open(log, "wb") as output:
        process = subprocess.Popen(command, cwd=paths.REPO_ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)
    server = Lab(f"http://127.0.0.1:{port}", token, tmp / "runtime")
    try:
        wait_until_up(server, process, log)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


@pytest.mark.slow
def test_a_myst_notebook_opens_as_a_notebook_on_the_project_kernel(lab):
    model = lab.request(f"/api/contents/{NOTEBOOK}?type=notebook&content=1")
    # without jupytext's contents manager a .md file is a 'file' of text, not a notebook
    assert model["type"] == "notebook"
    notebook = model["content"]
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
    assert notebook["metadata"]["jupytext"]["text_representation"]["format_name"] == "myst"
    parameters = [c for c in notebook["cells"] if "parameters" in c["metadata"].get("tags", [])]
    assert len(parameters) == 1 and "alpha_limited = 1.5" in parameters[0]["source"]


@pytest.mark.slow
def test_the_python3_kernel_is_this_environment_and_runs_outside_the_runner(lab):
    spec = lab.request("/api/kernelspecs")["kernelspecs"]["python3"]["spec"]
    assert Path(spec["argv"][0]).parent == VENV_BIN
    kernel = lab.request("/api/kernels", "POST", {"name": "python3", "path": NOTEBOOK})
    printed = []
    try:
        client = connect(lab.runtime / f"kernel-{kernel['id']}.json")
        reply = client.execute_interactive(
            "import sys\nfrom intellimetry.provenance import run_context\nprint(sys.prefix, run_context()['profile'])",
            timeout=STARTUP_S, output_hook=printed.append)
        client.stop_channels()
    finally:
        lab.request(f"/api/kernels/{kernel['id']}", "DELETE")
    assert reply["content"]["status"] == "ok"
    text = "".join(m["content"].get("text", "") for m in printed if m["msg_type"] == "stream")
    assert text.split() == [str(VENV_BIN.parent), "interactive"]


@pytest.mark.slow
def test_a_double_click_opens_a_markdown_file_as_a_jupytext_notebook(lab):
    """The overrides in .venv make jupytext the default viewer of .md (a Binder link opens it too);
    without them JupyterLab's default would be the text editor."""
    setting = lab.request(f"/lab/api/settings/{DOCMANAGER}")
    viewers = setting["schema"]["properties"]["defaultViewers"]["default"]
    assert viewers["markdown"] == viewers["myst"] == JUPYTEXT_FACTORY
    assert "defaultViewers" not in setting["raw"]  # from the environment, not a user setting
    assert lab.request("/api/kernelspecs")["kernelspecs"]["python3"]["spec"]["display_name"] == KERNEL_NAME


def jupytext_factories() -> set[str]:
    """The factory names in the installed jupyterlab-jupytext's scripts (it sets FACTORY="...")."""
    extension = VENV_BIN.parent / "share/jupyter/labextensions/jupyterlab-jupytext"
    scripts = "\n".join(script.read_text() for script in extension.rglob("*.js"))
    return set(re.findall(r'\bFACTORY="([^"]+)"', scripts))


def test_make_and_binder_install_the_same_committed_overrides():
    overrides = json.loads((paths.REPO_ROOT / OVERRIDES).read_text())
    assert overrides[DOCMANAGER]["defaultViewers"] == {"markdown": JUPYTEXT_FACTORY, "myst": JUPYTEXT_FACTORY}
    assert jupytext_factories() == {JUPYTEXT_FACTORY}
    makefile = (paths.REPO_ROOT / "Makefile").read_text()
    target = re.search(r"^LAB_OVERRIDES := \$\(VENV\)/(\S+)$", makefile, re.MULTILINE).group(1)
    assert f"cp {OVERRIDES} $(LAB_OVERRIDES)" in makefile
    post_build = paths.REPO_ROOT / "postBuild"
    assert os.access(post_build, os.X_OK) and post_build.read_text().startswith("#!/bin/bash\n")
    assert f'cp {OVERRIDES} "$prefix/{target}"' in post_build.read_text()
    # Binder ignores environment.yml and postBuild at the root when a binder/ or .binder/ folder exists
    assert not any((paths.REPO_ROOT / folder).exists() for folder in ("binder", ".binder"))


def test_the_kernel_has_the_display_name_of_the_notebooks_headers():
    """With another name JupyterLab rewrites a notebook's kernelspec when it opens it, and its autosave
    then changes the file (and makes the figure stale) without the reader editing anything."""
    names = {jupytext.read(path).metadata["kernelspec"]["display_name"]
             for path in paths.REPO_ROOT.glob("notebooks/*/*.md")}
    assert names == {KERNEL_NAME}
    for installer in ("Makefile", "postBuild"):
        text = (paths.REPO_ROOT / installer).read_text()
        assert re.findall(r'ipykernel install .*--display-name "([^"]+)"', text) == [KERNEL_NAME], installer


def save_unchanged(root: Path, name: str) -> str:
    """What JupyterLab writes when a reader opens `name` as a notebook and saves it unchanged."""
    manager = TextFileContentsManager(root_dir=str(root))
    manager.save({"type": "notebook", "content": manager.get(name, type="notebook")["content"]}, name)
    return (root / name).read_text()


def test_saving_a_notebook_from_lab_keeps_its_text(tmp_path):
    """Else opening and saving a figure's notebook would make the figure stale: jupytext.toml keeps out
    the version lines jupytext adds to the header."""
    (tmp_path / "jupytext.toml").write_text((paths.REPO_ROOT / "jupytext.toml").read_text())
    notebooks = sorted(paths.REPO_ROOT.glob("notebooks/*/*.md"))
    assert len(notebooks) > 10
    for number, notebook in enumerate(notebooks):
        name = f"{number}-{notebook.name}"
        (tmp_path / name).write_text(notebook.read_text())
        assert save_unchanged(tmp_path, name) == notebook.read_text(), notebook.name


def test_without_the_config_a_save_adds_version_lines(tmp_path):
    original = (paths.REPO_ROOT / NOTEBOOK).read_text()
    (tmp_path / "figure.md").write_text(original)
    saved = save_unchanged(tmp_path, "figure.md")
    assert saved != original and "jupytext_version" in saved


# ipywidgets comes with jupyter; with it tqdm.auto draws a widget in any kernel. In a notebook the runner
# executes, that widget's saved text stays at its first state ("0%") and the book page would need
# widget scripts from a CDN. So the library and the notebooks draw plain-text bars.
WIDGET_TQDM = re.compile(r"\btqdm\.(?:auto|notebook|autonotebook)\b"
                         r"|\bfrom tqdm import (?:auto|notebook|autonotebook)\b")


def test_the_library_and_notebooks_draw_text_progress_bars():
    sources = [*sorted((paths.REPO_ROOT / "src" / "intellimetry").rglob("*.py")),
               *sorted((paths.REPO_ROOT / "notebooks").rglob("*.md"))]
    widgets = [f"{path.relative_to(paths.REPO_ROOT)}:{number}" for path in sources
               for number, line in enumerate(path.read_text().splitlines(), 1) if WIDGET_TQDM.search(line)]
    assert widgets == []
    assert WIDGET_TQDM.search("    from tqdm.auto import tqdm") and not WIDGET_TQDM.search("from tqdm import tqdm")


@pytest.mark.slow
def test_an_executed_notebook_holds_no_hugging_face_progress_bar(mini_project):
    """transformers draws its bars (Loading weights) with tqdm.auto; the runner turns them off."""
    notebook = mini_project.root / "notebooks" / "survival" / "survival-fig01-tiny.md"
    notebook.write_text(notebook.read_text().replace("fig, ax = plt.subplots()", (
        "from transformers.utils.logging import tqdm as hub_tqdm\n"
        "for _ in hub_tqdm(range(3), desc='hub bar'):\n    pass\n"
        "fig, ax = plt.subplots()")))
    run(mini_project, ["survival-fig01-tiny"], out=io.StringIO())
    executed = json.loads((mini_project.output_dir("quick", "survival") / "survival-fig01-tiny.ipynb").read_text())
    outputs = json.dumps([cell.get("outputs", []) for cell in executed["cells"]])
    assert "widget-view" not in outputs and "hub bar" not in outputs
