from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        # Connects the login receiver that merges a guest into the account.
        from games import identity  # noqa: F401
