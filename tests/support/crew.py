"""Helpers for the scripted-crew tests: one ScriptedLLM per agent, and the water claim's script."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
import yaml

from claims_crew.llms.base import Messages
from claims_crew.llms.scripted import ScriptedLLM, final, lookup
from claims_crew.policy.library import PolicyLibrary
from claims_crew.resolver.targeted import question_for
from claims_crew.run.context import RunContext, build_context
from claims_crew.store import Store
from tests.support.paths import ROOT

WATER_CLAIM = ROOT / "claims" / "inbox" / "C-1042.json"

# Where C-1042 states each fact intake extracts; it never says when the damage started.
WATER_SOURCES = {
    "loss_type": {"where": "description", "quote": "Water came through the kitchen ceiling"},
    "cause": {
        "where": "description",
        "quote": "A plumber found a leaking joint on the pipe under the bath.",
    },
    "date_of_loss": {"where": "date_of_loss"},
    "amount_claimed": {"where": "amount"},
}
INTAKE_WATER = {
    "loss_type": "water_damage",
    "cause": "leaking joint on the pipe under the bath",
    "date_of_loss": "2025-11-03",
    "damage_start_date": None,
    "amount_claimed": 4200,
    "unknowns": ["damage_start_date"],
    "sources": WATER_SOURCES,
}
# C-1043 with every fact stated and sourced: the pipe burst on the day of loss.
BURST_QUOTE = "At about 7am on 2 November 2025 the pipe … burst"
INTAKE_BURST = {
    "loss_type": "water_damage",
    "cause": "the pipe under the bathroom basin burst",
    "date_of_loss": "2025-11-02",
    "damage_start_date": "2025-11-02",
    "amount_claimed": 3850,
    "sources": {
        "loss_type": {"where": "description", "quote": "water poured through the kitchen ceiling"},
        "cause": {"where": "description", "quote": "the pipe under the bathroom basin burst"},
        "date_of_loss": {"where": "date_of_loss"},
        "damage_start_date": {"where": "description", "quote": BURST_QUOTE},
        "amount_claimed": {"where": "amount"},
    },
}
# C-1042 as it would read had the claimant said when the leak began, and intake's facts then.
STARTED = "The leak began on the morning of 3 November 2025."
KNOWN_START = {
    **INTAKE_WATER,
    "damage_start_date": "2025-11-03",
    "unknowns": [],
    "sources": {**WATER_SOURCES, "damage_start_date": {"where": "description", "quote": STARTED}},
}
# C-1048: the plumber's report attached to it is the only place that says when the damage
# started; intake's first answer misses it, and the targeted question finds it there.
LEAK_CLAIM = ROOT / "claims" / "inbox" / "C-1048.json"
LEAK_REPORT = "C-1048-plumber.txt"
LEAK_STARTED = "the damage started on 6 October 2025"
INTAKE_LEAK = {
    "loss_type": "water_damage",
    "cause": "leaking joint under the shower tray",
    "date_of_loss": "2025-11-12",
    "damage_start_date": None,
    "amount_claimed": 5600,
    "unknowns": ["damage_start_date"],
    "sources": {
        "loss_type": {
            "where": "description",
            "quote": "water came through from the shower room above",
        },
        "cause": {
            "where": "description",
            "quote": "A plumber found and repaired a leaking joint under the shower tray",
        },
        "date_of_loss": {"where": "date_of_loss"},
        "amount_claimed": {"where": "amount"},
    },
}


def start_date_answer(
    value: str | None, quote: str = LEAK_STARTED, where: str = LEAK_REPORT
) -> dict[str, object]:
    """Intake's answer to the targeted question about damage_start_date."""
    source = None if value is None else {"where": where, "quote": quote}
    return {"answers": [{"fact": "damage_start_date", "value": value, "source": source}]}


# The words every targeted question ends with, whichever facts it names.
QUESTION_TAIL = question_for(["damage_start_date"]).partition("damage_start_date:")[2]


def water_intake(messages: Messages) -> str:
    """Intake on C-1042 however often it is asked: its facts, or, asked the targeted question,
    null for the start date."""
    asked = "\n".join(str(m.get("content", "")) for m in messages)
    return final(start_date_answer(None) if QUESTION_TAIL in asked else INTAKE_WATER)


POLICY_COVERED = {
    "answer": "covered",
    "confidence": 0.82,
    "evidence": [{"clause_id": "4.2(b)", "quote": "sudden and accidental discharge of water"}],
    "facts_relied_on": ["cause", "damage_start_date"],
    "rationale": "A plumbing leak is an escape of water under 4.2(b).",
}
FRAUD_EXCLUDED = {
    "answer": "not_covered",
    "confidence": 0.7,
    "evidence": [{"clause_id": "7.1", "quote": "continuous or repeated seepage or leakage"}],
    "facts_relied_on": ["cause", "damage_start_date"],
    "rationale": "A leaking joint suggests gradual seepage, excluded by 7.1.",
}


# Intake's facts for three sample claims, each sourced in the claim's own words.
CLAIM_FACTS: dict[str, dict[str, object]] = {
    "C-1045.json": {
        "loss_type": "flood",
        "cause": "the river at the bottom of the garden burst its banks",
        "quote": "The river at the bottom of the garden burst its banks",
        "date_of_loss": "2025-11-30",
        "amount_claimed": 18500,
    },
    "C-1047.json": {
        "loss_type": "water_damage",
        "cause": "grout around the shower letting water into the wall",
        "quote": "The grout around the shower has been letting water into the wall",
        "date_of_loss": "2025-06-01",
        "amount_claimed": 6200,
    },
    "C-1044.yaml": {
        "loss_type": "theft",
        "cause": "burglars forced the back door",
        "quote": "Burglars forced the back door",
        "date_of_loss": "2025-09-14",
        "amount_claimed": 2600,
    },
}


