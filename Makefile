# Two entry points for a fresh clone with Python 3.11+ and pip:
#   make lab   installs alp_nb with JupyterLab into .venv and opens the notebooks (it runs until Ctrl-C)
#   make test  installs alp_nb with its test tools into .venv and runs every test
# Also: make lint (ruff and mypy, both must report nothing), make bench (the benchmarks).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: lab test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

$(VENV)/.lint-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[lint]'
	touch $@

$(VENV)/.lab-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[lab]'
	touch $@

test: $(VENV)/.test-installed
	$(BIN)/python -m pytest

lint: $(VENV)/.lint-installed
	$(BIN)/ruff check .
	$(BIN)/mypy

# Jupyter refuses to run as root without --allow-root (containers, CI machines).
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: $(VENV)/.lab-installed
	$(BIN)/jupyter lab $(ROOT_FLAG) notebooks/

# In the lab's environment (lab and test extras): what a notebook user's kernel imports beside alp_nb.
bench: $(VENV)/.test-installed $(VENV)/.lab-installed
	$(BIN)/python benchmarks/import_time.py
	$(BIN)/python benchmarks/registry_scale.py
	$(BIN)/python benchmarks/runtime_overhead.py
	$(BIN)/python benchmarks/replay_load.py
	$(BIN)/python benchmarks/replay_views.py
	$(BIN)/python benchmarks/against_reference.py
	$(BIN)/python benchmarks/render.py
	$(BIN)/python benchmarks/notebook_size.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache
