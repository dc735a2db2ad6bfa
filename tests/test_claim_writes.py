"""What one claim costs the store: counted through SQLAlchemy's own events on a real store's
engine, on SQLite and on PostgreSQL, while the claim routine decides a claim through the
scripted crew.

A claim's routine writes twice: its lease taken, then its record with its queue item finished
and its lease released in the same transaction (store/recording.py, `Done`). And it reuses the
pool's connections (store/engine.py's pool) rather than opening one a transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event

from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.context import RunContext, build_context
from claims_crew.run.ingest import ingest
from claims_crew.run.routine import Lease, decide_claim
from claims_crew.store import Store
from tests.support.crew import (
    KNOWN_START,
    POLICY_COVERED,
    Script,
    looked_up,
    responding,
    water_claim_saying_when,
)
from tests.support.paths import ROOT

# One claim through the crew on each store: the first pays the crew's one-off costs.
pytestmark = [pytest.mark.usefixtures("engine"), pytest.mark.slow]

WRITES = ("INSERT", "UPDATE", "DELETE")


@dataclass
class Tally:
    """The store's connections opened, transactions, and transactions that wrote a row; how many
    of the pool's connections were in use at once, at most."""

    connections: int = 0
    in_use: int = 0
    most_in_use: int = 0
    transactions: int = 0
    writes: int = 0
    wrote: set[int] = field(default_factory=set)  # connections whose open transaction wrote


@pytest.fixture
def tally() -> Iterator[tuple[Tally, list[Engine]]]:
    engines: list[Engine] = []
    yield Tally(), engines
    for engine in engines:
        engine.dispose()


def counting(engine: Engine, tally: Tally) -> None:
    @event.listens_for(engine, "connect")
    def _connect(*_args: Any) -> None:
        tally.connections += 1

    @event.listens_for(engine, "checkout")
    def _checkout(*_args: Any) -> None:
        tally.in_use += 1
        tally.most_in_use = max(tally.most_in_use, tally.in_use)

    @event.listens_for(engine, "checkin")
    def _checkin(*_args: Any) -> None:
        tally.in_use -= 1

    @event.listens_for(engine, "begin")
    def _begin(*_args: Any) -> None:
        tally.transactions += 1

    @event.listens_for(engine, "before_cursor_execute")
    def _statement(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith(WRITES):
            tally.wrote.add(id(conn))

    @event.listens_for(engine, "commit")
    def _commit(conn: Any) -> None:
        if id(conn) in tally.wrote:
            tally.writes += 1
            tally.wrote.discard(id(conn))

    @event.listens_for(engine, "rollback")
    def _rollback(conn: Any) -> None:
        tally.wrote.discard(id(conn))


def agreeing() -> Script:
    """Intake reads the start date; each reviewer looks 4.2(b) up, then answers covered."""
    sure = {**POLICY_COVERED, "confidence": 0.9}

    def reviewer(m: object) -> str:
        return final(sure) if looked_up(m) else lookup("HM-HOME-001", "4.2(b)")

    return responding(intake=lambda _m: final(KNOWN_START), policy=reviewer, fraud=reviewer)


def context(library: PolicyLibrary, tmp_path: Path) -> RunContext:
    # Store() is the engine fixture's store: the SQLite file in the test's home, or PostgreSQL.
    return build_context(
        library=library, llm_for=agreeing(), store=Store(), config_dir=ROOT / "config"
    )


def decide(run: RunContext, folder: Path, claim_id: str) -> None:
    (queued,) = ingest([water_claim_saying_when(folder, claim_id)], run.store)
    assert queued.claim_id == claim_id
    item = decide_claim(queued.stored, Lease.past_deadline(run), run, run_id=None)
    assert item is not None and item.ok and item.record is not None
    assert item.record.status == "reviewed"


def test_one_claim_writes_twice_and_reuses_the_pools_connections(
    sample_library: PolicyLibrary,
    tmp_path: Path,
    tally: tuple[Tally, list[Engine]],
) -> None:
    counts, engines = tally
    run = context(sample_library, tmp_path)
    engines.append(run.store.engine)
    decide(run, tmp_path / "inbox", "CW-1")  # the first claim opens what later ones reuse
    pooled = run.store.engine.pool.checkedin()  # a QueuePool on either store
    counting(run.store.engine, counts)

    decide(run, tmp_path / "inbox", "CW-2")
    # ingest's own write (the claim queued) is not the routine's: a worker's claims arrive so.
    assert counts.writes == 1 + 2, counts
    # The pool's connections are reused: never more opened than were in use at once (each of
    # the claim's transactions would open its own without a pool). How many run at once depends
    # on how the claim's threads overlap, which is the machine's, not the store's. Not `most in
    # use - pooled`: SQLAlchemy fires `checkin` just before it puts the connection back, so for
    # an instant a connection counted as returned is not in the pool yet, and a thread checking
    # out then opens a new one (pool/base.py, _ConnectionRecord.checkin).
    assert pooled >= 1 and counts.most_in_use >= 1, (pooled, counts)
    assert counts.connections <= counts.most_in_use, (pooled, counts)
    assert counts.connections < counts.transactions, (pooled, counts)
    assert counts.transactions >= counts.writes  # the events were heard at all

    # Nothing is left behind for another holder: the lease is gone, the queue item done.
    assert run.store.decided("CW-2")
    assert run.store.lease("CW-2", "another:1:x")  # free for another holder at once
    assert run.store.take("other-worker", 5) == []  # nothing pending for a worker
