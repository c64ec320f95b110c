from django.apps import AppConfig


class FairplayConfig(AppConfig):
    name = "fairplay"
    verbose_name = "Fair play"

    def ready(self) -> None:
        # Registers the assessment of ranked games that end (fairplay/signals.py).
        from fairplay import signals  # noqa: F401
