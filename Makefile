# Kernel Theory: `make book` builds the HTML book, `make test` runs every check.
# Both create (or update) the virtual environment .venv first, installing exactly the
# versions pinned in requirements/lock.txt (regenerate it with `make lock`).
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
LOCK := requirements/lock.txt
STAMP := $(VENV)/.ktheory-installed
LAB_STAMP := $(VENV)/.ktheory-lab-installed
MATHJAX := book/_static/mathjax/es5/tex-chtml-full.js
# Pyodide's core (npm) and the pure-Python wheels of the in-browser chapters (PyPI), cached
PYODIDE := .pyodide/314.0.6/FETCHED
JOBS ?= 2
PORT ?= 8000
# SKIP_BROWSER=1 skips the browser check by name (and `make test` says so at the end).
SKIP_BROWSER ?=
# pip reads PIP_CONSTRAINT in the isolated build environments too, so even the build
# backend (setuptools) comes from the lock.
PIP_LOCKED := PIP_CONSTRAINT=$(CURDIR)/$(LOCK) $(PY) -m pip install --quiet --disable-pip-version-check

.PHONY: setup book pdf test test-unit test-doctest test-notebooks test-build test-browser test-pyodide-versions \
        test-portable test-no-numba test-latest test-oldest mutation lock lab serve bench format clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml $(LOCK) | $(PY)
	@$(PY) scripts/check_python.py $(LOCK)
	$(PIP_LOCKED) pip setuptools wheel
	$(PIP_LOCKED) -e ".[test,book,fast]"
	$(PY) -m pip check
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	rm -f $(LAB_STAMP)
	touch $(STAMP)

$(MATHJAX): scripts/fetch_mathjax.sh
	bash scripts/fetch_mathjax.sh

$(PYODIDE): scripts/fetch_pyodide.py requirements/pyodide-wheels.txt $(LOCK) | $(STAMP)
	$(PY) scripts/fetch_pyodide.py

setup: $(STAMP) $(MATHJAX) $(PYODIDE)

book: setup
	$(VENV)/bin/jupyter-book build . --all
	@echo "The book: $(CURDIR)/_build/html/index.html"

# The printable edition: the whole book as one page (Sphinx's single-page HTML builder),
# printed to A4 PDF by headless Chromium (scripts/print_pdf.py), mathematics typeset,
# figures in place, each chapter on a new page. Needs Chromium and ChromeDriver.
PDF := _build/kernel-theory.pdf
pdf: setup
	rm -rf _build/singlehtml
	$(VENV)/bin/jupyter-book build . --all --builder singlehtml --warningiserror --keep-going
	$(PY) scripts/print_pdf.py _build/singlehtml $(PDF)
	@echo "The printable edition: $(CURDIR)/$(PDF)"

test: setup test-unit test-no-numba test-doctest test-notebooks test-build test-browser
	@if [ "$(SKIP_BROWSER)" = "1" ]; then \
	  echo "make test: all checks passed EXCEPT the browser check, which was SKIPPED (SKIP_BROWSER=1)"; \
	else \
	  echo "make test: all checks passed"; \
	fi
	@echo "  not checked (they need the network): running numpy cells and importing ktheory.svm in Pyodide," \
	  "tests/test_lite.py::test_numpy_cells_need_the_network"

test-unit: setup
	$(PY) -m pytest -q -n $(JOBS) -m "not browser" tests

# The SVM estimators' tests again with numba hidden (tests/_no_numba first on PYTHONPATH
# makes `import numba` fail), as on a machine without it: SVC, SVR, one-vs-one and
# CentralSVC then solve with numpy (the reference SMO on the Gram matrix). Tests of what only the compiled
# solver does are marked needs_numba and skipped by name.
NO_NUMBA_TESTS := tests/test_svc.py tests/test_svr.py tests/test_svc_multiclass.py \
                  tests/test_svc_hostile.py tests/test_sklearn_checks.py tests/test_svr_sklearn_checks.py \
                  tests/test_svm_sample_weight.py tests/test_sklearn_svm_suite.py \
                  tests/test_csvm.py tests/test_csvm_solver.py tests/test_svm_face.py
test-no-numba: setup
	PYTHONPATH=tests/_no_numba $(PY) -m pytest -q -n $(JOBS) -p no:cacheprovider $(NO_NUMBA_TESTS)

# Every example in a docstring of the package is executed.
test-doctest: setup
	$(PY) -m pytest -q --doctest-modules -p no:cacheprovider ktheory

test-notebooks: setup
	$(PY) -m pytest -q -n $(JOBS) --dist loadfile --nbval --nbval-current-env --nbval-cell-timeout=300 -p no:cacheprovider book

test-build: setup
	rm -rf _build
	$(VENV)/bin/jupyter-book build . --all --warningiserror --keep-going

# Checks the HTML that test-build has just built from this commit, and the printable
# edition (`make pdf`, built after it) and its source page.
test-browser: test-build
	@if [ "$(SKIP_BROWSER)" = "1" ]; then \
	  echo "test-browser: SKIPPED by request (SKIP_BROWSER=1): the built pages were NOT checked in a browser"; \
	else \
	  for tool in chromium chromedriver; do \
	    if ! command -v $$tool >/dev/null 2>&1; then \
	      echo "test-browser: '$$tool' is not installed, so the built book cannot be checked in a browser."; \
	      echo "  Install Debian's packages:  apt-get install chromium chromium-driver"; \
	      echo "  or skip this check by name: make test SKIP_BROWSER=1"; \
	      exit 1; \
	    fi; \
	  done; \
	  $(MAKE) --no-print-directory pdf && \
	  KTHEORY_REQUIRE_BROWSER=1 $(PY) -m pytest -q -m browser -p no:cacheprovider tests; \
	fi

