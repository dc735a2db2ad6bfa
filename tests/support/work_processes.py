"""Long-lived `claims-crew work` processes driven from outside, as a team runs them: started,
waited for until they take from the queue, given claims through `ingest`, stopped by SIGTERM.
Used by the benches that time workers (bench/workers.py, bench/provider.py) and by the worker
tests.

Only the standard library is imported at the top: the callers set the environment CrewAI reads
before claims_crew is imported.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from claims_crew.store import Store

CLAIMS_CREW = str(Path(sys.executable).parent / "claims-crew")


def wait_for(condition: Callable[[], bool], seconds: float, what: str) -> None:
    """Until `condition()` holds, asked every tenth of a second: for what another process does,
    which nothing here can be told of. Fails naming `what` after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"waited {seconds:g} s for {what}")


def work_command(concurrency: int) -> list[str]:
    return [CLAIMS_CREW, "work", "--concurrency", str(concurrency)]


@contextmanager
def work_processes(
    command: list[str], env: dict[str, str], n: int, log_stem: Path
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`n` worker processes, each logging to LOG_STEM-K.log, stopped with SIGTERM at the end
    (they finish what they hold)."""
    procs: list[subprocess.Popen[bytes]] = []
    with ExitStack() as logs:
        try:
            for number in range(n):
                log = logs.enter_context(Path(f"{log_stem}-{number}.log").open("wb"))
                procs.append(
                    subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
                )
            yield procs
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
            for proc in procs:
                try:
                    proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def runs_recorded(store: Store) -> int:
    from sqlalchemy import func, select

    from claims_crew.store import tables as t

    with store.read() as conn:
        return int(conn.execute(select(func.count()).select_from(t.runs)).scalar_one())


def wait_until_polling(
    store: Store, procs: list[subprocess.Popen[bytes]], runs_before: int = 0
) -> None:
    """Until every worker has recorded its run: it is past its start-up (mostly importing
    CrewAI) and taking from the queue."""
    while runs_recorded(store) < runs_before + len(procs):
        if dead := [p for p in procs if p.poll() is not None]:
            raise RuntimeError(f"a worker exited at start-up (status {dead[0].returncode})")
        time.sleep(0.1)


def work_batch(
    store: Store, procs: list[subprocess.Popen[bytes]], inbox: Path, ids: list[str]
) -> tuple[float, float, list[str]]:
    """Copies of the water claim under `ids`, ingested and worked to the end: the wall time
    from the first ingest, the ingest's own, and the errors of refused files."""
    from claims_crew.claim_files import inbox_files
    from claims_crew.run.ingest import ingest
    from tests.support.provider import water_claims

    if not ids:
        return 0.0, 0.0, []
    water_claims(inbox, *ids)
    began = time.perf_counter()
    ingested = ingest(inbox_files(inbox), store)
    ingest_s = time.perf_counter() - began
    # Until nothing is pending: a claim whose review failed is done too, undecided.
    while store.queue_counts().pending:
        if dead := [p for p in procs if p.poll() is not None]:
            raise RuntimeError(f"a worker died (status {dead[0].returncode})")
        time.sleep(0.05)
    return time.perf_counter() - began, ingest_s, [r.error or "" for r in ingested if r.refused]


def cpu_of(procs: list[subprocess.Popen[bytes]]) -> float:
    """The CPU seconds the running processes have used so far, read from Linux's /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for proc in procs:
        try:
            fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return total


def decided_once(store: Store, ids: list[str]) -> list[str]:
    """Every claim decided exactly once, and the audit chain whole; what is wrong, if anything."""
    from sqlalchemy import func, select

    from claims_crew.store import tables as t

    problems = []
    with store.read() as conn:
        per: dict[str, dict[str, int]] = {}
        for name, table in (
            ("decisions", t.decisions),
            ("attempts", t.attempts),
            ("audit entries", t.audit_log),
        ):
            rows = conn.execute(
                select(table.c.claim_id, func.count()).group_by(table.c.claim_id)
            ).all()
            per[name] = {str(claim_id): int(n) for claim_id, n in rows}
    for name, counts in per.items():
        wrong = [c for c in ids if counts.get(c, 0) != 1]
        if wrong:
            named = ", ".join(wrong[:3]) + (" …" if len(wrong) > 3 else "")
            problems.append(f"{len(wrong)} claim(s) without exactly one of their {name}: {named}")
    verdict = store.verify_audit()
    if not verdict.ok:
        problems.append(f"audit verify failed at entry {verdict.first_bad}: {verdict.problem}")
    return problems


def children(parent: int, wanted: Callable[[list[bytes]], bool]) -> list[int]:
    """The processes `parent` started whose command line (its words) is `wanted`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        if ppid == parent and wanted(command):
            found.append(int(entry.name))
    return sorted(found)
