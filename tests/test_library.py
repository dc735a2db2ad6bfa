"""policies/index.yaml, the on-disk cache keyed by SHA-256, and the in-force dates."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
from datetime import date
from pathlib import Path

import pytest
from pypdf import PdfWriter

from claims_crew.errors import ConfigError
from claims_crew.policy import library as library_module
from claims_crew.policy.cache import index_path, reader
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.library import PolicyLibrary, load_index, open_pdf
from tests.support.paths import SAMPLE_POLICIES


def test_sample_index_lists_three_policies_with_dates() -> None:
    entries = load_index(SAMPLE_POLICIES / "index.yaml")
    assert {"HM-HOME-001", "MR-AUTO-001", "WF-TRAVEL-001"} <= set(entries)
    home = entries["HM-HOME-001"]
    assert (SAMPLE_POLICIES / home.file).exists()
    assert home.in_force_on(date(2025, 6, 1))
    assert not home.in_force_on(date(2024, 12, 31))


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("policies:\n  P1:\n    file: a.pdf\n    product: x\n    line: home\n", "in_force_from"),
        (
            "policies:\n  P1:\n    file: a.pdf\n    product: x\n    line: home\n"
            "    in_force_from: 2025-01-01\n    colour: red\n",
            "colour",
        ),
        ("policies: [\n", "not valid YAML"),
    ],
)
def test_bad_index_names_the_file_and_key(tmp_path: Path, body: str, fragment: str) -> None:
    index_file = tmp_path / "index.yaml"
    index_file.write_text(body)
    with pytest.raises(ConfigError) as err:
        load_index(index_file)
    assert str(index_file) in str(err.value) and fragment in str(err.value)


@pytest.mark.slow
def test_unchanged_pdf_is_parsed_once_and_an_edit_reindexes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf = tmp_path / "home.pdf"
    shutil.copy(SAMPLE_POLICIES / "harbour_home.pdf", pdf)
    cache = tmp_path / "cache"
    calls: list[Path] = []
    real_extract = library_module.extract_pages

    def counting_extract(path: Path, data: bytes, timeout_s: float | None = None) -> list[str]:
        calls.append(path)
        return real_extract(path, data, timeout_s)

    monkeypatch.setattr(library_module, "extract_pages", counting_extract)
    first = open_pdf(pdf, cache)
    second = open_pdf(pdf, cache)
    assert len(calls) == 1
    assert [c.id for c in second.clauses] == [c.id for c in first.clauses]
    assert index_path(cache, first.sha256).exists()

    # A new title in the metadata changes the bytes, hence the hash, hence the index.
    writer = PdfWriter(clone_from=str(pdf))
    writer.add_metadata({"/Title": "Edited copy"})
    with open(pdf, "wb") as handle:
        writer.write(handle)
    third = open_pdf(pdf, cache)
    assert len(calls) == 2
    assert third.sha256 != first.sha256


@pytest.mark.slow
def test_a_damaged_cache_file_is_rebuilt_not_trusted(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    doc = open_pdf(SAMPLE_POLICIES / "harbour_home.pdf", cache)
    found = _hits(doc)  # a kept connection
    index_path(cache, doc.sha256).write_bytes(b"this is not sqlite")
    again = open_pdf(SAMPLE_POLICIES / "harbour_home.pdf", cache)
    assert len(again.clauses) == len(doc.clauses)
    # The rebuilt file is searched, not the damaged one the thread's connection had open.
    assert _hits(again) == found


def _hits(doc: PolicyDocument) -> list[tuple[str, float]]:
    return [(h.clause.id, h.score) for h in doc.search("water damage")]


def _own_copy(home_policy: PolicyDocument, cache: Path) -> PolicyDocument:
    """The sample home policy opened from a cache of the test's own (a copy of the run's index)."""
    cache.mkdir()
    shutil.copy(home_policy.index_path, cache / home_policy.index_path.name)
    return open_pdf(home_policy.path, cache)


def test_a_thread_keeps_its_index_connection_until_the_file_is_replaced(
    home_policy: PolicyDocument, tmp_path: Path
) -> None:
    doc = _own_copy(home_policy, tmp_path / "cache")
    first = _hits(doc)
    kept = reader(doc.index_path)
    assert reader(doc.index_path) is kept
    elsewhere: list[sqlite3.Connection] = []
    thread = threading.Thread(target=lambda: elsewhere.append(reader(doc.index_path)))
    thread.start()
    thread.join()
    assert elsewhere and elsewhere[0] is not kept  # sqlite3 ties a connection to its thread

    # Written aside and renamed into place, as the cache writes: a new file, a new connection.
    aside = doc.index_path.with_suffix(".aside")
    shutil.copy(doc.index_path, aside)
    os.replace(aside, doc.index_path)
    assert reader(doc.index_path) is not kept
    assert _hits(doc) == first


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX only")
def test_a_forked_child_opens_its_own_index_connection(
    home_policy: PolicyDocument, tmp_path: Path
) -> None:
    doc = _own_copy(home_policy, tmp_path / "cache")
    inherited = reader(doc.index_path)
    expected = len(doc.search("water damage"))
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only with a connection of its own that answers
        own = reader(doc.index_path)
        ok = own is not inherited and len(doc.search("water damage")) == expected
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert reader(doc.index_path) is inherited  # the parent's is untouched


def test_library_resolves_ids_and_paths(tmp_path: Path) -> None:
    lib = PolicyLibrary(root=SAMPLE_POLICIES, cache_dir=tmp_path)
    by_id = lib.open("WF-TRAVEL-001")
    by_path = lib.open(str(SAMPLE_POLICIES / "wayfarer_travel.pdf"))
    assert by_id.sha256 == by_path.sha256
    assert lib.open("WF-TRAVEL-001") is by_id  # opened once per library


def test_unknown_policy_id_is_a_typed_error(tmp_path: Path) -> None:
    from claims_crew.errors import PolicyError

    lib = PolicyLibrary(root=SAMPLE_POLICIES, cache_dir=tmp_path)
    with pytest.raises(PolicyError) as err:
        lib.open("NO-SUCH-POLICY")
    assert err.value.code == "unknown_policy"
    assert "HM-HOME-001" in err.value.message
