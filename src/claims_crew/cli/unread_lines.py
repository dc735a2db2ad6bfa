"""The parts of a claim's attachments that intake could not read, as `review show` and `claim
show` print them: one line a part, the reader's reason after it, decoration dim (it is listed,
but holds no decision back), every other part in yellow (the claim waits for a person)."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from claims_crew.cli.safe_text import plain
from claims_crew.documents.record import UnreadPart


def unread_lines(parts: list[dict[str, Any]]) -> list[Text]:
    """'Not read: part-1.bin, image/gif, 3 KB: unsupported_type', one a part (decoration dim)."""
    read = [UnreadPart.model_validate(p) for p in parts]
    said = [(p.line() + (f" ({p.reason})" if p.reason else ""), p.decoration) for p in read]
    return [plain(line, style="dim" if decoration else "yellow") for line, decoration in said]
