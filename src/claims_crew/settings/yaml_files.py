"""The project's YAML files read with their lines: each error as `file:line: field: message`,
every error of the file at once.

PyYAML's safe loader turns `2025-13-01` into a date itself and fails with a bare ValueError
("month must be in 1..12"): no file, no line, no field, and no other error of the file is looked
at. Here a date stays text, so the file's model validates it beside every other field (pydantic
reads the ISO text as a date), and each validation error is placed on its line through the
file's nodes. config_check reads the files the same way.

PyYAML is imported by the functions, not above: only the commands that read such a file pay
for it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from claims_crew.errors import ConfigError

if TYPE_CHECKING:
    import yaml

_Model = TypeVar("_Model", bound=BaseModel)

TIMESTAMP = "tag:yaml.org,2002:timestamp"


@functools.cache
def loader() -> type[yaml.SafeLoader]:
    """A safe loader that keeps dates and times as the text written."""
    import yaml

    class DatesAsText(yaml.SafeLoader):
        pass

    def as_text(load: yaml.SafeLoader, node: yaml.Node) -> str:
        assert isinstance(node, yaml.ScalarNode)  # the timestamp tag resolves on scalars only
        return str(load.construct_scalar(node))

    DatesAsText.add_constructor(TIMESTAMP, as_text)
    return DatesAsText


def line_of(node: yaml.Node) -> int:
    """The 1-based line the node starts on."""
    return int(node.start_mark.line) + 1


def mapping_items(node: yaml.MappingNode) -> Iterator[tuple[str, yaml.Node, yaml.Node]]:
    """Each key of a mapping, in file order and duplicates included, with its two nodes."""
    for key_node, value_node in node.value:
        yield str(key_node.value), key_node, value_node


def locate(root: yaml.Node, loc: Sequence[int | str]) -> tuple[str, int | None]:
    """The key path and line of a pydantic error's `loc`, as deep as the YAML goes."""
    import yaml

    node: yaml.Node = root
    path = ""
    line: int | None = line_of(root)
    for part in loc:
        if isinstance(part, int) and isinstance(node, yaml.SequenceNode):
            if part >= len(node.value):
                break
            node = node.value[part]
            path, line = f"{path}[{part}]", line_of(node)
        elif isinstance(node, yaml.MappingNode):
            found = [(k, v) for key, k, v in mapping_items(node) if key == str(part)]
            if not found:
                break
            key_node, node = found[-1]
            path, line = (f"{path}.{part}" if path else str(part)), line_of(key_node)
        else:
            break
    return path, line


def parse(text: str) -> tuple[yaml.Node | None, Any]:
    """The text's nodes (for lines) and its data, dates as text. Raises yaml.YAMLError."""
    import yaml

    dates_as_text = loader()
    return yaml.compose(text, Loader=dates_as_text), yaml.load(text, Loader=dates_as_text)


def syntax_line(exc: Exception) -> int | None:
    """The line a YAML error points at, where it says."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return int(mark.line) + 1 if mark is not None else None


def placed_errors(
    where: object, root: yaml.Node | None, exc: ValidationError, whole: str
) -> list[str]:
    """Each validation error as `where:line: field: message`; `whole` names the field of an
    error about the file as a whole."""
    lines = []
    for error in exc.errors():
        field, line = locate(root, error["loc"]) if root is not None else ("", None)
        field = field or ".".join(str(p) for p in error["loc"]) or whole
        at = f"{where}:{line}" if line is not None else f"{where}"
        lines.append(f"{at}: {field}: {error['msg']}")
    return lines


def model_from_yaml(path: Path, model: type[_Model], whole: str) -> _Model:
    """`path` read as YAML and validated as `model`. A file that cannot be read or parsed is a
    ConfigError naming it and the line; one that fails validation, a ConfigError with one
    `file:line: field: message` line for each error. A missing file raises FileNotFoundError,
    for the caller to say what its absence means."""
    import yaml

    try:
        root, data = parse(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from exc
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        # ValueError and TypeError: a constructor given an explicit tag (`!!int x`).
        line = syntax_line(exc)
        at = f"{path}:{line}" if line is not None else f"{path}"
        problem = getattr(exc, "problem", None) or exc
        raise ConfigError(f"{at}: not valid YAML: {problem}") from exc
    try:
        return model.model_validate(data or {})
    except ValidationError as exc:
        raise ConfigError("\n".join(placed_errors(path, root, exc, whole))) from exc
