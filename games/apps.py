from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from django.urls import register_converter

        # Connects the login receiver that merges a guest into the account.
        from games import identity  # noqa: F401
        from games.converters import RowId

        register_converter(RowId, "rowid")  # before any URLconf is read
