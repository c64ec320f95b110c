from django.apps import AppConfig


class RecordsConfig(AppConfig):
    name = "records"
    verbose_name = "Boards, players and replays"

    def ready(self) -> None:
        # Connects the receivers and registers what follows a ranked daily result and a game's
        # end (records/signals.py); models load only once the registry is ready.
        from records import signals  # noqa: F401
