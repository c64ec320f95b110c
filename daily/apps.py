from django.apps import AppConfig


class DailyConfig(AppConfig):
    name = "daily"
    verbose_name = "Daily challenge"

    def ready(self) -> None:
        # Connects the receiver that keeps attempts and boards in step with their games when a
        # game is saved outside the move path, and the move writer's hook for the boards.
        from daily import signals
        from games.writer import AFTER_COMMIT

        AFTER_COMMIT.append(signals.record_ranked_attempts)
