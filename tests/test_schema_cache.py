"""The JSON schemas of the answer and tool models: pydantic's own, generated once per class."""

from __future__ import annotations

from typing import Any

import pytest
from crewai.utilities.pydantic_schema_utils import generate_model_description
from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, JsonSchemaValue
from pydantic_core import CoreSchema

from claims_crew.models import AdjudicatorAnswer, Claim, ClaimAnswer, IntakeFacts, TargetedAnswer
from claims_crew.schema_cache import SchemaCached
from claims_crew.tools.policy_lookup import PolicyLookupArgs

MODELS: list[type[SchemaCached]] = [
    IntakeFacts,
    ClaimAnswer,
    Claim,
    AdjudicatorAnswer,
    TargetedAnswer,
    PolicyLookupArgs,
]


class Counting(GenerateJsonSchema):
    """Pydantic's generator, counting the schemas it generates."""

    generated = 0

    def generate(self, schema: CoreSchema, mode: JsonSchemaMode = "validation") -> JsonSchemaValue:
        type(self).generated += 1
        return super().generate(schema, mode)


def pydantics_own(model: type[BaseModel], **arguments: Any) -> dict[str, Any]:
    schema: dict[str, Any] = BaseModel.model_json_schema.__func__(model, **arguments)  # type: ignore[attr-defined]
    return schema


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_generated_once_and_the_same_as_pydantics(model: type[SchemaCached]) -> None:
    Counting.generated = 0
    first = model.model_json_schema(schema_generator=Counting)
    second = model.model_json_schema(schema_generator=Counting)
    assert Counting.generated == 1
    assert first == second == pydantics_own(model)
    for arguments in ({"ref_template": "#/$defs/{model}"}, {"mode": "serialization"}):
        assert model.model_json_schema(**arguments) == pydantics_own(model, **arguments)  # type: ignore[arg-type]


def test_each_caller_gets_its_own_copy() -> None:
    schema = IntakeFacts.model_json_schema()
    schema["properties"].clear()
    schema["title"] = "rewritten by a caller"
    again = IntakeFacts.model_json_schema()
    assert again == pydantics_own(IntakeFacts) and again["properties"]


def test_a_subclass_has_its_own_schema() -> None:
    assert Claim.model_json_schema()["title"] == "Claim"
    assert ClaimAnswer.model_json_schema()["title"] == "ClaimAnswer"


def test_what_crewai_puts_in_the_prompt_is_unchanged() -> None:
    for model in MODELS:
        described = generate_model_description(model)
        assert described == generate_model_description(model)
        assert described["json_schema"]["name"] == model.__name__
        assert described["json_schema"]["schema"]["properties"].keys() == (
            pydantics_own(model)["properties"].keys()
        )
