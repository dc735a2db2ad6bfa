"""`claims-crew run` and `crewai run` are one run: CrewAI's files stay under CLAIMS_CREW_HOME and
its telemetry stays off, unless the user set CrewAI's variables otherwise."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from crewai.events.listeners.tracing.utils import should_enable_tracing
from crewai.telemetry import Telemetry
from crewai_core.paths import db_storage_path

from claims_crew import main as crewai_entry
from claims_crew import settings
from claims_crew.cli import main
from claims_crew.llms import select
from claims_crew.llms.scripted import final, lookup
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    POLICY_COVERED,
    WATER_CLAIM,
    Script,
    start_date_answer,
)
from tests.support.paths import ROOT

CREWAI_VARS = (
    "CREWAI_DISABLE_TELEMETRY",
    "OTEL_SDK_DISABLED",
    "CREWAI_TRACING_ENABLED",
    "CREWAI_STORAGE_DIR",
)


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user with none of CrewAI's variables set (conftest sets them for every other test), a
    HOME and a data folder of their own, in a project folder with the water claim in its inbox,
    and CLAIMS_CREW_HOME given relative to it as the documentation does."""
    for name in CREWAI_VARS:
        monkeypatch.setenv(name, "")  # so that what a command sets is undone after the test
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "user-home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "user-data"))
    project = tmp_path / "project"
    inbox = project / "claims" / "inbox"
    inbox.mkdir(parents=True)
    shutil.copy(WATER_CLAIM, inbox / WATER_CLAIM.name)
    monkeypatch.chdir(project)
    monkeypatch.setenv("CLAIMS_CREW_HOME", ".claims-crew/tuned")
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    return tmp_path


INBOX = "project/claims/inbox/"


def files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def claims_crew_run() -> None:
    result = CliRunner().invoke(main, ["run"])
    assert result.exit_code == 0, result.output + result.stderr


ENTRIES: dict[str, Callable[[], None]] = {
    "claims-crew run": claims_crew_run,
    "crewai run": crewai_entry.run,
}


@pytest.mark.slow
@pytest.mark.empty_database  # every file a run writes, the store it makes among them
@pytest.mark.parametrize("entry", list(ENTRIES))
def test_a_run_keeps_crewais_files_at_home_and_its_telemetry_off(
    user: Path, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    seen: dict[str, Any] = {}

    def intake(_messages: list[dict[str, Any]]) -> str:
        # What CrewAI itself reads while the crew runs.
        seen.update({name: os.environ.get(name) for name in CREWAI_VARS})
        seen["telemetry disabled"] = Telemetry._is_telemetry_disabled()
        seen["tracing"] = should_enable_tracing()
        seen["storage"] = db_storage_path()
        return final(INTAKE_WATER)

    script = Script(
        # The facts, then null when the conflict asks when the damage started.
        intake=[intake, final(start_date_answer(None))],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[final(FRAUD_EXCLUDED)],
    )
    monkeypatch.setattr(select, "default_llm_factory", lambda config_dir=None: script)

    ENTRIES[entry]()

    home = user / "project" / ".claims-crew" / "tuned"
    crewai_home = home / "crewai"
    assert seen == {
        "CREWAI_DISABLE_TELEMETRY": "true",
        "OTEL_SDK_DISABLED": "true",
        "CREWAI_TRACING_ENABLED": "false",
        "CREWAI_STORAGE_DIR": str(crewai_home),
        "telemetry disabled": True,
        "tracing": False,
        "storage": str(crewai_home),
    }
    assert crewai_home.is_dir()
    # The run wrote only under the home (the decision store, CrewAI's folder): nothing in the
    # user's home or data folder, nothing beside the inbox.
    written = files_under(user)
    assert [f for f in written if not f.startswith(("project/.claims-crew/tuned/", INBOX))] == []
    # CrewAI's log of every kickoff's task outputs is not kept: the claim's text is in the
    # inbox and the decision store, and in no file of CrewAI's.
    assert [f for f in written if f.endswith("latest_kickoff_task_outputs.db")] == []
    holding = [f for f in written if b"C-1042" in (user / f).read_bytes()]
    store = "project/.claims-crew/tuned/claims.sqlite"
    assert [f for f in holding if not f.startswith((store, INBOX))] == [], written
    # The store is the database file and its write-ahead log: while the run's pooled
    # connections stay open in this process, the claim may still be in the log alone.
    assert [f for f in holding if f.startswith(store)], written


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ({}, {}),
        (
            {"CREWAI_DISABLE_TELEMETRY": "false", "OTEL_SDK_DISABLED": "false"},
            {"CREWAI_DISABLE_TELEMETRY": "false", "OTEL_SDK_DISABLED": "false"},
        ),
        ({"CREWAI_TRACING_ENABLED": "true"}, {"CREWAI_TRACING_ENABLED": "true"}),
        ({"CREWAI_STORAGE_DIR": "/srv/crewai"}, {"CREWAI_STORAGE_DIR": "/srv/crewai"}),
    ],
)
def test_every_command_sets_what_the_user_left_unset(
    user: Path, monkeypatch: pytest.MonkeyPatch, given: dict[str, str], kept: dict[str, str]
) -> None:
    for name, value in given.items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(main, ["config", "check"])
    assert result.exit_code == 0, result.output
    defaults = {
        "CREWAI_DISABLE_TELEMETRY": "true",
        "OTEL_SDK_DISABLED": "true",
        "CREWAI_TRACING_ENABLED": "false",
        "CREWAI_STORAGE_DIR": str(user / "project" / ".claims-crew" / "tuned" / "crewai"),
    }
    assert {name: os.environ.get(name) for name in CREWAI_VARS} == {**defaults, **kept}
    assert Telemetry._is_telemetry_disabled() is ("OTEL_SDK_DISABLED" not in kept)


def test_the_crewai_folder_is_absolute_however_home_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CrewAI takes a relative CREWAI_STORAGE_DIR inside the user's data folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAIMS_CREW_HOME", "data")
    assert settings.crewai_dir() == tmp_path / "data" / "crewai"


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        "from claims_crew.main import run; run()",
        "from claims_crew.cli import main; main(['run'])",
    ],
    ids=["crewai run", "claims-crew run"],
)
def test_a_fresh_process_sets_the_environment_before_importing_crewai(
    user: Path, command: str
) -> None:
    """CrewAI makes its storage folder when it is imported: the empty inbox needs no model."""
    (user / "project" / "claims" / "inbox" / WATER_CLAIM.name).unlink()
    done = subprocess.run(
        [sys.executable, "-c", command], capture_output=True, text=True, env=dict(os.environ)
    )
    assert done.returncode == 0, done.stderr
    assert "0 claim file(s)" in done.stdout
    assert (user / "project" / ".claims-crew" / "tuned" / "crewai").is_dir()
    assert files_under(user / "user-data") == []


@pytest.mark.slow
def test_listing_the_commands_does_not_import_crewai() -> None:
    """The group sets CrewAI's environment after the command's module is imported, so no
    command module may import CrewAI when it is loaded."""
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from claims_crew.cli import main\n"
        "result = CliRunner().invoke(main, ['--help'])\n"
        "assert result.exit_code == 0 and 'resolve' in result.output, result.output\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('crewai', 'llama_cpp')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
