"""The SQLite store each test's home starts with (tests/support/sqlite_template.py): at the
current schema, holding no rows, each test's own; and none for a test marked `empty_database`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from claims_crew import settings
from claims_crew.store import HEAD, Store
from claims_crew.store.base import default_path
from claims_crew.store.schema import current_revision, upgrade
from tests.support.postgres import TEMPLATE_ROWS
from tests.support.sqlite_template import STORE_FILE, checked, rows_in

# The copies the runs of test_a_home_starts_at_the_schema_with_no_rows were given, and the rows
# each found in the reviewers table.
SEEN: list[tuple[Path, dict[str, int]]] = []


@pytest.mark.parametrize("run", ["first", "second"])
def test_a_home_starts_at_the_schema_with_no_rows(run: str, sqlite_template: Path) -> None:
    """Where Store() looks, before it opens it; each test's own copy: a reviewer one run adds,
    the other would see were the file shared."""
    path = default_path()
    assert path.name == STORE_FILE and path.parent == settings.home()
    assert path.is_file() and path != sqlite_template
    found = rows_in(path)
    assert found == TEMPLATE_ROWS == {"alembic_version": 1}
    store = Store()
    assert upgrade(store.engine) == []  # nothing left to migrate
    with store.engine.connect() as conn:
        assert current_revision(conn) == HEAD
    store.add_reviewer(f"reviewer-{run}")
    store.close()
    assert rows_in(path)["reviewers"] == 1
    assert all(seen != path and rows == TEMPLATE_ROWS for seen, rows in SEEN)
    SEEN.append((path, found))
    assert rows_in(sqlite_template) == TEMPLATE_ROWS


@pytest.mark.empty_database
def test_a_test_of_a_new_store_gets_no_file() -> None:
    assert not settings.home().exists()
    store = Store()
    assert store.path == default_path()
    with store.engine.connect() as conn:
        assert current_revision(conn) == HEAD
    assert rows_in(default_path()) == TEMPLATE_ROWS


def test_a_file_with_a_row_or_a_log_beside_it_is_no_template(
    sqlite_template: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "template"
    folder.mkdir()
    copy = Path(shutil.copyfile(sqlite_template, folder / STORE_FILE))
    assert checked(copy) == copy
    store = Store(path=copy)
    store.add_reviewer("left-in-the-template")
    store.close()
    with pytest.raises(RuntimeError, match="'reviewers': 1"):
        checked(copy)
    shutil.copyfile(sqlite_template, copy)
    (folder / f"{STORE_FILE}-wal").write_bytes(b"")
    with pytest.raises(RuntimeError, match="-wal"):
        checked(copy)
