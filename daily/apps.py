from django.apps import AppConfig


class DailyConfig(AppConfig):
    name = "daily"
    verbose_name = "Daily challenge"

    def ready(self) -> None:
        # Connects the receivers and registers the attempt's part of a move batch and what
        # follows a game's end (daily/signals.py); models load only once the registry is ready.
        from daily import signals  # noqa: F401
