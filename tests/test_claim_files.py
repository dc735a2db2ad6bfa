"""A claim file that cannot be reviewed is refused with a code and a message naming it, before it
can hang a run, exhaust its stack or memory, or make it read a file outside the inbox."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from claims_crew.claim_files import (
    MAX_ATTACHMENT_BYTES,
    MAX_ATTACHMENTS_BYTES,
    MAX_CLAIM_BYTES,
    MAX_NESTING,
    LoadedClaim,
    load_claim,
    load_claims,
)
from claims_crew.documents.limits import MAX_TEXT_BYTES
from claims_crew.errors import ClaimFileError
from claims_crew.vocabulary import CLAIM_FILE_PROBLEMS
from tests.support.paths import ROOT

WATER = json.loads((ROOT / "claims" / "inbox" / "C-1042.json").read_text(encoding="utf-8"))


def _claim(folder: Path, name: str, **fields: object) -> Path:
    path = folder / name
    path.write_text(json.dumps({**WATER, **fields}), encoding="utf-8")
    return path


def _deep_json(inbox: Path) -> Path:
    """2 KB of JSON nested 1,000 deep: json.loads itself runs out of stack."""
    path = inbox / "C-1.json"
    path.write_text("[" * 1000 + "]" * 1000)
    return path


def _json_past_the_cap(inbox: Path) -> Path:
    """Parses, but nests deeper than the cap: refused before anything walks it."""
    nested: object = "x"
    for _ in range(MAX_NESTING):
        nested = [nested]
    return _claim(inbox, "C-1.json", attachments=nested)


def _deep_flow_yaml(inbox: Path) -> Path:
    path = inbox / "C-1.yaml"
    path.write_text("[" * 500 + "]" * 500)
    return path


def _deep_block_yaml(inbox: Path) -> Path:
    """Nested by indentation, the way a YAML file usually nests: 400 levels in 160 KB."""
    path = inbox / "C-1.yaml"
    path.write_text("".join("  " * depth + "a:\n" for depth in range(400)) + "  " * 400 + "b\n")
    return path


def _oversized(inbox: Path) -> Path:
    return _claim(inbox, "C-1.json", description="x" * MAX_CLAIM_BYTES)


def _fifo(inbox: Path) -> Path:
    path = inbox / "C-1.json"
    os.mkfifo(path)
    return path


def _folder(inbox: Path) -> Path:
    path = inbox / "C-1.json"
    path.mkdir()
    return path


def _link_outside(inbox: Path) -> Path:
    outside = inbox.parent / "elsewhere"
    outside.mkdir()
    secret = _claim(outside, "C-9.json", claim_id="C-9")
    path = inbox / "C-1.json"
    path.symlink_to(secret)
    return path


def _link_loop(inbox: Path) -> Path:
    path = inbox / "C-1.json"
    path.symlink_to(path.name)
    return path


def _attachment_link_loop(inbox: Path) -> Path:
    (inbox / "notes.txt").symlink_to("notes.txt")
    return _claim(inbox, "C-1.json", attachments=["notes.txt"])


def _attachment_named_outside(inbox: Path) -> Path:
    return _claim(inbox, "C-1.json", attachments=["../../etc/passwd"])


def _attachment_linked_outside(inbox: Path) -> Path:
    (inbox.parent / "secret.txt").write_text("not for the model")
    (inbox / "notes.txt").symlink_to(inbox.parent / "secret.txt")
    return _claim(inbox, "C-1.json", attachments=["notes.txt"])


def _attachment_too_large(inbox: Path) -> Path:
    (inbox / "notes.txt").write_text("x" * (MAX_ATTACHMENT_BYTES + 1))
    return _claim(inbox, "C-1.json", attachments=["notes.txt"])


def _text_attachment_too_large(inbox: Path) -> Path:
    (inbox / "notes.txt").write_text("x" * (MAX_TEXT_BYTES + 1))
    return _claim(inbox, "C-1.json", attachments=["notes.txt"])


def _attachments_too_large_together(inbox: Path) -> Path:
    names = [f"notes-{i}.txt" for i in range(MAX_ATTACHMENTS_BYTES // MAX_ATTACHMENT_BYTES + 1)]
    for name in names:
        (inbox / name).write_text("x" * MAX_ATTACHMENT_BYTES)
    return _claim(inbox, "C-1.json", attachments=names)


def _attachment_fifo(inbox: Path) -> Path:
    os.mkfifo(inbox / "notes.txt")
    return _claim(inbox, "C-1.json", attachments=["notes.txt"])


def _attachment_not_text(inbox: Path) -> Path:
    (inbox / "notes.txt").write_bytes(b"\xff\xfe\x00garbage")
    return _claim(inbox, "C-1.json", attachments=["notes.txt"])


def _not_yaml(inbox: Path) -> Path:
    path = inbox / "C-1.yaml"
    path.write_text('claim_id: "[/x] unterminated\n')
    return path


def _json_key_twice(inbox: Path) -> Path:
    """The claim id given twice: json.loads alone would read the last one, U-24b."""
    path = inbox / "U-24.json"
    body = json.dumps({**WATER, "claim_id": "U-24"})
    path.write_text(body[:-1] + ', "claim_id": "U-24b"}')
    return path


def _yaml_key_twice(inbox: Path) -> Path:
    path = inbox / "U-24.yaml"
    fields = yaml.safe_dump({**WATER, "claim_id": "U-24"}, sort_keys=False)
    path.write_text(fields + "claim_id: U-24b\n")
    return path


def _missing_fields(inbox: Path) -> Path:
    path = inbox / "C-1.json"
    path.write_text(json.dumps({"claim_id": "C-1"}))
    return path


@pytest.mark.parametrize(
    ("make", "code", "says"),
    [
        (_deep_json, "too_deep", f"more than {MAX_NESTING} levels"),
        (_json_past_the_cap, "too_deep", f"more than {MAX_NESTING} levels"),
        (_deep_flow_yaml, "too_deep", f"more than {MAX_NESTING} levels"),
        (_deep_block_yaml, "too_deep", f"more than {MAX_NESTING} levels"),
        (_oversized, "too_large", f"the cap is {MAX_CLAIM_BYTES:,} bytes"),
        (_fifo, "not_a_file", "is a FIFO; it is not opened"),
        (_folder, "not_a_file", "not a regular file"),
        (_link_outside, "outside_inbox", "elsewhere"),
        (_link_loop, "unreadable", "claim file cannot be read"),
        (_attachment_named_outside, "outside_inbox", "outside the claim's folder"),
        (_attachment_linked_outside, "outside_inbox", "'notes.txt' links to"),
        (_attachment_link_loop, "unreadable", "'notes.txt' cannot be read"),
        (_attachment_too_large, "too_large", f"the cap is {MAX_ATTACHMENT_BYTES:,} bytes"),
        (_text_attachment_too_large, "too_large", f"the cap is {MAX_TEXT_BYTES:,} bytes"),
        (_attachments_too_large_together, "too_large", "attachments are over"),
        (_attachment_fifo, "not_a_file", "'notes.txt' is a FIFO"),
        (_attachment_not_text, "unsupported_type", "notes.txt: not UTF-8 text, an e-mail, a PDF"),
        (_not_yaml, "malformed", "not valid YAML"),
        (_json_key_twice, "malformed", "the key 'claim_id' is given more than once"),
        (_yaml_key_twice, "malformed", "the key 'claim_id' is given more than once in one"),
        (_missing_fields, "invalid", "claimant: Field required"),
    ],
)
def test_a_claim_file_that_cannot_be_reviewed_is_refused_with_its_reason(
    tmp_path: Path, make: Callable[[Path], Path], code: str, says: str
) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    path = make(inbox)
    outcome: list[object] = []
    # On a FIFO, an open() for reading would wait for a writer forever: a thread keeps the test
    # from hanging, and a writer frees the thread if the FIFO was opened after all.
    reader = threading.Thread(target=lambda: outcome.append(_load(path)), daemon=True)
    reader.start()
    reader.join(timeout=30)
    if reader.is_alive():
        _free_a_blocked_reader(inbox)
        pytest.fail(f"{path.name}: reading it blocked")
    [result] = outcome
    assert isinstance(result, ClaimFileError), result
    assert result.code == code
    assert str(path) in str(result)  # the message names the file
    assert says in str(result)


def test_every_problem_code_has_a_row() -> None:
    rows = {
        "too_deep",
        "too_large",
        "not_a_file",
        "outside_inbox",
        "unreadable",
        "malformed",
        "invalid",
        "duplicate_id",  # test_files_sharing_a_claim_id_are_refused_together
        "unsupported_type",
        "encrypted",  # tests/test_attachments.py, with real PDFs and images
        "ocr_failed",
    }
    assert rows == set(CLAIM_FILE_PROBLEMS)


def _load(path: Path) -> object:
    try:
        return load_claim(path)
    except ClaimFileError as exc:
        return exc
    except BaseException as exc:  # what escaped load_claim is what the batch would die of
        return exc


def _free_a_blocked_reader(inbox: Path) -> None:
    for fifo in inbox.iterdir():
        if fifo.is_fifo():
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def test_a_key_given_twice_in_yaml_is_named_with_its_line(tmp_path: Path) -> None:
    path = _yaml_key_twice(tmp_path)
    last = len(path.read_text().splitlines())
    with pytest.raises(ClaimFileError, match=rf"'claim_id' .* \(line {last}\)") as refused:
        load_claim(path)
    assert refused.value.code == "malformed"
    # Merge keys still override, as YAML means them to.
    path.write_text(path.read_text().replace("claim_id: U-24b\n", "") + "base: &b {x: 1}\n")
    path.write_text(path.read_text() + "other: {<<: *b, x: 2}\n")
    with pytest.raises(ClaimFileError) as extra:
        load_claim(path)
    assert extra.value.code == "invalid"  # unknown fields, not a duplicate key


def test_links_and_attachments_inside_the_inbox_are_read(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    (inbox / "archive").mkdir(parents=True)
    (inbox / "archive" / "notes.txt").write_text("plumber's report")
    real = _claim(inbox / "archive", "C-1042.json")
    link = inbox / "C-1042.json"
    link.symlink_to(real)
    assert load_claim(link).claim.claim_id == "C-1042"
    with_notes = _claim(inbox, "C-1043.json", claim_id="C-1043", attachments=["archive/notes.txt"])
    assert load_claim(with_notes).attachments == {"archive/notes.txt": "plumber's report"}


def test_a_claim_file_at_the_cap_is_read(tmp_path: Path) -> None:
    path = _claim(tmp_path, "C-1.json", description="x")
    padding = MAX_CLAIM_BYTES - path.stat().st_size
    path.write_text(json.dumps({**WATER, "description": "x" * (1 + padding)}))
    assert path.stat().st_size == MAX_CLAIM_BYTES
    assert len(load_claim(path).claim.description) == 1 + padding


def test_files_sharing_a_claim_id_are_refused_together(tmp_path: Path) -> None:
    first = _claim(tmp_path, "C-1042.json")
    second = _claim(tmp_path, "C-1042-corrected.json", amount=4300)
    other = _claim(tmp_path, "C-1043.json", claim_id="C-1043")
    bad = tmp_path / "C-1044.json"
    bad.write_text("{")
    found = load_claims([first, second, other, bad])
    loaded = found[other]
    assert isinstance(loaded, LoadedClaim) and loaded.claim.claim_id == "C-1043"
    assert isinstance(found[bad], ClaimFileError) and found[bad].code == "malformed"
    for path, twin in ((first, second), (second, first)):
        refused = found[path]
        assert isinstance(refused, ClaimFileError) and refused.code == "duplicate_id"
        assert str(path) in str(refused) and twin.name in str(refused)
        assert "claim id C-1042" in str(refused)
