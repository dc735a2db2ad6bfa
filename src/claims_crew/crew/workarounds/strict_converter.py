"""A converter that validates the agent's final answer and never asks a model to fix it.

No upstream issue for the behaviour itself; CrewAI behaviour (1.15.x): `Converter.to_pydantic`
sends the text to the agent's model to be turned into the schema, so an answer that does not
parse as it stands costs an extra model call, and a failed call fails the whole crew (crewAI
issue #3017 reports that fallback crashing). Here a bad answer is left as raw text: the pipeline
records it as a parse_error and the other agents' work is kept.
"""

from __future__ import annotations

from typing import Any

from crewai.utilities.converter import Converter, ConverterError
from pydantic import BaseModel, ValidationError


class StrictConverter(Converter):
    """Validate the text against the schema; a mismatch is a ConverterError, not a model call."""

    def to_pydantic(self, current_attempt: int = 1) -> BaseModel:
        try:
            return self.model.model_validate_json(self.text)
        except ValidationError as exc:
            return ConverterError(f"answer does not match {self.model.__name__}: {exc}")  # type: ignore[return-value]

    def to_json(self, current_attempt: int = 1) -> dict[str, Any]:
        result = self.to_pydantic(current_attempt)
        if isinstance(result, ConverterError):
            return result  # type: ignore[return-value]
        return result.model_dump(mode="json")
