"""`claims-crew config check`: one broken file per problem, each with its message and line."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from claims_crew.cli import main
from claims_crew.config_check import (
    AGENT_IGNORED,
    AGENT_KEYS,
    MODEL_SETTINGS,
    PROVIDER_ALIASES,
    TASK_IGNORED,
    TASK_KEYS,
    TASK_REFUSED,
    check_config,
    check_or_raise,
    llm_problem,
)
from claims_crew.errors import ConfigError
from claims_crew.settings import policy_cache_dir
from claims_crew.vocabulary import AGENTS, KICKOFF_INPUTS, TASKS
from tests.support.paths import ROOT, SAMPLE_POLICIES

TERMINAL_CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture(scope="module")
def _sample_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample policies' index, as one check of the shipped config/ leaves it in its home:
    made once here, so that no test's check reads the PDFs again (a second a check)."""
    home = tmp_path_factory.mktemp("warm-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CLAIMS_CREW_HOME", str(home))
        patch.setenv("CLAIMS_CREW_POLICIES", str(SAMPLE_POLICIES))
        patch.setenv("CLAIMS_CREW_LOCAL_THREADS", "1")
        done = CliRunner().invoke(main, ["config", "check", "--config-dir", str(ROOT / "config")])
    assert done.exit_code == 0, done.output
    return home / "cache" / "policy-index"


