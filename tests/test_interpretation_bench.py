"""bench/interpretation.py: every vague-contracts item becomes a policy the reader segments, with
the item's clause of the kind its wording calls for, and a claim file the inbox accepts; the
bench's bar (--min-accuracy, --max-unsafe) fails the run when it is missed."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from claims_crew.claim_files import load_claim
from claims_crew.policy.library import PolicyLibrary
from tests.support.paths import ROOT
from tests.support.scripts import load_script


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_script(ROOT / "bench" / "interpretation.py")


@pytest.fixture(scope="module")
def converted(bench: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    items = bench.read_items()
    folder = tmp_path_factory.mktemp("interpretation")
    policies, labels, claims = bench.convert(items, folder)
    library = PolicyLibrary(root=policies, cache_dir=folder / "policy-index")
    return {"items": items, "library": library, "labels": labels, "claims": claims}


def test_all_items_are_read_with_their_labels(bench: ModuleType) -> None:
    items = bench.read_items()
    assert len(items) == 111
    assert Counter(i.label for i in items) == {"covered": 37, "not_covered": 37, "ambiguous": 37}
    assert [i.item_id for i in items[:2]] == ["VC-001", "VC-002"]
    assert len({i.item_id for i in items}) == 111


def test_the_clause_kind_follows_the_wording(bench: ModuleType) -> None:
    cover, clauses = bench.parse_header(
        'John\'s car insurance policy includes coverage for "Vehicle Damage," which excludes '
        '<b>"loss or damage caused by wear and tear."</b>'
    )
    assert cover == "Vehicle Damage"
    assert [(c.kind, c.text) for c in clauses] == [
        (
            "exclusion",
            "Under Vehicle Damage we do not cover loss or damage caused by wear and tear.",
        )
    ]
    _, two = bench.parse_header(
        'Dave has insurance that covers "Public Liability", defined as <b>"the damages you owe."'
        '</b> The insurance policy also states that <b>"we will not pay for your losses."</b>'
    )
    assert [c.kind for c in two] == ["definition", "exclusion"]


def _misread(bench: ModuleType, library: PolicyLibrary, items: list[Any]) -> list[tuple[Any, ...]]:
    """Items whose policy does not hold their clauses, each of its kind, and the grant."""
    wrong = []
    for item in items:
        doc = library.open(item.item_id)
        ids = bench.clause_ids(item)
        for clause in item.clauses:
            found = doc.get(ids[clause.text])
            words = " ".join(found.text.split()) if found is not None else ""
            if found is None or found.kind != clause.kind or clause.text[-40:] not in words:
                wrong.append((item.item_id, clause.kind, found and found.kind, words[:60]))
        grant = doc.get(ids[f"We cover {item.cover} as this policy defines it."])
        if grant is None or grant.kind != "grant":
            wrong.append((item.item_id, "grant", grant and grant.kind, ""))
    return wrong


def test_each_kind_of_item_becomes_a_policy_holding_its_clause(
    bench: ModuleType, tmp_path: Path
) -> None:
    items = bench.read_items()
    # The first item whose clause is of each kind, and every item with two clauses.
    sample = {i.clauses[0].kind: i for i in reversed(items)}
    sample.update({i.item_id: i for i in items if len(i.clauses) > 1})
    chosen = list(sample.values())
    assert {i.clauses[0].kind for i in chosen} == {"definition", "exclusion", "condition"}
    policies, _, _ = bench.convert(chosen, tmp_path)
    library = PolicyLibrary(root=policies, cache_dir=tmp_path / "policy-index")
    assert _misread(bench, library, chosen) == []


@pytest.mark.slow
def test_every_item_becomes_a_policy_holding_its_clause(
    bench: ModuleType, converted: dict[str, Any]
) -> None:
    assert _misread(bench, converted["library"], converted["items"]) == []
    kinds = Counter(i.clauses[0].kind for i in converted["items"])
    assert kinds == {"definition": 99, "exclusion": 9, "condition": 3}


def test_every_item_becomes_a_claim_the_inbox_accepts(converted: dict[str, Any]) -> None:
    for item, path in zip(converted["items"], converted["claims"], strict=True):
        loaded = load_claim(path)  # raises ClaimFileError on any claim-file check
        assert loaded.claim.claim_id == item.item_id == loaded.claim.policy_id
        assert loaded.claim.description == item.story
    rows = converted["labels"].read_text(encoding="utf-8").splitlines()
    assert rows[0] == "claim_id,label,row,title,version"
    assert rows[1].startswith("VC-001,not_covered,1,Emergency Damage I,unambiguous_uncovered")


def test_the_subset_keeps_whole_scenarios(bench: ModuleType) -> None:
    chosen = bench.subset(bench.read_items(), 30)
    assert len(chosen) == 30
    assert Counter(i.label for i in chosen) == {"covered": 10, "not_covered": 10, "ambiguous": 10}


def _result(unsafe: int, accuracy: float, reviewed: int = 3) -> dict[str, Any]:
    overall = {
        "items": 3,
        "reviewed": reviewed,
        "unsafe": unsafe,
        "accuracy_escalations_wrong": accuracy,
    }
    return {"by_label": {"overall": overall}}


def test_the_gate_names_what_was_missed(bench: ModuleType) -> None:
    assert bench.gate(_result(0, 0.6), 0.5, 0) == []
    assert bench.gate(_result(1, 0.4), None, None) == []
    missed = bench.gate(_result(2, 0.4, reviewed=2), 0.5, 1)
    assert len(missed) == 3
    assert re.search(r"1 item\(s\) got no decision", missed[0])
    assert "under --min-accuracy 0.5" in missed[1] and "over --max-unsafe 1" in missed[2]


@pytest.mark.slow
def test_the_small_run_writes_its_figures_and_exits_1_below_the_bar(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("MODEL", "MODEL_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "figures.json"
    assert bench.main(["--small", "--json", str(out), "--min-accuracy", "1.01"]) == 1
    figures = json.loads(out.read_text(encoding="utf-8"))
    overall = figures["by_label"]["overall"]
    assert overall["items"] == overall["reviewed"] == 3
    assert overall["calls_per_item"] > 0 and overall["tokens_per_item"] > 0
    assert [d["item_id"] for d in figures["decisions"]] == ["VC-001", "VC-002", "VC-003"]
    assert all(d["outcome"] for d in figures["decisions"])
    assert bench.main(["--small", "--max-unsafe", "999"]) == 0
