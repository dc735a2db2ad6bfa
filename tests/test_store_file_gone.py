"""A SQLite store whose file is deleted or replaced while a process has it open.

A pooled connection would go on writing into the deleted file, and every write would be lost
when the process ends; the store refuses instead, before the next transaction, with one line
that names the file (store/engine.py).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from claims_crew.errors import DatabaseUnavailable
from claims_crew.store import Store
from claims_crew.store.engine import sqlite_files


def test_a_deleted_store_file_is_named_and_nothing_more_is_written(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    store = Store(path)
    store.start_run("before")
    for file in sqlite_files(path):
        file.unlink(missing_ok=True)
    with pytest.raises(DatabaseUnavailable, match="deleted or moved") as refused:
        store.start_run("after")
    assert str(path) in str(refused.value)
    store.engine.dispose()  # the next transaction needs a new connection
    with pytest.raises(DatabaseUnavailable, match="deleted or moved"):
        store.start_run("after")
    assert not path.exists()  # the refusals made no new, empty store in its place


def test_a_replaced_store_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    store = Store(path)
    first = store.start_run("before")
    store.close()
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(path, copy)
    store = Store(path)
    assert store.start_run("while open") > first
    os.replace(copy, path)  # another file, at the same path, under the open store
    with pytest.raises(DatabaseUnavailable, match="replaced by another file"):
        store.start_run("after")


def test_the_same_file_moved_away_and_back_is_still_the_store(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    store = Store(path)
    first = store.start_run("before")
    moved = tmp_path / "moved.sqlite"
    path.rename(moved)
    moved.rename(path)  # the file itself, back at its path: nothing was lost
    assert store.start_run("after") > first
