"""An unusable audit key is refused when `run` or `work` starts, before any model call: found
only when the first decision was written, it cost every claim its model calls first."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew import settings
from claims_crew.cli import main
from tests.support.openai_server import StartServer
from tests.support.provider import CrewScript, point_model_at, water_claims, water_replies


def _command(name: str, inbox: Path) -> list[str]:
    if name == "run":
        return ["run", "--inbox", str(inbox), "--concurrency", "1"]
    return ["work", "--until-empty", "--concurrency", "1"]


@pytest.mark.parametrize("command", ["run", "work"])
@pytest.mark.parametrize("key", ["short", "file"])
def test_a_bad_audit_key_stops_the_command_before_any_model_call(
    command: str,
    key: str,
    tmp_path: Path,
    openai_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = openai_server(water_replies(CrewScript(), "A-1"))
    point_model_at(server, monkeypatch)
    inbox = tmp_path / "inbox"
    water_claims(inbox, "A-1")
    queued = CliRunner().invoke(main, ["ingest", str(inbox)])
    assert queued.exit_code == 0, queued.output
    if key == "short":
        monkeypatch.setenv("CLAIMS_CREW_AUDIT_KEY", "too-short-a-key")
        named = "CLAIMS_CREW_AUDIT_KEY is 15 bytes"
    else:  # a key file others may read is refused rather than trusted
        key_file = settings.home() / "audit.key"
        key_file.write_text("ab" * 32 + "\n")
        key_file.chmod(0o644)
        named = "may be read by others"

    result = CliRunner().invoke(main, _command(command, inbox))

    assert server.requests == []
    assert result.exit_code != 0
    said = " ".join((result.output + result.stderr).split())
    assert said.startswith("error: ") and named in said and "no claim was reviewed" in said
