"""The decision store: SQLite in CLAIMS_CREW_HOME, the one place a claim's state lives.

It holds the claim files (by claim id and SHA-256), the runs, every agent's output (raw and
parsed), the tool ledger, resolutions, adjudications, decisions, escalations, human reviews,
reviewers (token hashes only), web sessions, and the audit chain (audit.py).

How it keeps a batch safe to kill and re-run:
- a claim's whole result, its decision and its audit entry are written in one `BEGIN IMMEDIATE`
  transaction, so a killed run leaves either all of it or none;
- a claim with a decision is never offered to a model again (`triage`), and the decisions table
  allows one row per claim, so two processes racing on a claim still leave one decision;
- a claim file whose bytes changed after it was decided is flagged `changed_after_decision`
  and left alone: deciding it again is a person's call.

Every call opens its own connection (WAL, synchronous=FULL, busy_timeout), so a Store can be
shared by the threads of a batch and by other processes using the same file.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import socket
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal, get_args

from claims_crew import paths
from claims_crew.claim_files import LoadedClaim
from claims_crew.errors import AlreadyDecided, NotFound, StoreError
from claims_crew.models import ClaimFile
from claims_crew.records import ClaimRecord
from claims_crew.resolver import Resolution
from claims_crew.store import audit

BUSY_TIMEOUT_MS = 30_000
SESSION_SECONDS = 8 * 3600

HumanDecision = Literal["covered", "not_covered", "needs_more_evidence"]
HUMAN_DECISIONS: tuple[HumanDecision, ...] = get_args(HumanDecision)
# Outcomes that wait for a person.
OPEN_OUTCOMES = ("ESCALATED", "ADJUDICATION_REQUIRED")

Triage = Literal["todo", "decided", "changed_after_decision"]

# The agent outputs a ClaimRecord keeps parsed, and the task each one comes from.
PARSED_TASKS = {"intake": "intake_task", "policy": "policy_task", "fraud": "fraud_task"}


MIGRATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "0001_initial",
        (
            """CREATE TABLE claim_files (
                claim_id TEXT NOT NULL, sha256 TEXT NOT NULL, path TEXT NOT NULL,
                policy_id TEXT NOT NULL, fields TEXT, content BLOB, seen_at TEXT NOT NULL,
                PRIMARY KEY (claim_id, sha256))""",
            """CREATE TABLE runs (
                id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT,
                note TEXT NOT NULL DEFAULT '')""",
            """CREATE TABLE attempts (
                id INTEGER PRIMARY KEY, run_id INTEGER REFERENCES runs (id),
                claim_id TEXT NOT NULL, claim_sha256 TEXT NOT NULL, claim_path TEXT NOT NULL,
                policy_id TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN
                ('reviewed', 'failed')), error_code TEXT, error_message TEXT,
                models TEXT NOT NULL, model_calls TEXT NOT NULL, policy_sha256 TEXT,
                started_at TEXT NOT NULL, finished_at TEXT NOT NULL)""",
            "CREATE INDEX attempts_claim ON attempts (claim_id, id)",
            """CREATE TABLE agent_outputs (
                attempt_id INTEGER NOT NULL REFERENCES attempts (id), task TEXT NOT NULL,
                field TEXT, raw TEXT, parsed TEXT, PRIMARY KEY (attempt_id, task))""",
            """CREATE TABLE tool_calls (
                attempt_id INTEGER NOT NULL REFERENCES attempts (id), seq INTEGER NOT NULL,
                body TEXT NOT NULL, PRIMARY KEY (attempt_id, seq))""",
            """CREATE TABLE resolutions (
                id INTEGER PRIMARY KEY, attempt_id INTEGER NOT NULL UNIQUE REFERENCES attempts (id),
                claim_id TEXT NOT NULL, outcome TEXT NOT NULL, rule TEXT NOT NULL, answer TEXT,
                reason_codes TEXT NOT NULL, question TEXT, body TEXT NOT NULL)""",
            """CREATE TABLE adjudications (
                attempt_id INTEGER PRIMARY KEY REFERENCES attempts (id), valid INTEGER NOT NULL,
                choice TEXT, body TEXT NOT NULL)""",
            """CREATE TABLE decisions (
                claim_id TEXT PRIMARY KEY, claim_sha256 TEXT NOT NULL,
                attempt_id INTEGER NOT NULL REFERENCES attempts (id),
                resolution_id INTEGER NOT NULL REFERENCES resolutions (id),
                outcome TEXT NOT NULL, answer TEXT, decided_by TEXT NOT NULL,
                decided_at TEXT NOT NULL, audit_seq INTEGER NOT NULL)""",
            """CREATE TABLE escalations (
                id INTEGER PRIMARY KEY, claim_id TEXT NOT NULL UNIQUE REFERENCES decisions,
                resolution_id INTEGER NOT NULL REFERENCES resolutions (id),
                amount TEXT, currency TEXT, reason_codes TEXT NOT NULL, question TEXT,
                opened_at TEXT NOT NULL, audit_seq INTEGER NOT NULL,
                state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'decided')),
                version INTEGER NOT NULL DEFAULT 1, decided_by TEXT, decided_at TEXT,
                decision TEXT)""",
            "CREATE INDEX escalations_open ON escalations (state, opened_at, id)",
            """CREATE TABLE reviews (
                id INTEGER PRIMARY KEY,
                escalation_id INTEGER NOT NULL UNIQUE REFERENCES escalations (id),
                claim_id TEXT NOT NULL, reviewer TEXT NOT NULL, decision TEXT NOT NULL,
                reason TEXT NOT NULL, decided_at TEXT NOT NULL, audit_seq INTEGER NOT NULL)""",
            """CREATE TABLE reviewers (
                name TEXT PRIMARY KEY, token_sha256 TEXT NOT NULL UNIQUE,
                created_at TEXT NOT NULL)""",
            """CREATE TABLE sessions (
                id_sha256 TEXT PRIMARY KEY, reviewer TEXT NOT NULL REFERENCES reviewers (name),
                csrf TEXT NOT NULL, expires_at TEXT NOT NULL)""",
            """CREATE TABLE changed_files (
                claim_id TEXT NOT NULL, decided_sha256 TEXT NOT NULL, sha256 TEXT NOT NULL,
                path TEXT NOT NULL, seen_at TEXT NOT NULL, PRIMARY KEY (claim_id, sha256))""",
            """CREATE TABLE audit_log (
                seq INTEGER PRIMARY KEY, claim_id TEXT NOT NULL, at TEXT NOT NULL,
                body TEXT NOT NULL, hash TEXT NOT NULL)""",
            "CREATE INDEX audit_log_claim ON audit_log (claim_id, seq)",
            "CREATE INDEX audit_log_at ON audit_log (at)",
            """CREATE TABLE audit_head (
                id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL)""",
        ),
    ),
    (
        "0002_attempt_tokens",
        ("ALTER TABLE attempts ADD COLUMN tokens TEXT NOT NULL DEFAULT '{}'",),
    ),
    (
        # decisions() and the report join reviews by claim; without this SQLite builds a
        # temporary index on every read.
        "0003_reviews_by_claim",
        ("CREATE INDEX reviews_claim ON reviews (claim_id)",),
    ),
    (
        # Who is reviewing a claim right now, so two processes never both send it to models.
        "0004_claim_leases",
        (
            """CREATE TABLE leases (
                claim_id TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at TEXT NOT NULL)""",
        ),
    ),
)

LEASE_SECONDS = 30 * 60  # longer than any one claim's model calls; a dead holder is seen sooner


def lease_holder() -> str:
    """A name for one attempt at one claim: this host and process, and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def _holder_gone(holder: str) -> bool:
    """The holder was a process on this host that no longer runs (it was killed mid-claim)."""
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another machine's process: only its lease's expiry tells
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def default_path() -> Path:
    return paths.home() / "claims.sqlite"


