# Two commands for a newcomer: `make run` and `make test`. Each sets up what it needs (system
# packages, the virtual env, the npm packages) and is quick the second time: set-up steps are
# stamped against the lock files they install from.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
VENV_STAMP := $(VENV)/.stamp-installed
NODE_STAMP := node_modules/.stamp-installed
TYPINGS_STAMP := build/typings/.stamp-installed

.PHONY: run test check setup system lint typecheck enclosure sim lock clean drills bench

# The play page on a virtual nest running the real firmware (nest web); prints its URL.
run: setup
	$(VENV)/bin/nest web

# Every test, in three workers (pytest-xdist; a file's tests stay together: testkit/workers.py).
test: setup lint typecheck
	$(PY) -m pytest -n 3 --dist loadscope

# The edit loop's quick tier: lint, type-check and the tests that need no board, browser, CAD or VM.
check: setup lint typecheck
	$(PY) -m pytest -n 3 -q -m "not board and not browser and not enclosure and not micropython"

setup: system $(VENV_STAMP) $(NODE_STAMP)

# Debian packages the project needs (python venv, node/npm, graphviz for the wiring diagram,
# chromium for the play page's browser tests):
# installed only when missing.
system:
	@scripts/ensure-system.sh graphviz chromium

# The product (nest, gulo) and, beside it, the three parts that are not shipped: lab, testkit, enclosure.
$(VENV_STAMP): requirements.lock pyproject.toml lab/pyproject.toml testkit/pyproject.toml enclosure/pyproject.toml
	@test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e . -e lab -e testkit -e enclosure
	@touch $@

$(NODE_STAMP): package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

lint: setup
	$(VENV)/bin/ruff check .

# The firmware against the ESP32 MicroPython 1.29 stubs (machine, neopixel, time.ticks_ms, ...),
# kept in their own folder because they replace CPython's typeshed (firmware/mypy.ini).
typecheck: setup $(TYPINGS_STAMP)
	$(VENV)/bin/mypy --config-file firmware/mypy.ini firmware

$(TYPINGS_STAMP): requirements.lock
	rm -rf build/typings
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --target build/typings \
		$$(grep -E '^micropython-(esp32|stdlib)-stubs==' requirements.lock)
	@touch $@

# Regenerate requirements.lock from pyproject.toml in a scratch env (run after changing deps).
lock:
	rm -rf build/lockenv && python3 -m venv build/lockenv
	build/lockenv/bin/pip install --quiet --disable-pip-version-check '.[dev]' ./lab ./testkit ./enclosure
	build/lockenv/bin/pip freeze --exclude gulo-nest --exclude gulo-nest-lab --exclude gulo-nest-testkit \
		--exclude gulo-nest-enclosure | grep -v '^-e' > requirements.lock
	rm -rf build/lockenv

# A virtual ESP32 with the nest's simulated hardware, until Ctrl-C (docs/virtual-board.md).
sim: setup
	$(VENV)/bin/nest sim

# The benchmarks, each side by side with its baseline, into docs/benchmarks.md and
# docs/weigher-decisions.png (a few minutes; not part of `make test`).
bench: setup
	$(PY) -m lab.bench

# Printable parts (STL, STEP), previews and the wiring diagram, into enclosure/out/.
enclosure: setup
	$(PY) -m enclosure.build

# Fault drills on the virtual board (200 random and 40 aimed power cuts, 10,000 console lines, fuzzed
# page messages and game logs, deploy cuts, sensor faults); rewrites docs/reliability.md. About half
# an hour; `python -m lab.drills --small` is a quick run, `--timing esp32` runs the boards at the ESP32's speed.
drills: setup
	$(PY) -m lab.drills

clean:
	rm -rf build test-artifacts .pytest_cache .ruff_cache .mypy_cache
