"""The races a link-only arena placed before its races took the arena's visibility (a34d5f6)
were public: listed on /races/ and among the recent races. They become link-only, as the
arena's later races are."""

from django.db import migrations


def races_as_their_arena(apps, schema_editor):
    Race = apps.get_model("races", "Race")
    db = schema_editor.connection.alias
    Race.objects.using(db).filter(
        arena_race__arena__visibility="link", visibility="public"
    ).update(visibility="link")


class Migration(migrations.Migration):
    dependencies = [
        ("arenas", "0003_standard_schedule_made"),
        ("races", "0006_race_wants_winnable"),
    ]

    operations = [migrations.RunPython(races_as_their_arena, migrations.RunPython.noop)]
