"""The few statements SQLite and PostgreSQL spell differently, written once for both.

Everything else in the store is plain SQLAlchemy Core on tables.py, which both engines take as
it is. Both engines know `INSERT … ON CONFLICT`, but SQLAlchemy builds it per dialect.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from typing import Any, TypeVar

from sqlalchemy import Connection, CursorResult, Table, insert
from sqlalchemy.dialects import postgresql, sqlite

R = TypeVar("R")


def _insert(conn: Connection, table: Table) -> Any:
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    return dialect.insert(table)


def insert_new(
    conn: Connection, table: Table, values: Mapping[str, Any], keys: Sequence[str]
) -> bool:
    """Insert a row unless one with the same `keys` exists (then nothing); True if inserted.

    Told by RETURNING, not rowcount, which psycopg leaves at -1 for a skipped conflict.
    """
    statement = (
        _insert(conn, table)
        .values(**values)
        .on_conflict_do_nothing(index_elements=keys)
        .returning(table.c[keys[0]])
    )
    return conn.execute(statement).first() is not None


def upsert(
    conn: Connection, table: Table, values: Mapping[str, Any], keys: Sequence[str]
) -> CursorResult[Any]:
    """Insert a row, or overwrite the one with the same `keys` with these values."""
    statement = _insert(conn, table).values(**values)
    statement = statement.on_conflict_do_update(
        index_elements=keys,
        set_={name: statement.excluded[name] for name in values if name not in keys},
    )
    result: CursorResult[Any] = conn.execute(statement)
    return result


# add_to's statements, one per dialect, table, keys and amounts: built once, as building one
# (its ON CONFLICT clause, its sums) cost more than running it, six times a decision.
_adding: dict[tuple[str, str, tuple[str, ...], tuple[str, ...]], Any] = {}


def add_to(
    conn: Connection, table: Table, keys: Sequence[str], rows: Sequence[Mapping[str, Any]]
) -> None:
    """Add each row's other values to the row with its `keys`' values, made with them when
    there is none yet: one statement a row, so two writers adding at once both count; all the
    rows (each with the same names) sent in one call."""
    if not rows:
        return
    amounts = tuple(name for name in rows[0] if name not in keys)
    key = (conn.dialect.name, table.name, tuple(keys), amounts)
    statement = _adding.get(key)
    if statement is None:
        statement = _insert(conn, table)
        statement = _adding[key] = statement.on_conflict_do_update(
            index_elements=list(keys),
            set_={name: table.c[name] + statement.excluded[name] for name in amounts},
        )
    conn.execute(statement, list(rows))


def insert_with_id(conn: Connection, table: Table, row: R) -> R:
    """Insert a dataclass row whose first field, `id`, the database numbers; the row with it."""
    values = asdict(row)  # type: ignore[call-overload]
    del values["id"]
    new_id: int = conn.execute(insert(table).values(**values).returning(table.c.id)).scalar_one()
    return replace(row, id=int(new_id))  # type: ignore[type-var]
