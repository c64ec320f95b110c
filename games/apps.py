from django.apps import AppConfig
from django.urls import register_converter


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # Connects the login receiver that merges a guest into the account.
        from games import identity  # noqa: F401
        from games.converters import PublicId, RowId

        register_converter(RowId, "rowid")  # before any URLconf is read
        register_converter(PublicId, "publicid")
