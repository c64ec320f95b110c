"""Before chosen nicknames are each player's own (0007): of the players who share one, in any
case, the first to have it keeps it, and each later one gets it with a number ("Ann 2"), cut to
fit. Guests' default names ("Guest-" and four digits) may be shared and are left as they are."""

from django.db import migrations
from django.db.models import Count, Q
from django.db.models.functions import Lower

GUEST_PREFIX = "Guest-"
NICKNAME_MAX_LENGTH = 24


def make_distinct(apps, schema_editor):
    Player = apps.get_model("games", "Player")
    chosen = Player.objects.exclude(nickname__startswith=GUEST_PREFIX)
    shared = (
        chosen.annotate(name=Lower("nickname"))
        .values("name")
        .annotate(n=Count("pk"))
        .filter(n__gt=1)
        .values_list("name", flat=True)
    )
    taken = set()
    for name in shared:
        players = chosen.annotate(name=Lower("nickname")).filter(name=name)
        first, *later = players.order_by("created_at", "pk")
        for player in later:
            player.nickname = _numbered(Player, player.nickname, taken)
            taken.add(player.nickname.lower())
            player.save(update_fields=["nickname"])


def _numbered(Player, wanted, taken):
    number = 1
    while True:
        number += 1
        suffix = f" {number}"
        name = wanted[: NICKNAME_MAX_LENGTH - len(suffix)].rstrip() + suffix
        if name.lower() not in taken and not Player.objects.filter(nickname__iexact=name).exists():
            return name


class Migration(migrations.Migration):
    dependencies = [("games", "0005_move_game_index_dropped")]

    operations = [migrations.RunPython(make_distinct, migrations.RunPython.noop)]
