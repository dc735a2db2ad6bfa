"""The PDF text reader's children: reader.py run as a script, forked from a warm server.

How a child is started, forked and stopped is the documents' own (child_process.py,
forked_children.py); what is PDF's here is the script, the caps on a form's fields it is given,
and its keeper of a fork server.
"""

from __future__ import annotations

from pathlib import Path

from claims_crew.documents.child_process import Finished, run_child, script_command
from claims_crew.documents.forked_children import new_fork_servers
from claims_crew.documents.limits import (
    MAX_FORM_FIELD_CHARS,
    MAX_FORM_FIELDS,
    MAX_FORM_TEXT_CHARS,
)

READER_SCRIPT = Path(__file__).resolve().with_name("reader.py")


def reader_command() -> list[str]:
    """This interpreter running the reader script, with the caps on a form's fields and this
    process's sys.path as arguments."""
    caps = f"{MAX_FORM_FIELDS},{MAX_FORM_FIELD_CHARS},{MAX_FORM_TEXT_CHARS}"
    return script_command(READER_SCRIPT, f"--form-caps={caps}")


_FORKS = new_fork_servers()


def run_reader(data: bytes, limit_s: float) -> Finished:
    """Give `data` to a PDF reader child and collect what it writes.

    Raises subprocess.TimeoutExpired after `limit_s` seconds and OSError when no child starts;
    the child is dead in every case when this returns or raises.
    """
    return run_child(reader_command(), _FORKS, data, limit_s)
