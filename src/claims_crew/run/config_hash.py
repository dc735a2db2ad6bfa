"""The one hash of a project's config, recorded with every decision it stood on.

SHA-256 over the canonical content of agents.yaml, tasks.yaml, resolution.yaml and, where there
is one, prices.yaml: each file as YAML data, written as JSON with sorted keys. Comments, key
order and spacing do not change it; any value that can change a decision does. A file that is
not valid YAML is hashed as its text, and a missing one as null, so both still show as changed.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml

from claims_crew import settings
from claims_crew.prices import PRICES_FILE
from claims_crew.settings.yaml_files import plain_data

CONFIG_FILES = ("agents.yaml", "tasks.yaml", "resolution.yaml", PRICES_FILE)


def _content(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        # PyYAML's plain reading (dates as dates), as the hashes already recorded were made.
        return {"yaml": plain_data(text)}
    except yaml.YAMLError:
        return {"text": text}


def config_sha256(config_dir: Path | None = None) -> str:
    """The hash of the config files in `config_dir` (default: the project's config/)."""
    folder = config_dir if config_dir is not None else settings.config_dir()
    content = {name: _content(folder / name) for name in CONFIG_FILES}
    # default=str: YAML dates and times become their ISO text, the same on every read.
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
