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

.PHONY: install run test check lint format bench migrate demo

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstalls only when pyproject.toml changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

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
