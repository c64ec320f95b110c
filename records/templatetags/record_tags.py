"""Template filters of the boards, player pages and replays."""

import datetime as dt
from collections import Counter

from django import template
from django.utils.html import format_html

from records.links import link

register = template.Library()


@register.filter
def ghost_url(public_id: str) -> str:
    """The address that races a run's ghost: `{% url 'records:ghost' id %}` without resolving
    the name again on every row of a board (records/links.py)."""
    return link("records:ghost", public_id)


def _moment(iso_text: str) -> dt.datetime:
    """An ISO timestamp (a `Z` too) in UTC, to the second."""
    moment = dt.datetime.fromisoformat(iso_text.replace("Z", "+00:00"))
    return moment.astimezone(dt.UTC).replace(microsecond=0)


@register.filter
def when(iso_text: str | None) -> str:
    """An ISO timestamp as "2026-11-22 01:02 UTC"."""
    if not iso_text:
        return "–"
    return _moment(iso_text).strftime("%Y-%m-%d %H:%M UTC")


@register.filter
def local_time(iso_text: str | None) -> str:
    """An ISO timestamp as a player's page writes a moment, "2026-11-22 01:02": in UTC, as a page
    without scripts shows it, in a `<time data-local="date">` that js/local-times.js writes again
    in the reader's own zone (a column's `<span data-zone>` says which)."""
    if not iso_text:
        return "–"
    moment = _moment(iso_text)
    return format_html(
        '<time data-local="date" datetime="{}">{}</time>',
        moment.isoformat(),
        moment.strftime("%Y-%m-%d %H:%M"),
    )


def _named_by(row, fields: list[str]) -> tuple:
    """What a row's link is named by: its `fields` (a dict's keys or an object's attributes), a
    moment (a field named `…_at`, a datetime or ISO text) to the minute, as the pages write one."""
    values = []
    for field in fields:
        value = row[field] if isinstance(row, dict) else getattr(row, field)
        if field.endswith("_at") and value:
            moment = _moment(value) if isinstance(value, str) else value.astimezone(dt.UTC)
            value = moment.replace(second=0)
        values.append(value)
    return tuple(values)


@register.filter
def told_apart(rows, fields: str) -> list[tuple[object, str]]:
    """Each row of a list with what tells its link's name from those of the rows named alike
    (equal in all of `fields`, space-separated; a moment to the minute): "1 of 2", "2 of 2" in the
    list's order, "" for a row named like no other. Two games of one game started in one minute,
    or two arenas of one name and start, link to two pages: a link of one name leads to one."""
    rows = list(rows)
    names = [_named_by(row, fields.split()) for row in rows]
    alike, seen = Counter(names), Counter()
    told = []
    for row, name in zip(rows, names, strict=True):
        seen[name] += 1
        told.append((row, f"{seen[name]} of {alike[name]}" if alike[name] > 1 else ""))
    return told
