"""Benchmark: what CrewAI's own machinery costs a claim, beside what a whole claim costs.

Three ways of doing a water claim's model work, each in a fresh process, one claim at a time,
against the scripted OpenAI server answering at once, its CPU subtracted (as
bench/provider_beside.py does, whose goal and child-process reading it shares):

- `crewai`: CrewAI as installed and nothing of ours: four one-agent crews kicked off in turn,
  shaped like a claim's (intake; policy and fraud, each looking a clause up through a tool
  and then answering a structured claim; intake again for the targeted question): the same
  four kickoffs and six model calls as a claim, with small answer models of the bench's own.
- `workarounds`: the same crews with the claims crew's CrewAI workarounds
  (src/claims_crew/crew/workarounds: its agent executor, its unlogged crew, its kept schema
  descriptions and file store).
- `claim`: water claims through the whole pipeline at concurrency 1 (bench/provider.py's
  batch): the crew built from YAML, the tools, the resolver, the store.

The modes alternate round by round, so a busy machine weighs on each alike. It prints each
round's CPU a claim, the medians, and two ratios: what the workarounds leave of CrewAI's own
cost, and what a whole claim costs over the bare crews with the workarounds. What no change of
ours can cut is the second mode's figure.

    uv run python bench/crewai_floor.py                # 3 rounds of 20 runs a mode
    uv run python bench/crewai_floor.py --small        # 1 round of 2 (CI)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import provider_beside
from provider_beside import GOAL_CPU, MARK, figures_of

ROOT = Path(__file__).resolve().parent.parent
MODES = {
    "crewai": "CrewAI as installed",
    "workarounds": "CrewAI with the crew's workarounds",
    "claim": "a whole claim",
}


def bare_crews(with_workarounds: bool, base_url: str) -> Any:
    """A function that does one claim's kickoffs with plain CrewAI crews."""
    from typing import Literal

    from crewai import LLM, Agent, Crew, Process, Task
    from crewai.tools import BaseTool
    from pydantic import BaseModel

    crew_class: Any = Crew
    executor: dict[str, Any] = {}
    if with_workarounds:
        import claims_crew.crew.crew  # noqa: F401  (installs the process-wide workarounds)
        from claims_crew.crew.workarounds.agent_executor import ClaimsAgentExecutor
        from claims_crew.crew.workarounds.kickoff_log import UnloggedCrew

        crew_class, executor = UnloggedCrew, {"executor_class": ClaimsAgentExecutor}

    class Facts(BaseModel):
        loss_type: str
        cause: str
        date_of_loss: str
        damage_start_date: str | None
        amount_claimed: float

    class Evidence(BaseModel):
        clause_id: str
        quote: str

    class Finding(BaseModel):
        answer: Literal["covered", "not_covered", "unknown"]
        confidence: float
        evidence: list[Evidence]
        rationale: str

    class LookUpArgs(BaseModel):
        policy_id: str
        clause_id: str

    class LookUp(BaseTool):
        name: str = "policy_lookup"
        description: str = "The words of one clause of a policy."
        args_schema: type[BaseModel] = LookUpArgs

        def _run(self, policy_id: str, clause_id: str) -> str:
            return f"{policy_id} {clause_id}: sudden and accidental discharge of water"

    llm = LLM(model="openai/gpt-4o-mini", base_url=base_url, api_key="sk-bench-not-a-real-key")
    look_up = LookUp()

    def kickoff(role: str, answer: type[BaseModel], tools: list[Any]) -> None:
        agent = Agent(
            role=role,
            goal=f"Review claim C-1 as the {role}",
            backstory="A claims handler.",
            llm=llm,
            tools=tools,
            allow_delegation=False,
            verbose=False,
            **executor,
        )
        task = Task(
            description="Review claim C-1.",
            expected_output="JSON",
            agent=agent,
            output_pydantic=answer,
        )
        crew = crew_class(agents=[agent], tasks=[task], process=Process.sequential, verbose=False)
        crew.kickoff()

    def one_claim() -> None:
        kickoff("intake clerk", Facts, [])
        kickoff("policy reader", Finding, [look_up])
        kickoff("fraud reader", Finding, [look_up])
        kickoff("intake clerk", Facts, [])

    return one_claim


