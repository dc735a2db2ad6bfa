"""The clauses a person's decision rests on, as the reviews and proposals tables keep them: JSON
of a list of PersonClause in a TEXT column, NULL where none was named."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import TypeAdapter

from claims_crew.records import PersonClause

_CLAUSES = TypeAdapter(tuple[PersonClause, ...])


def clauses_text(clauses: Sequence[PersonClause]) -> str | None:
    return _CLAUSES.dump_json(tuple(clauses)).decode("utf-8") if clauses else None


def clauses_of(text: str | None) -> tuple[PersonClause, ...]:
    return _CLAUSES.validate_json(text) if text else ()
