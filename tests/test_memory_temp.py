"""tests/support/memory_temp.py: the run's temporary files in memory, where there is room."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from tests.support.memory_temp import memory_folder, use_memory_temp


def _mounts(tmp_path: Path, *lines: str) -> Path:
    table = tmp_path / "mounts"
    table.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return table


def test_a_tmpfs_with_room_is_chosen_and_anything_else_passed_over(tmp_path: Path) -> None:
    shm, disk = tmp_path / "shm", tmp_path / "disk"
    shm.mkdir()
    disk.mkdir()
    table = _mounts(
        tmp_path,
        f"/dev/vda {disk} ext4 rw,relatime 0 0",
        f"tmpfs {shm} tmpfs rw,nosuid,nodev 0 0",
    )
    assert memory_folder([disk, shm], table, min_free=0) == shm
    assert memory_folder([disk], table, min_free=0) is None  # a disk, however roomy
    assert memory_folder([shm], table, min_free=1 << 62) is None  # too little room
    assert memory_folder([shm], tmp_path / "no-mount-table", min_free=0) is None


def test_the_run_s_folder_is_made_and_named_in_tmpdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", tempfile.tempdir)  # restored after the test
    environ: dict[str, str] = {}
    folder = use_memory_temp(environ, tmp_path)
    assert folder == tmp_path / f"claims-crew-tests-{os.getuid()}"
    assert environ["TMPDIR"] == str(folder)
    # Others may pass through to a cluster folder made inside (PostgreSQL's own user), not list.
    assert stat.S_IMODE(folder.stat().st_mode) == 0o711
    monkeypatch.setenv("TMPDIR", str(folder))
    assert tempfile.gettempdir() == str(folder)  # this process's tempfile reads it again


def test_a_tmpdir_already_set_or_no_memory_folder_changes_nothing(tmp_path: Path) -> None:
    chosen = {"TMPDIR": str(tmp_path / "mine")}
    assert use_memory_temp(chosen, tmp_path) is None
    assert chosen == {"TMPDIR": str(tmp_path / "mine")}
    nothing: dict[str, str] = {}
    assert use_memory_temp(nothing, None) is None
    assert nothing == {}


def test_a_folder_of_that_name_that_is_not_ours_is_not_used(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / f"claims-crew-tests-{os.getuid()}").symlink_to(elsewhere)
    environ: dict[str, str] = {}
    assert use_memory_temp(environ, tmp_path) is None
    assert environ == {}
