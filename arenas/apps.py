from django.apps import AppConfig


class ArenasConfig(AppConfig):
    """Arenas: timed events of races one after another, for points on a live board."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "arenas"

    def ready(self) -> None:
        # Registers the arena's part of a race's close (and its rows on the boards' rebuild
        # and the player pages); models can be imported only once the app registry is ready.
        from arenas import signals  # noqa: F401
