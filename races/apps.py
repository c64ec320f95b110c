from django.apps import AppConfig


class RacesConfig(AppConfig):
    """Live races: several players, one deal, one clock, a live leaderboard."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "races"

    def ready(self) -> None:
        # Registers the racer's part of every move batch (races/actions.py); models can be
        # imported only once the app registry is ready.
        from races import actions  # noqa: F401
