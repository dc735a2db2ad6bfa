"""The schema the migrations build is the one tables.py describes, on both engines.

Every query of the store is written on tables.py, while the database is made by the migrations
(store/migrations/versions/): were the two to drift apart, a query could name a column that a
migrated store lacks. Alembic's own comparison (autogenerate's compare_metadata) is the judge:
after a store is opened, it must find nothing to change, types and server defaults included.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Column, DefaultClause, MetaData, Text

from claims_crew.store import HEAD, Store
from claims_crew.store.schema import alembic_config, current_revision, revisions
from claims_crew.store.tables import metadata

pytestmark = pytest.mark.usefixtures("engine")


def _noise(difference: Any) -> bool:
    """Differences that are spelling, not schema.

    SQLite reflects a server default as the SQL text it keeps (`('')` for runs.note), while
    the metadata holds the Python value (""): both are the empty string. So a default counts as
    the same when the reflected text, without its parentheses and quotes, is the metadata's
    value, quoted or not. Nothing else is forgiven.
    """
    if not isinstance(difference, list) or len(difference) != 1:
        return False
    [change] = difference
    if change[0] != "modify_default":
        return False
    reflected, declared = change[5], change[6]
    reflected_text = str(getattr(reflected, "arg", reflected))
    declared_text = str(getattr(declared, "arg", declared))
    return _unquoted(reflected_text) == _unquoted(declared_text)


def _unquoted(sql: str) -> str:
    while sql.startswith("(") and sql.endswith(")"):
        sql = sql[1:-1]
    return sql[1:-1] if len(sql) >= 2 and sql[0] == sql[-1] == "'" else sql


def differences(store: Store, described: MetaData = metadata) -> list[Any]:
    with store.engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": True}
        )
        found = compare_metadata(context, described)
    return [d for d in found if not _noise(d)]


@pytest.mark.empty_database  # the schema a first Store() makes, not a copy of one
def test_the_migrated_schema_is_the_one_the_queries_are_written_on() -> None:
    store = Store()
    with store.engine.connect() as conn:
        assert current_revision(conn) == HEAD
    assert differences(store) == []


def test_a_drift_between_the_two_is_found() -> None:
    """The comparison is not blind: a column only tables.py has, or another default, shows."""
    drifted = MetaData()
    for table in metadata.sorted_tables:
        table.to_metadata(drifted)
    drifted.tables["runs"].append_column(Column("operator", Text))
    drifted.tables["escalations"].c.state.server_default = DefaultClause("closed")

    found = differences(Store(), drifted)

    assert sorted(d[0] if isinstance(d, tuple) else d[0][0] for d in found) == [
        "add_column",
        "modify_default",
    ]


def test_head_is_the_newest_migration() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert script.get_heads() == [HEAD]
    assert revisions()[-1] == HEAD
    # One line of revisions, oldest first, each after the one before.
    order = revisions()
    for before, after in pairwise(order):
        assert script.get_revision(after).down_revision == before
