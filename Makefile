# Skill Prism — the two commands of the quick start are `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint format bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/skillprism

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: $(STAMP)
	$(PY) bench/bench_check.py
	$(PY) bench/bench_hostile.py
	$(PY) bench/bench_prompt.py
	$(PY) bench/bench_watch.py
	QT_QPA_PLATFORM=offscreen $(PY) bench/bench_gui.py
	QT_QPA_PLATFORM=offscreen $(PY) bench/bench_budget_view.py

clean:
	rm -rf $(VENV) build dist .pytest_cache
