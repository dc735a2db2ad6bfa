"""Text from outside, made safe to print: what a claim file, a model, a provider or a PDF says.

Two things go wrong when such text reaches the console as it is. rich reads `[...]` as markup,
so a provider's error or a YAML error quoting `[/x]` raises MarkupError and loses the rest of the
output. And a terminal obeys control characters: ESC and CSI sequences in a claim description
can recolour, clear or retitle what a reviewer sees, or hide text. So every command prints
outside text through one of these: `plain` for a rich Text (never markup), `markup` to put it
inside a markup string, `clean` for click.echo. Control characters are shown as escapes
(`\\x1b`), not dropped, so a reviewer sees that a claim carried them; newlines and tabs stay.
`--json` output goes through `json_text`, which writes the ones JSON lets through raw (DEL, C1,
the bidirectional marks) as `\\u` escapes: the same JSON value, harmless in a terminal.
"""

from __future__ import annotations

import re

from rich.markup import escape
from rich.text import Text

# C0 controls but tab and newline, DEL, C1 controls, and the Unicode marks that reorder how a
# line is displayed (bidirectional embeddings, overrides and isolates).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _shown(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean(text: object) -> str:
    """`text` as a string, each control character written as its escape (a Windows line end
    is a line end)."""
    return _UNSAFE.sub(_shown, str(text).replace("\r\n", "\n"))


def plain(text: object, style: str = "") -> Text:
    """Outside text as a rich Text: styled as a whole, never read as markup."""
    return Text(clean(text), style=style)


def markup(text: object) -> str:
    """Outside text to put inside a markup string: its `[` escaped, its controls shown."""
    return escape(clean(text))


def json_text(document: str) -> str:
    """A JSON document with every control character that is still raw written as `\\uXXXX`.

    JSON escapes C0 inside strings, and raw controls can appear nowhere else, so this changes
    how the document looks, never what it says.
    """
    return _UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", document)
