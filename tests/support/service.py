"""claims-crew as a claims system meets it: `claims-crew serve --port P --work 1` in a process
of its own (uvicorn inside it, one queue worker beside it), reached over HTTP on 127.0.0.1.

The process inherits the test's environment (CLAIMS_CREW_HOME, CLAIMS_CREW_DATABASE_URL from
the `engine` fixture, the scripted model's MODEL and MODEL_BASE_URL), with CLAIMS_CREW_CONFIG
naming a copy of the project's config/ whose webhooks.yaml sends every event to one receiver.
It can be stopped (SIGTERM, as a service manager stops it) and started again on the same store.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path
from typing import IO

import httpx
import yaml

from tests.support.browser import free_port
from tests.support.paths import ROOT
from tests.support.work_processes import CLAIMS_CREW, children, wait_for

SECRET_VARIABLE = "CLAIMS_CREW_WEBHOOK_SECRET_E2E"
# Short waits between tries, so that a receiver that was down is reached again within the test;
# as many as webhooks.yaml allows (50), so that it is not given up on while the test keeps it
# down (under a minute).
RETRY_S = [1.0] * 50
START_S = 120.0  # imports, migrations and the worker's CrewAI: minutes only on a loaded machine
TOKEN = re.compile(r"\bcc_[A-Za-z0-9_-]{20,}")


def webhook_config(folder: Path, url: str, events: list[str]) -> Path:
    """A copy of the project's config/ at `folder`, whose webhooks.yaml names one endpoint."""
    shutil.copytree(ROOT / "config", folder)
    endpoint = {"name": "e2e", "url": url, "secret_env": SECRET_VARIABLE, "events": events}
    endpoint["allow_private"] = True  # the test receivers listen on 127.0.0.1
    hooks = {"endpoints": [endpoint], "retry_s": RETRY_S, "timeout_s": 5}
    (folder / "webhooks.yaml").write_text(yaml.safe_dump(hooks, sort_keys=False), "utf-8")
    return folder


def token_from(output: str) -> str:
    """The client token `claims-crew clients add` printed once."""
    found = TOKEN.search(output)
    if found is None:
        raise AssertionError(f"no client token in {output!r}")
    return found.group(0)


def alive(pid: int) -> bool:
    """Whether `pid` is still a running process (a zombie no longer runs)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class Service:
    """`claims-crew serve --work 1` on a free port, logging to `log`; `start()` waits until
    /healthz answers, `stop()` sends SIGTERM and waits for the process (and its worker)."""

    def __init__(self, config: Path, secret: str, log: Path) -> None:
        self.port = free_port()
        self.config = config
        self.secret = secret
        self.log = log
        self._proc: subprocess.Popen[bytes] | None = None
        self._out: IO[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Service:
        env = {**os.environ, "CLAIMS_CREW_CONFIG": str(self.config), SECRET_VARIABLE: self.secret}
        command = [CLAIMS_CREW, "serve", "--port", str(self.port), "--work", "1"]
        self._out = self.log.open("ab")
        self._proc = subprocess.Popen(command, env=env, stdout=self._out, stderr=subprocess.STDOUT)
        wait_for(self._healthy, START_S, f"/healthz on port {self.port} (log: {self.log})")
        return self

    def _healthy(self) -> bool:
        if self._proc is not None and self._proc.poll() is not None:
            raise AssertionError(
                f"serve exited with status {self._proc.returncode}:\n{self.log_text()}"
            )
        try:
            return httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def stop(self) -> int:
        """SIGTERM, then wait; the exit status (a process that would not stop is killed).
        The processes it started (its worker) must be gone with it."""
        proc, self._proc = self._proc, None
        if proc is None:
            return 0
        started = children(proc.pid, lambda command: b"work" in command)
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            status = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError(f"serve did not stop on SIGTERM:\n{self.log_text()}") from None
        finally:
            if self._out is not None:
                self._out.close()
        try:
            wait_for(lambda: not any(map(alive, started)), 30, f"serve's processes {started} ended")
        finally:
            for pid in filter(alive, started):  # left behind: ended here, not by the next test
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        assert len(started) == 1, f"serve --work 1 ran {len(started)} queue workers"
        return status

    def log_text(self) -> str:
        return self.log.read_text("utf-8", errors="replace")[-4000:]
