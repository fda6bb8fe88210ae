# Skill Prism — the two commands of the quick start are `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PACKAGE_STAMP := $(VENV)/.installed-package

.PHONY: run check-display test lint format bench package clean conformance conformance-quick conformance-bin conformance-latest lab-tests

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

$(PACKAGE_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,package]'
	touch $(PACKAGE_STAMP)

# Says what to install when the window's X11 libraries are missing, before building anything.
check-display:
	@$(PYTHON) tools/check_display_libs.py

run: check-display $(STAMP)
	$(VENV)/bin/skillprism

# The suite runs on every core (pytest-xdist) under coverage; core/ and app/ keep per-module floors.
test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -n auto --durations=25 --cov --cov-report=
	$(PY) tools/coverage_floor.py
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/mypy
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

lint: $(STAMP)
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/mypy
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
	test ! -x dist/skillprism/skillprism || $(PY) bench/bench_package.py

# The conformance lab: pinned runtimes (npm / PyPI, cached in conformance/.cache) against the
# profiles on generated fixtures. LAB_ARGS passes options, e.g. LAB_ARGS="--runtime pi --strict".
# A whole run records what it found in resources/lab-results.json, from which each profile's level
# is derived (commit it with the profile changes it goes with).
conformance: $(STAMP)
	$(PY) conformance/install.py
	$(PY) conformance/run.py --record $(LAB_ARGS)

conformance-quick: $(STAMP)
	$(PY) conformance/install.py --quick
	$(PY) conformance/run.py --quick $(LAB_ARGS)

# The runtimes shipped as native binaries (Codex, OpenCode, Kilo Code, Claude Code, Amp, Factory
# Droid: about 1.7 GB installed).
BIN_RUNTIMES = --runtime codex --runtime opencode --runtime kilo-code --runtime claude-code --runtime amp --runtime factory-droid
conformance-bin: $(STAMP)
	$(PY) conformance/install.py $(BIN_RUNTIMES)
	$(PY) conformance/run.py $(BIN_RUNTIMES) $(LAB_ARGS)

# The tests that run the runtimes' own code from the lab's cache (enable/disable, usage, install,
# the budget advisor, live trigger runs), once conformance-quick and conformance-bin installed it.
# A lab test that skips here (a runtime the lab should hold and does not) fails.
LAB_TESTS = tests/test_toggle_lab.py tests/test_usage_lab.py tests/test_install_lab.py tests/test_plugin_lab.py tests/test_advisor_lab.py tests/test_live_trigger_lab.py
lab-tests: $(STAMP)
	$(PY) conformance/live_lab.py --install-gemini-cli
	SKILLPRISM_LAB_REQUIRED=1 QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -n auto -rs $(LAB_TESTS)

# Every runtime's newest release on npm / PyPI (installed apart, in conformance/.cache/latest)
# against today's profiles: which profiles drift from what the lab recorded for the pinned release.
conformance-latest: $(STAMP)
	$(PY) conformance/latest.py $(LAB_ARGS)

# The frozen app (dist/skillprism/), the .deb and the .tar.gz, then the frozen app's self-test.
package: $(PACKAGE_STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) packaging/build.py

clean:
	rm -rf $(VENV) build dist .pytest_cache