@pytest.fixture(autouse=True)
def _warm_check(_private_home: None, _sample_index: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's home starts with the sample policies indexed, as a user's does after the
    first run, and the local model's thread count comes from its setting: without it each
    check watches the machine's load for a quarter second (llms/threads.py), which no test
    here reads. tests/test_local_threads.py covers the load, tests/test_library.py the PDFs."""
    shutil.copytree(_sample_index, policy_cache_dir())
    monkeypatch.setenv("CLAIMS_CREW_LOCAL_THREADS", "1")


def broken_copy(tmp_path: Path, file: str, old: str | None, new: str) -> tuple[Path, str]:
    """config/ copied with one edit: `old` replaced by `new` in `file` (or the file replaced)."""
    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    path = config / file
    if old is None:
        text = new
    else:
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{old!r} must occur once in {file}"
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return config, text


def line_of(text: str, needle: str) -> int:
    [line] = [i for i, ln in enumerate(text.splitlines(), 1) if needle in ln]
    return line


def check_json(config: Path) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(main, ["config", "check", "--json", "--config-dir", str(config)])
    return result.exit_code, json.loads(result.output)


# (file, old text, new text, code, words in the message, the line's needle or None, hint words)
BROKEN = [
    pytest.param(
        "tasks.yaml",
        "    (the clauses read both ways).\n  agent: policy\n",
        "    (the clauses read both ways).\n  agent: polcy\n",
        "unknown_agent",
        "names agent 'polcy', which agents.yaml does not define",
        "agent: polcy",
        "did you mean 'policy'?",
        id="task-names-missing-agent",
    ),
    pytest.param(
        "agents.yaml",
        "  role: Policy coverage reviewer\n",
        "  role: Policy coverage reviewer: senior\n",
        "yaml_syntax",
        "not valid YAML: mapping values are not allowed here",
        "role: Policy coverage reviewer: senior",
        "indentation",
        id="yaml-syntax-error",
    ),
    pytest.param(
        "agents.yaml",
        "  backstory: >\n    You read policy wordings",
        "  backstroy: >\n    You read policy wordings",
        "unknown_key",
        "unknown key 'backstroy'",
        "backstroy:",
        "did you mean 'backstory'?",
        id="unknown-key-with-suggestion",
    ),
    pytest.param(
        "agents.yaml",
        "  role: Claims intake analyst\n",
        "",
        "missing_field",
        "intake has no role",
        "intake:",
        "role, goal, backstory",
        id="agent-missing-role",
    ),
    pytest.param(
        "tasks.yaml",
        "  expected_output: >\n    JSON with choice",
        "  expected_output: ''\n  unused: >\n    JSON with choice",
        "missing_field",
        "adjudicate_task has an empty expected_output",
        "expected_output: ''",
        "description, expected_output, agent",
        id="task-empty-expected-output",
    ),
    pytest.param(
        "tasks.yaml",
        "decide whether claim {claim_id} is covered",
        "decide whether claim {claim_idd} is covered",
        "unknown_placeholder",
        "{claim_idd} is not supplied by the pipeline; it supplies {claim_id}, {policy_id}, "
        "{claim_text}, {allowed_answers}, {dispute}",
        "{claim_idd}",
        "did you mean {claim_id}?",
        id="placeholder-not-supplied",
    ),
    pytest.param(
        "agents.yaml",
        "fraud:\n  role:",
        "fraud:\n  llm: openia/gpt-4o-mini\n  role:",
        "bad_llm",
        "no CrewAI provider is called 'openia'",
        "llm: openia/gpt-4o-mini",
        "did you mean openai/gpt-4o-mini?",
        id="llm-no-provider-accepts",
    ),
    pytest.param(
        "agents.yaml",
        "fraud:\n  role:",
        "fraud:\n  llm: anthropic/gpt-4o\n  role:",
        "bad_llm",
        "CrewAI's anthropic provider does not take the model 'gpt-4o'",
        "llm: anthropic/gpt-4o",
        "claude-",
        id="llm-wrong-model-for-provider",
    ),
    pytest.param(
        "tasks.yaml",
        "  agent: fraud\n",
        "  agent: fraud\n  output_pydantic: ClaimAnswer\n",
        "ignored_key",
        "output_pydantic in YAML has no effect",
        "output_pydantic: ClaimAnswer",
        "crew.py sets it",
        id="output-pydantic-in-yaml",
    ),
    pytest.param(
        "tasks.yaml",
        "  agent: intake\n",
        "  agent: intake\n  guardrail: check_intake_json\n",
        "ignored_key",
        "guardrail in YAML has no effect",
        "guardrail: check_intake_json",
        "CrewAI asks a model to judge the answer",
        id="guardrail-function-name",
    ),
    pytest.param(
        "resolution.yaml",
        "  min_confidence: 0.85\n",
        "  min_confidence: 1.5\n",
        "bad_threshold",
        "1.5 is outside [0, 1]",
        "min_confidence: 1.5",
        "from 0 to 1",
        id="threshold-outside-0-1",
    ),
    pytest.param(
        "resolution.yaml",
        "automatic_outcomes: [ACCEPTED, PREFERRED, ADJUDICATED]",
        "automatic_outcomes: [ACCEPTED, PREFERED, ADJUDICATED]",
        "unknown_outcome",
        "unknown outcome 'PREFERED'",
        "automatic_outcomes:",
        "did you mean 'PREFERRED'?",
        id="unknown-outcome",
    ),
    pytest.param(
        "resolution.yaml",
        "    field: claim_file.amount\n",
        "    field: claim_file.amout\n",
        "unknown_gate_field",
        "gate 'large_amount': unknown field 'claim_file.amout'",
        "field: claim_file.amout",
        "did you mean 'claim_file.amount'?",
        id="gate-on-unknown-field",
    ),
    pytest.param(
        "resolution.yaml",
        "  min_confidence: 0.85\n",
        "  min_confidance: 0.85\n",
        "unknown_key",
        "unknown key 'min_confidance'",
        "min_confidance",
        "did you mean 'min_confidence'?",
        id="resolution-unknown-key",
    ),
    pytest.param(
        "agents.yaml",
        "fraud:\n  role:",
        "fraud:\n  temprature: 0.2\n  role:",
        "unknown_key",
        "unknown key 'temprature'",
        "temprature: 0.2",
        "did you mean 'temperature'? temperature is a setting of the model, not of the agent",
        id="misspelt-model-setting",
    ),
    pytest.param(
        "tasks.yaml",
        "  agent: fraud\n",
        "  agent: fraud\n  human_input: true\n",
        "refused_key",
        "human_input: true makes CrewAI stop after the task and wait for a person",
        "human_input: true",
        "review queue",
        id="human-input-stalls-a-run",
    ),
    pytest.param(
        "tasks.yaml",
        "  agent: fraud\n",
        "  agent: fraud\n  output_file: fraud.md\n",
        "refused_key",
        "outside CLAIMS_CREW_HOME",
        "output_file: fraud.md",
        "every answer is kept in the claim's record",
        id="output-file-writes-claim-data-outside-home",
    ),
    pytest.param(
        "resolution.yaml",
        "prefer: {}\n",
        "prefer:\n  min_confidence: 1.2\n",
        "bad_threshold",
        "1.2 is outside [0, 1]",
        "min_confidence: 1.2",
        "from 0 to 1",
        id="prefer-floor-outside-0-1",
    ),
    pytest.param(
        "resolution.yaml",
        "  agreement: either\n",
        "  agreement: all\n",
        "invalid_value",
        "'all' is not one of either, both",
        "agreement: all",
        "",
        id="tool-sourced-agreement-unknown",
    ),
    pytest.param(
        "resolution.yaml",
        "  escalate_when: either\n",
        "  escalate_when: eiter\n",
        "invalid_value",
        "'eiter' is not one of either, both",
        "escalate_when: eiter",
        "did you mean 'either'?",
        id="abstention-escalate-when-unknown",
    ),
    pytest.param(
        "resolution.yaml",
        "allowed_answers: [covered, not_covered, uncertain]",
        "allowed_answers: [covered, uncertain]",
        "invalid_value",
        "give at least two answers besides uncertain",
        "allowed_answers: [covered, uncertain]",
        "",
        id="abstention-is-not-an-answer",
    ),
    pytest.param(
        "resolution.yaml",
        "  amount_claimed: [claim,",
        "  amount_claimd: [claim,",
        "unknown_key",
        "unknown key 'amount_claimd'",
        "amount_claimd: [claim,",
        "did you mean 'amount_claimed'?",
        id="fact-cues-for-an-unknown-fact",
    ),
    pytest.param(
        "resolution.yaml",
        "first seen, since,",
        "first seen, '  ', since,",
        "invalid_value",
        "a cue is a word or words, not blank",
        "damage_start_date: [started",
        "",
        id="fact-cue-blank",
    ),
    pytest.param(
        "tasks.yaml",
        "adjudicate_task:\n",
        "summary_task:\n  description: x\n  expected_output: y\n  agent: intake\n\n"
        "adjudicate_task:\n",
        "unknown_task",
        "crew.py defines no task 'summary_task'; CrewAI never reads this entry",
        "summary_task:",
        "every task crew.py builds is already here",
        id="task-crew-py-does-not-define",
    ),
    pytest.param(
        "tasks.yaml",
        "  agent: intake\n",
        "  agent: intake\n  context: [fraud_task]\n",
        "context_order",
        "intake_task's context names 'fraud_task', which comes later in tasks.yaml",
        "context: [fraud_task]",
        "move fraud_task above intake_task",
        id="context-names-a-later-task",
    ),
    pytest.param(
        "agents.yaml",
        "  role: Coverage adjudicator\n",
        "  role: Coverage adjudicator\n  role: Senior adjudicator\n",
        "duplicate_key",
        "'role' is set twice",
        "role: Senior adjudicator",
        "merge",
        id="duplicate-key",
    ),
]


@pytest.mark.parametrize(("file", "old", "new", "code", "message", "needle", "hint"), BROKEN)
def test_each_broken_file_is_reported_with_its_line(
    tmp_path: Path,
    file: str,
    old: str,
    new: str,
    code: str,
    message: str,
    needle: str,
    hint: str,
) -> None:
    config, text = broken_copy(tmp_path, file, old, new)
    exit_code, payload = check_json(config)
    assert exit_code == 2
    assert payload["ok"] is False
    found = [p for p in payload["problems"] if p["code"] == code]
    assert found, payload["problems"]
    problem = found[0]
    assert problem["file"] == file
    assert message in problem["message"]
    assert problem["line"] == line_of(text, needle)
    assert hint in problem["hint"]
    assert problem["severity"] == "error"
    # The lines printed outside a terminal say the same, with file:line, and exit 2 too.
    plain = CliRunner().invoke(
        main, ["config", "check", "--config-dir", str(config)], env={"COLUMNS": "400"}
    )
    assert plain.exit_code == 2
    assert f"{file}:{line_of(text, needle)}" in plain.output


# A placeholder longer than a terminal is wide: outside a terminal it must stay whole.
LONG_TOKEN = "{claim_id_" + "and_the_policy_it_was_filed_under_" * 3 + "typo}"


# Unset, so that a CliRunner's output is not taken for a terminal whatever the shell sets.
NOT_A_TERMINAL: dict[str, str | None] = {"FORCE_COLOR": None, "TTY_COMPATIBLE": None}


@pytest.fixture
def broken_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working folder: config/ with an unknown placeholder and a refused key, and
    policies/index.yaml (CLAIMS_CREW_POLICIES) with a key given twice."""
    config, _ = broken_copy(
        tmp_path, "tasks.yaml", "  agent: fraud\n", "  agent: fraud\n  human_input: true\n"
    )
    tasks = config / "tasks.yaml"
    text = tasks.read_text(encoding="utf-8")
    first = "    Read claim {claim_id} below and extract its facts.\n"
    assert text.splitlines(keepends=True)[4] == first
    tasks.write_text(
        text.replace(first, first.replace("{claim_id}", LONG_TOKEN), 1), encoding="utf-8"
    )
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "index.yaml").write_text(
        "policies:\n  HM-1:\n    file: a.pdf\n    line: home\n    line: auto\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(tmp_path / "policies"))
    return tmp_path


def check_here(*args: str, **env: str | None) -> Result:
    """`claims-crew config check ARGS` in the working folder, with `env` set (None: unset)."""
    return CliRunner().invoke(main, ["config", "check", *args], env=env)


@pytest.mark.usefixtures("broken_project")
def test_outside_a_terminal_each_problem_is_one_whole_line() -> None:
    """As a linter writes them, `path:line: severity code: key: message (hint: …)`, the path
    as given and the words whole however narrow the console; the count, then the models."""
    result = check_here("--config-dir", "config", COLUMNS="40", **NOT_A_TERMINAL)
    assert result.exit_code == 2
    lines = result.stdout.splitlines()
    assert lines[:6] == [
        "config/tasks.yaml:5: error unknown_placeholder: intake_task.description: "
        f"{LONG_TOKEN} is not supplied by the pipeline; it supplies "
        "{claim_id}, {policy_id}, {claim_text}, {allowed_answers}, "
        "{dispute}, {question}, {other_claim}, {instructions_flag} "
        "(hint: a literal brace needs other text inside it, such as { word })",
        "config/tasks.yaml:47: error refused_key: fraud_task.human_input: human_input: true "
        "makes CrewAI stop after the task and wait for a person to type at the console: a "
        "batch run stalls, and with no console it fails (EOFError) (hint: remove it: a claim "
        "the rules cannot settle already goes to a person, through the review queue "
        "(claims-crew review list))",
        "policies/index.yaml:5: error duplicate_key: policies.HM-1.line: 'line' is set twice "
        "(first on line 4); only this one counts (hint: merge the two into one entry)",
        "policies/index.yaml:2: error bad_policy_entry: policies.HM-1: policies.HM-1.product: "
        "Field required",
        "policies/index.yaml:2: error bad_policy_entry: policies.HM-1: "
        "policies.HM-1.in_force_from: Field required",
        "config: 5 error(s), 0 warning(s)",
    ]
    # Then each agent's model, a whole line each, and the local model's threads.
    assert lines[6:10] == [
        f"model {agent}: local at in-process (key from -)"
        for agent in ("intake", "policy", "fraud", "adjudicator")
    ]
    assert len(lines) == 11 and lines[10].startswith("local model: ")
    # The default folder, config/ in the working folder, is named from there as well.
    default = check_here(CLAIMS_CREW_CONFIG=None, **NOT_A_TERMINAL)
    assert default.stdout.splitlines()[:5] == lines[:5]
    # --json as before: the file as named in its folder, and the folder once.
    payload = json.loads(check_here("--json", "--config-dir", "config").stdout)
    assert payload["config_dir"] == "config"
    assert [(p["file"], p["line"]) for p in payload["problems"]][:3] == [
        ("tasks.yaml", 5),
        ("tasks.yaml", 47),
        ("policies/index.yaml", 5),
    ]
    assert "folder" not in payload["problems"][0]


@pytest.mark.usefixtures("broken_project")
def test_a_terminal_still_gets_the_table() -> None:
    result = check_here(
        "--config-dir", "config", COLUMNS="80", TTY_COMPATIBLE="1", TERM="xterm-256color"
    )
    assert result.exit_code == 2
    shown = TERMINAL_CODES.sub("", result.stdout)
    assert "config: 5 error(s), 0 warning(s)" in shown
    assert "┃ where" in shown and "│ tasks.yaml:5 " in shown and "│ tasks.yaml:47 " in shown
    assert max(len(line) for line in shown.splitlines()) <= 80  # laid out for its width
    assert LONG_TOKEN not in shown  # folded to fit, as a table must
    assert not any(line.startswith("config/tasks.yaml:") for line in shown.splitlines())


@pytest.mark.parametrize("file", ["agents.yaml", "tasks.yaml", "resolution.yaml"])
def test_missing_and_empty_files_are_errors(tmp_path: Path, file: str) -> None:
    config, _ = broken_copy(tmp_path, file, None, "# nothing here yet\n")
    exit_code, payload = check_json(config)
    assert exit_code == 2
    [empty] = [p for p in payload["problems"] if p["file"] == file]
    assert (empty["code"], empty["line"]) == ("empty_file", None)
    assert "is empty" in empty["message"]

    (config / file).unlink()
    exit_code, payload = check_json(config)
    assert exit_code == 2
    [missing] = [p for p in payload["problems"] if p["file"] == file]
    assert missing["code"] == "missing_file"
    assert f"{config / file} does not exist" == missing["message"]


def test_missing_agent_that_crew_py_builds_is_an_error(tmp_path: Path) -> None:
    config, _ = broken_copy(tmp_path, "agents.yaml", "adjudicator:\n", "arbiter:\n")
    problems = {(p.code, p.key) for p in check_config(config)}
    assert ("missing_agent", "adjudicator") in problems
    assert ("unknown_agent", "arbiter") in problems  # the renamed entry is never read
    assert ("unknown_agent", "adjudicate_task.agent") in problems


def test_shipped_config_passes(tmp_path: Path) -> None:
    assert check_config(ROOT / "config") == []
    result = CliRunner().invoke(main, ["config", "check", "--config-dir", str(ROOT / "config")])
    assert result.exit_code == 0, result.output
    assert "ok" in result.output
    check_or_raise(ROOT / "config")  # does not raise


def test_agents_and_tasks_yaml_are_complete() -> None:
    agents = yaml.safe_load((ROOT / "config" / "agents.yaml").read_text(encoding="utf-8"))
    tasks = yaml.safe_load((ROOT / "config" / "tasks.yaml").read_text(encoding="utf-8"))
    assert set(agents) == {"intake", "policy", "fraud", "adjudicator"}
    assert set(tasks) == {
        "intake_task",
        "policy_task",
        "fraud_task",
        "adjudicate_task",
        "targeted_question_task",
        "policy_rebuttal_task",
        "fraud_rebuttal_task",
    }
    for agent in agents.values():
        assert all(agent[field].strip() for field in ("role", "goal", "backstory"))
    for task in tasks.values():
        assert task["agent"] in agents
        assert task["description"].strip() and task["expected_output"].strip()
        assert "output_pydantic" not in task  # CrewAI ignores it in YAML; it belongs in Python


def test_a_warning_alone_does_not_fail(tmp_path: Path) -> None:
    config, text = broken_copy(
        tmp_path, "agents.yaml", "fraud:\n  role:", "fraud:\n  llm: gpt-4o\n  role:"
    )
    exit_code, payload = check_json(config)
    assert exit_code == 0
    [warning] = payload["problems"]
    assert warning["severity"] == "warning" and warning["code"] == "bad_llm"
    assert warning["line"] == line_of(text, "llm: gpt-4o")
    check_or_raise(config)


@pytest.mark.parametrize(
    ("old", "new", "code", "needle"),
    [
        ("prefer: {}\n", "prefer:\n  min_confidence: 0.6\n", "weak_prefer_floor", "0.6"),
        ("  required: true\n", "  required: false\n", "tool_sourced_off", "required: false"),
        (
            "allowed_answers: [covered, not_covered, uncertain]",
            "allowed_answers: [covered, not_covered]",
            "abstention_unused",
            "abstention:",
        ),
        (
            "  damage_start_date: [started, start, starts, starting, began, begun, begin, begins, "
            "beginning,\n                      first noticed, first appeared, first seen, since, "
            "onset, burst]\n",
            "  damage_start_date: []\n",
            "fact_cues_off",
            "damage_start_date: []",
        ),
    ],
    ids=["prefer-floor-below-agreement", "tool-sourced-off", "abstention-unused", "cues-dropped"],
)
def test_resolution_settings_that_weaken_the_rules_warn(
    tmp_path: Path, old: str, new: str, code: str, needle: str
) -> None:
    config, text = broken_copy(tmp_path, "resolution.yaml", old, new)
    exit_code, payload = check_json(config)
    assert exit_code == 0
    [warning] = payload["problems"]
    assert (warning["severity"], warning["code"]) == ("warning", code)
    assert warning["line"] == line_of(text, needle)
    assert warning["hint"]


def test_intake_task_that_drops_the_sources_warns(tmp_path: Path) -> None:
    config, text = broken_copy(
        tmp_path, "tasks.yaml", "amount_claimed, unknowns and sources.", "amount_claimed, unknowns."
    )
    text = text.replace("sources maps every fact", "every fact").replace(
        "whose source does not", "whose origin does not"
    )
    (config / "tasks.yaml").write_text(text, encoding="utf-8")
    exit_code, payload = check_json(config)
    assert exit_code == 0
    [warning] = payload["problems"]
    assert (warning["severity"], warning["code"]) == ("warning", "intake_sources_dropped")
    assert warning["key"] == "intake_task.expected_output"
    assert warning["line"] == line_of(text, "The claim's facts as JSON") - 1  # the key's line


def test_human_input_false_and_an_empty_output_file_pass(tmp_path: Path) -> None:
    config, _ = broken_copy(
        tmp_path, "tasks.yaml", "  agent: fraud\n", "  agent: fraud\n  human_input: false\n"
    )
    text = (config / "tasks.yaml").read_text(encoding="utf-8")
    text = text.replace("  agent: intake\n", "  agent: intake\n  output_file: null\n", 1)
    (config / "tasks.yaml").write_text(text, encoding="utf-8")
    assert check_config(config) == []


# (file, old text, new text, the unknown word, what is already written beside it)
BESIDE = [
    pytest.param(
        "tasks.yaml",
        "  agent: policy\n",
        "  agent: policy\n  context: [intake_task, intake_tsk]\n",
        "intake_tsk",
        "intake_task",
        id="context-item-beside-the-task-it-misspells",
    ),
    pytest.param(
        "agents.yaml",
        "fraud:\n  role:",
        "fraud:\n  rol: Fraud analyst\n  role:",
        "rol",
        "role",
        id="agent-key-beside-the-key-it-misspells",
    ),
    pytest.param(
        "agents.yaml",
        "fraud:\n  role:",
        "fruad:\n  role: x\n  goal: y\n  backstory: z\n\nfraud:\n  role:",
        "fruad",
        "fraud",
        id="agent-entry-beside-the-agent-it-misspells",
    ),
    pytest.param(
        "resolution.yaml",
        "  max_confidence_gap: 0.25\n",
        "  max_confidence_gap: 0.25\n  min_confidance: 0.5\n",
        "min_confidance",
        "min_confidence",
        id="resolution-key-beside-the-key-it-misspells",
    ),
    pytest.param(
        "resolution.yaml",
        "automatic_outcomes: [ACCEPTED, PREFERRED, ADJUDICATED]",
        "automatic_outcomes: [ACCEPTED, PREFERRED, ADJUDICATED, ACEPTED]",
        "ACEPTED",
        "ACCEPTED",
        id="outcome-beside-the-outcome-it-misspells",
    ),
]


@pytest.mark.parametrize(("file", "old", "new", "word", "beside"), BESIDE)
def test_a_hint_never_proposes_what_is_already_there(
    tmp_path: Path, file: str, old: str, new: str, word: str, beside: str
) -> None:
    """Renaming the word to what is already beside it would only make a duplicate."""
    config, _ = broken_copy(tmp_path, file, old, new)
    [problem] = [p for p in check_config(config) if repr(word) in p.message]
    assert repr(beside) not in problem.hint
    assert "already" in problem.hint and "remove it" in problem.hint


def test_a_hint_proposes_the_nearest_name_not_yet_there(tmp_path: Path) -> None:
    config, _ = broken_copy(
        tmp_path, "tasks.yaml", "  agent: fraud\n", "  agent: fraud\n  context: [intake_tsk]\n"
    )
    [problem] = [p for p in check_config(config) if "'intake_tsk'" in p.message]
    assert problem.hint == "did you mean 'intake_task'?"


def test_check_or_raise_lists_every_error(tmp_path: Path) -> None:
    config, _ = broken_copy(
        tmp_path, "tasks.yaml", "  agent: fraud\n", "  agent: frau\n  output_json: X\n"
    )
    with pytest.raises(ConfigError) as caught:
        check_or_raise(config)
    text = str(caught.value)
    assert "2 problem(s)" in text
    assert "names agent 'frau'" in text and "output_json in YAML has no effect" in text


# --- what the check knows of CrewAI and of the crew is held to them ----------------------


def test_known_keys_are_fields_crewai_reads() -> None:
    from crewai import Agent, Task
    from crewai.project.crew_base import AgentConfig, TaskConfig

    assert set(Agent.model_fields) >= AGENT_KEYS
    assert set(Task.model_fields) >= TASK_KEYS
    assert set(AGENT_IGNORED) <= set(Agent.model_fields) | set(AgentConfig.__annotations__)
    assert set(TASK_IGNORED) <= set(Task.model_fields) | set(TaskConfig.__annotations__)
    assert not AGENT_KEYS & set(AGENT_IGNORED) and not TASK_KEYS & set(TASK_IGNORED)
    # Every key CrewAI documents for YAML is either accepted or reported as ignored.
    assert set(AgentConfig.__annotations__) <= AGENT_KEYS | set(AGENT_IGNORED) | {
        "knowledge_storage",
        "agent_knowledge_context",
        "crew_knowledge_context",
        "knowledge_search_query",
        "from_repository",
    }
    assert set(TaskConfig.__annotations__) <= TASK_KEYS | set(TASK_IGNORED)


def test_crew_names_match_crew_py() -> None:
    from claims_crew.crew.crew import ClaimsCrew

    methods = {name: getattr(ClaimsCrew, name) for name in dir(ClaimsCrew)}
    agents = {n for n, m in methods.items() if getattr(m, "is_agent", False)}
    tasks = {n for n, m in methods.items() if getattr(m, "is_task", False)}
    assert agents == set(AGENTS)
    assert tasks == set(TASKS)


def test_model_settings_are_crewai_model_fields_and_not_agent_fields() -> None:
    from crewai import Agent
    from crewai.llms.base_llm import BaseLLM

    assert set(BaseLLM.model_fields) >= MODEL_SETTINGS
    assert not MODEL_SETTINGS & set(Agent.model_fields)
    assert set(TASK_REFUSED) <= TASK_KEYS


def test_providers_match_crewai() -> None:
    from crewai.llm import PROVIDER_ALIASES as CREWAI_ALIASES
    from crewai.llm import SUPPORTED_NATIVE_PROVIDERS

    assert PROVIDER_ALIASES == CREWAI_ALIASES
    assert set(PROVIDER_ALIASES) == set(SUPPORTED_NATIVE_PROVIDERS)


@pytest.mark.parametrize(
    "model",
    [
        "openai/gpt-4o-mini",
        "openai/o3-mini",
        "openai/llama3",
        "anthropic/claude-sonnet-4-5",
        "claude/claude-haiku-4-5",
        "anthropic/gpt-4o",
        "gemini/gemini-2.5-pro",
        "google/palm-2",
        "bedrock/anthropic.claude-3-haiku-20240307-v1:0",
        "bedrock/claude",
        "ollama/llama3.2",
        "hosted_vllm/any-model",
        "deepseek/deepseek-chat",
        "deepseek/chat",
        "deepinfra/deepseek-ai/DeepSeek-V3",
        "openia/gpt-4o-mini",
        "together_ai/llama-3",
        "azure/my-deployment",
        "openrouter/meta/llama",
    ],
)
def test_llm_verdict_agrees_with_crewai_routing(model: str) -> None:
    """An error here exactly when CrewAI (without LiteLLM) cannot build the model natively."""
    from crewai.llm import LLM

    try:
        crewai_builds = LLM._resolve_route(model, {}).native_class is not None
    except ImportError:  # the provider's SDK is an extra that is not installed
        crewai_builds = False
    verdict = llm_problem(model)
    assert (verdict is None or verdict[2] == "warning") == crewai_builds, verdict


def test_pipeline_supplies_exactly_the_listed_inputs(
    sample_library: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from crewai import Crew

    from claims_crew.claim_files import load_claim
    from claims_crew.run.crew_review import review_claim
    from tests.support.crew import WATER_CLAIM, settings, water_script

    seen: list[dict[str, Any]] = []
    original = Crew.kickoff

    def recording(self: Crew, inputs: dict[str, Any] | None = None, **kw: Any) -> Any:
        seen.append(dict(inputs or {}))
        return original(self, inputs=inputs, **kw)

    monkeypatch.setattr(Crew, "kickoff", recording)
    review_claim(load_claim(WATER_CLAIM), settings(sample_library, water_script(), tmp_path))
    assert seen and set(seen[0]) == set(KICKOFF_INPUTS)


@pytest.mark.slow
def test_config_check_does_not_import_crewai() -> None:
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from claims_crew.cli import main\n"
        "r = CliRunner().invoke(main, ['config', 'check'])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('crewai', 'llama_cpp', 'litellm', 'openai')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