def utc_now() -> datetime:
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    """UTC ISO text of fixed width, so text order is time order."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Recorded:
    """What `record` wrote: the attempt, and the decision and audit entry if there was one."""

    attempt_id: int
    decided: bool
    outcome: str | None = None
    escalation_id: int | None = None
    audit_seq: int | None = None


@dataclass(frozen=True)
class Escalation:
    id: int
    claim_id: str
    amount: str | None
    currency: str | None
    reason_codes: list[str]
    question: str | None
    opened_at: str
    state: str
    version: int
    decided_by: str | None
    decided_at: str | None
    decision: str | None
    audit_seq: int


@dataclass(frozen=True)
class Review:
    id: int
    escalation_id: int
    claim_id: str
    reviewer: str
    decision: str
    reason: str
    decided_at: str
    audit_seq: int


@dataclass(frozen=True)
class Decision:
    """A claim's automatic decision, with the resolution behind it and any human review."""

    claim_id: str
    claim_sha256: str
    outcome: str
    answer: str | None
    decided_by: str
    decided_at: str
    resolution: Resolution
    review: Review | None

    @property
    def final_answer(self) -> str | None:
        """The human's decision where there is one, else the automatic answer."""
        return self.review.decision if self.review else self.answer


@dataclass(frozen=True)
class ChangedFile:
    claim_id: str
    decided_sha256: str
    sha256: str
    path: str
    seen_at: str


