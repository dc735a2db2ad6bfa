"""Benchmark: how often the clause kinds and the word search agree with a person's labels.

The gold set is `bench/policy_gold/*.yaml`, one file per real PDF in `../shared/policies/`:
clauses labelled with a kind by a person reading the clause's words, and searches with the
clause that should come first. Each label names the clause by the id it had when labelled and
by an anchor, the first words of its title or text. A label is matched to the clause with that
id when the clause starts with the anchor (spacing, case and quote marks ignored), else to the
clause on the same page that starts with the anchor; ids change when the splitter improves, the
words do not. A label that matches no clause counts as wrong and is printed.

It prints kind accuracy per policy and overall, a confusion table (gold kind by row, our kind by
column), the labels we get wrong with our reason, and the search hit rate at 1 and at 3
(`PolicyDocument.search`, the lookup tool's search). It only prints; tests/test_policy_kinds.py
holds the figures.

Run it from the project root:

    uv run python bench/policy_kinds.py
    uv run python bench/policy_kinds.py --only iso     # only gold files whose name contains it
    uv run python bench/policy_kinds.py --wrong        # list every wrong label
    uv run python bench/policy_kinds.py --small        # the smallest PDF's gold file only
"""

from __future__ import annotations

import argparse
import re
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.library import open_pdf
from claims_crew.policy.segment import CLAUSE_KINDS, Clause

ROOT = Path(__file__).resolve().parent.parent
GOLD_DIR = ROOT / "bench" / "policy_gold"
SHARED_POLICIES = ROOT.parent / "shared" / "policies"


@dataclass(frozen=True, slots=True)
class Label:
    """One labelled clause of the gold set."""

    id: str
    page: int
    starts: str
    kind: str


@dataclass(frozen=True, slots=True)
class Search:
    """One gold search: the words, and the clause that should come first."""

    query: str
    expect: str
    starts: str


@dataclass(frozen=True, slots=True)
class Gold:
    """One gold file: the PDF it labels, its clause labels and its searches."""

    name: str  # the gold file's stem
    file: str
    labels: tuple[Label, ...]
    searches: tuple[Search, ...]


@dataclass(slots=True)
class PolicyScore:
    """What one policy scored."""

    name: str
    right: int = 0
    labels: int = 0
    hit1: int = 0
    hit3: int = 0
    searches: int = 0
    confusion: Counter[tuple[str, str]] = field(default_factory=Counter)
    wrong: list[tuple[Label, Clause | None]] = field(default_factory=list)
    missed: list[tuple[Search, list[str]]] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return self.right / self.labels if self.labels else 1.0


def load_gold(gold_dir: Path = GOLD_DIR, only: str = "") -> list[Gold]:
    """Every gold file, in name order."""
    golds = []
    for path in sorted(gold_dir.glob("*.yaml")):
        if only and only not in path.name:
            continue
        raw: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        labels = tuple(
            Label(str(c["id"]), int(c["page"]), str(c["starts"]), str(c["kind"]))
            for c in raw.get("clauses") or []
        )
        searches = tuple(
            Search(str(s["query"]), str(s["expect"]), str(s.get("starts", "")))
            for s in raw.get("searches") or []
        )
        golds.append(Gold(path.stem, str(raw["file"]), labels, searches))
    return golds


def _norm(text: str) -> str:
    text = re.sub(r"[“”″]", '"', re.sub(r"[‘’′]", "'", text)).replace("__", " ")
    return " ".join(text.lower().split())


def _opening(clause: Clause) -> str:
    """The clause's title or text as the anchor reads it: the label dropped, spacing folded."""
    text = _norm(clause.text)
    label = _norm(clause.label)
    if label and text.startswith(label):
        text = text[len(label) :].lstrip()
    return text


def starts_with(clause: Clause, anchor: str) -> bool:
    want = _norm(anchor)
    return bool(want) and (_opening(clause).startswith(want) or _norm(clause.text).startswith(want))


def match(doc: PolicyDocument, clause_id: str, page: int | None, anchor: str) -> Clause | None:
    """The clause a label means: by id if it starts with the anchor, else by anchor on its page."""
    by_id = doc.get(clause_id)
    if by_id is not None and (not anchor or starts_with(by_id, anchor)):
        return by_id
    if not anchor:
        return None
    on_page = [
        c for c in doc.clauses if (page is None or page in c.pages) and starts_with(c, anchor)
    ]
    return on_page[0] if on_page else None