def intake_facts(claim_file: str) -> dict[str, object]:
    facts = dict(CLAIM_FACTS[claim_file])
    quote = facts.pop("quote")
    return {
        **facts,
        "damage_start_date": None,
        "unknowns": ["damage_start_date"],
        "sources": {
            "loss_type": {"where": "description", "quote": quote},
            "cause": {"where": "description", "quote": quote},
            "date_of_loss": {"where": "date_of_loss"},
            "amount_claimed": {"where": "amount"},
        },
    }


class Script:
    """One scripted model per agent, so concurrent agents cannot take each other's answers."""

    def __init__(self, **answers: list[str]) -> None:
        self.llms = {
            name: ScriptedLLM(script, model=f"scripted-{name}") for name, script in answers.items()
        }

    def __call__(self, agent_name: str) -> ScriptedLLM:
        return self.llms.setdefault(agent_name, ScriptedLLM(model=f"scripted-{agent_name}"))


def responding(**responders: Callable[[Messages], str]) -> Script:
    """A Script whose agents answer by what their conversation says (intake=…, policy=…), so
    the order concurrent claims run in is free."""
    script = Script()
    script.llms = {name: ScriptedLLM(responder=answer) for name, answer in responders.items()}
    return script


def script_any_claim_run(monkeypatch: pytest.MonkeyPatch, ocr: bool = True) -> Script:
    """`claims-crew run` in this process with the project's config, every claim answered alike
    (a water intake, policy covered, fraud excluded), so the order claims run in is free. Without
    `ocr`, no OCR engine is found, and pictures are never opened."""
    script = responding(
        intake=lambda _m: final(INTAKE_WATER),
        policy=lambda _m: final(POLICY_COVERED),
        fraud=lambda _m: final(FRAUD_EXCLUDED),
    )
    monkeypatch.setenv("CLAIMS_CREW_CONFIG", str(ROOT / "config"))
    if not ocr:
        monkeypatch.setenv("CLAIMS_CREW_TESSERACT", str(ROOT / "no-tesseract-here"))
    monkeypatch.setattr(
        "claims_crew.llms.select.default_llm_factory", lambda *_args, **_kwargs: script
    )
    return script


def table_row(output: str, name: str) -> str:
    """The line of a run's table that names the claim file `name`."""
    return next(line for line in output.splitlines() if f"│ {name} " in line)


def claim_named(messages: object, claim_ids: Iterable[str]) -> str:
    """The one claim of `claim_ids` the conversation is about."""
    [claim] = [c for c in claim_ids if c in str(messages)]
    return claim


def looked_up(messages: object, clause: str = "4.2(b)") -> bool:
    """The lookup tool has answered with `clause` in this conversation."""
    return f"clause_id: {clause}" in str(messages)


def water_script() -> Script:
    """The design's example: policy looks 4.2(b) up; fraud cites 7.1 from memory. Their answers
    conflict over the open start date, so intake is asked when the damage started: null."""
    return Script(
        intake=[final(INTAKE_WATER), final(start_date_answer(None))],
        policy=[lookup("HM-HOME-001", "4.2(b)"), final(POLICY_COVERED)],
        fraud=[final(FRAUD_EXCLUDED)],
    )


def water_claim_saying_when(folder: Path, claim_id: str = "C-1042") -> Path:
    """A copy of C-1042 (under `claim_id`) whose description says when the leak began."""
    return water_claim_adding(folder, STARTED, claim_id)


def water_claim_adding(folder: Path, words: str, claim_id: str = "C-1042") -> Path:
    """A copy of C-1042 (under `claim_id`) whose description ends with `words`."""
    data = json.loads(WATER_CLAIM.read_text(encoding="utf-8"))
    data.update(claim_id=claim_id, description=f"{data['description']} {words}")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{claim_id}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# C-1042 as it would read had the claimant said when the plumber came, but not when the damage
# started: the date is there, in a sentence about another event.
FOUND_BY_TENANT = (
    "The damage was found by our tenant when she moved in. "
    "The plumber visited on 3 November 2025 and fixed the joint."
)
# Two quotes for that date as the damage's start: one joins the first sentence's subject to the
# second's date with an ellipsis; the other is a true sentence about the plumber's visit.
STITCHED = "The damage … 3 November 2025"
PLUMBER_VISITED = "The plumber visited on 3 November 2025"


def config_with(tmp_path: Path, agent: str, key: str, value: str) -> Path:
    """A copy of config/ in which one agent's YAML key is set to `value`."""
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    agents = yaml.safe_load((config / "agents.yaml").read_text(encoding="utf-8"))
    agents[agent][key] = value
    (config / "agents.yaml").write_text(yaml.safe_dump(agents), encoding="utf-8")
    return config


def targeted_config(tmp_path: Path, enabled: bool = True) -> Path:
    """A copy of config/ with resolution.yaml's targeted_evidence switched on (or off)."""
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    rules = (config / "resolution.yaml").read_text(encoding="utf-8")
    switch = re.compile(r"^targeted_evidence:\n  enabled: (true|false)\n", re.MULTILINE)
    assert len(switch.findall(rules)) == 1, "resolution.yaml has one targeted_evidence switch"
    on = f"targeted_evidence:\n  enabled: {'true' if enabled else 'false'}\n"
    (config / "resolution.yaml").write_text(switch.sub(on, rules), encoding="utf-8")
    return config


def settings(
    library: PolicyLibrary, script: Script, tmp_path: Path, config_dir: Path | None = None
) -> RunContext:
    return build_context(
        library=library,
        llm_for=script,
        store=Store(tmp_path / "claims.sqlite"),
        config_dir=config_dir or ROOT / "config",
    )
