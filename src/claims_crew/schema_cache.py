"""JSON schemas of the models agents answer in, generated once per class rather than per use.

CrewAI writes a model's JSON schema into every prompt that asks for it: the answer schema of
each task it runs, and the argument schema of each tool each time an agent is set up for a
task, about fourteen schemas a claim. Pydantic generates the schema afresh on every call,
a fraction of a millisecond each, all of it CPU under the GIL while claims run side by side.

A class's schema depends only on the class and the arguments asked for, and these classes do
not change once defined, so `SchemaCached` keeps each one. Every caller gets its own deep copy,
as from pydantic: callers rewrite the schemas they are given (CrewAI inlines references,
the local model bounds string lengths).
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.json_schema import DEFAULT_REF_TEMPLATE, GenerateJsonSchema, JsonSchemaMode

_schemas: dict[tuple[Any, ...], dict[str, Any]] = {}


class SchemaCached(BaseModel):
    """A pydantic model whose `model_json_schema` is generated once per class and arguments."""

    @classmethod
    def model_json_schema(
        cls,
        by_alias: bool = True,
        ref_template: str = DEFAULT_REF_TEMPLATE,
        schema_generator: type[GenerateJsonSchema] = GenerateJsonSchema,
        mode: JsonSchemaMode = "validation",
        *,
        union_format: Literal["any_of", "primitive_type_array"] = "any_of",
    ) -> dict[str, Any]:
        key = (cls, by_alias, ref_template, schema_generator, mode, union_format)
        schema = _schemas.get(key)
        if schema is None:
            schema = super().model_json_schema(
                by_alias, ref_template, schema_generator, mode, union_format=union_format
            )
            _schemas[key] = schema  # two threads may both make it: the same schema either way
        return copy.deepcopy(schema)
