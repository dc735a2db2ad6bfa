"""The review page's Endorsement readings keep each endorsement's reading while what it depends
on is unchanged (PolicyLibrary.reading): a second request reads no endorsement PDF, and an
edited PDF or a new correction is read afresh. Reads are counted where the policy library
reads an endorsement's file (policy/in_force.py's `_read`), on the SQLite store."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import claims_crew.policy.in_force as in_force
from claims_crew.policy.confirmations import Confirmation, write_confirmation
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records import ReviewerSettings
from claims_crew.review.web import create_app
from claims_crew.store import Store
from tests.support.readings import correct_hot_tubs, unconfirmed_policies


def _state(listing: str, name: str) -> str:
    found = re.search(rf">{name}</a>.*?class=\"reading-(\w+)\"", listing, re.S)
    assert found is not None, name
    return found[1]


@pytest.mark.slow  # reads the sample forms where the run's cache does not hold them yet
def test_the_readings_list_reads_each_pdf_once_until_it_or_its_entry_changes(
    tmp_path: Path, session_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = unconfirmed_policies(tmp_path, session_cache, monkeypatch)
    reads: Counter[str] = Counter()
    real_read = in_force._read

    def counted(library: PolicyLibrary, on_policy: Any, entry: Any) -> Any:
        reads[on_policy.endorsement] += 1
        return real_read(library, on_policy, entry)

    monkeypatch.setattr(in_force, "_read", counted)
    store = Store()
    client = TestClient(create_app(store, ["testserver"]), follow_redirects=False)
    csrf = client.get("/login").context["csrf"]  # type: ignore[attr-defined]
    token = store.add_reviewer("lee", ReviewerSettings(role="lead"))
    assert client.post("/login", data={"token": token, "csrf": csrf}).status_code == 303

    first = client.get("/endorsements").text
    assert reads == {"HM-E-07": 1, "HM-E-09": 1, "MA-E-12": 1}
    assert _state(first, "HM-E-07") == "unconfirmed"
    reads.clear()
    assert client.get("/endorsements").text == first
    assert client.get("/endorsements/HM-E-09").status_code == 200
    assert reads == {}  # neither the list nor the page read an endorsement again

    # HM-E-07 confirmed as it reads now (no read: the kept reading), then its PDF edited.
    digest = PolicyLibrary().reading("HM-E-07").digest
    write_confirmation(root, "HM-E-07", Confirmation(digest=digest, by="lee", at="2026-01-01Z"))
    assert _state(client.get("/endorsements").text, "HM-E-07") == "confirmed"
    assert reads == {}
    pdf = root / PolicyLibrary().endorsements["HM-E-07"].file
    pdf.write_bytes(pdf.read_bytes() + b"\n% edited\n")  # the same reading, another file
    assert _state(client.get("/endorsements").text, "HM-E-07") == "changed"
    assert reads == {"HM-E-07": 1}

    # A correction on HM-E-09's entry: that one read afresh, and only that one.
    reads.clear()
    correct_hot_tubs(root, "{change: 2, drop: true, why: checked against the PDF}")
    listing = client.get("/endorsements").text
    assert reads == {"HM-E-09": 1}
    assert _state(listing, "HM-E-09") == "unconfirmed"
    assert PolicyLibrary().reading("HM-E-09").corrected is not None
    assert reads == {"HM-E-09": 1}
