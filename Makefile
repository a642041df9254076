# The two commands of the README: `make run` and `make test`. Both set up .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench clean-venv

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamps make re-runs quick: reinstall only when pyproject.toml changes.
$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(BIN)/blitzcam app

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .

test: lint
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

bench: $(VENV)/.installed-test
	$(BIN)/python -m benchmarks.count_bench
	$(BIN)/python -m benchmarks.generator_bench
	$(BIN)/python -m benchmarks.startup_bench

clean-venv:
	rm -rf $(VENV)
