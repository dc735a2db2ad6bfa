"""Benchmark: how much of what a claims handler needs reaches the text of record, on real files.

../shared/corpus/ holds 23 public test files that nobody here wrote: e-mails and Outlook
messages, filled PDF forms (XFA and AcroForm), Word and Excel files and images, from the test
corpora of Apache Tika, Apache POI and Apache PDFBox (Apache-2.0) and MimeKit (MIT); its README
names each file's source, commit and licence. tests/data/corpus/expected.yaml lists, per file,
the items a handler must read (a subject, a sender, a form value, a table cell, text in an
image), written down by hand from the files before any reader here was run on them.

Each file is read through the one reader entry, documents/read.py's read_document, with a claim's
budget, as intake reads an attachment. Its text of record is every record it returns: the
record's name (a carried file is named under its message), its pages' text and its "Not read:"
lines. An item is read when its words, or one of its alternatives, appear in that text, case
aside and whitespace collapsed. A file refused whole reads none of its items.

It prints, per kind, items read / expected and the share; the total; per file the items missed;
and each file refused whole with its code. tests/test_corpus.py holds today's misses as a
ratchet.

Run it from the project root:

    uv run python bench/corpus.py           # every file (the images go through OCR)
    uv run python bench/corpus.py --small   # the mail, forms and Office files, no OCR: CI's
                                            # check, exit 1 if under half their items are read
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, RootModel

from claims_crew.documents.limits import AttachmentError, ClaimBudget
from claims_crew.documents.read import read_document
from claims_crew.settings.yaml_files import plain_data

ROOT = Path(__file__).resolve().parent.parent
# The files are not in this repository: they are read where the workspace keeps them.
CORPUS = ROOT.parent / "shared" / "corpus"
EXPECTED = ROOT / "tests" / "data" / "corpus" / "expected.yaml"
Kind = Literal["mail", "forms", "office", "images"]
KINDS: tuple[Kind, ...] = ("mail", "forms", "office", "images")
# --small: under this share of the items read is a broken reader, not a gap.
SMALL_FLOOR = 0.5


class Item(BaseModel):
    """One fact a handler needs from a file: its words, or their alternatives."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str = Field(min_length=1)
    words: str | list[str]

    def alternatives(self) -> list[str]:
        return [self.words] if isinstance(self.words, str) else list(self.words)


class Expected(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Kind
    items: list[Item] = Field(min_length=1)


class Corpus(RootModel[dict[str, Expected]]):
    pass


class Reading(NamedTuple):
    """A file's text of record, or the code it was refused whole with (text then empty)."""

    text: str
    refused: str | None = None


def expected() -> dict[str, Expected]:
    """expected.yaml, by file (relative to the corpus folder), validated."""
    text = EXPECTED.read_text(encoding="utf-8")
    return Corpus.model_validate(plain_data(text)).root


def read(name: str) -> Reading:
    """The text of record of the corpus file `name`, as intake would keep it."""
    path = CORPUS / name
    try:
        files = read_document(path.name, path.read_bytes(), ClaimBudget())
    except AttachmentError as exc:
        return Reading("", exc.code)
    parts: list[str] = []
    for file in files:
        record = file.record
        parts.append(record.name)
        parts.extend(page.text for page in record.pages)
        parts.extend(part.line() for part in record.unread)
    return Reading("\n".join(parts))


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def is_read(item: Item, text: str) -> bool:
    """Whether any of the item's alternatives is in the text, case and spacing aside."""
    plain = _plain(text)
    return any(_plain(words) in plain for words in item.alternatives())


def missed(items: list[Item], reading: Reading) -> list[str]:
    """The labels of the items the reading does not hold."""
    return [item.label for item in items if not is_read(item, reading.text)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="no images (no OCR); CI's check")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        # Nothing to measure, which is no failure of the readers (bench/small.sh runs every bench).
        print(f"{CORPUS} is absent: the real corpus files live in ../shared/corpus/; nothing read")
        return 0
    kinds = KINDS[:3] if args.small else KINDS
    corpus = {name: e for name, e in expected().items() if e.kind in kinds}
    read_by: Counter[str] = Counter()
    total_by: Counter[str] = Counter()
    misses: dict[str, list[str]] = {}
    refused: dict[str, str] = {}
    for name, entry in corpus.items():
        reading = read(name)
        lost = missed(entry.items, reading)
        total_by[entry.kind] += len(entry.items)
        read_by[entry.kind] += len(entry.items) - len(lost)
        if reading.refused:
            refused[name] = reading.refused
        if lost:
            misses[name] = lost
    print("Real public files (Apache Tika, Apache POI, Apache PDFBox, MimeKit test corpora):")
    for kind in kinds:
        print(f"  {kind:7} {_share(read_by[kind], total_by[kind])}")
    done, total = sum(read_by.values()), sum(total_by.values())
    print(f"  {'total':7} {_share(done, total)}")
    print("Missed, by file:")
    for name, labels in misses.items():
        print(f"  {name} ({len(labels)}): {'; '.join(labels)}")
    print(f"Refused whole: {len(refused)} of {len(corpus)} files")
    for name, code in refused.items():
        print(f"  {name}: {code}")
    if args.small and done < SMALL_FLOOR * total:
        print(f"under {SMALL_FLOOR:.0%} of the items read: the readers are broken", file=sys.stderr)
        return 1
    return 0


def _share(done: int, total: int) -> str:
    return f"{done:3} / {total:3} ({done / total:.0%})" if total else "  0 /   0"


if __name__ == "__main__":
    sys.exit(main())