def score(gold: Gold, doc: PolicyDocument) -> PolicyScore:
    """Kind accuracy and search hits of one policy against its gold file."""
    result = PolicyScore(gold.name)
    for label in gold.labels:
        found = match(doc, label.id, label.page, label.starts)
        got = found.kind if found is not None else "unmatched"
        result.labels += 1
        result.confusion[(label.kind, got)] += 1
        if got == label.kind:
            result.right += 1
        else:
            result.wrong.append((label, found))
    for search in gold.searches:
        want = match(doc, search.expect, None, search.starts)
        hits = [h.clause.id for h in doc.search(search.query, limit=3)]
        result.searches += 1
        if want is not None and hits[:1] == [want.id]:
            result.hit1 += 1
        if want is not None and want.id in hits:
            result.hit3 += 1
        else:
            result.missed.append((search, hits))
    return result


def measure(golds: Sequence[Gold], cache_dir: Path) -> list[PolicyScore]:
    """Score every gold file whose PDF is present; the others are left out."""
    scores = []
    for gold in golds:
        pdf = SHARED_POLICIES / gold.file
        if pdf.exists():
            scores.append(score(gold, open_pdf(pdf, cache_dir)))
    return scores


def overall(scores: Sequence[PolicyScore]) -> PolicyScore:
    total = PolicyScore("overall")
    for s in scores:
        total.right += s.right
        total.labels += s.labels
        total.hit1 += s.hit1
        total.hit3 += s.hit3
        total.searches += s.searches
        total.confusion.update(s.confusion)
    return total


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:5.1f}% ({n}/{d})" if d else "    -"


def report(scores: Sequence[PolicyScore], show_wrong: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=200)
    table = Table(title="Clause kinds and search against the gold labels")
    for column in ("policy", "kind accuracy", "search hit@1", "search hit@3"):
        table.add_column(column)
    total = overall(scores)
    for s in [*scores, total]:
        table.add_row(
            s.name,
            _pct(s.right, s.labels),
            _pct(s.hit1, s.searches),
            _pct(s.hit3, s.searches),
            style="bold" if s is total else None,
        )
    console.print(table)

    kinds = [*CLAUSE_KINDS, "unmatched"]
    confusion = Table(title="Confusion: gold kind (rows) by our kind (columns)")
    confusion.add_column("gold \\ ours")
    for kind in kinds:
        confusion.add_column(kind, justify="right")
    for gold_kind in CLAUSE_KINDS:
        row = [total.confusion[(gold_kind, ours)] for ours in kinds]
        confusion.add_row(gold_kind, *(str(n) if n else "." for n in row))
    console.print(confusion)

    for s in scores:
        unmatched = [label for label, found in s.wrong if found is None]
        for label in unmatched:
            console.print(
                f"[yellow]unmatched[/] {s.name}: {label.id!r} p{label.page} {label.starts!r}",
                markup=True,
                highlight=False,
            )
        if show_wrong:
            for label, found in s.wrong:
                if found is not None:
                    console.print(
                        f"{s.name}: {found.id} p{label.page} gold {label.kind}, ours {found.kind}"
                        f" ({found.kind_reason}): {label.starts!r}",
                        markup=False,
                        highlight=False,
                    )
        for search, hits in s.missed:
            console.print(
                f"{s.name}: search {search.query!r} wants {search.expect!r}, top 3 {hits}",
                markup=False,
                highlight=False,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="only gold files whose name contains this")
    parser.add_argument("--wrong", action="store_true", help="list every wrong label")
    parser.add_argument(
        "--small", action="store_true", help="only the gold file of the smallest PDF (CI's run)"
    )
    args = parser.parse_args()
    golds = load_gold(only=args.only)
    if not SHARED_POLICIES.exists():
        print(f"{SHARED_POLICIES} is absent: nothing to measure")
        return
    present = [g.file for g in golds if (SHARED_POLICIES / g.file).exists()]
    if args.small and present:
        smallest = min(present, key=lambda name: (SHARED_POLICIES / name).stat().st_size)
        golds, present = [g for g in golds if g.file == smallest], [smallest]
    print(f"gold files: {len(golds)}; with their PDF present: {', '.join(present) or 'none'}")
    with tempfile.TemporaryDirectory() as cache:
        report(measure(golds, Path(cache)), args.wrong)


if __name__ == "__main__":
    main()
