"""Three ORM shortcuts for hot paths, each what Django does at a fraction of its cost to build
or without the waits it would make.

`one_or_none(queryset)` is `.first()` for a lookup by a unique key (a primary key, a public id,
a race and a player): the row, or None, without `.first()`'s sort. `.first()` orders by the
model's `Meta.ordering` (or the primary key) to pick a first row, and Django's compiler pays for
an `ORDER BY` by comparing every term with every column it selects: a racer read with its game
and race took 0.79 ms to build sorted and 0.50 ms unsorted, an arena by its public id 0.27
against 0.15 ms (the SQL's building alone, timed; docs/performance.md). A unique key finds one
row at most, so there is nothing to sort.

`update_rows(objs, fields)` is what Django's `QuerySet.bulk_update` does, in one statement that
costs little to build. `bulk_update` writes each field as a `CASE WHEN id = … THEN … END` of one
branch a row, every branch an expression Django resolves and compiles: eight arena players' six
totals took 7.2 ms of CPU, a quarter of a race's whole close (scripts/arena_bench.py --ends).
Here the rows' values are one `VALUES` list joined on the primary key:

    UPDATE "arenas_arenaplayer" SET "points" = v.column2, …
    FROM (VALUES (%s, %s, …), …) AS v WHERE "arenas_arenaplayer"."id" = v.column1

PostgreSQL and SQLite (3.33 and later) both take it, and both name a `VALUES` list's columns
`column1`, `column2`, …. On PostgreSQL each value is cast to its column's type: the query's
parameters are sent as literals, and a `VALUES` list of untyped literals would be text. Like
`bulk_update`, it writes the values as they are on the objects (no `pre_save`: an `auto_now`
field is written as it stands) and sends no signals; unlike it, it takes plain values only (no
expressions such as `F()`).

`touch(queryset, **fields)` is `queryset.update(**fields)` for a heartbeat (a page still open):
it writes only the rows no other transaction holds, and never waits for one. A row held (a
race's close writing its racers, a move batch) is passed over: the next beat says it again. One
plain `UPDATE` of many rows locks them in its own order and waits for each one held, while
holding those it has; a close that locks the same rows in id order then waits for it, and
PostgreSQL breaks the deadlock by failing the close (docs/performance-log.md, arenas'
twenty-eighth day)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connections, router, transaction
from django.db.models import Model, QuerySet


def one_or_none(queryset: QuerySet):
    """The one row of a lookup by a unique key, or None (`.first()` without its sort)."""
    return next(iter(queryset.order_by()[:1]), None)


def update_rows(objs: Sequence[Model], fields: Sequence[str]) -> int:
    """Store these fields of these saved objects (all of one model) in one statement; the
    number of rows it changed."""
    if not objs:
        return 0
    model = type(objs[0])
    meta = model._meta
    connection = connections[router.db_for_write(model)]
    quote = connection.ops.quote_name
    pk = meta.pk
    columns = [pk, *(meta.get_field(name) for name in fields)]
    if len(set(columns)) != len(columns):  # the primary key is the first
        raise ValueError("each field once, and not the primary key")
    cast = connection.vendor == "postgresql"
    row = ", ".join(f"%s::{c.cast_db_type(connection)}" if cast else "%s" for c in columns)
    params: list = []
    for obj in objs:
        if type(obj) is not model or obj.pk is None:
            raise ValueError("saved objects of one model only")
        for column in columns:
            value = getattr(obj, column.attname)
            if hasattr(value, "resolve_expression"):
                raise TypeError(f"{column.name}: a value, not an expression")
            params.append(column.get_db_prep_save(value, connection))
    table = quote(meta.db_table)
    sets = ", ".join(f"{quote(c.column)} = v.column{n}" for n, c in enumerate(columns[1:], 2))
    values = ", ".join([f"({row})"] * len(objs))
    sql = (
        f"UPDATE {table} SET {sets} FROM (VALUES {values}) AS v"
        f" WHERE {table}.{quote(pk.column)} = v.column1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def touch(queryset: QuerySet, **fields) -> int:
    """Write these fields to the queryset's rows that no other transaction holds, passing over
    those held rather than waiting for them; how many it wrote."""
    model = queryset.model
    with transaction.atomic(using=router.db_for_write(model)):
        free = queryset.select_for_update(no_key=True, skip_locked=True).order_by("pk")
        pks = list(free.values_list("pk", flat=True))
        return model._default_manager.filter(pk__in=pks).update(**fields) if pks else 0
