"""The race's clock: milliseconds on the server's clock, and the phase it puts a race in."""

from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone

from races import lifecycle
from races.lifecycle import Phase
from races.models import Race


def epoch_ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def from_epoch_ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def since_start_ms(race: Race, moment: datetime) -> int:
    """Milliseconds on the server's clock from the race start to `moment` (never negative)."""
    return max(0, int((moment - race.starts_at).total_seconds() * 1000))


def phase_of(race: Race, now: datetime | None = None) -> Phase:
    now = now or timezone.now()
    return lifecycle.phase(
        race.status, epoch_ms(race.starts_at), epoch_ms(race.ends_at), epoch_ms(now)
    )
