# Two commands for a newcomer: `make run` starts the service, `make test` runs every test; `make check`
# is the inner loop (lint and the in-process tests, about a minute): docs/testing.md.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
HOST   ?= 127.0.0.1
# Websocket messages over 64 KB are closed with 1009 by Daphne itself (scripts/servers.py,
# solitaire_site/daphne_server.py: the daphne command with a close frame instead of a reset).
DAPHNE_LIMITS := --websocket-max-message-size 65536 --websocket-max-frame-size 65536

# uv installs .venv from uv.lock, one lock of every package with its hashes for both sets
# (production, and dev = pyproject.toml's `dev` extra); uv itself is in .uv, put there by
# pip from requirements-uv.txt (pinned, hash-checked). UV_PYTHON_DOWNLOADS=never: uv uses
# $(PYTHON), never a Python it downloads.
UV_HOME := .uv
UV      := UV_PYTHON_DOWNLOADS=never $(UV_HOME)/bin/uv

.PHONY: install run test check lint format bench migrate demo lock upgrade lock-check

$(UV_HOME)/bin/uv: requirements-uv.txt
	rm -rf $(UV_HOME)
	$(PYTHON) -m pip install --quiet --root-user-action=ignore --target $(UV_HOME) --require-hashes -r requirements-uv.txt
	touch $@

# Reinstalls only when uv.lock, pyproject.toml or uv changes: exactly the locked versions,
# hash-checked, with nothing else left in .venv, and the project itself editable (-e .) without a
# new resolution. --locked stops here if pyproject.toml and uv.lock disagree (`make lock`).
$(VENV)/.installed: uv.lock pyproject.toml $(UV_HOME)/bin/uv
	$(UV) sync --locked --extra dev --python $(PYTHON)
	touch $@

# Test tools from npm, pinned in package-lock.json (axe-core for tests/accessibility/). Without npm
# those tests are skipped (failed under CI=true, where .ci/run installs npm).
node_modules/.package-lock.json: package.json package-lock.json
	@if command -v npm >/dev/null; then npm ci --no-audit --no-fund --loglevel=error; \
	else echo "npm is missing: the accessibility tests will be skipped (apt-get install npm)"; fi

install: $(VENV)/.installed node_modules/.package-lock.json

# `make lock` after an edit of pyproject.toml's dependencies: uv.lock follows it and keeps every
# other pin; `make upgrade` moves every pin to the newest release pyproject.toml allows.
lock: $(UV_HOME)/bin/uv
	$(UV) lock

upgrade: $(UV_HOME)/bin/uv
	$(UV) lock --upgrade

# Fails when pyproject.toml and uv.lock disagree (CI runs it; make install does the same check).
lock-check: $(UV_HOME)/bin/uv
	$(UV) lock --check

migrate: install
	$(BIN)/python manage.py migrate --noinput

# Full leaderboards to look at: demo players, dailies, races and games (seed_demo --help for sizes,
# e.g. make demo DEMO_ARGS="--games 1000000"). It refuses a database that already has players.
demo: migrate
	$(BIN)/python manage.py seed_demo $(DEMO_ARGS)

# The arenas of the standard schedule (each game hourly) for the next day, made as the scheduler
# makes them in a deployment (docker compose): /arenas/ is not empty on a first run.
run: migrate
	$(BIN)/python manage.py run_arenas --standard-schedule
	@echo "Serving on http://$(HOST):$(PORT)/"
	$(BIN)/python -m solitaire_site.daphne_server -b $(HOST) -p $(PORT) $(DAPHNE_LIMITS) solitaire_site.asgi:application

lint: install lock-check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# pytest-xdist workers: the suite waits on servers, browsers and sleeps more than it computes, so
# four keep two cores busy (docs/testing.md has the figures).
WORKERS ?= 4
# Compiled modules are kept between runs even where the environment says not to write them:
# without them each worker compiles and assertion-rewrites every test module again (~5 s of CPU).
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest

test: lint
	$(PYTEST) -n $(WORKERS) $(PYTEST_ARGS)

# No server processes, no browsers, nothing marked slow: the engine, the solver, the units and
# the in-process tests (Django's test client, Channels' communicators).
check: lint
	$(PYTEST) -n $(WORKERS) -m "not slow and not live and not browser" $(PYTEST_ARGS)

bench: install
	$(BIN)/python -m games.engine.bench
