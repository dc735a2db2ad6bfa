"""`claims-crew run`, `claims-crew work` and `crewai run` refuse a broken config first: every
problem listed, a non-zero exit, no store made in a new home, and neither the store's SQLAlchemy,
the OCR's pytesseract nor CrewAI loaded for it (what the time of a refusal comes from)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

HEAVY = ("sqlalchemy", "alembic", "pytesseract", "crewai", "litellm")

# Each edit breaks one file: (file, text, replacement, what the refusal must name).
EDITS = (
    ("tasks.yaml", "  agent: fraud\n", "  agent: fraudster\n", "fraudster"),
    ("agents.yaml", "  role: Claims intake analyst\n", "  rolle: Claims intake analyst\n", "rolle"),
    ("desk.yaml", "[line, least_loaded]", "[line, most_loaded]", "assignment.steps[1]"),
)

# The probe runs an entry point, then says how it ended and what was imported by then.
PROBE = """
import json, sys
entry, args, report = sys.argv[1], sys.argv[2:-1], sys.argv[-1]
code = 0
try:
    if entry == "run_crew":
        from claims_crew.main import run
        run()
    else:
        from claims_crew.cli import main
        main(args, prog_name="claims-crew")
except SystemExit as exc:
    code = exc.code
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))
with open(report, "w", encoding="utf-8") as out:
    json.dump({"code": code, "heavy": heavy}, out)
"""


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    config = tmp_path / "broken-config"
    shutil.copytree(ROOT / "config", config)
    for name, old, new, _ in EDITS:
        text = (config / name).read_text(encoding="utf-8")
        assert text.count(old) == 1
        (config / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    return config


def refused(tmp_path: Path, entry: str, args: list[str], config_env: Path | None) -> str:
    """Run `entry` in a fresh process with a fresh home; return its stderr once checked that it
    exited non-zero, made no store and imported nothing heavy."""
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMS_CREW_")}
    env["CLAIMS_CREW_HOME"] = str(home)
    if config_env is not None:
        env["CLAIMS_CREW_CONFIG"] = str(config_env)
    report = tmp_path / "report.json"
    code = f"HEAVY = {HEAVY!r}\n{PROBE}"
    done = subprocess.run(
        [sys.executable, "-c", code, entry, *args, str(report)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    found = json.loads(report.read_text(encoding="utf-8"))
    assert found["code"] not in (0, None), done.stdout + done.stderr
    assert found["heavy"] == [], found["heavy"]
    assert not home.exists() or not list(home.rglob("*.sqlite*")), list(home.rglob("*"))
    return done.stderr


ENTRIES = {
    "claims-crew run": ("cli", ["run"]),
    "claims-crew work": ("cli", ["work", "--until-empty"]),
    "crewai run": ("run_crew", []),
}


@pytest.mark.empty_database  # what a refused command leaves in a home with no store
@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_a_broken_config_is_refused_before_the_store(
    name: str, broken: Path, tmp_path: Path
) -> None:
    entry, args = ENTRIES[name]
    said = refused(tmp_path, entry, args, config_env=broken)
    assert "4 problem(s)" in said  # agents.yaml's misspelt role is two: unknown, and missing
    for name_, _, _, word in EDITS:
        assert word in said and name_ in said


@pytest.mark.empty_database  # what a refused command leaves in a home with no store
@pytest.mark.parametrize("command", ["run", "work"])
def test_config_dir_means_what_the_variable_means(
    command: str, broken: Path, tmp_path: Path
) -> None:
    said = refused(tmp_path, "cli", [command, "--config-dir", str(broken)], config_env=None)
    assert str(broken) in said and "fraudster" in said
