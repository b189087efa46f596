# intellimetry: `make` alone prints help. The first target you run creates .venv itself.
PROFILE ?= quick
JOBS ?= 1
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
# custom = quick plus overrides, so the runner starts from quick when PROFILE=custom
RUN_PROFILE := $(if $(filter custom,$(PROFILE)),quick,$(PROFILE))
MATHJAX := book/_vendor/mathjax/tex-mml-chtml.js
MATHJAX_VERSION := 3.2.2

.DEFAULT_GOAL := help
.PHONY: help env book figures fig paper test check-book clean

help:
	@echo "make book                 run stale notebooks (PROFILE=$(PROFILE)) and render the book"
	@echo "make test                 run the test suite (notebooks, book build, browser check)"
	@echo "make figures              run stale notebooks only"
	@echo "make fig ID=<id> [PARAMS=\"name=value ...\"]   one figure; overrides go to the custom profile"
	@echo "make paper                the full profile (paper scale, hours)"
	@echo "make check-book           headless-Chromium check of the rendered book"
	@echo "make clean                remove generated figures and the rendered book"
	@echo "PROFILE=quick|full|custom selects the profile (default quick); JOBS=2 runs two notebooks at once"

$(INSTALLED): requirements.txt requirements-lock.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' || \
	  { echo "Python 3.11 is required (found $(PYTHON)); set PYTHON=/path/to/python3.11"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -r requirements.txt -c requirements-lock.txt
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m ipykernel install --prefix $(VENV) --name python3 --display-name "Python 3 (intellimetry)" > /dev/null
	touch $@

env: $(INSTALLED)

# MathJax is vendored so equations render without a network connection.
$(MATHJAX):
	npm install --silent --no-audit --no-fund --prefix .cache/npm mathjax@$(MATHJAX_VERSION)
	mkdir -p $(dir $@)
	cp -r .cache/npm/node_modules/mathjax/es5/. $(dir $@)

figures: $(INSTALLED)
	$(PY) -m intellimetry.runner run --profile $(RUN_PROFILE) --jobs $(JOBS)

fig: $(INSTALLED)
	@test -n "$(ID)" || { echo 'usage: make fig ID=<figure-id> [PARAMS="name=value ..."]'; exit 2; }
	$(PY) -m intellimetry.runner run $(ID) $(PARAMS) --profile $(RUN_PROFILE)

book: $(INSTALLED) $(MATHJAX)
	$(PY) -m intellimetry.runner run --profile $(RUN_PROFILE) --jobs $(JOBS)
	$(PY) -m intellimetry.book build --profile $(PROFILE)

paper:
	$(MAKE) book PROFILE=full

test: $(INSTALLED) $(MATHJAX)
	$(PY) -m pytest

check-book: $(INSTALLED)
	$(PY) -m intellimetry.bookcheck book/_build/html

clean:
	rm -rf figures book/_build book/generated .pytest_cache
