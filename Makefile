# Everything sets itself up: a fresh machine needs only python3 and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: venv demo test lint browser bench generate readme clean

# The test extra includes the PyTorch oracle (torch==2.13.0, CPU). Where it cannot be installed,
# the set-up says so loudly and installs the rest (test-base): the tests that need torch then
# skip, and pytest's closing report counts them. The stamp is left unset then, so the next run
# tries the oracle again.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	@if $(BIN)/python -m pip install -q -e '.[test]'; then \
	  touch $(STAMP); \
	else \
	  echo '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!' >&2; \
	  echo '!!! torch==2.13.0 (the PyTorch oracle) could not be installed: the differential' >&2; \
	  echo '!!! tests will SKIP. Installing the other test dependencies (.[test-base]).' >&2; \
	  echo '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!' >&2; \
	  $(BIN)/python -m pip install -q -e '.[test-base]'; \
	fi

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/ember demo

# lint-imports checks the layers (import-linter's contracts in pyproject.toml; docs/architecture.md).
lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks docs examples
	$(BIN)/ruff format --check src tests benchmarks docs examples
	$(BIN)/lint-imports --no-cache

# The route view's browser test drives Debian's chromium; without it that test skips (counted).
browser:
	@test -x /usr/bin/chromium || { \
	  echo '!!! /usr/bin/chromium is missing: the route view browser test will SKIP' >&2; \
	  echo '!!! (as root: apt-get install chromium; .ci/run does this)' >&2; }

# pytest exits 5 when it collected no test; make fails on any non-zero status, that one too.
# Two workers (the CI machine's two cores), each given whole files (--dist loadfile): a
# file's module-scoped fixtures (a dask LocalCluster, the browser) start once, in one worker.
test: lint browser
	$(BIN)/python -m pytest -n 2 --dist loadfile

agreement: $(STAMP) ; $(BIN)/python benchmarks/agreement.py $(ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

generate: $(STAMP)
	EMBER_CODEGEN=1 $(BIN)/python -m ember.codegen

# Re-run every command the README shows and rewrite its output blocks (docs/regen_readme.py).
readme: $(STAMP)
	$(BIN)/python docs/regen_readme.py --write

clean:
	rm -rf $(VENV) build src/*.egg-info
