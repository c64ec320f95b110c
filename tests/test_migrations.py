"""The models and their migrations agree: a model change without its migration fails here."""

import importlib
from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_every_model_change_has_its_migration():
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)  # exits 1 on a change
    assert "No changes detected" in out.getvalue()


@pytest.mark.django_db
def test_players_who_shared_a_chosen_nickname_are_told_apart_before_it_is_made_unique():
    """games 0006: of the players sharing a chosen name in any case, the first keeps it and the
    others get it with a number that nobody has; guests' default names stay shared."""
    from django.apps import apps
    from django.db import connection

    from games.models import Player

    made_distinct = importlib.import_module("games.migrations.0006_chosen_nicknames_made_distinct")
    with connection.cursor() as cursor:  # as before 0007 (the test's transaction restores it)
        cursor.execute("DROP INDEX nickname_unique_but_guests")
    names = ["Ann", "ann", "ANN", "Ann 2", "Guest-0001", "Guest-0001", "x" * 24, "X" * 24]
    players = [Player.objects.create(nickname=name) for name in names]

    made_distinct.make_distinct(apps, None)

    after = [Player.objects.get(pk=p.pk).nickname for p in players]
    assert after == ["Ann", "ann 3", "ANN 4", "Ann 2", "Guest-0001", "Guest-0001"] + [
        "x" * 24,
        "X" * 22 + " 2",
    ]
