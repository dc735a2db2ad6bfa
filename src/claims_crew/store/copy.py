"""Copying a whole store into another database: how a team moves its SQLite file to PostgreSQL.

Every table of tables.py is copied, parents before children (`metadata.sorted_tables`, so each
foreign key finds its row), with every id and every byte kept: the audit chain hashes bodies
and sequence numbers, so the copy verifies exactly as the original does, and decisions,
escalations and reviews still point at the entries that recorded them. The claim files come
along too, so a run of the same inbox against the copy finds every claim already decided.

The target must be an empty store: a database holding none of the store's rows and no tables of
its own (it is brought to the current schema first, as opening a Store does). Anything else is
refused before a row is written, and a database with rows is not even migrated. The copy is one
transaction on the target, holding the store's write lock: it lands whole or not at all.
Afterwards PostgreSQL's id sequences are moved past the copied ids, so the next run or review
gets a new id instead of colliding with a copied one (SQLite takes the next rowid by itself).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, LargeBinary, Table, create_engine, func, insert, inspect, select
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.pool import NullPool

from claims_crew.errors import CopyRefused, StoreError
from claims_crew.store.base import StoreBase
from claims_crew.store.engine import describe, sqlite_url
from claims_crew.store.tables import metadata

# Rows read and written per round trip: a few hundred keeps memory flat for large claim files
# while the round trips stay few.
BATCH_ROWS = 500
# Tables a store holds besides its own: the migrations' bookkeeping (Alembic's, and the one
# the hand-written migrations kept).
BOOKKEEPING = frozenset({"alembic_version", "schema_migrations"})


@dataclass(frozen=True)
class Copied:
    """One table copied: its name and how many rows."""

    table: str
    rows: int


def target_url(to: str) -> URL:
    """Where to copy to: a database URL (`postgresql+psycopg://…`, `sqlite:///…`), or the path
    of an SQLite file."""
    if "://" not in to:
        return sqlite_url(Path(to).expanduser().resolve())
    try:
        return make_url(to)
    except (ArgumentError, ValueError) as exc:
        raise CopyRefused("the target is neither a database URL nor a file path") from exc


def copy_store(source: StoreBase, to: URL) -> list[Copied]:
    """Copy every row of `source` into the empty store at `to`; the rows per table, in the
    order they were copied. Raises CopyRefused when `to` is not an empty store."""
    if to.get_backend_name() == "sqlite" and to.database:
        Path(to.database).parent.mkdir(parents=True, exist_ok=True)
    _refuse_unless_empty(to)
    try:
        target = StoreBase(url=to)
    except (ValueError, SQLAlchemyError) as exc:
        raise CopyRefused(f"cannot open {describe(to)} as a store: {_reason(exc)}") from exc
    try:
        with source.read() as reading, target.write() as writing:
            # Again under the target's write lock: a run may have started on it meanwhile.
            _refuse_rows(to, writing)
            copied = [
                Copied(table.name, _copy_table(reading, writing, table, to))
                for table in metadata.sorted_tables
            ]
            if target.postgres:
                _move_sequences(writing)
    finally:
        target.close()
    return copied


def _refuse_unless_empty(to: URL) -> None:
    """Refuse a target that holds rows or tables of its own, before anything migrates it."""
    if to.get_backend_name() not in ("sqlite", "postgresql"):
        raise CopyRefused(f"unsupported database {describe(to)}: copy into PostgreSQL or SQLite")
    # A bare engine, not the store's (engine.py): that one would switch an SQLite file to WAL,
    # and a refused target is left exactly as it was.
    engine = create_engine(to, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            foreign = sorted(
                set(inspect(conn).get_table_names()) - set(metadata.tables) - BOOKKEEPING
            )
            if foreign:
                raise CopyRefused(
                    f"{describe(to)} holds tables that are not the store's "
                    f"({', '.join(foreign)}): copy into an empty database"
                )
            _refuse_rows(to, conn)
    except SQLAlchemyError as exc:
        raise CopyRefused(f"cannot open {describe(to)}: {_reason(exc)}") from exc
    finally:
        engine.dispose()


def _reason(exc: Exception) -> str:
    """The driver's own words when there are some, without SQLAlchemy's wrapping."""
    return str(getattr(exc, "orig", None) or exc).strip()


def _refuse_rows(to: URL, conn: Connection) -> None:
    present = set(inspect(conn).get_table_names())
    counts = {
        table.name: conn.execute(select(func.count()).select_from(table)).scalar_one()
        for table in metadata.sorted_tables
        if table.name in present
    }
    filled = [f"{name} ({rows})" for name, rows in counts.items() if rows]
    if filled:
        raise CopyRefused(
            f"{describe(to)} is not an empty store: it has rows in {', '.join(filled)}. "
            "Copy into a new, empty database; nothing was written"
        )


def _copy_table(source: Connection, target: Connection, table: Table, to: URL) -> int:
    """Copy one table in batches, in primary-key order; how many rows."""
    binary = [c.name for c in table.columns if isinstance(c.type, LargeBinary)]
    query = select(table).order_by(*table.primary_key.columns)
    copied = 0
    try:
        result = source.execute(query.execution_options(yield_per=BATCH_ROWS))
        for batch in result.partitions():
            rows = [dict(row._mapping) for row in batch]
            for row in rows:
                for name in binary:
                    # psycopg hands bytea back as memoryview; both engines take bytes.
                    if row[name] is not None:
                        row[name] = bytes(row[name])
            target.execute(insert(table), rows)
            copied += len(rows)
    except SQLAlchemyError as exc:
        raise StoreError(
            f"copying table {table.name} into {describe(to)} failed, so nothing was written: "
            f"{_reason(exc)}"
        ) from exc
    return copied


def _move_sequences(conn: Connection) -> None:
    """Set each PostgreSQL id sequence to the highest copied id (or back to the start)."""
    for table in metadata.sorted_tables:
        column = table.autoincrement_column
        if column is None:
            continue
        highest = conn.execute(select(func.max(column))).scalar()
        sequence = func.pg_get_serial_sequence(table.name, column.name)
        # With is_called false the next id is the value itself: 1, as in a new database.
        conn.execute(select(func.setval(sequence, highest or 1, highest is not None)))
