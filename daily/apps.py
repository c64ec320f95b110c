from django.apps import AppConfig


class DailyConfig(AppConfig):
    name = "daily"
    verbose_name = "Daily challenge"

    def ready(self) -> None:
        # Connects the receiver that keeps attempts and boards in step with their games when a
        # game is saved outside the move path, and the move writer's hooks for the boards and
        # for the losing-move search of the games a batch ended.
        from django.db.models.signals import post_save

        from daily import analysis, signals
        from games.models import Game
        from games.writer import AFTER_COMMIT, AfterCommit

        AFTER_COMMIT.append(
            AfterCommit(signals.record_ranked_attempts, wanted=signals.has_ranked_attempts)
        )
        AFTER_COMMIT.append(AfterCommit(analysis.after_batch, wanted=analysis.ends_games))
        post_save.connect(analysis.after_save, sender=Game, dispatch_uid="daily.analysis")
