"""agents.yaml and tasks.yaml, parsed once per content rather than once per claim.

No upstream issue; CrewAI behaviour (1.15.x): CrewBase's `load_yaml` parses both files every
time a crew object is made. CrewBase reads them through `self.load_yaml`, so the crew sets this
module's `load_yaml` on the instance (CrewBase puts its own on the class).

CrewBase parses both files every time a crew object is made, and a run makes one per claim:
about 3 ms of CPU a claim under the GIL, for the same text every time. Here the parsed text is
kept per file together with the bytes it came from. Each call still reads the file, so an edit
(of any size, however soon after the last read) is parsed and seen by the next claim; an
unchanged file costs a read and a comparison.

Every caller gets its own deep copy: CrewBase writes the agents and tasks it builds into the
dictionaries it is given, so two crews must never share one.
"""

from __future__ import annotations

import copy
import logging
import threading
from pathlib import Path
from typing import Any

from claims_crew.settings.yaml_files import plain_data

_parsed: dict[Path, tuple[bytes, dict[str, Any]]] = {}
_lock = threading.Lock()


def load_yaml(config_path: Path) -> dict[str, Any]:
    """The file's YAML as CrewBase's own loader reads it: a mapping, or {} for anything else
    (an empty file, a list); a missing file logs a warning and raises FileNotFoundError."""
    path = Path(config_path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        logging.warning(f"File not found: {path}")
        raise
    with _lock:
        known = _parsed.get(path)
    if known is not None and known[0] == raw:
        parsed = known[1]
    else:
        # As open(..., encoding="utf-8") reads it: universal newlines.
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        content = plain_data(text)  # PyYAML's safe loader, as CrewBase's own reads it
        parsed = content if isinstance(content, dict) else {}
        with _lock:
            _parsed[path] = (raw, parsed)
    return copy.deepcopy(parsed)
