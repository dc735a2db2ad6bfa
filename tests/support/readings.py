"""The sample policies with no endorsement's reading confirmed, read by `PolicyLibrary()` as the
review page and the command line read them (CLAIMS_CREW_POLICIES), its index cache the run's."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import SAMPLE_POLICIES


def copied_unconfirmed(tmp_path: Path) -> Path:
    """A copy of the sample policies without confirmations.yaml."""
    root = Path(shutil.copytree(SAMPLE_POLICIES, tmp_path / "policies"))
    (root / "confirmations.yaml").unlink()
    return root


def correct_hot_tubs(root: Path, correction: str) -> str:
    """HM-E-09's entry in `root`'s index.yaml given `correction` (a flow mapping), which changes
    its reading; the index as it was is returned, to put back."""
    index = root / "index.yaml"
    original = index.read_text(encoding="utf-8")
    title = "    title: Hot tubs and spa pools\n"
    assert title in original
    index.write_text(
        original.replace(title, f"{title}    corrections:\n      - {correction}\n"),
        encoding="utf-8",
    )
    return original


def unconfirmed_policies(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the sample policies without confirmations.yaml, made the project's policies;
    the policy index cache under CLAIMS_CREW_HOME is `cache`, so no PDF is parsed again."""
    root = copied_unconfirmed(tmp_path)
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(root))
    shared_cache(tmp_path, cache, monkeypatch)
    return root


def shared_cache(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A CLAIMS_CREW_HOME whose policy index cache is `cache` (the run's session_cache)."""
    home = tmp_path / "reading-home"
    (home / "cache").mkdir(parents=True)
    (home / "cache" / "policy-index").symlink_to(cache, target_is_directory=True)
    monkeypatch.setenv("CLAIMS_CREW_HOME", str(home))


def confirm_rounds(root: str, who: str, rounds: int, barrier: Any) -> None:
    """In a process of its own: for each round, wait at `barrier` for the other process, then
    confirm endorsement `{who}-{round}` in `root`'s confirmations.yaml."""
    from claims_crew.policy.confirmations import Confirmation, write_confirmation

    for n in range(rounds):
        barrier.wait()
        confirmation = Confirmation(digest=f"{n:064x}", by=who, at=f"2026-01-01T00:00:{n:02}Z")
        write_confirmation(Path(root), f"{who}-{n}", confirmation)
