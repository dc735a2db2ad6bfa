"""The fork server behind the reader children (documents/fork_server.py, forked_children.py).

Driven with small scripts of the readers' shape: they import what they need, take an empty stdin
as "not needed" and return, and otherwise answer what stdin held. Every wait is on an event
(the server ready, a child's exit), never on how fast this machine is.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from claims_crew.documents import child_process, forked_children
from claims_crew.documents.child_process import run_child, script_command
from claims_crew.documents.forked_children import ForkedChild, ForkServers, new_fork_servers
from tests.support.children import READY_S, record_plain_starts, wait_ready

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or not hasattr(__import__("socket"), "send_fds"),
    reason="no fork server on this platform: every child is started plainly",
)


ECHO = """\
import json, os, sys
sys.path.append(sys.argv[1])  # where warm_module is, as a reader is given its folders
data = sys.stdin.buffer.read()
if data:
    reply = {
        "pid": os.getpid(),
        "parent": os.getppid(),
        "data": data.decode(),
        "probe": os.environ.get("CLAIMS_CREW_FORK_PROBE"),
        "cwd": os.getcwd(),
        "warm": "warm_module" in sys.modules,
    }
    sys.stderr.write("said on stderr")
    sys.stdout.write(json.dumps(reply))
    sys.exit(int(os.environ.get("CLAIMS_CREW_FORK_EXIT", "0")))
else:  # the warm-up: import what a file will need
    import warm_module
"""


def _alive(pid: int) -> bool:
    """Whether a process runs. A zombie does not: a child whose server was killed is left to
    whatever init there is to reap, and a container's first process may never do so."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):  # gone meanwhile, or no /proc here: kill(0) has spoken
        return _exists(pid)
    return state != "Z"


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[ForkServers]:
    monkeypatch.setattr(forked_children, "SERVER_AFTER_OPENS", 1)
    keeper = ForkServers()
    yield keeper
    keeper.close()


def _script(tmp_path: Path, body: str) -> list[str]:
    (tmp_path / "warm_module.py").write_text("WARM = True\n")
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(body))
    return script_command(script, str(tmp_path))


def _warm(servers: ForkServers, command: list[str]) -> forked_children._Server:
    """The first open is read by a plain child (None here) and starts the server."""
    assert servers.fork(command, 30) is None
    return wait_ready(servers)


def _busy_child(
    servers: ForkServers, tmp_path: Path, timeout: float
) -> tuple[list[str], forked_children._Server, ForkedChild]:
    """A forked child that takes a file and never answers, past one wait of `timeout` s; with
    its command and the server that forked it."""
    command = _script(
        tmp_path,
        """\
        import sys, time
        if sys.stdin.buffer.read():
            time.sleep(600)
        """,
    )
    server = _warm(servers, command)
    child = _fork(servers, command)
    with pytest.raises(subprocess.TimeoutExpired):
        child.communicate(b"a file", timeout=timeout)
    return command, server, child


def _fork(servers: ForkServers, command: list[str]) -> ForkedChild:
    child = servers.fork(command, 30)
    assert isinstance(child, ForkedChild)
    return child