# The portability check: the unit tests, the doctests and strict nbval over every notebook
# again, under numeric environments other than this machine's own (OpenBLAS forced to its
# Nehalem, Sandybridge, Haswell or SkylakeX kernels, one or two BLAS threads, numba compiling for a
# generic x86-64, numpy's SIMD loops without AVX2 or AVX-512), as a reader's older or
# different processor would round. An environment this processor cannot run is named and
# skipped; it fails if one that ran failed or none could run. `.ci/run` runs it after
# `make test`; ONLY=name runs one environment (scripts/test_portable.py lists them).
ONLY ?=
test-portable: setup
	$(PY) scripts/test_portable.py $(if $(ONLY),--only $(ONLY))

# Every chapter executed natively on Pyodide's package versions (scikit-learn 1.8.0, ...), with
# numba, Dask and array-api-strict hidden and no threads, as the in-browser kernel runs them
# (scripts/chapters_pyodide_versions.py; needs the package index once). Not part of `make test`.
test-pyodide-versions: setup
	$(PY) scripts/chapters_pyodide_versions.py

# The unit tests and doctests against the newest versions pyproject.toml allows (not the
# lock), in a separate environment, so that drift is seen early. Not part of `make test`.
LATEST := .venv-latest
test-latest:
	rm -rf $(LATEST)
	$(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install --quiet --upgrade pip
	$(LATEST)/bin/python -m pip install --quiet --upgrade --upgrade-strategy eager -e ".[test,fast]"
	$(LATEST)/bin/python -m pip list --format=freeze | grep -iE '^(numpy|scipy|sympy|scikit-learn|hypothesis|pytest)=='
	$(LATEST)/bin/python -m pytest -q -n $(JOBS) -m "not browser" -p no:cacheprovider tests
	$(LATEST)/bin/python -m pytest -q --doctest-modules -p no:cacheprovider ktheory

# The unit tests and doctests against the oldest versions pyproject.toml claims (its floors:
# numpy, scipy, sympy, scikit-learn), in .venv-oldest. Not part of `make test`.
OLDEST := .venv-oldest
test-oldest:
	rm -rf $(OLDEST)
	$(PYTHON) -m venv $(OLDEST)
	$(OLDEST)/bin/python -m pip install --quiet --upgrade pip
	$(OLDEST)/bin/python -m pip install --quiet $$($(PYTHON) scripts/floors.py) pytest pytest-xdist hypothesis
	$(OLDEST)/bin/python -m pip install --quiet --no-deps -e .
	$(OLDEST)/bin/python -m pip list --format=freeze | grep -iE '^(numpy|scipy|sympy|scikit-learn)=='
	$(OLDEST)/bin/python -m pytest -q -n $(JOBS) -m "not browser" -p no:cacheprovider -W ignore::DeprecationWarning tests
	$(OLDEST)/bin/python -m pytest -q --doctest-modules -p no:cacheprovider -W ignore::DeprecationWarning ktheory

# Mutation testing: mechanical operator/constant mutants of the committed package, each
# run against the tests that cover its module (a snapshot in a temporary directory; the
# working tree is never modified). MUTANTS=0 runs every candidate. Not part of `make test`.
MUTANTS ?= 220
mutation: setup
	$(PY) scripts/mutate.py -n $(MUTANTS) --report mutation_report.txt

# Regenerate the lock from pyproject.toml in a scratch environment.
lock:
	bash scripts/lock.sh $(PYTHON)

# Open the chapters in JupyterLab, with the project's kernel (the .venv's Python).
$(LAB_STAMP): $(STAMP)
	$(PIP_LOCKED) -e ".[test,book,lab,fast]"
	touch $(LAB_STAMP)

# (as root, e.g. in a container, Jupyter needs --allow-root; LAB_ARGS adds options such as
# --no-browser or --port=8890)
LAB_ARGS ?=
lab: setup $(LAB_STAMP)
	$(VENV)/bin/jupyter lab --notebook-dir=book $$([ "$$(id -u)" = 0 ] && echo --allow-root) $(LAB_ARGS)

serve: book
	@echo "Serving http://127.0.0.1:$(PORT)/ (Ctrl-C to stop)"
	$(PY) -m http.server $(PORT) --bind 127.0.0.1 --directory _build/html

# Format the code of the notebooks (and book/_ext) to 87 columns, the width a code cell shows
# at 1366 pixels ([tool.ruff] in pyproject.toml). A developer tool, not in the lock: it changes
# sources only, never a stored output; tests/test_code_width.py checks the result.
format: setup
	$(PY) -m pip install --quiet --disable-pip-version-check "ruff>=0.6"
	$(VENV)/bin/ruff format book

bench: setup
	$(PY) benchmarks/run_all.py $(BENCH)

clean:
	rm -rf _build .pytest_cache .hypothesis .numba-cache $(LATEST) $(OLDEST)
