from django.apps import AppConfig


class DailyConfig(AppConfig):
    name = "daily"
    verbose_name = "Daily challenge"

    def ready(self) -> None:
        # The attempt's part of every daily game's move batch (its result in the batch's
        # statement, the boards after the commit), the losing-move search of the games a batch
        # ended, and the receivers that keep attempts and boards in step with games saved
        # outside the move path. Imported here: models load only once the registry is ready.
        from django.db.models.signals import post_save

        from daily import analysis, signals
        from games.models import Game
        from games.play import WRITE_PARTS
        from games.storage import ON_END, BatchPart, register

        WRITE_PARTS[Game.Kind.DAILY] = signals.attempt_part
        register(
            BatchPart(
                name="attempt",
                sql=signals.ATTEMPT_SQL,
                orm=signals.write_attempts,
                after_commit=signals.record_ranked,
            )
        )
        ON_END.append(analysis.request)
        post_save.connect(analysis.after_save, sender=Game, dispatch_uid="daily.analysis")
