"""Every row of a store's tables, read straight from its database: to compare stores row by row.

It reads with a bare SQLAlchemy engine, not a Store: nothing is migrated and no setting is
changed (a Store would turn an SQLite file's journal to WAL), so a test can tell a database
that was left untouched from one that was not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, inspect, select
from sqlalchemy.engine import URL
from sqlalchemy.pool import NullPool

from claims_crew.store.engine import sqlite_url
from claims_crew.store.tables import metadata

Rows = dict[str, list[dict[str, Any]]]


def _plain(value: Any) -> Any:
    # PostgreSQL's bytea may come back as memoryview; SQLite's BLOB as bytes.
    return bytes(value) if isinstance(value, memoryview) else value


def table_rows(where: URL | str | Path) -> Rows:
    """The rows of each of the store's tables that exist there, in primary-key order, each as
    {column: value} for the columns it has (an older store lacks the newer ones)."""
    url = sqlite_url(where) if isinstance(where, Path) else where
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            schema = inspect(conn)
            present = set(schema.get_table_names())
            found: Rows = {}
            for table in metadata.sorted_tables:
                if table.name not in present:
                    continue
                names = {c["name"] for c in schema.get_columns(table.name)}
                columns = [c for c in table.columns if c.name in names]
                query = select(*columns).order_by(*table.primary_key.columns)
                found[table.name] = [
                    {name: _plain(value) for name, value in row._mapping.items()}
                    for row in conn.execute(query)
                ]
            return found
    finally:
        engine.dispose()
