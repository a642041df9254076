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
	$(BIN)/ruff format --check .

# The suite runs with no network to reach where the system allows it: in a network namespace of
# its own, loopback only, so that child processes and the sockets of OpenCV's FFmpeg or ONNX
# Runtime (which the tests' Python guard cannot see) reach nothing either. As root `unshare -n`,
# else a user namespace (`unshare -rn`); where neither works, the Python guard alone.
ISOLATED := $(shell \
	if unshare -n ip link set lo up 2>/dev/null; then echo "unshare -n"; \
	elif unshare -rn ip link set lo up 2>/dev/null; then echo "unshare -rn"; fi)

test: lint
	QT_QPA_PLATFORM=offscreen $(if $(ISOLATED),$(ISOLATED) sh -c 'ip link set lo up && exec $(BIN)/python -m pytest',$(BIN)/python -m pytest)

bench: $(VENV)/.installed-test
	$(BIN)/python -m benchmarks.count_bench
	$(BIN)/python -m benchmarks.generator_bench
	$(BIN)/python -m benchmarks.startup_bench
	$(BIN)/python -m benchmarks.live_view_bench

clean-venv:
	rm -rf $(VENV)
