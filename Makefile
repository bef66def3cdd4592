# Everything sets itself up: a fresh machine needs only python3 and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: venv demo test lint bench generate clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/ember demo

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

test: lint
	$(BIN)/python -m pytest

agreement: $(STAMP) ; $(BIN)/python benchmarks/agreement.py $(ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

generate: $(STAMP)
	EMBER_CODEGEN=1 $(BIN)/python -m ember.codegen

clean:
	rm -rf $(VENV) build src/*.egg-info
