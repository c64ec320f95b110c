from django.apps import AppConfig


class RacesConfig(AppConfig):
    """Live races: several players, one deal, one clock, a live leaderboard."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "races"

    def ready(self) -> None:
        from games.writer import AFTER_COMMIT, AfterCommit
        from races.play import after_batch, closes_races

        AFTER_COMMIT.append(AfterCommit(after_batch, wanted=closes_races))
