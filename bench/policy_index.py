"""Benchmark: what indexing a policy PDF costs on top of pypdf's bare text extraction.

For every PDF in `policies/*.pdf` and in `../shared/policies/*.pdf` (the shared folder is
skipped with a note when absent; its `negative/` subfolder is never read) it measures, in one
run and back to back per file so that a noisy shared machine hits both sides alike:

- bare extraction: `PdfReader(path)` and `extract_text()` of every page, in this process;
- the cold index: `open_pdf(path, cache_dir)` into a fresh, empty cache folder (extraction in a
  child process, segmentation, SQLite index written and read back), and its pieces timed
  separately: `extract_pages` (child-process extraction), `segment` (pure) and `write_index`;
- per page: cold index ms/page and bare extraction ms/page;
- ratios: segmentation-only = (segment + write_index) / bare extraction (goal <= 0.25), and
  cold / bare (which also carries the child-process overhead; no goal);
- warm load: `open_pdf` again on the filled cache, median of 5 (goal < 20 ms);
- lookup: `doc.lookup(id)` for every clause id plus a loose spelling of a few (spaces and
  "clause " added), median and p95 in microseconds (goal < 1 ms, judged on the p95);
- search: `doc.search(words, 5)` over about 20 queries made of words from the document's own
  clause titles, median and p95 (reported only).

Every `extract_pages` call runs a reader child: a fresh interpreter that imports pypdf, or from
a process's second open on a fork of a server that imported it once. Before anything else three
calls on the smallest PDF are printed on their own: the second started its child cold, the third
was forked (where the server, started by the second, was ready by then). Files under 10 pages
are measured 3 times and the median kept. The benchmark only prints: a missed goal shows as
MISS in the summary, never as a failure or a non-zero exit status.

Run it from the project root:

    uv run python bench/policy_index.py
    uv run python bench/policy_index.py --only barclays   # only files whose name contains it
    uv run python bench/policy_index.py --small    # the sample policies: CI's check that it runs
"""

from __future__ import annotations

import argparse
import gc
import logging
import re
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

# rich is imported inside the functions that print.
from claims_crew.errors import PolicyError
from claims_crew.policy.cache import write_index
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.library import extract_pages, open_pdf, sha256_of
from claims_crew.policy.segment import Clause, segment

if TYPE_CHECKING:
    from rich.console import Console

ROOT = Path(__file__).resolve().parent.parent
LOCAL_POLICIES = ROOT / "policies"
SHARED_POLICIES = ROOT.parent / "shared" / "policies"

SMALL_FILE_PAGES = 10  # files with fewer pages are measured SMALL_FILE_REPEATS times
SMALL_FILE_REPEATS = 3
WARM_REPEATS = 5
LOOSE_LOOKUPS = 8
SEARCH_QUERIES = 20

GOAL_SEGMENT_RATIO = 0.25
GOAL_WARM_S = 0.020
GOAL_LOOKUP_S = 0.001

_STOPWORD_TEXT = (
    "the and for with that this from your you our are not any all was were has have its which "
    "will shall such other than into upon when where what who whom been being"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())

T = TypeVar("T")


@dataclass
class FileResult:
    """Everything measured for one PDF; times in seconds."""

    label: str
    path: Path
    pages: int = 0
    clauses: int = 0
    repeats: int = 0
    bare: float = 0.0
    cold: float = 0.0
    extract: float = 0.0
    segment: float = 0.0
    write: float = 0.0
    warm: float = 0.0
    lookup_median: float = 0.0
    lookup_p95: float = 0.0
    lookup_count: int = 0
    loose_median: float = 0.0
    loose_max: float = 0.0
    loose_resolved: int = 0
    loose_count: int = 0
    search_median: float = 0.0
    search_p95: float = 0.0
    search_hits: float = 0.0
    search_count: int = 0
    error: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def segment_ratio(self) -> float:
        return (self.segment + self.write) / self.bare

    @property
    def cold_ratio(self) -> float:
        return self.cold / self.bare

    @property
    def lookup_worst(self) -> float:
        return max(self.lookup_p95, self.loose_max)


# --- measuring -----------------------------------------------------------------------------


def timed(action: Callable[..., T], *args: Any) -> tuple[float, T]:
    """Seconds one call of `action(*args)` took, and its value; garbage collected beforehand."""
    gc.collect()
    start = time.perf_counter()
    value = action(*args)
    return time.perf_counter() - start, value


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    rank = max(1, round(q / 100 * len(ordered) + 0.5))
    return ordered[min(rank, len(ordered)) - 1]


