"""The structured-output and tool-argument descriptions of our own models, made once per class.

No upstream issue; CrewAI behaviour (1.15.x): `generate_model_description` turns a pydantic
class into the JSON schema a prompt or a native tool call carries, and CrewAI calls it afresh
each time one is needed: for each task's answer model as its prompt is built (agent/utils.py)
and in the converter's instructions (utilities/converter.py), and for each tool's description
(tools/structured_tool.py) and native schema (utilities/agent_utils.py). That is 12 a claim,
each taking the whole schema through eight rewriting passes (references inlined, formats
stripped, every property required, ...), all of it CPU under the GIL while claims run side by
side: about 6% of a claim's profiled CPU (docs/benchmarks.md, "Where one claim's CPU goes").

The description depends only on the class and `strip_null_types`. So for our own answer and
tool-argument models (`SchemaCached` subclasses: fixed classes, defined once, so the cache is
as small as they are few) it is made once and kept; every caller gets its own deep copy, as
CrewAI's callers edit what they are given (agent_utils pops the title). The copy is made by
parsing the description's JSON text, kept with it, where `copy.deepcopy` walked it in Python
(2% of a claim's profiled CPU); a description that would not come back from its text exactly,
value for value and type for type, is copied by `copy.deepcopy` as before. Any other class goes to
CrewAI's own function. Each of the four modules imported the function by name, so `install`
sets it in each, and fails loudly where one no longer has it.

The converter's instructions (`get_conversion_instructions`: the description as indented JSON
in CrewAI's "formatted_task_instructions" text) are made for every answer a task converts, two
a claim, though our StrictConverter never reads them (strict_converter.py); CrewAI's function
makes the same text whether the model calls functions or not, so for our models it is made
once per class too, and the converter module's name set to ours.
"""

from __future__ import annotations

import copy
import importlib
import json
import threading
from typing import Any

from crewai.utilities import converter, pydantic_schema_utils
from pydantic import BaseModel

from claims_crew.schema_cache import SchemaCached

CREWAI_CALLERS = (
    "crewai.agent.utils",
    "crewai.utilities.converter",
    "crewai.tools.structured_tool",
    "crewai.utilities.agent_utils",
)

_crewais = pydantic_schema_utils.generate_model_description
# The description and, where it comes back from it exactly, its JSON text.
_made: dict[tuple[type[BaseModel], bool], tuple[Any, str | None]] = {}
_crewais_instructions = converter.get_conversion_instructions
_instructions: dict[type[BaseModel], str] = {}
_lock = threading.Lock()


def generate_model_description(model: type[BaseModel], *, strip_null_types: bool = True) -> Any:
    """CrewAI's description of `model`, kept per class for our own models."""
    if not (isinstance(model, type) and issubclass(model, SchemaCached)):
        return _crewais(model, strip_null_types=strip_null_types)
    key = (model, strip_null_types)
    with _lock:
        made = _made.get(key)
    if made is None:
        description = _crewais(model, strip_null_types=strip_null_types)
        dumped = json.dumps(description)
        made = (description, dumped if same(json.loads(dumped), description) else None)
        with _lock:
            _made[key] = made  # two threads may both make it: the same description either way
    description, text = made
    return json.loads(text) if text is not None else copy.deepcopy(description)


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (1 is not 1.0, a tuple is not a list)."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) in (str, int, float, bool, type(None)) and a == b


def get_conversion_instructions(model: type[BaseModel], llm: Any) -> str:
    """CrewAI's conversion instructions for `model`, kept per class for our own models."""
    if not (isinstance(model, type) and issubclass(model, SchemaCached)):
        return _crewais_instructions(model=model, llm=llm)
    made = _instructions.get(model)
    if made is None:
        made = _instructions[model] = _crewais_instructions(model=model, llm=llm)
    return made


def install() -> None:
    """Our functions in place of CrewAI's in each module that calls them."""
    if converter.get_conversion_instructions not in (
        _crewais_instructions,
        get_conversion_instructions,
    ):
        raise RuntimeError(
            "crewai.utilities.converter's get_conversion_instructions is no longer its own: "
            "revisit crew/workarounds/model_descriptions.py"
        )
    converter.get_conversion_instructions = get_conversion_instructions
    for name in CREWAI_CALLERS:
        module = importlib.import_module(name)
        if getattr(module, "generate_model_description", None) not in (
            _crewais,
            generate_model_description,
        ):
            raise RuntimeError(
                f"{name} no longer calls CrewAI's generate_model_description by that name: "
                "revisit crew/workarounds/model_descriptions.py"
            )
        module.generate_model_description = generate_model_description  # type: ignore[attr-defined]
