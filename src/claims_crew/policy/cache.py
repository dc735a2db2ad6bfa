"""The on-disk policy index: one SQLite file per PDF, named by the PDF's SHA-256.

An unchanged file is parsed once; an edited one has a new hash and is indexed afresh. The file
is written under a temporary name and renamed into place, so a crash or a failed parse never
leaves a half-written index that a later run would trust.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from claims_crew.policy.ids import clause_key
from claims_crew.policy.segment import Clause, ClauseKind

# Bump when the segmenter or the schema changes, so old indexes are rebuilt, not misread.
INDEX_VERSION = 2

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE clauses (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    pages TEXT NOT NULL,
    parent TEXT,
    text TEXT NOT NULL,
    key TEXT NOT NULL,
    label_key TEXT NOT NULL
);
CREATE VIRTUAL TABLE clause_fts USING fts5(
    title, text, content='clauses', content_rowid='seq', tokenize='porter unicode61'
);
"""


def index_path(cache_dir: Path, sha256: str) -> Path:
    return cache_dir / f"{sha256}.v{INDEX_VERSION}.sqlite"


def write_index(
    cache_dir: Path, sha256: str, source: str, page_count: int, clauses: Sequence[Clause]
) -> Path:
    """Write the index for one PDF atomically and return its path."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    final = index_path(cache_dir, sha256)
    tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        with contextlib.closing(sqlite3.connect(tmp)) as conn:
            conn.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _SCHEMA)
            conn.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [
                    ("sha256", sha256),
                    ("source", source),
                    ("pages", str(page_count)),
                    ("version", str(INDEX_VERSION)),
                ],
            )
            conn.executemany(
                "INSERT INTO clauses VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        seq,
                        c.id,
                        c.label,
                        c.title,
                        c.kind,
                        ",".join(map(str, c.pages)),
                        c.parent,
                        c.text,
                        clause_key(c.id),
                        clause_key(c.label) if c.label else "",
                    )
                    for seq, c in enumerate(clauses)
                ],
            )
            conn.execute(
                "INSERT INTO clause_fts(rowid, title, text) SELECT seq, title, text FROM clauses"
            )
            conn.commit()
        # No fsync: a file cut short by a power loss fails read_index's checks and is rebuilt.
        os.replace(tmp, final)
    finally:
        tmp.unlink(missing_ok=True)
    return final


@dataclass(frozen=True, slots=True)
class StoredIndex:
    """What an index file holds: the page count, the clauses and their lookup keys."""

    page_count: int
    clauses: list[Clause]
    keys: list[str]
    label_keys: list[str]


def read_index(path: Path) -> StoredIndex | None:
    """The contents of an index file, or None if it is absent, stale or unreadable."""
    if not path.exists():
        return None
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            if meta.get("version") != str(INDEX_VERSION):
                return None
            rows = conn.execute(
                "SELECT id, label, title, kind, pages, parent, text, key, label_key "
                "FROM clauses ORDER BY seq"
            ).fetchall()
    except sqlite3.DatabaseError:
        return None  # a damaged cache file is rebuilt, never trusted
    clauses = [
        Clause(
            id=r[0],
            label=r[1],
            title=r[2],
            kind=cast(ClauseKind, r[3]),
            pages=tuple(int(p) for p in r[4].split(",") if p),
            parent=r[5],
            text=r[6],
        )
        for r in rows
    ]
    return StoredIndex(int(meta["pages"]), clauses, [r[7] for r in rows], [r[8] for r in rows])
