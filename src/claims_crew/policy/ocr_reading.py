"""What the index keeps of a wording read by OCR (scanned.py): its confidence, its doubtful lines.

Kept in the index's meta table as JSON; a wording with a text layer has none.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

# A line read with less confidence than this is listed for a person to check against the page:
# the same bar as a claim attachment's OCR line.
from claims_crew.documents.record import LOW_CONFIDENCE

__all__ = ["LOW_CONFIDENCE", "OcrLineNote", "OcrReading"]


class OcrLineNote(BaseModel):
    """A line OCR was unsure of: where it is and how sure the engine was."""

    model_config = ConfigDict(frozen=True)

    page: int = Field(ge=1)
    text: str
    confidence: float = Field(ge=0.0, le=1.0)


class OcrReading(BaseModel):
    """That a wording was read by OCR: its mean confidence and its low-confidence lines."""

    model_config = ConfigDict(frozen=True)

    confidence: float = Field(ge=0.0, le=1.0)
    low_confidence_lines: tuple[OcrLineNote, ...] = ()
