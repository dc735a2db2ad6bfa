"""Where the project's files are: the repository, its sample policies, the real policies."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
SAMPLE_POLICIES = ROOT / "policies"
SHARED_POLICIES = ROOT.parent / "shared" / "policies"
# Real public mail, forms, Office files and images (its README gives each one's source and licence);
# what a handler needs from each is listed in tests/data/corpus/expected.yaml.
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"


def absent(path: Path) -> str:
    """Why a test that reads the real policies skips (tests/support/skips.py counts these)."""
    return f"{path} is absent: the real policy PDFs live in ../shared/policies/"


def shared_pdf(name: str) -> Path:
    path = SHARED_POLICIES / name
    if not path.exists():
        pytest.skip(absent(path))
    return path


def shared_corpus_file(name: str) -> Path:
    """A real file of ../shared/corpus (`mail/x.eml`); the test skips, saying why, where absent."""
    path = SHARED_CORPUS / name
    if not path.exists():
        pytest.skip(f"{path} is absent: the real corpus files live in ../shared/corpus/")
    return path
