"""Benchmark: seconds and generated tokens per claim on the offline default, the local model.

With no MODEL set every agent talks to the in-process llama.cpp model (src/claims_crew/llms/
local.py). This runs N sample claims from claims/inbox/ (default 3, in name order) through the
real pipeline, `review_claim`, on that model, and prints per claim: seconds, CPU seconds, model
calls, prompt tokens, generated tokens (the model's own counts) and seconds spent in the model's
replies (a reply that waits for the shared model counts its wait, so with agents side by side
this can exceed the claim's seconds); then the generated tokens by task, and the means. On a
busy machine wall time swings widely (llama.cpp's threads wait for each other at every step,
so a claim that takes a minute alone can take ten), CPU seconds less so, token counts not at all.

`--compare DIR` runs the same claims on a second source tree too (a checkout, or a copy of the
last commit: `git archive HEAD | tar -x -C DIR`), alternating the two claim by claim so that
both see the same load on a shared machine, and prints the ratio of their means (DIR / this
tree). Each claim runs in a child process of its own, started with PYTHONPATH at the tree's
src/ and reading the tree's own config/, policies/ and claims/inbox/; only the claim's review
is timed, not the child's imports or the policy index, which is built once per tree first. One
claim runs at a time: the model uses every core.

`--threads 1,2,cores-1,cores` runs the same claims once per thread count instead
(CLAIMS_CREW_LOCAL_THREADS, read by src/claims_crew/llms/threads.py), again alternating claim by
claim, and prints each setting's mean against the first's. `auto` in the list runs with the
setting unset, so the model chooses from the machine's load when it loads; each of its claims
says what it chose, from which cores and load. `--load N` keeps N busy loops
(`sh -c 'while :; do :; done'`) running beside the claims for the whole measurement, the way
other work keeps a shared machine busy; they are stopped when it ends.

Everything a claim writes (its store, CrewAI's storage, the policy index) goes into a temporary
folder. The benchmark only prints; generation is deterministic (temperature 0, fixed seed), so
token counts repeat while seconds depend on what else the machine is doing.

Run it from the project root (about a minute a claim on two cores):

    uv run python bench/local_model.py
    uv run python bench/local_model.py --claims 3 --compare /tmp/last-commit
    uv run python bench/local_model.py --small      # one claim: CI's check that it runs
    uv run python bench/local_model.py --claims 1 --threads 1,2,cores-1,cores --load 2
    uv run python bench/local_model.py --claims 1 --threads auto,1,2 --load 4

It exits non-zero when a claim was not reviewed (an unreadable answer is the model's doing and
only counts in the figures).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


# --- one claim, in a child process ----------------------------------------------------------


def quiet() -> None:
    """No telemetry and no crewai or pypdf warnings; set before crewai is imported."""
    os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"
    os.environ["OTEL_SDK_DISABLED"] = "true"
    logging.getLogger("crewai").setLevel(logging.ERROR)
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    warnings.simplefilter("ignore")


def review_one(tree: Path, claim: Path | None, workdir: Path) -> dict[str, Any]:
    """Review one claim of `tree` on the local model (or only build the policy index, when
    `claim` is None) and return what was measured."""
    os.environ.pop("MODEL", None)
    os.environ.pop("ADJUDICATOR_MODEL", None)
    os.environ["CLAIMS_CREW_HOME"] = str(workdir / "home")
    # CrewAI writes every task output to a SQLite file under ~/.local/share/<this name>; an
    # absolute name moves that file into the temporary folder too.
    os.environ["CREWAI_STORAGE_DIR"] = str(workdir / "crewai-storage")
    quiet()

    import claims_crew
    from claims_crew.claim_files import load_claim
    from claims_crew.llms.select import default_llm_factory
    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.run.context import build_context
    from claims_crew.run.crew_review import review_claim

    library = PolicyLibrary(root=tree / "policies", cache_dir=workdir / "policy-index")
    for policy_id in library.entries:
        library.open(policy_id)  # extracted and indexed here, before anything is timed
    llm_for = default_llm_factory(tree / "config")
    if claim is None:
        # Loaded once here too: a tree that reads the packaged weights through a copy kept in
        # the home (llms/local_weights.py) makes it now, as a user's first claim does once.
        llm_for("intake")._load()
        return {"package": str(Path(claims_crew.__file__).parent)}

    llm = llm_for("intake")  # the one local model every agent shares
    calls: list[dict[str, Any]] = []
    answer = type(llm).reply

    def counted(request: Any) -> Any:
        started = time.perf_counter()
        reply = answer(llm, request)
        calls.append(
            {
                "task": getattr(request.task, "name", None) or "?",
                "seconds": time.perf_counter() - started,
                "prompt": int(reply.usage.get("prompt_tokens", 0)),
                "generated": int(reply.usage.get("completion_tokens", 0)),
            }
        )
        return reply

    object.__setattr__(llm, "reply", counted)  # the instance's own, shadowing the class's
    settings = build_context(library=library, llm_for=llm_for, config_dir=tree / "config")
    loaded = load_claim(claim)
    started, cpu = time.perf_counter(), time.process_time()
    record = review_claim(loaded, settings)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    resolution = record.resolution
    # What the model computed with, where the tree says (a tree before the choice does not).
    chosen = getattr(llm, "chosen_threads", None)
    return {
        "threads": chosen.describe() if chosen is not None else None,
        "package": str(Path(claims_crew.__file__).parent),
        "claim": claim.name,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "status": record.status,
        "error": str(record.error) if record.error else None,
        "outcome": getattr(resolution, "outcome", None),
        "parse_errors": sorted(
            name
            for name, part in (
                ("intake", record.intake),
                ("policy", record.policy),
                ("fraud", record.fraud),
            )
            if getattr(part, "kind", None) == "parse_error"
        ),
        "calls": calls,
        "raw": dict(record.raw),
    }


# --- the parent: alternate trees, print -----------------------------------------------------


def run_child(
    tree: Path, claim: Path | None, workdir: Path, threads: int | str | None = None
) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    if threads == AUTO:
        env.pop("CLAIMS_CREW_LOCAL_THREADS", None)
    elif threads is not None:
        env["CLAIMS_CREW_LOCAL_THREADS"] = str(threads)
    args = [sys.executable, str(Path(__file__).resolve()), "--child", str(tree), str(workdir)]
    if claim is not None:
        args.append(str(claim))
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise SystemExit(f"the child for {tree} failed:\n{done.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def total(result: dict[str, Any], key: str) -> int:
    return sum(int(c[key]) for c in result["calls"])


def print_claim(label: str, result: dict[str, Any], raw: bool) -> None:
    model_s = sum(float(c["seconds"]) for c in result["calls"])
    problems = ", ".join(
        [*(f"{p} unreadable" for p in result["parse_errors"])]
        + ([f"error: {result['error']}"] if result["error"] else [])
    )
    print(
        f"  {label:<8} {result['claim']:<12} {result['seconds']:7.1f} s"
        f" ({result['cpu_seconds']:6.1f} s of CPU)"
        f"  {len(result['calls']):2d} calls  {total(result, 'prompt'):6d} prompt"
        f"  {total(result, 'generated'):5d} generated  {model_s:6.1f} s in replies"
        f"  {result['status']}/{result['outcome']}" + (f"  ({problems})" if problems else ""),
        flush=True,
    )
    if result.get("threads"):
        print(f"    computed with {result['threads']}", flush=True)
    if raw:
        for task, text in result["raw"].items():
            print(f"    {task}: {text}", flush=True)


def print_summary(label: str, results: list[dict[str, Any]]) -> tuple[float, float, float]:
    seconds = statistics.mean(r["seconds"] for r in results)
    cpu = statistics.mean(r["cpu_seconds"] for r in results)
    generated = statistics.mean(total(r, "generated") for r in results)
    # The tasks as the measured tree named them, in the order they first ran: a tree given with
    # --compare may have other tasks than this one.
    tasks_run = dict.fromkeys(c["task"] for r in results for c in r["calls"])
    by_task = {
        task: statistics.mean(
            sum(int(c["generated"]) for c in r["calls"] if c["task"] == task) for r in results
        )
        for task in tasks_run
    }
    calls = statistics.mean(len(r["calls"]) for r in results)
    tasks = ", ".join(f"{t.removesuffix('_task')} {n:.0f}" for t, n in by_task.items() if n)
    ok = sum(r["status"] == "reviewed" and not r["parse_errors"] for r in results)
    print(
        f"  {label:<8} {seconds:6.1f} s a claim ({cpu:.1f} s of CPU), "
        f"{generated:5.0f} generated tokens a claim "
        f"({tasks}), {calls:.1f} model calls a claim; {ok}/{len(results)} reviewed and readable"
    )
    return seconds, cpu, generated


AUTO = "auto"


def thread_counts(spec: str, cores: int) -> list[int | str]:
    """ "auto,1,2,cores-1,cores" as thread counts (at least 1) or AUTO, each once, in the order
    given."""
    counts: list[int | str] = []
    for part in spec.split(","):
        word = part.strip().replace(" ", "")
        if word == AUTO:
            count: int | str = AUTO
        elif word.startswith("cores"):
            count = max(1, cores - int(word[len("cores-") :] or 0) if word != "cores" else cores)
        else:
            count = max(1, int(word))
        if count not in counts:
            counts.append(count)
    return counts


@dataclass(frozen=True)
class Variant:
    """What one column of the figures runs: a source tree, and a thread count (None: the tree's
    own default, whatever the environment sets; AUTO: the tree's choice, the setting unset)."""

    tree: Path
    threads: int | str | None = None


def busy_loops(count: int) -> list[subprocess.Popen[bytes]]:
    """`count` shell loops that keep a core each busy until stopped."""
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(count)]


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--child"]:
        tree, workdir, *claim = argv[1:]
        found = review_one(Path(tree), Path(claim[0]) if claim else None, Path(workdir))
        print(json.dumps(found))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--claims", type=int, default=3, metavar="N", help="sample claims to run")
    parser.add_argument(
        "--compare", type=Path, metavar="DIR", help="a second source tree, run alternately"
    )
    parser.add_argument(
        "--threads", metavar="LIST", help='thread counts to compare, e.g. "auto,1,2,cores-1,cores"'
    )
    parser.add_argument(
        "--load", type=int, default=0, metavar="N", help="busy loops to run beside the claims"
    )
    parser.add_argument("--raw", action="store_true", help="print each task's final answer")
    parser.add_argument("--small", action="store_true", help="one claim (CI's run)")
    args = parser.parse_args(argv)
    if args.small:
        args.claims = 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    variants = {"this": Variant(ROOT)}
    if args.compare is not None:
        variants["compare"] = Variant(args.compare.resolve())
    if args.threads:
        counts = thread_counts(args.threads, cores)
        variants = {f"{n} thr" if n != AUTO else AUTO: Variant(ROOT, n) for n in counts}
    claims = sorted(
        p for p in (ROOT / "claims" / "inbox").iterdir() if p.suffix in (".json", ".yaml")
    )[: max(1, args.claims)]

    loops = busy_loops(args.load)
    try:
        results = measure(variants, claims, args.raw, cores, args.load)
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()
    print("Means")
    means = {label: print_summary(label, found) for label, found in results.items()}
    # An unreadable answer is the model's doing; a claim not reviewed is the code's.
    broken = [r for found in results.values() for r in found if r["status"] != "reviewed"]
    if broken:
        raise SystemExit(f"{len(broken)} claim(s) not reviewed: {broken[0]['error']}")
    first, *others = means
    for label in others:
        (base_s, base_cpu, base_tokens), (other_s, other_cpu, other_tokens) = (
            means[first],
            means[label],
        )
        print(
            f"{label} / {first}: {other_s / base_s:.2f}x the seconds, "
            f"{other_cpu / base_cpu:.2f}x the CPU seconds, "
            f"{other_tokens / max(base_tokens, 1):.2f}x the generated tokens"
        )


def measure(
    variants: dict[str, Variant], claims: list[Path], raw: bool, cores: int, load: int
) -> dict[str, list[dict[str, Any]]]:
    """Each claim on each variant, alternating claim by claim; every variant's results."""
    with tempfile.TemporaryDirectory(prefix="bench-local-model-") as tmp:
        workdirs = {label: Path(tmp) / label.replace(" ", "-") for label in variants}
        for label, variant in variants.items():
            index = run_child(variant.tree, None, workdirs[label])
            print(f"{label}: {variant.tree} (claims_crew from {index['package']})", flush=True)
        busy = f", {load} busy loop(s) beside them" if load else ""
        print(f"{len(claims)} claims, one at a time, {cores} cores{busy}", flush=True)
        results: dict[str, list[dict[str, Any]]] = {label: [] for label in variants}
        for claim in claims:
            for label, variant in variants.items():
                inbox = variant.tree / "claims" / "inbox"
                result = run_child(
                    variant.tree, inbox / claim.name, workdirs[label], variant.threads
                )
                results[label].append(result)
                print_claim(label, result, raw)
    return results


if __name__ == "__main__":
    main()
