"""Native structured output that keeps the provider's answer as it came, whatever it says.

No upstream issue; CrewAI behaviour (1.15.x): a task with an output schema whose agent has no
tools gets native structured output. The agent's executor hands the schema to the provider's
client as `response_model`, and the client validates the answer itself (OpenAI's SDK `parse`,
Anthropic's and Gemini's `model_validate_json`). An answer that does not validate, such as an
extra key from a server that ignores the schema, raises there: the provider's text is lost, the
call is logged as failed twice (`ERROR:root:OpenAI API call failed…`), its failure event is
emitted twice (the console's "Event pairing mismatch"), it is never counted as a completed call,
and the task fails.

`verbatim(schema)` is what the executor hands the client instead (agent_executor.py): a model
that shows the provider the same JSON schema, so decoding is held to it as before, and accepts
whatever comes back, keeping the text exactly. The task's raw output is then the provider's
words, and the pipeline's own parser (models.py) validates them as it does every other answer:
a mismatch is a parse_error with the raw text kept.
"""

from __future__ import annotations

import functools
import json
from typing import Any, ClassVar, Self

from pydantic import BaseModel, RootModel


class Verbatim(RootModel[Any]):
    """An answer as the provider sent it: the text from a client that validates JSON text, the
    parsed object from one that validates what it parsed itself."""

    schema_model: ClassVar[type[BaseModel]]

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The schema the provider is held to: the task's own."""
        return cls.schema_model.model_json_schema(*args, **kwargs)

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **_options: Any) -> Self:
        """Any text at all, kept as it is: not even parsed, so prose survives too."""
        text = json_data if isinstance(json_data, str) else bytes(json_data).decode("utf-8")
        return cls(root=text)

    def model_dump_json(self, **_options: Any) -> str:
        """The text as it came; an object a client parsed itself, as JSON."""
        if isinstance(self.root, str):
            return self.root
        return json.dumps(self.root, ensure_ascii=False)


@functools.cache
def verbatim(schema: type[BaseModel]) -> type[Verbatim]:
    """The Verbatim model for `schema`, named after it (the name the provider is sent). One
    class per schema for the whole process: declaring a pydantic class costs milliseconds."""
    if issubclass(schema, Verbatim):
        return schema

    class Kept(Verbatim):
        schema_model: ClassVar[type[BaseModel]] = schema

    Kept.__name__ = Kept.__qualname__ = schema.__name__
    return Kept
