"""The claims crew over the scripted OpenAI-compatible server: which claim and agent a request
is for, one script of replies per (claim, agent), and the environment that points MODEL at it.

CrewAI's system message starts "You are {role}." and the agent's goal names the claim, so a
request says by itself which agent of which claim sent it; concurrent claims never take each
other's replies.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from claims_crew.llms.select import default_llm_factory
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records.resolution import Resolution
from claims_crew.run.batch import run_batch
from claims_crew.run.context import RunContext, build_context
from claims_crew.store import Store
from tests.support.crew import (
    FRAUD_EXCLUDED,
    INTAKE_WATER,
    POLICY_COVERED,
    QUESTION_TAIL,
    start_date_answer,
)
from tests.support.openai_server import (
    ChatRequest,
    OpenAIServer,
    Reply,
    StartServer,
    Status,
    Text,
    ToolCall,
)
from tests.support.paths import ROOT
from tests.support.wires import WIRES

ROLES: dict[str, str] = {
    str(agent["role"]): name
    for name, agent in yaml.safe_load((ROOT / "config" / "agents.yaml").read_text()).items()
}
CLAIM_ID = re.compile(r"\bclaim ([A-Za-z0-9][\w-]*)")

Scripted = Reply | Callable[[ChatRequest], Reply]

# The claim deadline of a test that waits one out while other work must fit in it: a claim's
# first model call, or a whole scripted claim, with the crew warm (warm_up below). On an idle
# two-core machine a warm claim makes its first call about 0.1 s after its review starts and is
# decided in about 0.3 s; a load of 4 makes that about 2.5 times as long, still a fifth of this.
DEADLINE_S = 4


def agent_of(request: ChatRequest) -> str:
    """The agent whose role the system message names ("You are {role}. ...")."""
    for role, name in ROLES.items():
        if request.system.startswith(f"You are {role}."):
            return name
    return "unknown"


def claim_of(request: ChatRequest) -> str:
    found = CLAIM_ID.search(request.system) or CLAIM_ID.search(request.text)
    return found.group(1) if found else "unknown"


class CrewScript:
    """Replies per (claim id, agent), in order; the last one repeats, so a fault set once
    holds for every retry. A request with no script gets a 500 that names what was missing."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._replies: dict[tuple[str, str], list[Scripted]] = {}
        self._served: dict[tuple[str, str], int] = {}

    def set(self, claim_id: str, agent: str, *replies: Scripted) -> CrewScript:
        """Replace what this claim's agent will be answered, from its next request on."""
        with self._lock:
            self._replies[(claim_id, agent)] = list(replies)
            self._served[(claim_id, agent)] = 0
        return self

    def __call__(self, request: ChatRequest) -> Reply:
        key = (claim_of(request), agent_of(request))
        with self._lock:
            replies = self._replies.get(key)
            if not replies:
                return Status(500, f"no scripted reply for claim {key[0]}, agent {key[1]}")
            served = self._served[key]
            self._served[key] = served + 1
            reply = replies[min(served, len(replies) - 1)]
        return reply(request) if callable(reply) else reply


def answer(payload: dict[str, Any]) -> Text:
    return Text(json.dumps(payload))


def look_up_then(
    clause_id: str, payload: dict[str, Any], policy_id: str = "HM-HOME-001"
) -> Scripted:
    """A reviewer that calls policy_lookup once, then answers (and answers again if asked)."""

    def reply(request: ChatRequest) -> Reply:
        if request.tool_results:
            return answer(payload)
        return ToolCall("policy_lookup", {"policy_id": policy_id, "clause_id": clause_id})

    return reply


def water_intake(request: ChatRequest) -> Reply:
    """Intake on a copy of C-1042 however often it is asked: its facts, or, asked the targeted
    question, null for the start date (the claim never says)."""
    asked = QUESTION_TAIL in request.text
    return answer(start_date_answer(None) if asked else INTAKE_WATER)


# Each review of a water claim by water_replies: intake twice (facts, then the targeted
# question), policy twice (a look-up, then its answer), fraud once.
CALLS_PER_REVIEW = 5


