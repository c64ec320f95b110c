"""How a game's facts read on a page: its time, its status, its variant's name."""

from django import template

from games.engine import VARIANT_INFO

register = template.Library()


def format_ms(ms: int | None) -> str:
    """A time as a player reads it: 1:02.345, or 1:02:03.4 past an hour."""
    if ms is None:
        return "–"
    seconds, millis = divmod(int(ms), 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}.{millis // 100}"
    return f"{minutes}:{seconds:02d}.{millis:03d}"


@register.filter
def clock(ms) -> str:
    """Milliseconds as 1:02.345 (a dash when there is no time)."""
    return format_ms(ms)


@register.filter
def variant_name(variant: str) -> str:
    info = VARIANT_INFO.get(variant)
    return info["name"] if info else variant


@register.filter
def status_label(status: str | None) -> str:
    return {
        "won": "Won",
        "playing": "Playing",
        "stuck": "Stuck",
        "resigned": "Gave up",
        None: "",
    }.get(status, status or "")
