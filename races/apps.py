from django.apps import AppConfig


class RacesConfig(AppConfig):
    """Live races: several players, one deal, one clock, a live leaderboard."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "races"