@dataclass(frozen=True)
class Session:
    reviewer: str
    csrf: str


_ESCALATION_COLUMNS = (
    "id, claim_id, amount, currency, reason_codes, question, opened_at, state, version, "
    "decided_by, decided_at, decision, audit_seq"
)


def _escalation(row: tuple[Any, ...]) -> Escalation:
    values = list(row)
    values[4] = json.loads(values[4])
    return Escalation(*values)


class Store:
    """The decision store in one SQLite file; safe to share between threads and processes."""

    def __init__(self, path: Path | None = None, clock: Callable[[], datetime] = utc_now) -> None:
        self.path = path or default_path()
        self.clock = clock
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            conn.execute("PRAGMA journal_mode=WAL")  # persistent: set once per file
            migrate(conn)

    # ---- connections and transactions ----------------------------------------------------

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            yield conn
        finally:
            conn.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction that takes the database lock first (BEGIN IMMEDIATE)."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: one consistent snapshot for every query inside it."""
        with self._connect() as conn:
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("ROLLBACK")

    def now(self) -> str:
        return stamp(self.clock())

    # ---- runs and claims -----------------------------------------------------------------

    def start_run(self, note: str = "") -> int:
        with self.write() as conn:
            cur = conn.execute(
                "INSERT INTO runs (started_at, note) VALUES (?, ?)", (self.now(), note)
            )
            return int(cur.lastrowid or 0)

    def finish_run(self, run_id: int) -> None:
        with self.write() as conn:
            conn.execute("UPDATE runs SET finished_at = ? WHERE id = ?", (self.now(), run_id))

    def triage(self, loaded: LoadedClaim) -> Triage:
        """Whether a claim file still needs the models; a file changed after its decision is
        flagged in changed_files and not offered again."""
        claim_id = loaded.claim.claim_id
        sha = loaded.sha256
        with self.write() as conn:
            self._keep_file(conn, loaded, sha)
            row = conn.execute(
                "SELECT claim_sha256 FROM decisions WHERE claim_id = ?", (claim_id,)
            ).fetchone()
            if row is None:
                return "todo"
            if row[0] == sha:
                return "decided"
            conn.execute(
                "INSERT OR IGNORE INTO changed_files "
                "(claim_id, decided_sha256, sha256, path, seen_at) VALUES (?, ?, ?, ?, ?)",
                (claim_id, row[0], sha, str(loaded.path), self.now()),
            )
            return "changed_after_decision"

    def lease(self, claim_id: str, holder: str, seconds: float = LEASE_SECONDS) -> bool:
        """Take a claim for review, unless another live holder has it; True when taken.

        Taken in a write transaction, so of two processes asking at once exactly one gets it.
        A lease runs out after `seconds`, or at once when its holder's process on this host has
        died, so a killed run never blocks the next one.
        """
        with self.write() as conn:
            row = conn.execute(
                "SELECT holder, expires_at FROM leases WHERE claim_id = ?", (claim_id,)
            ).fetchone()
            held_by_another = row is not None and row[0] != holder
            if held_by_another and row[1] > self.now() and not _holder_gone(row[0]):
                return False
            conn.execute(
                "INSERT OR REPLACE INTO leases (claim_id, holder, expires_at) VALUES (?, ?, ?)",
                (claim_id, holder, stamp(self.clock() + timedelta(seconds=seconds))),
            )
            return True

    def release(self, claim_id: str, holder: str) -> None:
        with self.write() as conn:
            conn.execute("DELETE FROM leases WHERE claim_id = ? AND holder = ?", (claim_id, holder))

    def _keep_file(self, conn: sqlite3.Connection, loaded: LoadedClaim, sha: str) -> None:
        conn.execute(
            "INSERT OR IGNORE INTO claim_files "
            "(claim_id, sha256, path, policy_id, fields, content, seen_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                loaded.claim.claim_id,
                sha,
                str(loaded.path),
                loaded.claim.policy_id,
                loaded.claim.model_dump_json(),
                loaded.raw,
                self.now(),
            ),
        )

    def record(
        self, record: ClaimRecord, run_id: int | None = None, loaded: LoadedClaim | None = None
    ) -> Recorded:
        """Write one claim's result whole, in one transaction: the attempt, agent outputs,
        ledger, resolution and adjudication; and, for a resolved claim not yet decided, its
        decision, its escalation if a person must decide, and its audit entry."""
        with self.write() as conn:
            if loaded is not None:
                self._keep_file(conn, loaded, record.claim_sha256)
            attempt_id = self._insert_attempt(conn, record, run_id)
            resolution = record.resolution
            if resolution is None:
                return Recorded(attempt_id, decided=False)
            cur = conn.execute(
                "INSERT INTO resolutions "
                "(attempt_id, claim_id, outcome, rule, answer, reason_codes, question, body) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    attempt_id,
                    record.claim_id,
                    resolution.outcome,
                    resolution.rule,
                    resolution.answer,
                    json.dumps(resolution.reason_codes),
                    resolution.question,
                    resolution.model_dump_json(),
                ),
            )
            resolution_id = int(cur.lastrowid or 0)
            if record.adjudication is not None:
                conn.execute(
                    "INSERT INTO adjudications (attempt_id, valid, choice, body) "
                    "VALUES (?, ?, ?, ?)",
                    (
                        attempt_id,
                        record.adjudication.valid,
                        record.adjudication.choice,
                        record.adjudication.model_dump_json(),
                    ),
                )
            if (
                record.status != "reviewed"
                or conn.execute(
                    "SELECT 1 FROM decisions WHERE claim_id = ?", (record.claim_id,)
                ).fetchone()
            ):
                # Another process decided this claim meanwhile: its decision stands.
                return Recorded(attempt_id, decided=False, outcome=resolution.outcome)
            return self._decide(conn, record, resolution, attempt_id, resolution_id, loaded)

    def _insert_attempt(
        self, conn: sqlite3.Connection, record: ClaimRecord, run_id: int | None
    ) -> int:
        cur = conn.execute(
            "INSERT INTO attempts (run_id, claim_id, claim_sha256, claim_path, policy_id, "
            "status, error_code, error_message, models, model_calls, tokens, policy_sha256, "
            "started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                record.claim_id,
                record.claim_sha256,
                record.claim_file,
                record.policy_id,
                record.status,
                record.error.code if record.error else None,
                record.error.message if record.error else None,
                json.dumps(record.models),
                json.dumps(record.model_calls),
                json.dumps(record.tokens),
                record.policy_sha256,
                stamp(record.started_at),
                stamp(record.finished_at),
            ),
        )
        attempt_id = int(cur.lastrowid or 0)
        # Every task with raw text, and every parsed answer even where its raw text is absent.
        tasks = dict.fromkeys(
            [*record.raw, *(t for f, t in PARSED_TASKS.items() if getattr(record, f) is not None)]
        )
        fields = {task: field for field, task in PARSED_TASKS.items()}
        for task in tasks:
            field = fields.get(task)
            parsed = getattr(record, field) if field is not None else None
            conn.execute(
                "INSERT INTO agent_outputs (attempt_id, task, field, raw, parsed) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    attempt_id,
                    task,
                    field,
                    record.raw.get(task),
                    parsed.model_dump_json() if parsed is not None else None,
                ),
            )
        conn.executemany(
            "INSERT INTO tool_calls (attempt_id, seq, body) VALUES (?, ?, ?)",
            [(attempt_id, i, e.model_dump_json()) for i, e in enumerate(record.ledger)],
        )
        return attempt_id

    def _decide(
        self,
        conn: sqlite3.Connection,
        record: ClaimRecord,
        resolution: Resolution,
        attempt_id: int,
        resolution_id: int,
        loaded: LoadedClaim | None,
    ) -> Recorded:
        now = self.now()
        waits = resolution.outcome in OPEN_OUTCOMES
        by_adjudicator = resolution.rule == "adjudicator"
        kind: audit.EntryKind = (
            "escalated" if waits else "adjudicated" if by_adjudicator else "auto"
        )
        actor = "adjudicator" if by_adjudicator else "auto"
        if by_adjudicator and record.adjudication is not None and not waits:
            evidence = list(record.adjudication.evidence)
        else:
            evidence = [
                c.clause_id or c.cited for side in resolution.sides.values() for c in side.clauses
            ]
        entry, _ = audit.append(
            conn,
            kind=kind,
            claim_id=record.claim_id,
            claim_sha256=record.claim_sha256,
            policy_sha256=record.policy_sha256,
            config_sha256=resolution.config_sha256 or None,
            models=record.models,
            outcome=resolution.outcome,
            answer=resolution.answer,
            rule=resolution.rule,
            reason_codes=list(resolution.reason_codes),
            evidence=list(dict.fromkeys(evidence)),
            actor=actor,
            reason=resolution.reason,
            overrides=None,
            overrides_hash=None,
            at=now,
        )
        conn.execute(
            "INSERT INTO decisions (claim_id, claim_sha256, attempt_id, resolution_id, outcome, "
            "answer, decided_by, decided_at, audit_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.claim_id,
                record.claim_sha256,
                attempt_id,
                resolution_id,
                resolution.outcome,
                resolution.answer,
                actor,
                now,
                entry.seq,
            ),
        )
        escalation_id = None
        if waits:
            claim = loaded.claim if loaded is not None else self._claim_file(conn, record)
            cur = conn.execute(
                "INSERT INTO escalations (claim_id, resolution_id, amount, currency, "
                "reason_codes, question, opened_at, audit_seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.claim_id,
                    resolution_id,
                    str(claim.amount) if claim else None,
                    claim.currency if claim else None,
                    json.dumps(resolution.reason_codes),
                    resolution.question,
                    now,
                    entry.seq,
                ),
            )
            escalation_id = int(cur.lastrowid or 0)
        return Recorded(attempt_id, True, resolution.outcome, escalation_id, entry.seq)

    def _claim_file(self, conn: sqlite3.Connection, record: ClaimRecord) -> ClaimFile | None:
        row = conn.execute(
            "SELECT fields FROM claim_files WHERE claim_id = ? AND sha256 = ?",
            (record.claim_id, record.claim_sha256),
        ).fetchone()
        return ClaimFile.model_validate_json(row[0]) if row and row[0] else None

    # ---- reading claims back -------------------------------------------------------------

    def claim_file(self, claim_id: str, sha256: str | None = None) -> ClaimFile | None:
        """The claim file's fields: the version decided, else the latest one seen."""
        with self.read() as conn:
            if sha256 is None:
                row = conn.execute(
                    "SELECT claim_sha256 FROM decisions WHERE claim_id = ?", (claim_id,)
                ).fetchone()
                sha256 = row[0] if row else None
            query = "SELECT fields FROM claim_files WHERE claim_id = ?"
            args: tuple[str, ...] = (claim_id,)
            if sha256 is not None:
                query += " AND sha256 = ?"
                args = (claim_id, sha256)
            row = conn.execute(query + " ORDER BY seen_at DESC LIMIT 1", args).fetchone()
        return ClaimFile.model_validate_json(row[0]) if row and row[0] else None

    def claim_record(self, claim_id: str) -> ClaimRecord | None:
        """The claim's record as the pipeline made it: the decided attempt, else the latest."""
        with self.read() as conn:
            row = (
                conn.execute(
                    "SELECT attempt_id FROM decisions WHERE claim_id = ?", (claim_id,)
                ).fetchone()
                or conn.execute(
                    "SELECT id FROM attempts WHERE claim_id = ? ORDER BY id DESC LIMIT 1",
                    (claim_id,),
                ).fetchone()
            )
            return None if row is None else _load_attempt(conn, int(row[0]))

    def attempts(self, claim_id: str) -> list[ClaimRecord]:
        """Every attempt at a claim, oldest first (failed ones included)."""
        with self.read() as conn:
            ids = conn.execute(
                "SELECT id FROM attempts WHERE claim_id = ? ORDER BY id", (claim_id,)
            ).fetchall()
            return [_load_attempt(conn, int(i)) for (i,) in ids]

    def decisions(self) -> list[Decision]:
        """Every decided claim in claim-id order, with its resolution and any human review."""
        with self.read() as conn:
            rows = conn.execute(
                "SELECT d.claim_id, d.claim_sha256, d.outcome, d.answer, d.decided_by, "
                "d.decided_at, r.body, v.id, v.escalation_id, v.claim_id, v.reviewer, "
                "v.decision, v.reason, v.decided_at, v.audit_seq "
                "FROM decisions d JOIN resolutions r ON r.id = d.resolution_id "
                "LEFT JOIN reviews v ON v.claim_id = d.claim_id ORDER BY d.claim_id"
            ).fetchall()
        return [
            Decision(
                claim_id=row[0],
                claim_sha256=row[1],
                outcome=row[2],
                answer=row[3],
                decided_by=row[4],
                decided_at=row[5],
                resolution=Resolution.model_validate_json(row[6]),
                review=Review(*row[7:]) if row[7] is not None else None,
            )
            for row in rows
        ]

    def decision_count(self) -> int:
        with self.read() as conn:
            return int(conn.execute("SELECT count(*) FROM decisions").fetchone()[0])

    def resolution(self, claim_id: str) -> Resolution | None:
        with self.read() as conn:
            row = conn.execute(
                "SELECT r.body FROM decisions d JOIN resolutions r ON r.id = d.resolution_id "
                "WHERE d.claim_id = ?",
                (claim_id,),
            ).fetchone()
        return Resolution.model_validate_json(row[0]) if row else None

    def changed_after_decision(self) -> list[ChangedFile]:
        with self.read() as conn:
            rows = conn.execute(
                "SELECT claim_id, decided_sha256, sha256, path, seen_at FROM changed_files "
                "ORDER BY seen_at, claim_id"
            ).fetchall()
        return [ChangedFile(*row) for row in rows]

    # ---- escalations and human reviews ---------------------------------------------------

    def open_escalations(self, limit: int = 50, offset: int = 0) -> list[Escalation]:
        """Open escalations, oldest first."""
        with self.read() as conn:
            rows = conn.execute(
                f"SELECT {_ESCALATION_COLUMNS} FROM escalations WHERE state = 'open' "
                "ORDER BY opened_at, id LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
        return [_escalation(row) for row in rows]

    def open_count(self) -> int:
        with self.read() as conn:
            return int(
                conn.execute("SELECT count(*) FROM escalations WHERE state = 'open'").fetchone()[0]
            )

    def escalation(self, ref: str) -> Escalation:
        """An escalation by claim id, or by its own number."""
        with self.read() as conn:
            row = conn.execute(
                f"SELECT {_ESCALATION_COLUMNS} FROM escalations WHERE claim_id = ?", (ref,)
            ).fetchone()
            if row is None and ref.isdigit():
                row = conn.execute(
                    f"SELECT {_ESCALATION_COLUMNS} FROM escalations WHERE id = ?", (int(ref),)
                ).fetchone()
        if row is None:
            raise NotFound(f"no escalation for {ref!r}")
        return _escalation(row)

    def decide(
        self,
        ref: str,
        decision: str,
        reason: str,
        reviewer: str,
        expected_version: int | None = None,
    ) -> Review:
        """Record a person's decision on an open escalation, as a new audit entry linked to the
        escalation's. With `expected_version` (what the reviewer saw), a decision made since
        is refused: the first reviewer wins and the second learns who decided."""
        if decision not in HUMAN_DECISIONS:
            raise StoreError(f"decision must be one of {', '.join(HUMAN_DECISIONS)}")
        if not reason.strip():
            raise StoreError("a reason is required")
        escalation = self.escalation(ref)
        version = escalation.version if expected_version is None else expected_version
        with self.write() as conn:
            if not conn.execute("SELECT 1 FROM reviewers WHERE name = ?", (reviewer,)).fetchone():
                raise NotFound(
                    f"no reviewer named {reviewer!r}; add one with: claims-crew reviewer add NAME"
                )
            now = self.now()
            updated = conn.execute(
                "UPDATE escalations SET state = 'decided', version = version + 1, "
                "decided_by = ?, decided_at = ?, decision = ? "
                "WHERE id = ? AND version = ? AND state = 'open'",
                (reviewer, now, decision, escalation.id, version),
            ).rowcount
            if updated != 1:
                by, at, what, state = conn.execute(
                    "SELECT decided_by, decided_at, decision, state FROM escalations WHERE id = ?",
                    (escalation.id,),
                ).fetchone()
                if state == "open":  # the version moved without a decision: cannot happen today
                    raise StoreError(f"escalation {escalation.id} changed; reload and retry")
                raise AlreadyDecided(escalation.claim_id, by, at, what)
            overridden_hash = conn.execute(
                "SELECT hash FROM audit_log WHERE seq = ?", (escalation.audit_seq,)
            ).fetchone()[0]
            base = json.loads(
                conn.execute(
                    "SELECT body FROM audit_log WHERE seq = ?", (escalation.audit_seq,)
                ).fetchone()[0]
            )
            entry, _ = audit.append(
                conn,
                kind="human",
                claim_id=escalation.claim_id,
                claim_sha256=base["claim_sha256"],
                policy_sha256=base["policy_sha256"],
                config_sha256=base["config_sha256"],
                models=base["models"],
                outcome=base["outcome"],
                answer=decision,
                rule=base["rule"],
                reason_codes=base["reason_codes"],
                evidence=base["evidence"],
                actor=f"human:{reviewer}",
                reason=reason.strip(),
                overrides=escalation.audit_seq,
                overrides_hash=overridden_hash,
                at=now,
            )
            cur = conn.execute(
                "INSERT INTO reviews (escalation_id, claim_id, reviewer, decision, reason, "
                "decided_at, audit_seq) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    escalation.id,
                    escalation.claim_id,
                    reviewer,
                    decision,
                    reason.strip(),
                    now,
                    entry.seq,
                ),
            )
            return Review(
                int(cur.lastrowid or 0),
                escalation.id,
                escalation.claim_id,
                reviewer,
                decision,
                reason.strip(),
                now,
                entry.seq,
            )

    def reviews(self, claim_id: str | None = None) -> list[Review]:
        query = (
            "SELECT id, escalation_id, claim_id, reviewer, decision, reason, decided_at, "
            "audit_seq FROM reviews"
        )
        with self.read() as conn:
            if claim_id is None:
                rows = conn.execute(query + " ORDER BY id").fetchall()
            else:
                rows = conn.execute(
                    query + " WHERE claim_id = ? ORDER BY id", (claim_id,)
                ).fetchall()
        return [Review(*row) for row in rows]

    # ---- reviewers and sessions ----------------------------------------------------------

    def add_reviewer(self, name: str) -> str:
        """Register a reviewer; returns their sign-in token, which is kept only as a hash."""
        name = name.strip()
        if not name or len(name) > 64 or any(ch in name for ch in "\r\n\t:"):
            raise StoreError("a reviewer name is 1-64 characters, with no tabs, newlines or ':'")
        token = secrets.token_urlsafe(32)
        with self.write() as conn:
            try:
                conn.execute(
                    "INSERT INTO reviewers (name, token_sha256, created_at) VALUES (?, ?, ?)",
                    (name, _sha256(token), self.now()),
                )
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"a reviewer named {name!r} already exists") from exc
        return token

    def reviewer_for_token(self, token: str) -> str | None:
        with self.read() as conn:
            row = conn.execute(
                "SELECT name FROM reviewers WHERE token_sha256 = ?", (_sha256(token),)
            ).fetchone()
        return str(row[0]) if row else None

    def reviewer_names(self) -> list[str]:
        with self.read() as conn:
            return [r[0] for r in conn.execute("SELECT name FROM reviewers ORDER BY name")]

    def open_session(self, reviewer: str) -> str:
        """A new random session id for a signed-in reviewer (kept hashed, with its CSRF token)."""
        session_id = secrets.token_urlsafe(32)
        expires = stamp(datetime.fromtimestamp(self.clock().timestamp() + SESSION_SECONDS, UTC))
        with self.write() as conn:
            conn.execute("DELETE FROM sessions WHERE expires_at < ?", (self.now(),))
            conn.execute(
                "INSERT INTO sessions (id_sha256, reviewer, csrf, expires_at) VALUES (?, ?, ?, ?)",
                (_sha256(session_id), reviewer, secrets.token_urlsafe(32), expires),
            )
        return session_id

    def session(self, session_id: str) -> Session | None:
        with self.read() as conn:
            row = conn.execute(
                "SELECT reviewer, csrf FROM sessions WHERE id_sha256 = ? AND expires_at >= ?",
                (_sha256(session_id), self.now()),
            ).fetchone()
        return Session(*row) if row else None

    def close_session(self, session_id: str) -> None:
        with self.write() as conn:
            conn.execute("DELETE FROM sessions WHERE id_sha256 = ?", (_sha256(session_id),))

    # ---- the audit trail -----------------------------------------------------------------

    def verify_audit(self) -> audit.Verdict:
        with self.read() as conn:
            return audit.verify(conn)

    def export_audit(self, since: datetime | None = None) -> list[str]:
        with self.read() as conn:
            return list(audit.export_lines(conn, stamp(since) if since else None, self.now()))

    def audit_entries(self, claim_id: str) -> list[audit.AuditEntry]:
        with self.read() as conn:
            rows = conn.execute(
                "SELECT body FROM audit_log WHERE claim_id = ? ORDER BY seq", (claim_id,)
            ).fetchall()
        return [audit.AuditEntry.model_validate_json(body) for (body,) in rows]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply the migrations this database lacks, each in its own transaction; names applied."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    applied = []
    for name, statements in MIGRATIONS:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Checked under the lock: another process may have applied it meanwhile.
            if conn.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (name,)).fetchone():
                conn.execute("ROLLBACK")
                continue
            for statement in statements:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                (name, stamp(utc_now())),
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        applied.append(name)
    return applied


