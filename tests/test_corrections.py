"""Kind corrections in policies/index.yaml: matched, checked by `config check`, read by the
lookup tool and the resolver, recorded in the audit entry, and able to change a decision."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from pydantic import ValidationError

from claims_crew.claim_files import load_claim
from claims_crew.cli import main
from claims_crew.config_check import check_config, check_or_raise
from claims_crew.errors import ConfigError
from claims_crew.llms.scripted import final, lookup
from claims_crew.policy.corrections import (
    Correction,
    apply_corrections,
    corrections_sha256,
    matched_ids,
)
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.crew_review import review_claim
from claims_crew.tools.policy_lookup import PolicyLookupTool
from tests.support.corrections import (
    INTAKE_TRACK_DAY,
    POLICY_ID,
    not_covered,
    policy_folder,
    track_day_claim,
)
from tests.support.crew import Script, settings
from tests.support.paths import ROOT

MARK_EXCLUSION = [
    {"title": "Special Provisions", "kind": "exclusion", "why": "they are exceptions"}
]


def _fix(**fields: str) -> Correction:
    return Correction.model_validate(fields)


@pytest.mark.parametrize(
    ("correction", "reached"),
    [
        ({"clause": "7.1", "kind": "grant"}, ["7.1"]),
        ({"prefix": "4.2", "kind": "exclusion"}, ["4.2", "4.2(a)", "4.2(b)", "4.2(c)"]),
        ({"prefix": "1.1", "kind": "other"}, ["1.1"]),  # "1.10" does not continue "1.1"
        ({"title": "escape  OF water", "kind": "exclusion"}, ["4.2", "4.2(a)", "4.2(b)", "4.2(c)"]),
        ({"prefix": "Section I", "kind": "other"}, []),  # no such id in the home policy
        ({"clause": "4.2b", "kind": "exclusion"}, []),  # a printed label is not an id
    ],
)
def test_what_a_correction_reaches(
    home_policy: PolicyDocument, correction: dict[str, str], reached: list[str]
) -> None:
    assert matched_ids(home_policy.clauses, _fix(**correction)) == reached


def test_a_prefix_ending_in_a_separator_reaches_every_id_that_continues_it(
    home_policy: PolicyDocument,
) -> None:
    ids = matched_ids(home_policy.clauses, _fix(prefix="4.", kind="limit"))
    assert ids[:3] == ["4.1", "4.1(a)", "4.1(b)"] and "4" not in ids and "4.5(d)" in ids


def test_the_most_specific_correction_wins_and_says_why(home_policy: PolicyDocument) -> None:
    fixes = [
        _fix(clause="4.2(b)", kind="condition"),
        _fix(title="Escape of water", kind="exclusion", why="read it as a list of exceptions"),
        _fix(prefix="4", kind="limit"),
        _fix(prefix="4.2", kind="definition"),
        _fix(prefix="4.2", kind="other"),  # equal to the one before: the later one wins
    ]
    by_id = {c.id: c for c in apply_corrections(home_policy.clauses, fixes)}
    assert by_id["4.2(b)"].kind == "condition"
    assert by_id["4.2(b)"].kind_reason == "correction: clause 4.2(b)"
    assert by_id["4.2(a)"].kind == "other"  # prefix 4.2 beats the title and prefix 4
    assert by_id["4.2(a)"].kind_reason == "correction: prefix 4.2"
    assert by_id["4.1"].kind == "limit"
    assert by_id["7.1"] == home_policy.get("7.1")  # untouched
    alone = apply_corrections(home_policy.clauses, fixes[1:2])
    [escape] = [c for c in alone if c.id == "4.2(c)"]
    assert escape.kind == "exclusion"
    assert (
        escape.kind_reason
        == "correction: title 'Escape of water' (read it as a list of exceptions)"
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"kind": "exclusion"},
        {"clause": "4.2", "prefix": "4", "kind": "exclusion"},
        {"clause": "  ", "kind": "exclusion"},
        {"clause": "4.2", "kind": "exclusions"},
        {"clause": "4.2", "kind": "exclusion", "note": "typo for why"},
    ],
)
def test_a_malformed_correction_is_refused(fields: dict[str, str]) -> None:
    with pytest.raises(ValidationError):
        Correction.model_validate(fields)


def test_the_hash_names_the_corrections_and_none_has_none() -> None:
    one = corrections_sha256([_fix(clause="2.1", kind="exclusion")])
    assert one is not None and len(one) == 64
    assert one == corrections_sha256([_fix(clause="2.1", kind="exclusion")])
    assert one != corrections_sha256([_fix(clause="2.1", kind="limit")])
    assert corrections_sha256([]) is None


def test_the_library_applies_corrections_to_a_policy_opened_by_id(tmp_path: Path) -> None:
    folder = policy_folder(tmp_path, MARK_EXCLUSION)
    library = PolicyLibrary(root=folder, cache_dir=tmp_path / "cache")
    doc = library.open(POLICY_ID)
    clause = doc.get("2.1")
    assert clause is not None and clause.kind == "exclusion"
    assert clause.kind_reason == "correction: title 'Special Provisions' (they are exceptions)"
    assert doc.corrections_sha256 == corrections_sha256(
        [Correction.model_validate(c) for c in MARK_EXCLUSION]
    )
    # The tree as segmented, and a PDF opened by path, carry no corrections.
    raw = library.open(POLICY_ID, corrected=False).get("2.1")
    assert raw is not None and raw.kind == "other"
    by_path = library.open(str(folder / "tideway_motor.pdf"))
    assert by_path.corrections_sha256 is None and by_path.get("2.1") == raw
    # Search answers with the corrected clause too.
    assert [h.clause.kind for h in doc.search("track day", 1)] == ["exclusion"]


def test_the_lookup_tool_shows_the_corrected_kind(tmp_path: Path) -> None:
    library = PolicyLibrary(root=policy_folder(tmp_path, MARK_EXCLUSION), cache_dir=tmp_path / "c")
    tool = PolicyLookupTool(library)
    shown = tool._run(POLICY_ID, clause_id="2.1")
    assert "clause_id: 2.1" in shown and "kind: exclusion" in shown
    found = tool._run(POLICY_ID, query="track day")
    assert "clause_id: 2.1 | kind: exclusion" in found


def test_a_bad_kind_in_index_yaml_stops_the_library_with_the_key(tmp_path: Path) -> None:
    folder = policy_folder(tmp_path, [{"clause": "2.1", "kind": "exlusion"}])
    with pytest.raises(ConfigError, match=r"corrections.*kind"):
        PolicyLibrary(root=folder, cache_dir=tmp_path / "c")


def _index_problems(tmp_path: Path, corrections: list[dict[str, Any]]) -> list[dict[str, Any]]:
    folder = policy_folder(tmp_path, corrections)
    problems = check_config(ROOT / "config", folder)
    return [p.as_json() for p in problems if p.file.endswith("index.yaml")]


def test_config_check_names_a_correction_that_matches_nothing_with_near_ids(
    tmp_path: Path,
) -> None:
    found = _index_problems(
        tmp_path,
        [
            {"clause": "2.1", "kind": "exclusion"},
            {"clause": "21", "kind": "exclusion"},
            {"prefix": "3", "kind": "exclusion"},
            {"title": "Special Provision", "kind": "exclusion"},
        ],
    )
    assert [(p["code"], p["key"]) for p in found] == [
        ("correction_matches_nothing", f"policies.{POLICY_ID}.corrections[1].clause"),
        ("correction_matches_nothing", f"policies.{POLICY_ID}.corrections[2].prefix"),
        ("correction_matches_nothing", f"policies.{POLICY_ID}.corrections[3].title"),
    ]
    assert all(p["severity"] == "error" and p["line"] for p in found)
    assert "clause 21 matches no clause" in found[0]["message"]
    assert "2.1" in found[0]["hint"]
    assert "SPECIAL PROVISIONS" in found[2]["hint"]


def test_config_check_places_a_bad_kind_on_its_line(tmp_path: Path) -> None:
    [problem] = _index_problems(tmp_path, [{"clause": "2.1", "kind": "exclusions"}])
    assert problem["code"] == "bad_kind"
    assert problem["key"] == f"policies.{POLICY_ID}.corrections[0].kind"
    assert problem["hint"] == "did you mean 'exclusion'?"
    lines = (tmp_path / "policies" / "index.yaml").read_text(encoding="utf-8").splitlines()
    assert "exclusions" in lines[problem["line"] - 1]


def test_config_check_passes_good_corrections_and_the_cli_exits_on_bad_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _index_problems(tmp_path / "good", MARK_EXCLUSION) == []
    bad = policy_folder(tmp_path / "bad", [{"clause": "9.9", "kind": "exclusion"}])
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(bad))
    result = CliRunner().invoke(main, ["config", "check", "--json"])
    assert result.exit_code == 2, result.output
    payload = json.loads(result.output)
    assert payload["ok"] is False
    assert [p["code"] for p in payload["problems"]] == ["correction_matches_nothing"]
    # A run checks the same before any model call, and refuses to start.
    with pytest.raises(ConfigError, match=r"clause 9\.9 matches no clause"):
        check_or_raise(ROOT / "config")


def _decide(tmp_path: Path, corrections: list[dict[str, Any]] | None) -> tuple[Any, Any]:
    library = PolicyLibrary(root=policy_folder(tmp_path, corrections), cache_dir=tmp_path / "cache")
    script = Script(
        intake=[final(INTAKE_TRACK_DAY)],
        policy=[lookup(POLICY_ID, "2.1"), final(not_covered(0.9))],
        fraud=[lookup(POLICY_ID, "2.1"), final(not_covered(0.88))],
    )
    run = settings(library, script, tmp_path)
    loaded = load_claim(track_day_claim(tmp_path / "inbox"))
    record = review_claim(loaded, run)
    assert record.status == "reviewed", record.error
    run.store.record(record, None, loaded)
    [entry] = run.store.audit_entries("C-7001")
    assert run.store.verify_audit().ok
    return record, entry


@pytest.mark.slow
def test_marking_the_exclusion_in_index_yaml_turns_an_escalation_into_acceptance(
    tmp_path: Path,
) -> None:
    before, before_entry = _decide(tmp_path / "before", None)
    assert before.resolution is not None
    assert before.resolution.outcome == "ESCALATED"
    assert "kind_mismatch" in before.resolution.reason_codes
    assert {c.kind for s in before.resolution.sides.values() for c in s.clauses} == {"other"}
    assert before_entry.policy_corrections_sha256 is None

    after, after_entry = _decide(tmp_path / "after", MARK_EXCLUSION)
    assert after.resolution is not None
    assert (after.resolution.outcome, after.resolution.answer) == ("ACCEPTED", "not_covered")
    assert "kind_mismatch" not in after.resolution.reason_codes
    assert {c.kind for s in after.resolution.sides.values() for c in s.clauses} == {"exclusion"}
    # The same PDF, read with other kinds: the audit entry says which.
    assert after.policy_sha256 == before.policy_sha256
    expected = corrections_sha256([Correction.model_validate(c) for c in MARK_EXCLUSION])
    assert after.policy_corrections_sha256 == expected
    assert after_entry.policy_corrections_sha256 == expected
    assert after_entry.policy_sha256 == before_entry.policy_sha256


def test_the_shipped_index_validates_with_its_corrections() -> None:
    raw = yaml.safe_load((ROOT / "policies" / "index.yaml").read_text(encoding="utf-8"))
    for entry in raw["policies"].values():
        for correction in entry.get("corrections", []):
            Correction.model_validate(correction)
    assert [
        p for p in check_config(ROOT / "config", ROOT / "policies") if p.severity == "error"
    ] == []


def test_an_audit_entry_written_before_corrections_existed_still_verifies() -> None:
    from claims_crew.store import audit

    entry = audit.AuditEntry(
        seq=1,
        prev=audit.GENESIS,
        kind="auto",
        claim_id="C-1",
        claim_sha256="a" * 64,
        policy_sha256="b" * 64,
        config_sha256="c" * 64,
        models={},
        outcome="ACCEPTED",
        answer="covered",
        rule="agree",
        reason_codes=[],
        evidence=["4.2(b)"],
        actor="auto",
        reason=None,
        overrides=None,
        overrides_hash=None,
        at="2025-11-05T09:00:00.000000Z",
    )
    old = entry.model_dump(mode="json")
    del old["policy_corrections_sha256"]  # as an entry of an earlier version was hashed
    digest = audit.entry_hash(old)
    header = {
        "audit_export": {
            "version": 1,
            "entries": 1,
            "first_seq": 1,
            "last_seq": 1,
            "last_hash": digest,
            "since": None,
            "exported_at": old["at"],
        }
    }
    lines = [audit.canonical(header), audit.canonical({"entry": old, "hash": digest})]
    assert audit.verify_export(lines, None).ok  # from before entries were signed, too
    assert audit.AuditEntry.model_validate(old).policy_corrections_sha256 is None