def water_replies(script: CrewScript, claim_id: str) -> CrewScript:
    """The design's water example for one claim: policy looks 4.2(b) up, fraud cites 7.1; their
    conflict over the open start date asks intake once more."""
    script.set(claim_id, "intake", water_intake)
    script.set(claim_id, "policy", look_up_then("4.2(b)", POLICY_COVERED))
    script.set(claim_id, "fraud", answer(FRAUD_EXCLUDED))
    return script


def water_claims(folder: Path, *claim_ids: str) -> list[Path]:
    """Copies of the water claim C-1042 under other claim ids, one file each."""
    source = json.loads((ROOT / "claims" / "inbox" / "C-1042.json").read_text())
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for claim_id in claim_ids:
        path = folder / f"{claim_id}.json"
        path.write_text(json.dumps({**source, "claim_id": claim_id}), encoding="utf-8")
        paths.append(path)
    return paths


CLAUDE_NATIVE = "anthropic/claude-sonnet-4-5"


def wire_name(server: OpenAIServer) -> str:
    return next(name for name, (wire, _, _) in WIRES.items() if isinstance(server.wire, wire))


def point_model_at(
    server: OpenAIServer, monkeypatch: pytest.MonkeyPatch, model: str | None = None
) -> None:
    """MODEL and MODEL_BASE_URL name the server (a model of its wire's provider), with a fake
    key in the provider's variable, as a user would set them."""
    _, default, key_variable = WIRES[wire_name(server)]
    monkeypatch.setenv("MODEL", model or default)
    monkeypatch.setenv("MODEL_BASE_URL", server.base_url)
    monkeypatch.setenv(key_variable, "test-key-not-a-real-one")


def provider_settings(library: PolicyLibrary, store: Store) -> RunContext:
    """A run's settings with the project's config, each agent's model as MODEL names it (the
    scripted server, after point_model_at), and the limits the environment sets."""
    return build_context(
        library=library,
        llm_for=default_llm_factory(ROOT / "config"),
        config_dir=ROOT / "config",
        store=store,
    )


@dataclass(frozen=True)
class Reviewed:
    """One claim reviewed through a scripted server: its resolution, what intake was first
    shown, the server (its exchanges) and the store it was recorded in."""

    resolution: Resolution
    intake_prompt: str
    server: OpenAIServer
    store: Store


def review_claim(
    start_server: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    library: PolicyLibrary,
    claim: Path,
    script: CrewScript,
) -> Reviewed:
    """`claim` reviewed alone by the real crew, the model a server answering `script`, into
    CLAIMS_CREW_HOME's store (the one `review show` and the review page read)."""
    server = start_server(script)
    point_model_at(server, monkeypatch)
    store = Store()
    (item,) = run_batch([claim], provider_settings(library, store))
    assert item.record is not None and item.record.resolution is not None, item
    first = next(e for e in server.exchanges if agent_of(e.request) == "intake")
    return Reviewed(item.record.resolution, first.request.text, server, store)


def sample_copy(folder: Path, claim: Path, *attachments: str) -> Path:
    """A sample claim file and its `attachments` copied into `folder`: its copy's path."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in attachments:
        shutil.copy(claim.parent / name, folder)
    return Path(shutil.copy(claim, folder))


def warm_up(
    start_server: StartServer, library: PolicyLibrary, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One water claim through CrewAI's OpenAI client, with no deadline, in a store of its own.

    A process's first claim also pays for CrewAI's lazy imports and first schemas: on an idle
    two-core machine its first model call comes 1.4 s after its review starts instead of 0.1 s,
    and several times that on a busy one. A test whose short deadline should hold only a warm
    claim's work runs this first (the `warm_crew` fixture)."""
    server = start_server(water_replies(CrewScript(), "W-1"))
    with monkeypatch.context() as env:
        point_model_at(server, env)
        env.setenv("CLAIMS_CREW_CLAIM_DEADLINE", "0")
        settings = provider_settings(library, Store(folder / "warm.sqlite"))
        (item,) = run_batch(water_claims(folder / "inbox", "W-1"), settings, 1)
    assert item.record is not None and item.record.status == "reviewed", item
