"""Reading config/*.yaml with PyYAML's node API, so every problem has a file, key path and line.

Plain data has no lines, and PyYAML keeps the last of two equal keys without a word. Each file
is read as its loader reads it (settings/yaml_files.py: nodes for the lines, dates as text, so a
bad one is a validation error on its line beside the file's others, not a crash) and checked for
duplicate keys, before the checks in checks.py read it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel

from claims_crew.config_check.problems import Problem
from claims_crew.errors import YamlSyntaxError
from claims_crew.settings.yaml_files import (
    Checked,
    check,
    line_of,
    locate,
    mapping_items,
    parse_document,
)

__all__ = ["Loaded", "line_of", "load_file", "locate", "mapping_items", "scalar_of", "siblings"]

_Model = TypeVar("_Model", bound=BaseModel)


def scalar_of(node: yaml.Node) -> str | None:
    """The node's text when it is a scalar; None for a mapping or a list."""
    return node.value if isinstance(node, yaml.ScalarNode) else None


@dataclass(frozen=True)
class Loaded:
    """A YAML file as both nodes (for lines) and plain data (for validation)."""

    name: str
    text: str
    root: yaml.MappingNode
    data: dict[str, Any]

    def check(self, model: type[_Model]) -> Checked[_Model]:
        """The data validated as `model` as its loader validates it, each error placed
        (settings/yaml_files.py)."""
        return check(model, self.data or {}, self.root)


def load_file(folder: Path, name: str, problems: list[Problem]) -> Loaded | None:
    """The file read both ways, or None with the reason added to `problems`."""
    path = folder / name
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        problems.append(
            Problem(
                name,
                "",
                None,
                "missing_file",
                f"{path} does not exist",
                "CrewAI would run with no config at all; copy it back from git",
            )
        )
        return None
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(name, "", None, "unreadable_file", f"{path}: {exc}"))
        return None
    try:
        # Dates as text: the file's model validates them with the rest.
        document = parse_document(text, path)
    except YamlSyntaxError as exc:
        hint = "check the indentation and quoting on that line and the one before it"
        problems.append(
            Problem(
                name,
                "",
                exc.line if exc.marked else None,
                "yaml_syntax",
                f"not valid YAML: {exc.problem}",
                hint if exc.marked else "",
            )
        )
        return None
    root, data = document.root, document.data
    if root is None:
        problems.append(
            Problem(
                name,
                "",
                None,
                "empty_file",
                f"{path} is empty",
                "CrewAI would treat it as {} and run with nothing configured",
            )
        )
        return None
    if not isinstance(root, yaml.MappingNode) or not isinstance(data, dict):
        problems.append(
            Problem(
                name,
                "",
                line_of(root),
                "not_a_mapping",
                "the file must be a mapping of names to settings",
            )
        )
        return None
    problems.extend(_duplicates(name, root))
    return Loaded(name, text, root, data)


def _duplicates(name: str, node: yaml.Node, path: str = "") -> Iterator[Problem]:
    """PyYAML keeps the last of two equal keys without a word; the first is lost."""
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key, key_node, value_node in mapping_items(node):
            full = f"{path}.{key}" if path else key
            if key in seen:
                yield Problem(
                    name,
                    full,
                    line_of(key_node),
                    "duplicate_key",
                    f"{key!r} is set twice (first on line {seen[key]}); only this one counts",
                    "merge the two into one entry",
                )
            seen.setdefault(key, line_of(key_node))
            yield from _duplicates(name, value_node, full)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from _duplicates(name, item, f"{path}[{i}]")


def siblings(data: Any, loc: Sequence[int | str]) -> list[str]:
    """What is written beside the part of `data` at `loc`: the other keys of the mapping that
    holds it, or the other items of its list (a hint must not propose one of those)."""
    holder = data
    for part in loc[:-1]:
        in_mapping = isinstance(holder, dict) and part in holder
        in_list = isinstance(holder, list) and isinstance(part, int) and part < len(holder)
        if not (in_mapping or in_list):
            return []
        holder = holder[part]
    last = loc[-1] if loc else None
    if isinstance(holder, dict):
        return [str(k) for k in holder if k != last]
    if isinstance(holder, list):
        return [str(v) for i, v in enumerate(holder) if i != last]
    return []
