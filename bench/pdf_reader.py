"""Benchmark: what opening a PDF in a reader child costs on top of pypdf in this process.

For the sample policies in `policies/*.pdf` and one real policy from `../shared/policies/`
(`--real NAME`, default the ISO homeowners form; skipped with a note when the folder is absent)
it measures, interleaved per file and repeated so that a noisy shared machine hits all sides
alike, the median of:

- bare: `PdfReader` and `extract_text()` of every page in this process (no child, no limit);
- first open: `extract_pages` as the first open of a fresh process (a one-off command such as
  `claims-crew policy clauses FILE`), timed inside that process, its own start-up excluded;
- next open: `extract_pages` in this process after other opens and a bare extraction's worth
  of other work (a run, a test session, a benchmark);
- back to back: `extract_pages` again straight after the previous open;
- cold index: `open_pdf(path, fresh cache)`: extraction, segmentation and the SQLite index;

and prints each minus bare (the cost of the child) and cold index / bare. It also times a bare
child interpreter (`python -P -c pass`) and one that imports pypdf, the floor of a fresh child.

Last, the CPU of an open, the reader's included, on the smallest sample policy: processes making
20 opens each with every reader a fresh interpreter, and with readers forked from a warm fork
server (documents/forked_children.py, from a process's second open on), interleaved, and the
ratio forked/plain; and the same for drawing its first page in the page renderer. CPU is what a
busy machine, or a test run on two cores, runs short of.
Only an open that builds the index pays any of this: a warm open reads the cache. It uses only
`extract_pages` and `open_pdf`, so it measures any version of the library the same way.

Run it from the project root:

    uv run python bench/pdf_reader.py
    uv run python bench/pdf_reader.py --real glatfelter --repeats 3
    uv run python bench/pdf_reader.py --small    # the sample policies once: CI's check
"""

from __future__ import annotations

import argparse
import gc
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LOCAL_POLICIES = ROOT / "policies"
SHARED_POLICIES = ROOT.parent / "shared" / "policies"
DEFAULT_REAL = "iso_ho3"


def timed(action: Callable[..., Any], *args: Any) -> float:
    gc.collect()
    start = time.perf_counter()
    action(*args)
    return time.perf_counter() - start


def bare_extract(path: Path) -> list[str]:
    from pypdf import PdfReader

    return [page.extract_text() or "" for page in PdfReader(path).pages]


def child_floor(code: str, repeats: int) -> float:
    """Median seconds for a fresh interpreter to run `code` and exit."""
    command = [sys.executable, "-P", "-c", code]
    return statistics.median(
        timed(lambda: subprocess.run(command, check=True)) for _ in range(repeats)
    )


FIRST_OPEN = """
import sys, time
from pathlib import Path
from claims_crew.policy.library import extract_pages
path = Path(sys.argv[1])
data = path.read_bytes()
start = time.perf_counter()
extract_pages(path, data)
print(time.perf_counter() - start)
"""


def first_open(path: Path) -> float:
    """Seconds `extract_pages` takes as the first open of a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", FIRST_OPEN, str(path)], capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip().splitlines()[-1])


def measure(path: Path, workdir: Path, repeats: int) -> dict[str, float]:
    from claims_crew.policy.library import extract_pages, open_pdf

    data = path.read_bytes()
    runs: dict[str, list[float]] = {
        name: [] for name in ("bare", "first", "next", "back to back", "cold")
    }
    for repeat in range(repeats):
        runs["first"].append(first_open(path))
        runs["bare"].append(timed(bare_extract, path))
        runs["next"].append(timed(extract_pages, path, data))
        runs["back to back"].append(timed(extract_pages, path, data))
        runs["cold"].append(timed(open_pdf, path, workdir / f"{path.stem}-{repeat}"))
        bare_extract(path)  # other work before the next round's opens
    return {name: statistics.median(values) for name, values in runs.items()}


CPU_OPENS = """
import resource, sys
from pathlib import Path
from claims_crew.documents import forked_children
from claims_crew.documents.limits import RenderLimits
from claims_crew.documents.pdf import reader_process, rendering
from claims_crew.policy.library import extract_pages
path, opens, mode, kind = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
forked = mode == "forked"
if not forked:
    forked_children.SERVER_AFTER_OPENS = 10**9
data = path.read_bytes()


def draw(path, data):
    with rendering.PdfRenderer(path.name, data, RenderLimits()) as renderer:
        renderer.draw(1, 1.0, grey=True)


