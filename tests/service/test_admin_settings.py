"""The admin pages for players, games and moves; settings read from the environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from games.actions import do_create_game, do_play_move
from games.engine import new_game

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
@pytest.mark.parametrize("model", ["player", "game", "move"])
def test_the_admin_lists_and_shows_each_model(admin_client, player, model):
    """Each model has a working changelist and change page in the admin."""
    game = do_create_game(player, "spiderweb", 4)
    do_play_move(game, new_game("spiderweb", 4).legal_moves()[0], 0)
    objects = {"player": player, "game": game, "move": game.moves.get()}
    changelist = admin_client.get(reverse(f"admin:games_{model}_changelist"))
    assert changelist.status_code == 200
    change = admin_client.get(reverse(f"admin:games_{model}_change", args=[objects[model].pk]))
    assert change.status_code == 200


def settings_in_subprocess(env: dict[str, str], expression: str) -> subprocess.CompletedProcess:
    """Import the settings under `env` (nothing inherited but PATH) and print `expression`."""
    code = f"import solitaire_site.settings as s; print({expression})"
    clean = {"PATH": os.environ.get("PATH", ""), **env}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True
    )


def test_defaults_are_for_development():
    """With nothing set: DEBUG on, SQLite in the project folder, the in-memory channel layer."""
    result = settings_in_subprocess(
        {},
        "s.DEBUG, s.DATABASES['default']['NAME'], s.CHANNEL_LAYERS['default']['BACKEND'],"
        " s.DATABASES['default']['CONN_MAX_AGE'], repr(s.LEADERBOARD_REDIS_URL)",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        f"True {ROOT / 'db.sqlite3'} channels.layers.InMemoryChannelLayer 0 ''"
    )


def test_production_needs_a_secret_key():
    """DEBUG=0 without SECRET_KEY refuses to start."""
    result = settings_in_subprocess({"DEBUG": "0"}, "s.SECRET_KEY")
    assert result.returncode != 0 and "SECRET_KEY must be set" in result.stderr


def test_the_environment_configures_production():
    """DATABASE_URL, REDIS_URL, ALLOWED_HOSTS and CSRF_TRUSTED_ORIGINS are read; the channel
    layer names the one Redis once a shard, each connection retrying a closed one."""
    result = settings_in_subprocess(
        {
            "DEBUG": "0",
            "SECRET_KEY": "s3cret",
            "DATABASE_URL": "postgres://u:p@db:5432/solitaire",
            "REDIS_URL": "redis://cache:6379/1",
            "ALLOWED_HOSTS": "example.org, www.example.org",
            "CSRF_TRUSTED_ORIGINS": "https://example.org",
        },
        "s.DEBUG, s.DATABASES['default']['ENGINE'], s.DATABASES['default']['CONN_MAX_AGE'],"
        " s.CHANNEL_LAYERS['default']['BACKEND'],"
        " sorted({h['address'] for h in s.CHANNEL_LAYERS['default']['CONFIG']['hosts']}),"
        " len(s.CHANNEL_LAYERS['default']['CONFIG']['hosts']),"
        " s.CHANNEL_LAYERS['default']['CONFIG']['hosts'][0]['retry'].get_retries(),"
        " s.LEADERBOARD_REDIS_URL, s.ALLOWED_HOSTS, s.CSRF_TRUSTED_ORIGINS",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "False django.db.backends.postgresql 0 games.channel_layer.PubSubChannelLayer"
        " ['redis://cache:6379/1'] 32 2 redis://cache:6379/1 ['example.org', 'www.example.org']"
        " ['https://example.org']"
    )
