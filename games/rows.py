"""Hand-written reads for the move hot path, loaded into ordinary model instances.

A race move reads the same two rows every time (the race, locked, and the racer with their
game). Built by the ORM, those queries cost more CPU to compile than PostgreSQL takes to run
them: a profile of a Daphne under scripts/loadtest.py found a third of the process's Python
time in compiling them (docs/performance.md). Here the SQL is written once per model and
columns, and the rows become instances through `Model.from_db`, so everything downstream (saves,
deferred fields, `refresh_from_db`) works as with the ORM's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from functools import cache

from django.db import connection, models
from django.utils.dateparse import parse_datetime


@cache
def attnames(model: type[models.Model], exclude: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The model's column attnames in its field order (the order `from_db` wants)."""
    return tuple(f.attname for f in model._meta.concrete_fields if f.name not in exclude)


@cache
def _fields(model: type[models.Model]) -> dict[str, models.Field]:
    """The model's concrete fields by attname (looked up once per model, not per row)."""
    return {f.attname: f for f in model._meta.concrete_fields}


@cache
def column_list(model: type[models.Model], alias: str, names: tuple[str, ...]) -> str:
    """`alias."col", …` for the model's fields named (attnames: `game_id`, not `game`)."""
    fields = _fields(model)
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(fields[n].column)}" for n in names)


@cache
def _positions(model: type[models.Model], names: tuple[str, ...], kind: type) -> tuple[int, ...]:
    """Where in a row of `names` the fields of this kind (DateTimeField, BooleanField) are."""
    fields = _fields(model)
    return tuple(i for i, n in enumerate(names) if isinstance(fields[n], kind))


def _aware(value):
    """A datetime as the ORM would give it: SQLite hands back text or naive UTC."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if isinstance(value, datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value


def instance(model: type[models.Model], names: tuple[str, ...], values: Sequence):
    """A model instance from a row holding `names` (from `attnames`: other fields deferred,
    loaded on access)."""
    values = list(values)
    for i in _positions(model, names, models.DateTimeField):
        values[i] = _aware(values[i])
    if connection.vendor == "sqlite":  # SQLite hands back 0 and 1
        for i in _positions(model, names, models.BooleanField):
            if values[i] is not None:
                values[i] = bool(values[i])
    return model.from_db(connection.alias, list(names), values)


def fetch_one(sql: str, params: Sequence) -> tuple | None:
    """The first row of a query, or None."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def for_update() -> str:
    """` FOR UPDATE` where the database locks rows (SQLite locks the whole file instead)."""
    return " FOR UPDATE" if connection.features.has_select_for_update else ""


def _prepared(model: type[models.Model], values: dict) -> tuple[list[str], list]:
    """Columns and parameters for `values` (attname -> value), adapted by each field as the
    ORM's own save would (datetimes as the backend stores them, JSON for JSON fields)."""
    fields = _fields(model)
    quote = connection.ops.quote_name
    columns, params = [], []
    for name, value in values.items():
        field = fields[name]
        columns.append(quote(field.column))
        params.append(field.get_db_prep_save(value, connection))
    return columns, params


def update(model: type[models.Model], pk: int, values: dict) -> None:
    """UPDATE one row's fields (attname -> value) by primary key."""
    columns, params = _prepared(model, values)
    assignments = ", ".join(f"{column} = %s" for column in columns)
    sql = f"UPDATE {model._meta.db_table} SET {assignments} WHERE id = %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, pk])


def insert(model: type[models.Model], rows: Sequence[dict]) -> None:
    """INSERT rows (each attname -> value, all with the same fields) in one statement."""
    if not rows:
        return
    prepared = [_prepared(model, row) for row in rows]
    columns = prepared[0][0]
    one = "(" + ", ".join(["%s"] * len(columns)) + ")"
    sql = (
        f"INSERT INTO {model._meta.db_table} ({', '.join(columns)}) "
        f"VALUES {', '.join([one] * len(rows))}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [p for _, params in prepared for p in params])