def respond(request: Any) -> Any:
    """Intake's facts; policy and fraud look a clause up, then answer."""
    from tests.support.openai_server import Text, ToolCall

    if request.system.startswith("You are intake clerk."):
        facts = {
            "loss_type": "water_damage",
            "cause": "leaking joint",
            "date_of_loss": "2025-11-03",
            "damage_start_date": None,
            "amount_claimed": 4200,
        }
        return Text(json.dumps(facts))
    if request.tool_results:
        finding = {
            "answer": "covered",
            "confidence": 0.8,
            "evidence": [{"clause_id": "4.2(b)", "quote": "sudden and accidental discharge"}],
            "rationale": "An escape of water.",
        }
        return Text(json.dumps(finding))
    return ToolCall("policy_lookup", {"policy_id": "HM-HOME-001", "clause_id": "4.2(b)"})


def child(mode: str, runs: int) -> dict[str, Any]:
    """`runs` claims in `mode` in this process: CPU seconds a claim, the server's excluded."""
    sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
    import logging
    import warnings

    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    if mode == "claim":
        figures = provider_beside.child(ROOT, runs, 1, 0.0)
        if figures["failed"]:
            raise SystemExit(f"a claim was not reviewed: {figures['failed'][0]}")
        return {"cpu": figures["our_cpu_per_claim"], "calls": None}
    import provider

    os.environ.update(provider.environment(provider.scratch_folder("bench-floor-"), ROOT))
    from tests.support import openai_server

    server_cpu = provider_beside._count_server_cpu(openai_server)
    with openai_server.OpenAIServer(respond) as server:
        one_claim = bare_crews(mode == "workarounds", server.base_url)
        one_claim()  # the first kickoff pays one-off costs
        calls, server_before, cpu = len(server.calls), server_cpu(), time.process_time()
        for _ in range(runs):
            one_claim()
        cpu = time.process_time() - cpu - (server_cpu() - server_before)
        calls = (len(server.calls) - calls) / runs
    if mode == "crewai" and "claims_crew.crew.crew" in sys.modules:
        raise SystemExit("crewai: the crew's workarounds were imported into plain CrewAI's run")
    if calls != 6:
        raise SystemExit(f"{mode}: {calls:g} model calls a claim, not a claim's six")
    return {"cpu": cpu / runs, "calls": calls}


def in_a_process(mode: str, runs: int) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", mode, "--runs", str(runs)]
    return figures_of(command, ROOT, f"{mode}: the runs", None)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20, help="claims a mode in each round")
    parser.add_argument("--small", action="store_true", help="1 round of 2 claims (CI)")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.small:
        args.rounds, args.runs = 1, 2
    if args.child is not None:
        print(MARK + json.dumps(child(args.child, args.runs)), flush=True)
        return
    print(
        f"bench/crewai_floor.py: {args.rounds} round(s) of {args.runs} claims a mode, one at a "
        "time, the scripted server answering at once; CPU a claim, the server's excluded",
        flush=True,
    )
    cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
    for round_ in range(max(1, args.rounds)):
        order = list(MODES) if round_ % 2 == 0 else list(reversed(MODES))
        for mode in order:
            cpu[mode].append(in_a_process(mode, args.runs)["cpu"])
        print(
            f"round {round_ + 1}: "
            + ", ".join(f"{MODES[mode]} {cpu[mode][-1]:.3f} s" for mode in MODES),
            flush=True,
        )
    median = {mode: statistics.median(values) for mode, values in cpu.items()}
    for mode, label in MODES.items():
        print(f"{label}: median {median[mode]:.3f} s a claim")
    print(
        f"the workarounds leave {median['workarounds'] / median['crewai']:.2f} of CrewAI's own "
        f"cost; a whole claim costs {median['claim'] / median['workarounds']:.2f} times the "
        f"bare crews with them; CrewAI's part alone is {median['workarounds'] / GOAL_CPU:.2f} "
        f"times the goal of {GOAL_CPU:g} s a claim"
    )


if __name__ == "__main__":
    main()
