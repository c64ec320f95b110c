from django.apps import AppConfig


class DailyConfig(AppConfig):
    name = "daily"
    verbose_name = "Daily challenge"

    def ready(self) -> None:
        # Connects the receiver that keeps attempts and boards in step with their games.
        from daily import signals  # noqa: F401