def test_a_forked_child_answers_as_a_fresh_one_with_the_environment_of_now(
    servers: ForkServers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = _script(tmp_path, ECHO)
    server = _warm(servers, command)
    # Set after the server started: each child gets the caller's environment and folder as
    # they are when it is forked.
    monkeypatch.setenv("CLAIMS_CREW_FORK_PROBE", "seen")
    monkeypatch.setenv("CLAIMS_CREW_FORK_EXIT", "3")
    monkeypatch.chdir(tmp_path)
    child = _fork(servers, command)
    stdout, stderr = child.communicate(b"x" * 300_000, timeout=60)  # past a pipe's buffer
    reply = json.loads(stdout)
    assert child.returncode == 3
    assert stderr == b"said on stderr"
    assert reply["parent"] == server.process.pid and reply["pid"] == child.pid
    assert reply["data"] == "x" * 300_000
    assert (reply["probe"], reply["cwd"], reply["warm"]) == ("seen", str(tmp_path), True)
    assert not _alive(child.pid)


def test_every_file_gets_its_own_child(servers: ForkServers, tmp_path: Path) -> None:
    command = _script(tmp_path, ECHO)
    _warm(servers, command)
    done = [run_child(command, servers, f"file {n}".encode(), 60) for n in range(3)]
    replies = [json.loads(d.stdout) for d in done]
    assert [r["data"] for r in replies] == ["file 0", "file 1", "file 2"]
    assert len({r["pid"] for r in replies}) == 3
    assert len({r["parent"] for r in replies}) == 1


def test_a_child_past_its_limit_is_killed_by_the_server(
    servers: ForkServers, tmp_path: Path
) -> None:
    _, _, child = _busy_child(servers, tmp_path, timeout=1)
    child_process.stop_child(child)
    assert child.returncode == -signal.SIGKILL
    assert not _alive(child.pid)


def test_a_child_killed_by_a_signal_reports_it(servers: ForkServers, tmp_path: Path) -> None:
    command = _script(
        tmp_path,
        """\
        import os, signal, sys
        if sys.stdin.buffer.read():
            os.kill(os.getpid(), signal.SIGTERM)
        """,
    )
    _warm(servers, command)
    done = run_child(command, servers, b"a file", 60)
    assert done.returncode == -signal.SIGTERM


def test_a_script_that_fails_to_warm_up_is_read_by_plain_children(
    servers: ForkServers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = _script(tmp_path, "import no_such_module_anywhere\n")
    started = record_plain_starts(monkeypatch)
    first = run_child(command, servers, b"a file", 60)
    server = servers._server
    assert server is not None
    assert server.process.wait(timeout=READY_S) != 0
    second = run_child(command, servers, b"a file", 60)
    # Both read by plain children, each reporting the script's own failure.
    assert len(started) == 2
    assert all(b"no_such_module_anywhere" in d.stderr for d in (first, second))
    assert servers._server is None  # and no second server was started for it


def test_children_die_with_a_killed_server_and_the_caller_is_told(
    servers: ForkServers, tmp_path: Path
) -> None:
    command, server, child = _busy_child(servers, tmp_path, timeout=0.5)
    server.process.kill()
    server.process.wait()
    if sys.platform.startswith("linux"):  # the child goes with its server (PR_SET_PDEATHSIG)
        with pytest.raises(OSError, match="ended before"):
            child.communicate(timeout=READY_S)
        # Its pipes close before it has finished exiting, so its end is waited for.
        deadline = time.monotonic() + READY_S
        while _alive(child.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child.pid)
    # The next file is read by a child started plainly, and a new server is started for later.
    assert servers.fork(command, 30) is None
    assert servers._server is not None and servers._server is not server


def test_closing_kills_the_server_and_what_it_runs(servers: ForkServers, tmp_path: Path) -> None:
    _, server, child = _busy_child(servers, tmp_path, timeout=0.5)
    servers.close()
    assert server.process.returncode is not None
    with pytest.raises(OSError, match="ended before"):
        child.communicate(timeout=READY_S)
    assert not _alive(child.pid)


def test_a_forked_copy_forgets_the_server_and_leaves_it_working(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(forked_children, "SERVER_AFTER_OPENS", 1)
    servers = new_fork_servers()  # as the readers' keepers are made: forgotten by a fork
    command = _script(tmp_path, ECHO)
    _warm(servers, command)
    pid = os.fork()
    if pid == 0:  # the forked copy: report what it sees, and leave without running anything
        os._exit(0 if servers._server is None and servers._opens == 0 else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    # The copy closed only its own end of the socket: the server still forks for this process.
    done = run_child(command, servers, b"after the copy", 60)
    servers.close()
    assert done.returncode == 0 and b"after the copy" in done.stdout
