"""Reading an endorsement has one deadline, the PDF timeout, over the whole reading
(policy/reading_deadline.py): not only the text extraction but reading its changes, applying
its corrections and matching them on the form. Past it, the reading is refused as `timeout`.

The deadline is made tiny on the sample endorsements (real PDFs, built by
scripts/build_policies.py), with their page texts already kept, so no PDF reader runs: what
refuses the reading is the deadline over the steps after the extraction, which nothing bounded.
"""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from claims_crew import settings
from claims_crew.cli import main
from claims_crew.errors import PolicyError
from claims_crew.policy.in_force import changes_of
from claims_crew.policy.library import PolicyLibrary
from claims_crew.policy.reading_deadline import ReadingDeadline
from tests.support.paths import SAMPLE_POLICIES

HOME, HOME_NUMBER = "HM-HOME-001", "HM-25-00417"
TINY = 1e-9  # seconds: past before the first step is done, on any machine


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache holding the home form's index and both home endorsements' page texts, read
    within the default deadline."""
    cache = tmp_path_factory.mktemp("warm")
    library = PolicyLibrary(SAMPLE_POLICIES, cache)
    library.open(HOME)
    for name in ("HM-E-07", "HM-E-09"):
        changes_of(library, name)
    return cache


@pytest.fixture
def cache(warm: Path, tmp_path: Path) -> Path:
    """A copy of the warm cache, so that no test finds a wording in force another built."""
    return Path(shutil.copytree(warm, tmp_path / "cache"))


@pytest.mark.slow  # reads the sample PDFs once, for the module
def test_policy_changes_past_the_deadline_is_refused(cache: Path) -> None:
    with pytest.raises(PolicyError) as refused:
        changes_of(PolicyLibrary(SAMPLE_POLICIES, cache, timeout_s=TINY), "HM-E-09")
    assert refused.value.code == "timeout"
    assert refused.value.message == (
        "endorsement HM-E-09: reading did not finish within 1e-09 s (CLAIMS_CREW_PDF_TIMEOUT)"
    )


@pytest.mark.slow  # reads the sample PDFs once, for the module
def test_the_wording_in_force_past_the_deadline_is_refused(cache: Path) -> None:
    library = PolicyLibrary(SAMPLE_POLICIES, cache, timeout_s=TINY)
    with pytest.raises(PolicyError) as refused:
        library.in_force(HOME, HOME_NUMBER, date(2025, 8, 10))
    assert refused.value.code == "timeout"
    assert refused.value.message.startswith(f"policy {HOME_NUMBER}'s endorsements: reading did")
    # Within the deadline the same wording is built from the same kept pages.
    doc = PolicyLibrary(SAMPLE_POLICIES, cache).in_force(HOME, HOME_NUMBER, date(2025, 8, 10))
    assert doc.get("7.12") is not None


@pytest.mark.slow  # reads the sample PDFs once, for the module
def test_the_command_takes_its_deadline_from_the_setting(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(cache, settings.policy_cache_dir(), dirs_exist_ok=True)
    monkeypatch.setenv("CLAIMS_CREW_PDF_TIMEOUT", str(TINY))
    result = CliRunner().invoke(main, ["policy", "changes", "HM-E-09", "--json"])
    assert result.exit_code == 2, result.output
    assert json.loads(result.stdout)["error"]["code"] == "timeout"


def test_the_deadline_is_one_for_the_whole_reading() -> None:
    now = [100.0]
    deadline = ReadingDeadline.start("endorsement E-1", 10.0, clock=lambda: now[0])
    now[0] = 104.0  # the text extraction took 4 s: the next step gets what is left
    assert deadline.left() == 6.0
    deadline.check()
    now[0] = 110.0
    with pytest.raises(PolicyError) as refused:
        deadline.check()
    assert refused.value.code == "timeout" and "within 10 s" in refused.value.message
