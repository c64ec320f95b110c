from django.apps import AppConfig


class RacesConfig(AppConfig):
    """Live races: several players, one deal, one clock, a live leaderboard."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "races"

    def ready(self) -> None:
        # The racer's part of every move batch: its progress in the batch's statement, the
        # numbered event of a finish in its transaction, the close of a race once all are done.
        # Imported here: models can be imported only once the app registry is ready.
        from games.storage import BatchPart, register
        from races import actions, events

        register(
            BatchPart(
                name="racer",
                sql=events.RACER_SQL,
                orm=events.write_racers,
                lock=events.lock_races,
                announce=events.announce_finishes,
                after_commit=actions.close_finished,
            )
        )