action = extract_pages if kind == "read" else draw
action(path, data)  # the parent's own first-use costs, outside the count


def cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


start = cpu()
for _ in range(opens):
    action(path, data)
for keeper in (reader_process._FORKS, rendering._FORKS):
    keeper.close()  # reaps the fork server, whose CPU counts its children's
print(cpu() - start)
"""


def cpu_per_open(path: Path, opens: int, forked: bool, kind: str = "read") -> float:
    """CPU seconds per `extract_pages` (kind "read") or per document's first page drawn
    ("draw") in a process making `opens` of them, the children's included (every child, and a
    fork server's children, reaped before the count)."""
    mode = "forked" if forked else "plain"
    done = subprocess.run(
        [sys.executable, "-c", CPU_OPENS, str(path), str(opens), mode, kind],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip().splitlines()[-1]) / opens


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f}"


def main(argv: Sequence[str] | None = None) -> None:
    import logging
    import warnings

    from rich.console import Console
    from rich.table import Table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--real", default=DEFAULT_REAL, help="a shared policy whose name has it")
    parser.add_argument("--repeats", type=int, default=5, help="runs per file (median kept)")
    parser.add_argument(
        "--small", action="store_true", help="the sample policies only, once each (CI's run)"
    )
    args = parser.parse_args(argv)
    if args.small:
        args.repeats = 1
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    warnings.simplefilter("ignore")
    console = Console() if sys.stdout.isatty() else Console(width=140)

    files = sorted(LOCAL_POLICIES.glob("*.pdf"))
    real = sorted(p for p in SHARED_POLICIES.glob("*.pdf") if args.real.lower() in p.name.lower())
    if real and not args.small:
        files.append(real[0])
    elif not args.small:
        console.print(f"[yellow]note:[/] no PDF in {SHARED_POLICIES} matches {args.real!r}")

    started = time.perf_counter()
    # One untimed open first: pypdf's import here, and any one-off start-up of the reader.
    from claims_crew.policy.library import extract_pages

    smallest = min(files, key=lambda p: p.stat().st_size)
    bare_extract(smallest)
    extract_pages(smallest, smallest.read_bytes())
    floor = child_floor("pass", args.repeats)
    floor_pypdf = child_floor("import pypdf", args.repeats)
    table = Table(title=f"Opening a PDF, ms (median of {args.repeats}, same run)")
    table.add_column("file")
    for column in ("pages", "bare", "first open", "next open", "back to back", "cold index"):
        table.add_column(column, justify="right")
    table.add_column("cold/bare", justify="right")
    costs: dict[str, list[float]] = {"first": [], "next": [], "back to back": []}
    with tempfile.TemporaryDirectory(prefix="bench-pdf-reader-") as tmp:
        from pypdf import PdfReader

        for path in files:
            pages = len(PdfReader(path).pages)
            got = measure(path, Path(tmp), args.repeats)
            for name, values in costs.items():
                values.append(got[name] - got["bare"])
            table.add_row(
                path.name,
                str(pages),
                ms(got["bare"]),
                *(f"{ms(got[name])} (+{ms(got[name] - got['bare'])})" for name in costs),
                ms(got["cold"]),
                f"{got['cold'] / got['bare']:.2f}",
            )
    console.print(table)
    console.print(
        f"child interpreter alone: {ms(floor)} ms; importing pypdf in it: {ms(floor_pypdf)} ms"
    )
    console.print(
        "cost of the child per open (median over files of open - bare): "
        + "; ".join(f"{name} {ms(statistics.median(values))} ms" for name, values in costs.items())
    )
    # CPU, not time: what a fresh child per open costs a busy machine, forked or started plain.
    opens = 4 if args.small else 20
    for kind, what in (("read", "open"), ("draw", "document drawn (page 1)")):
        cpu: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(args.repeats):  # interleaved, so that a noisy machine hits both alike
            for forked in (False, True):
                cpu[forked].append(cpu_per_open(smallest, opens, forked, kind))
        plain, forked_cpu = (statistics.median(cpu[mode]) for mode in (False, True))
        console.print(
            f"CPU per {what} of {smallest.name}, children included (median of {args.repeats} "
            f"processes of {opens}): plain child {ms(plain)} ms, forked from the fork server "
            f"{ms(forked_cpu)} ms; forked/plain {forked_cpu / plain:.2f}"
        )
    console.print(f"[dim]Total wall time {time.perf_counter() - started:.1f} s.[/]")


if __name__ == "__main__":
    main()
