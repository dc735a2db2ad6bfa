"""Watching document children in tests: the plain starts, and a fork server's warm-up."""

from __future__ import annotations

import subprocess

import pytest

from claims_crew.documents import child_process, forked_children

READY_S = 120  # a guard on a fork server's warm-up, which takes a fraction of a second


def record_plain_starts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pid of every child started plainly (not forked) from now on in this test."""
    started: list[int] = []
    real_start = child_process._start

    def start(command: list[str]) -> subprocess.Popen[bytes]:
        process = real_start(command)
        started.append(process.pid)
        return process

    monkeypatch.setattr(child_process, "_start", start)
    return started


def wait_ready(servers: forked_children.ForkServers) -> forked_children._Server:
    """The keeper's fork server, once it has said it is ready; fails if it ended first."""
    server = servers._server
    assert server is not None, "no fork server was started"
    with server._condition:
        server._condition.wait_for(lambda: server.ready or server.ended, READY_S)
    assert server.ready, "the fork server never said it was ready"
    return server
