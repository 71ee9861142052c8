# Kernel Theory: `make book` builds the HTML book, `make test` runs every check.
# Both create (or update) the virtual environment .venv first.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.ktheory-installed
MATHJAX := book/_static/mathjax/es5/tex-chtml-full.js
JOBS ?= 2
PORT ?= 8000

.PHONY: setup book test test-unit test-notebooks test-build test-browser serve bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,book]"
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

$(MATHJAX): scripts/fetch_mathjax.sh
	bash scripts/fetch_mathjax.sh

setup: $(STAMP) $(MATHJAX)

book: setup
	$(VENV)/bin/jupyter-book build . --all
	@echo "The book: $(CURDIR)/_build/html/index.html"

test: setup test-unit test-notebooks test-build test-browser
	@echo "make test: all checks passed"

test-unit: setup
	$(PY) -m pytest -q -n $(JOBS) -m "not browser" tests

test-notebooks: setup
	$(PY) -m pytest -q -n $(JOBS) --dist loadfile --nbval --nbval-current-env --nbval-cell-timeout=300 -p no:cacheprovider book

test-build: setup
	rm -rf _build
	$(VENV)/bin/jupyter-book build . --all --warningiserror --keep-going

test-browser: setup
	$(PY) -m pytest -q -m browser -rs tests

serve: book
	@echo "Serving http://127.0.0.1:$(PORT)/ (Ctrl-C to stop)"
	$(PY) -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

bench: setup
	$(PY) benchmarks/run_all.py

clean:
	rm -rf _build .pytest_cache .hypothesis
