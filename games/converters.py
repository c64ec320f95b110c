"""Path converters of the project's addresses (registered by the games app)."""

from __future__ import annotations

from games.models import INT64_MAX, PUBLIC_ID


class RowId:
    """A row's id in an address (`<rowid:player_id>`): a whole number a 64-bit column holds.
    Django's `int` takes any number of digits, and a larger one reached the database, which
    SQLite refuses with an error (a 500); here it matches no address (a 404)."""

    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > INT64_MAX:
            raise ValueError(f"{value} is past 64 bits")  # Django: no match
        return number

    def to_url(self, value: int) -> str:
        return str(value)


class PublicId:
    """A public id in an address (`<publicid:arena_id>`): what `games.models.is_public_id`
    takes, so a NUL or a lone surrogate in one matches no address (a 404) and never reaches the
    database, which PostgreSQL refuses with an error (a 500)."""

    regex = PUBLIC_ID.pattern

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value