def bare_extract(path: Path) -> list[str]:
    """pypdf alone, in this process: the baseline every ratio is measured against."""
    from pypdf import PdfReader

    reader = PdfReader(path)
    return [page.extract_text() for page in reader.pages]


def loose_form(clause_id: str) -> str:
    """The id as a person might write it: "clause 3. 1 (a)" for "3.1(a)"."""
    spaced = re.sub(r"\.(?=\w)", ". ", clause_id).replace("(", " (")
    return f"clause {spaced}"


def title_words(clauses: Sequence[Clause]) -> list[str]:
    """Distinct words of four or more letters from clause titles, in document order."""
    words: dict[str, None] = {}
    for clause in clauses:
        for word in re.findall(r"[A-Za-z]{4,}", clause.title):
            if (lowered := word.lower()) not in _STOPWORDS:
                words.setdefault(lowered)
    return list(words)


def search_queries(clauses: Sequence[Clause], count: int) -> list[str]:
    """About `count` queries of one or two title words, spread over the whole document."""
    words = title_words(clauses)
    if not words:
        return []
    step = max(1, len(words) // count)
    picked = words[::step][:count]
    half = len(words) // 2
    return [
        word if i % 2 == 0 else f"{word} {words[(words.index(word) + half) % len(words)]}"
        for i, word in enumerate(picked)
    ]


def measure_file(label: str, path: Path, workdir: Path) -> FileResult:
    """Bare and our cold index back to back, then warm load, lookup and search on the index."""
    result = FileResult(label, path)
    data = path.read_bytes()
    digest = sha256_of(data)
    bare_s: list[float] = []
    cold_s: list[float] = []
    extract_s: list[float] = []
    segment_s: list[float] = []
    write_s: list[float] = []
    doc: PolicyDocument | None = None
    cache_dir = workdir
    repeat = 0
    repeats = 1
    while repeat < repeats:
        seconds, texts = timed(bare_extract, path)
        bare_s.append(seconds)
        cache_dir = workdir / f"cold-{repeat}"
        seconds, doc = timed(open_pdf, path, cache_dir)
        cold_s.append(seconds)
        seconds, pages = timed(extract_pages, path, data)
        extract_s.append(seconds)
        seconds, clauses = timed(segment, pages)
        segment_s.append(seconds)
        pieces_dir = workdir / f"pieces-{repeat}"
        seconds, _ = timed(write_index, pieces_dir, digest, path.name, len(pages), clauses)
        write_s.append(seconds)
        if repeat == 0:
            repeats = SMALL_FILE_REPEATS if len(pages) < SMALL_FILE_PAGES else 1
            if len(texts) != len(pages):
                result.notes.append(f"bare saw {len(texts)} pages, ours {len(pages)}")
        repeat += 1
    assert doc is not None
    result.repeats = repeats
    result.pages = doc.page_count
    result.clauses = len(doc.clauses)
    result.bare = statistics.median(bare_s)
    result.cold = statistics.median(cold_s)
    result.extract = statistics.median(extract_s)
    result.segment = statistics.median(segment_s)
    result.write = statistics.median(write_s)

    warm_s = [timed(open_pdf, path, cache_dir)[0] for _ in range(WARM_REPEATS)]
    result.warm = statistics.median(warm_s)
    warm_doc = open_pdf(path, cache_dir)

    lookups: list[float] = []
    for clause in warm_doc.clauses:
        start = time.perf_counter()
        warm_doc.lookup(clause.id)
        lookups.append(time.perf_counter() - start)
    result.lookup_count = len(lookups)
    result.lookup_median = statistics.median(lookups)
    result.lookup_p95 = percentile(lookups, 95)

    plain = [c for c in warm_doc.clauses if "~" not in c.id and c.id != "preamble"]
    step = max(1, len(plain) // LOOSE_LOOKUPS)
    loose: list[float] = []
    for clause in plain[::step][:LOOSE_LOOKUPS]:
        reference = loose_form(clause.id)
        start = time.perf_counter()
        found = warm_doc.lookup(reference)
        loose.append(time.perf_counter() - start)
        if isinstance(found, Clause) and found.id == clause.id:
            result.loose_resolved += 1
        else:
            other = found.id if isinstance(found, Clause) else "a miss"
            result.notes.append(f"loose {reference!r} gave {other}, not {clause.id!r}")
    if loose:
        result.loose_count = len(loose)
        result.loose_median = statistics.median(loose)
        result.loose_max = max(loose)

    queries = search_queries(warm_doc.clauses, SEARCH_QUERIES)
    if queries:
        warm_doc.search(queries[0], 5)  # first query pays for SQLite page cache and FTS setup
        searches: list[float] = []
        hits = 0
        for query in queries:
            seconds, found_hits = timed(warm_doc.search, query, 5)
            searches.append(seconds)
            hits += len(found_hits)
        result.search_count = len(searches)
        result.search_median = statistics.median(searches)
        result.search_p95 = percentile(searches, 95)
        result.search_hits = hits / len(searches)
    return result


# --- printing ------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    value = seconds * 1000
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"


def us(seconds: float) -> str:
    value = seconds * 1e6
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def verdict(ok: bool) -> str:
    return "[bold green]PASS[/]" if ok else "[bold red]MISS[/]"


def discover(console: Console) -> list[tuple[str, Path]]:
    """(source label, path) of every PDF to measure, local first, each folder sorted by name."""
    found: list[tuple[str, Path]] = [("local", p) for p in sorted(LOCAL_POLICIES.glob("*.pdf"))]
    if SHARED_POLICIES.is_dir():
        found += [("shared", p) for p in sorted(SHARED_POLICIES.glob("*.pdf")) if p.is_file()]
    else:
        console.print(f"[yellow]note:[/] {SHARED_POLICIES} is absent; benching the local PDFs only")
    return found


def warm_up(smallest: Path, workdir: Path, console: Console) -> None:
    """Touch every code path once, printing what a cold reader child and a forked one cost."""
    from rich.table import Table

    data = smallest.read_bytes()
    timed(extract_pages, smallest, data)
    cold, _ = timed(extract_pages, smallest, data)
    bare_extract(smallest)
    forked, _ = timed(extract_pages, smallest, data)
    open_pdf(smallest, workdir / "warm-up")
    table = Table(title=f"Reader start-up, measured on {smallest.name}")
    table.add_column("extract_pages, cold child (ms)", justify="right")
    table.add_column("extract_pages, forked child (ms)", justify="right")
    table.add_column("saved by the fork (ms)", justify="right")
    table.add_row(ms(cold), ms(forked), ms(cold - forked))
    console.print(table)


def print_results(results: list[FileResult], console: Console) -> None:
    from rich.table import Table

    timing = Table(title="Cold index vs bare pypdf extraction (ms; median of the repeats)")
    for name, justify in [
        ("file", "left"),
        ("src", "left"),
        ("pages", "right"),
        ("clauses", "right"),
        ("reps", "right"),
        ("bare", "right"),
        ("cold index", "right"),
        ("extract_pages", "right"),
        ("segment", "right"),
        ("write_index", "right"),
        ("child overhead", "right"),
    ]:
        timing.add_column(name, justify=justify, no_wrap=name == "file")  # type: ignore[arg-type]
    for r in results:
        timing.add_row(
            r.path.name,
            r.label,
            str(r.pages),
            str(r.clauses),
            str(r.repeats),
            ms(r.bare),
            ms(r.cold),
            ms(r.extract),
            ms(r.segment),
            ms(r.write),
            ms(r.extract - r.bare),
        )
    console.print(timing)

    ratios = Table(title="Per page and ratios (same run)")
    ratios.add_column("file", no_wrap=True)
    ratios.add_column("bare ms/page", justify="right")
    ratios.add_column("cold ms/page", justify="right")
    ratios.add_column(f"(seg+write)/bare (goal ≤ {GOAL_SEGMENT_RATIO:.2f})", justify="right")
    ratios.add_column("cold/bare", justify="right")
    for r in results:
        ratio = r.segment_ratio
        mark = "" if ratio <= GOAL_SEGMENT_RATIO else " [red]✗[/]"
        ratios.add_row(
            r.path.name,
            ms(r.bare / r.pages),
            ms(r.cold / r.pages),
            f"{ratio:.3f}{mark}",
            f"{r.cold_ratio:.2f}",
        )
    console.print(ratios)

    use = Table(
        title="Using the index: warm load (ms, median of 5), lookup (µs), search (ms)",
        caption="lookup: every clause id; loose: a few ids respelt like 'clause 3. 1 (a)'",
    )
    use.add_column("file", no_wrap=True)
    use.add_column(f"warm (<{GOAL_WARM_S * 1000:.0f})", justify="right")
    use.add_column("ids", justify="right")
    use.add_column("median", justify="right")
    use.add_column("p95", justify="right")
    use.add_column("loose ok", justify="right")
    use.add_column("loose med", justify="right")
    use.add_column("loose max", justify="right")
    use.add_column("queries", justify="right")
    use.add_column("search med", justify="right")
    use.add_column("search p95", justify="right")
    use.add_column("hits/q", justify="right")
    for r in results:
        use.add_row(
            r.path.name,
            ms(r.warm),
            str(r.lookup_count),
            us(r.lookup_median),
            us(r.lookup_p95),
            f"{r.loose_resolved}/{r.loose_count}",
            us(r.loose_median),
            us(r.loose_max),
            str(r.search_count),
            ms(r.search_median),
            ms(r.search_p95),
            f"{r.search_hits:.1f}",
        )
    console.print(use)


def print_summary(results: list[FileResult], console: Console) -> None:
    if not results:
        console.print("[yellow]No file was measured; nothing to judge.[/]")
        return
    seg = max(results, key=lambda r: r.segment_ratio)
    cold = max(results, key=lambda r: r.cold_ratio)
    warm = max(results, key=lambda r: r.warm)
    look = max(results, key=lambda r: r.lookup_worst)
    search = max(results, key=lambda r: r.search_median)
    console.print("[bold]Summary (worst file for each goal)[/]")
    console.print(
        f"  {verdict(seg.segment_ratio <= GOAL_SEGMENT_RATIO)} segmentation ≤ "
        f"{GOAL_SEGMENT_RATIO:.0%} of extraction: worst {seg.segment_ratio:.1%} "
        f"({seg.path.name}: segment {ms(seg.segment)} + write {ms(seg.write)} ms "
        f"over bare {ms(seg.bare)} ms)"
    )
    console.print(
        f"  {verdict(warm.warm < GOAL_WARM_S)} warm load < {GOAL_WARM_S * 1000:.0f} ms: "
        f"worst {ms(warm.warm)} ms ({warm.path.name})"
    )
    console.print(
        f"  {verdict(look.lookup_worst < GOAL_LOOKUP_S)} lookup < {GOAL_LOOKUP_S * 1000:.0f} ms "
        f"(p95 of exact ids, max of loose ones): worst {us(look.lookup_worst)} µs "
        f"({look.path.name})"
    )
    large = [r for r in results if r.pages >= SMALL_FILE_PAGES]
    if large and len(large) < len(results):
        seg_large = max(large, key=lambda r: r.segment_ratio)
        console.print(
            f"  [dim]info[/] segmentation, files of {SMALL_FILE_PAGES}+ pages only: worst "
            f"{seg_large.segment_ratio:.1%} ({seg_large.path.name})"
        )
    console.print(
        f"  [dim]info[/] cold/bare (includes child process): worst {cold.cold_ratio:.2f}x "
        f"({cold.path.name}); search median: worst {ms(search.search_median)} ms "
        f"({search.path.name})"
    )


def main(argv: Sequence[str] | None = None) -> None:
    from rich.console import Console

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--only", metavar="NAME", help="bench only the PDFs whose file name contains NAME"
    )
    parser.add_argument(
        "--small",
        action="store_true",
        help="the sample policies only; a PDF it cannot index fails the run (CI's run)",
    )
    args = parser.parse_args(argv)

    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    warnings.simplefilter("ignore")
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)

    found = [(label, p) for label, p in discover(console) if label == "local" or not args.small]
    if not found:
        console.print("[yellow]No PDF found; nothing to bench.[/]")
        return
    only = args.only.lower() if args.only else None
    selected = [(label, p) for label, p in found if only is None or only in p.name.lower()]
    if not selected:
        console.print(f"[yellow]No PDF name contains {args.only!r}; nothing to bench.[/]")
        return

    results: list[FileResult] = []
    failed: list[tuple[Path, str]] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-policy-index-") as tmp:
        workdir = Path(tmp)
        warm_up(min((p for _, p in found), key=lambda p: p.stat().st_size), workdir, console)
        for number, (label, path) in enumerate(selected, 1):
            console.print(f"[dim][{number}/{len(selected)}] {path.name} …[/]")
            file_started = time.perf_counter()
            filedir = workdir / f"file-{number}"
            try:
                result = measure_file(label, path, filedir)
            except PolicyError as exc:
                failed.append((path, f"{exc.code}: {exc}"))
                continue
            results.append(result)
            console.print(
                f"[dim]    done in {time.perf_counter() - file_started:.1f} s "
                f"({result.pages} pages, {result.repeats} repeat(s))[/]"
            )
    print_results(results, console)
    for r in results:
        for note in r.notes:
            console.print(f"[yellow]note[/] {r.path.name}: {note}")
    for path, reason in failed:
        console.print(f"[yellow]not measured[/] {path.name}: {reason}")
    print_summary(results, console)
    console.print(f"[dim]Total wall time {time.perf_counter() - started:.1f} s.[/]")
    if args.small and (failed or not results):
        raise SystemExit("a sample policy could not be indexed")


if __name__ == "__main__":
    main()
