"""Bringing a database to the store's current schema: Alembic's migrations, run on open.

Opening a store checks the database's revision (one quick read); only when it is behind does it
take the store's write lock and run the missing migrations (migrations/versions/), inside that
one transaction, so two processes opening the store at once never both migrate it and a failed
migration leaves the database as it was.

Stores made when the migrations were hand-written SQL kept the names applied in
`schema_migrations`. Those names are the first revisions' ids: such a store is stamped at the
last one it had, then carried on from there, in place.
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from claims_crew.store.engine import locked_transaction

if TYPE_CHECKING:
    from alembic.config import Config

# Alembic (and Mako, which it loads) is imported only when a database needs migrating: opening
# a store that is current, as every command but the first does, is one read without it.

# The newest revision: a store here needs no migration (checked against the scripts by a test).
HEAD = "0022_report_facts"
# The lock taken while migrating a PostgreSQL database (see base.WRITE_LOCK).
MIGRATION_LOCK = 0x636C61696D7300


def alembic_config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option(
        "script_location", str(resources.files("claims_crew.store") / "migrations")
    )
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def revisions() -> list[str]:
    """Every revision id, oldest first."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config())
    return [s.revision for s in reversed(list(script.walk_revisions()))]


def current_revision(conn: Connection) -> str | None:
    if not inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def _legacy_revision(conn: Connection) -> str | None:
    """The last hand-written migration an older store applied, if it is one."""
    if not inspect(conn).has_table("schema_migrations"):
        return None
    names = {row[0] for row in conn.execute(text("SELECT name FROM schema_migrations"))}
    known = [r for r in revisions() if r in names]
    return known[-1] if known else None


def upgrade(engine: Engine) -> list[str]:
    """Apply the migrations this database lacks; the revision ids applied, oldest first."""
    with engine.connect() as conn:
        if current_revision(conn) == HEAD:
            return []
    from alembic import command

    with locked_transaction(engine, MIGRATION_LOCK) as conn:
        # Checked again under the lock: another process may have migrated it meanwhile.
        start = current_revision(conn)
        if start is None:
            # Made here rather than by Alembic, whose VARCHAR(32) is too short for the
            # revision ids (the old migrations' names).
            conn.execute(
                text("CREATE TABLE alembic_version (version_num VARCHAR(64) NOT NULL PRIMARY KEY)")
            )
            legacy = _legacy_revision(conn)
            if legacy is not None:
                command.stamp(alembic_config(conn), legacy)
                start = legacy
        if start == HEAD:
            return []
        command.upgrade(alembic_config(conn), "head")
    order = revisions()
    return order[order.index(start) + 1 :] if start in order else order
