"""Benchmark: how long `claims-crew run` takes when the provider stops answering one claim.

The model is the scripted OpenAI-compatible server of tests/support/openai_server.py on 127.0.0.1,
reached through CrewAI's own OpenAI client (`MODEL=openai/gpt-4o-mini`, `MODEL_BASE_URL`). The
inbox holds `--claims` copies of the water claim; the server never answers the first claim's
intake call and answers every other call at once. `claims-crew run` runs as a fresh process, as
a user would start it, with `CLAIMS_CREW_CLAIM_DEADLINE=--deadline`. It prints, from the run's
own per-claim lines, when each claim finished, then the run's wall time and exit code, or that
it had not finished after `--give-up` seconds (it is then killed).

    uv run python bench/hanging_provider.py
    uv run python bench/hanging_provider.py --deadline 20 --give-up 120
    uv run python bench/hanging_provider.py --src /tmp/older-checkout/src   # another version
    uv run python bench/hanging_provider.py --small   # 2 claims, 15 s deadline: CI's check

It exits non-zero when the run did not finish, or its silent claim did not fail by the deadline
(on a busy machine the others may time out too: that is load, not a fault).

The run's output is not a terminal, so the per-claim lines are those a CI log shows.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.crew import INTAKE_WATER as INTAKE  # noqa: E402
from tests.support.openai_server import (  # noqa: E402
    ChatRequest,
    Hang,
    OpenAIServer,
    Reply,
    Respond,
    Text,
    ToolCall,
)
from tests.support.provider import agent_of, claim_of  # noqa: E402

REVIEW = {
    "answer": "covered",
    "confidence": 0.8,
    "evidence": [{"clause_id": "4.2(b)", "quote": "sudden and accidental discharge of water"}],
    "facts_relied_on": ["cause"],
    "rationale": "An escape of water.",
}


def respond(hanging: str) -> Respond:
    def reply(request: ChatRequest) -> Reply:
        agent = agent_of(request)
        if agent == "intake":
            return Hang() if claim_of(request) == hanging else Text(json.dumps(INTAKE))
        if request.tool_results or "policy_lookup" not in request.tools:
            return Text(json.dumps(REVIEW))
        return ToolCall("policy_lookup", {"policy_id": "HM-HOME-001", "clause_id": "4.2(b)"})

    return reply


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=3)
    parser.add_argument("--deadline", type=float, default=10.0)
    parser.add_argument("--give-up", type=float, default=90.0)
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="claims_crew to run")
    parser.add_argument("--small", action="store_true", help="2 claims, a 15 s deadline (CI's run)")
    args = parser.parse_args()
    if args.small:
        args.claims, args.deadline, args.give_up = 2, 15.0, 300.0

    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        source = json.loads((ROOT / "claims" / "inbox" / "C-1042.json").read_text())
        inbox = tmp / "inbox"
        inbox.mkdir()
        ids = [f"H-{n:03d}" for n in range(args.claims)]
        for claim_id in ids:
            (inbox / f"{claim_id}.json").write_text(json.dumps({**source, "claim_id": claim_id}))
        server = OpenAIServer(respond(ids[0]), hang_limit_s=args.give_up + 60)
        with server:
            env = {
                **os.environ,
                "PYTHONPATH": str(args.src.resolve()),
                "MODEL": "openai/gpt-4o-mini",
                "MODEL_BASE_URL": server.base_url,
                "OPENAI_API_KEY": "sk-bench-not-a-real-key",
                "CLAIMS_CREW_HOME": str(tmp / "home"),
                # The config and policies of the checkout whose code runs.
                "CLAIMS_CREW_CONFIG": str(args.src.resolve().parent / "config"),
                "CLAIMS_CREW_POLICIES": str(args.src.resolve().parent / "policies"),
                "CLAIMS_CREW_CLAIM_DEADLINE": f"{args.deadline:g}",
                "CLAIMS_CREW_CONCURRENCY": "4",
                "CREWAI_DISABLE_TELEMETRY": "true",
                "OTEL_SDK_DISABLED": "true",
            }
            code = f"from claims_crew.cli import main; main(['run', '--inbox', {str(inbox)!r}])"
            started = time.perf_counter()
            child = subprocess.Popen(
                [sys.executable, "-c", code],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            lines: list[tuple[float, str]] = []

            def read() -> None:
                assert child.stdout is not None
                for line in child.stdout:
                    lines.append((time.perf_counter() - started, line.rstrip()))

            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            try:
                exit_code: int | None = child.wait(timeout=args.give_up)
            except subprocess.TimeoutExpired:
                exit_code = None
                child.kill()
                child.wait()
            wall = time.perf_counter() - started
            reader.join(5)

    print(f"claims-crew run from {args.src}: {args.claims} claims; {ids[0]} never gets an answer")
    print(f"CLAIMS_CREW_CLAIM_DEADLINE={args.deadline:g}")
    for at, line in lines:
        if line.startswith(("[", "waiting on", "reviewing")) or "claim(s) failed" in line:
            print(f"  {at:6.1f} s  {line}")
    if exit_code is None:
        print(f"did NOT finish within {args.give_up:g} s (killed); all it printed:")
        for at, line in lines:
            print(f"  {at:6.1f} s  {line}")
    else:
        print(f"finished in {wall:.1f} s (deadline {args.deadline:g} s), exit code {exit_code}")
    # The deadline must end the silent claim, or the times above mean nothing.
    timed_out = f"{ids[0]}.json: failed (timeout)"
    if exit_code is None or not any(timed_out in line for _, line in lines):
        raise SystemExit(f"the run did not finish with {ids[0]} failed by its deadline")


if __name__ == "__main__":
    main()
