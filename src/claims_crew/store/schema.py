"""The store's schema: numbered migrations, each applied once and recorded by name.

A database records every migration it has applied in `schema_migrations`; opening a store
applies the ones it lacks, in order, each in its own transaction. A change to the schema is a
new migration at the end, never an edit to one already shipped.
"""

from __future__ import annotations

import sqlite3

from claims_crew.vocabulary import stamp, utc_now

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
    (
        # `audit verify` compares every decision, escalation and review with the entry that
        # recorded it, and every entry with its rows: looked up by entry number.
        "0005_rows_by_audit_entry",
        (
            "CREATE INDEX decisions_audit_seq ON decisions (audit_seq)",
            "CREATE INDEX escalations_audit_seq ON escalations (audit_seq)",
            "CREATE INDEX reviews_audit_seq ON reviews (audit_seq)",
        ),
    ),
    (
        # Recent sign-in attempts on the review page, shared by every worker serving it, so
        # wrong tokens are throttled per client and overall (sign_ins.py).
        "0006_sign_in_attempts",
        (
            """CREATE TABLE sign_in_attempts (
                id INTEGER PRIMARY KEY, client TEXT NOT NULL, at REAL NOT NULL)""",
            "CREATE INDEX sign_in_attempts_client ON sign_in_attempts (client, at)",
            "CREATE INDEX sign_in_attempts_at ON sign_in_attempts (at)",
        ),
    ),
    (
        # Each task's prompt and completion tokens and calls, and when each stage of the review
        # (crew, resolver, adjudicator) started and ended: the report's cost and time per level.
        # Attempts recorded before have neither; they read back as empty.
        "0007_attempt_usage_and_stages",
        (
            "ALTER TABLE attempts ADD COLUMN tokens_by_task TEXT NOT NULL DEFAULT '{}'",
            "ALTER TABLE attempts ADD COLUMN stages TEXT NOT NULL DEFAULT '{}'",
        ),
    ),
    (
        # What each claim's decision in force last stood on (policy PDF, kind corrections,
        # config files, models) and when it expires; and the rows a revalidation replaced,
        # kept whole beside the entry that replaced them. Decisions made before get their
        # versions from their audit entries, which kept no config files' hash and no expiry.
        "0008_validations_and_superseded_rows",
        (
            """CREATE TABLE validations (
                claim_id TEXT PRIMARY KEY REFERENCES decisions (claim_id),
                audit_seq INTEGER NOT NULL, attempt_id INTEGER NOT NULL REFERENCES attempts (id),
                claim_sha256 TEXT NOT NULL, validated_at TEXT NOT NULL, expires_at TEXT,
                policy_sha256 TEXT,
                policy_corrections_sha256 TEXT, config_sha256 TEXT, models TEXT NOT NULL)""",
            "CREATE INDEX validations_expires_at ON validations (expires_at)",
            """INSERT INTO validations (claim_id, audit_seq, attempt_id, claim_sha256,
                validated_at, expires_at, policy_sha256, policy_corrections_sha256,
                config_sha256, models)
               SELECT d.claim_id, d.audit_seq, d.attempt_id, d.claim_sha256, d.decided_at,
                      json_extract(a.body, '$.expires_at'),
                      json_extract(a.body, '$.policy_sha256'),
                      json_extract(a.body, '$.policy_corrections_sha256'),
                      json_extract(a.body, '$.config_files_sha256'),
                      coalesce(json_extract(a.body, '$.models'), '{}')
               FROM decisions d JOIN audit_log a ON a.seq = d.audit_seq""",
            """CREATE TABLE superseded (
                id INTEGER PRIMARY KEY, claim_id TEXT NOT NULL,
                what TEXT NOT NULL CHECK (what IN ('decision', 'escalation', 'review')),
                audit_seq INTEGER NOT NULL, row TEXT NOT NULL, superseded_at TEXT NOT NULL,
                superseded_by INTEGER NOT NULL)""",
            "CREATE INDEX superseded_audit_seq ON superseded (audit_seq)",
            "CREATE INDEX superseded_claim ON superseded (claim_id, id)",
        ),
    ),
)


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
