"""The command a printed hint names, as the person started it: every hint goes through
`command`, so what it says runs where it is printed.

`uv run` puts the project's environment on the PATH of the process it starts, not of the shell
the person typed into: there, in the shell the README sets up, only `uv run claims-crew` works.
uv sets `UV` (the path of the uv binary) in the environment of every process it runs, so its
presence says the command was started through uv (`uv run claims-crew`, or `uv run crewai run`,
whose `run_crew` inherits it); without it, `claims-crew` was found on the PATH and runs as is.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

NAME = "claims-crew"


def command(args: str = "", environ: Mapping[str, str] | None = None) -> str:
    """`claims-crew ARGS` as it runs in the person's shell: `uv run claims-crew ARGS` when this
    process was started through uv."""
    env = os.environ if environ is None else environ
    start = f"uv run {NAME}" if env.get("UV") else NAME
    return f"{start} {args}".rstrip()
