# Two commands for a newcomer: `make run` starts the service, `make test` runs every test.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PORT   ?= 8000
HOST   ?= 127.0.0.1
# Websocket messages over 64 KB are closed with 1009 by Daphne itself (scripts/servers.py,
# solitaire_site/daphne_server.py: the daphne command with a close frame instead of a reset).
DAPHNE_LIMITS := --websocket-max-message-size 65536 --websocket-max-frame-size 65536

.PHONY: install run test lint format bench migrate demo

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstalls only when pyproject.toml changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

# Test tools from npm, pinned in package-lock.json (axe-core for tests/accessibility/). Without npm
# those tests are skipped (failed under CI=true, where .ci/run installs npm).
node_modules/.package-lock.json: package.json package-lock.json
	@if command -v npm >/dev/null; then npm ci --no-audit --no-fund --loglevel=error; \
	else echo "npm is missing: the accessibility tests will be skipped (apt-get install npm)"; fi

install: $(VENV)/.installed node_modules/.package-lock.json

migrate: install
	$(BIN)/python manage.py migrate --noinput

# Full leaderboards to look at: demo players, dailies, races and games (seed_demo --help for sizes,
# e.g. make demo DEMO_ARGS="--games 1000000"). It refuses a database that already has players.
demo: migrate
	$(BIN)/python manage.py seed_demo $(DEMO_ARGS)

run: migrate
	@echo "Serving on http://$(HOST):$(PORT)/"
	$(BIN)/python -m solitaire_site.daphne_server -b $(HOST) -p $(PORT) $(DAPHNE_LIMITS) solitaire_site.asgi:application

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

test: lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: install
	$(BIN)/python -m games.engine.bench