def _load_attempt(conn: sqlite3.Connection, attempt_id: int) -> ClaimRecord:
    (
        claim_id,
        sha,
        path,
        policy_id,
        status,
        error_code,
        error_message,
        models,
        model_calls,
        tokens,
        policy_sha,
        started,
        finished,
    ) = conn.execute(
        "SELECT claim_id, claim_sha256, claim_path, policy_id, status, error_code, "
        "error_message, models, model_calls, tokens, policy_sha256, started_at, finished_at "
        "FROM attempts WHERE id = ?",
        (attempt_id,),
    ).fetchone()
    data: dict[str, Any] = {
        "claim_id": claim_id,
        "claim_file": path,
        "claim_sha256": sha,
        "policy_id": policy_id,
        "status": status,
        "error": {"code": error_code, "message": error_message} if error_code else None,
        "models": json.loads(models),
        "model_calls": json.loads(model_calls),
        "tokens": json.loads(tokens),
        "policy_sha256": policy_sha,
        "started_at": started,
        "finished_at": finished,
        "raw": {},
        "ledger": [
            json.loads(body)
            for (body,) in conn.execute(
                "SELECT body FROM tool_calls WHERE attempt_id = ? ORDER BY seq", (attempt_id,)
            )
        ],
    }
    for task, field, raw, parsed in conn.execute(
        "SELECT task, field, raw, parsed FROM agent_outputs WHERE attempt_id = ?", (attempt_id,)
    ):
        if raw is not None:
            data["raw"][task] = raw
        if field is not None and parsed is not None:
            data[field] = json.loads(parsed)
    row = conn.execute(
        "SELECT body FROM resolutions WHERE attempt_id = ?", (attempt_id,)
    ).fetchone()
    data["resolution"] = json.loads(row[0]) if row else None
    row = conn.execute(
        "SELECT body FROM adjudications WHERE attempt_id = ?", (attempt_id,)
    ).fetchone()
    data["adjudication"] = json.loads(row[0]) if row else None
    return ClaimRecord.model_validate(data)
