"""What the test workers of one run work out once and share: a folder beside every worker's own
temporary folder, and files in it named by the inputs they were computed from.

pytest-xdist gives each worker a temporary folder under the run's own; the folder above it is
the run's, seen by every worker and made afresh for every run, so nothing computed here outlives
the run or depends on an earlier one. A worker computes a file holding its lock (`held`), so a
worker that needs it meanwhile waits for it rather than computing it again; the lock is the
kernel's and goes with the process, so a worker that dies holding it holds no one up. Files are
written to a temporary name and moved into place, so a reader never sees one half written."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from pathlib import Path

import pytest


def run_folder(factory: pytest.TempPathFactory, name: str) -> Path:
    """NAME in the folder every worker of this run sees (the run's own when not under xdist)."""
    base = factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextmanager
def held(lock: Path) -> Iterator[None]:
    """The lock file `lock`, held by this process alone until the block ends."""
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _place(write: Callable[[Path], None], final: Path) -> None:
    tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)


def texts_once(path: Path, compute: Callable[[], list[str]]) -> list[str]:
    """The texts stored at `path`, or `compute()`'s, stored there for the other workers."""
    if path.exists():
        texts = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(texts, list) and all(isinstance(t, str) for t in texts), path
        return texts
    texts = compute()
    _place(lambda tmp: tmp.write_text(json.dumps(texts), encoding="utf-8"), path)
    return texts


def file_once(shared: Path, local: Path, build: Callable[[Path], None]) -> None:
    """`local` as a copy of `shared`, which `build(folder)` writes into its folder if absent."""
    if not shared.exists():
        build(shared.parent)
    local.parent.mkdir(parents=True, exist_ok=True)
    _place(lambda tmp: shutil.copyfile(shared, tmp), local)


def keep_bytecode(env: MutableMapping[str, str], folder: Path) -> bool:
    """Where PYTHONDONTWRITEBYTECODE is set and no other bytecode folder is named, let the run's
    processes keep their compiled modules in `folder` (PYTHONPYCACHEPREFIX), never in the
    environment's own files. Else each of the hundreds of processes the tests start compiles
    all it imports, CrewAI's thousands of modules among them: about 2.5 s more for each
    (docs/development.md). Python checks each compiled file against its source, as it always
    does, so what runs is what is on disk. Whether it changed `env`."""
    if not env.get("PYTHONDONTWRITEBYTECODE") or env.get("PYTHONPYCACHEPREFIX"):
        return False
    folder.mkdir(parents=True, exist_ok=True)
    env["PYTHONPYCACHEPREFIX"] = str(folder)
    del env["PYTHONDONTWRITEBYTECODE"]
    return True
