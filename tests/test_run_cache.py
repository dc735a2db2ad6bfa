"""What one test run computes once for all its workers (tests/support/run_cache.py): the run's
bytecode folder where PYTHONDONTWRITEBYTECODE is set, and files computed once and shared."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.run_cache import file_once, held, keep_bytecode, texts_once


def test_the_run_keeps_bytecode_only_where_none_would_be_kept(tmp_path: Path) -> None:
    folder = tmp_path / "bytecode"
    env = {"PYTHONDONTWRITEBYTECODE": "1", "HOME": "/x"}
    assert keep_bytecode(env, folder)
    assert env == {"PYTHONPYCACHEPREFIX": str(folder), "HOME": "/x"}
    # Python's own default, or a folder someone named, is left as it is.
    for own in ({}, {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/elsewhere"}):
        unchanged = dict(own)
        assert not keep_bytecode(unchanged, folder)
        assert unchanged == own


def test_a_process_started_under_the_run_compiles_into_the_run_s_folder(tmp_path: Path) -> None:
    """What the run's own environment passes on: a child compiles a module into the run's
    folder, and the module's own folder keeps nothing."""
    package = tmp_path / "source"
    package.mkdir()
    (package / "compiled_once.py").write_text("VALUE = 42\n", encoding="utf-8")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    assert keep_bytecode(env, tmp_path / "bytecode")
    command = [sys.executable, "-c", "import compiled_once; print(compiled_once.VALUE)"]
    done = subprocess.run(command, cwd=package, env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "42", done.stderr
    assert [p.name for p in (tmp_path / "bytecode").rglob("compiled_once.*.pyc")]
    assert not (package / "__pycache__").exists()


def test_texts_are_computed_once_and_read_back(tmp_path: Path) -> None:
    computed: list[int] = []

    def compute() -> list[str]:
        computed.append(1)
        return ["page one", "page two"]

    folder = tmp_path / "cache"
    folder.mkdir()
    path = folder / "pages.json"
    with held(folder / "pages.lock"):
        first = texts_once(path, compute)
    assert texts_once(path, compute) == first == ["page one", "page two"]
    assert computed == [1]
    assert sorted(p.name for p in folder.iterdir()) == ["pages.json", "pages.lock"]


TRY_LOCK = """
import fcntl, sys
with open(sys.argv[1], "a") as handle:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print("held")
    else:
        print("free")
"""


def test_a_held_lock_keeps_another_worker_out_until_it_is_let_go(tmp_path: Path) -> None:
    lock = tmp_path / "pdf.lock"
    other = [sys.executable, "-c", TRY_LOCK, str(lock)]
    with held(lock):
        assert subprocess.run(other, capture_output=True, text=True).stdout.strip() == "held"
    assert subprocess.run(other, capture_output=True, text=True).stdout.strip() == "free"


def test_a_file_is_built_once_and_copied_where_each_worker_reads_it(tmp_path: Path) -> None:
    built: list[Path] = []

    def build(folder: Path) -> None:
        built.append(folder)
        (folder / "index.sqlite").write_bytes(b"built")

    shared = tmp_path / "run" / "index.sqlite"
    shared.parent.mkdir()
    for worker in ("gw0", "gw1"):
        file_once(shared, tmp_path / worker / "index.sqlite", build)
        assert (tmp_path / worker / "index.sqlite").read_bytes() == b"built"
    assert built == [shared.parent]
    # Nothing half written is left beside them.
    assert sorted(p.name for p in shared.parent.iterdir()) == ["index.sqlite"]
