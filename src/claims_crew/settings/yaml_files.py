"""The one home of reading the project's YAML files: parsed with the line of every node kept,
validated against the file's model, each error placed at its key path and line, every error of
the file at once. `config check` and every loader read through here, so what the check accepts
is what the loader reads; no other module calls PyYAML's loaders (tests/test_yaml_home.py).

PyYAML's safe loader turns `2025-13-01` into a date itself and fails with a bare ValueError
("month must be in 1..12"): no file, no line, no field, and no other error of the file is looked
at. Here a date stays text, so the file's model validates it beside every other field (pydantic
reads the ISO text as a date), and each validation error is placed on its line through the
file's nodes.

The files read as plain data, with no model (the claim files, the crew's agents.yaml and
tasks.yaml as CrewAI reads them, the config hash), are loaded here too (`plain_data`), PyYAML's
safe loader or one derived from it.

PyYAML is imported by the functions, not above: only the commands that read such a file pay
for it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from claims_crew.errors import ConfigError, YamlSyntaxError

if TYPE_CHECKING:
    import yaml

_Model = TypeVar("_Model", bound=BaseModel)
_Loader = TypeVar("_Loader", bound="yaml.constructor.SafeConstructor")
_Read = TypeVar("_Read")

TIMESTAMP = "tag:yaml.org,2002:timestamp"


@functools.cache
def loader() -> type[yaml.SafeLoader]:
    """A safe loader that keeps dates and times as the text written."""
    import yaml

    return _dates_as_text(yaml.SafeLoader)


@functools.cache
def fast_loader() -> type[yaml.CSafeLoader] | None:
    """`loader()` on libyaml, PyYAML's C parser; None where PyYAML was built without it."""
    import yaml

    return _dates_as_text(yaml.CSafeLoader) if yaml.__with_libyaml__ else None


def _dates_as_text(safe: type[_Loader]) -> type[_Loader]:
    """A loader of its own derived from the safe loader `safe`, timestamps left as text."""
    derived: type[_Loader] = type("DatesAsText", (safe,), {})
    derived.add_constructor(TIMESTAMP, _as_text)
    return derived


def _as_text(load: _Loader, node: yaml.Node) -> str:
    import yaml

    assert isinstance(node, yaml.ScalarNode)  # the timestamp tag resolves on scalars only
    return str(load.construct_scalar(node))


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
    """The text's nodes (for lines) and its data, dates as text. Raises yaml.YAMLError.

    Read by libyaml where PyYAML has it: PyYAML's own parser, in Python, took most of the time
    a `config check` spends checking, its imports aside, and every run, worker and server checks
    the config first (docs/benchmarks.md). libyaml's nodes carry the same lines and the same
    offsets in the text (config_check/checks.py quotes a value's source by them), and the data
    is constructed from those nodes, not parsed a second time. PyYAML's own parser reads a text
    libyaml refuses, so that an error is worded and placed as it always was (libyaml's marks
    quote no line), and a text that opens with a byte-order mark, which libyaml leaves out of
    its offsets."""
    fast = None if text.startswith("\ufeff") else fast_loader()
    return _libyaml_first(text, fast, loader(), _nodes_and_data)


def _libyaml_first(
    text: str | bytes,
    fast: type[yaml.CSafeLoader] | None,
    slow: type[yaml.SafeLoader],
    read: Callable[[Any, Any], _Read],
) -> _Read:
    """`read(text, fast)`, or `read(text, slow)` where there is no fast loader or it refuses
    the text: PyYAML's own parser then words the error, as it always did."""
    import yaml

    if fast is not None:
        try:
            return read(text, fast)
        except yaml.YAMLError:
            pass
    return read(text, slow)


def _nodes_and_data(
    text: str, loader_class: type[yaml.SafeLoader] | type[yaml.CSafeLoader]
) -> tuple[yaml.Node | None, Any]:
    """What yaml.compose and yaml.load return, from one parse."""
    load = loader_class(text)
    try:
        node = load.get_single_node()
        return node, (None if node is None else load.construct_document(node))
    finally:
        load.dispose()


def plain_data(text: str | bytes, safe_loader: type[yaml.SafeLoader] | None = None) -> Any:
    """The text as plain data by PyYAML's safe loader (dates as dates, no lines), or by
    `safe_loader`, one derived from it: for the files read as CrewAI reads them, or hashed as
    they always were. Raises yaml.YAMLError (ValueError for a bad date).

    PyYAML's safe loader reads on libyaml where PyYAML has it, as `parse` does: the same
    constructors build the same data (run/config_hash.py's hashes stay as they were)."""
    import yaml

    if safe_loader is not None:
        return yaml.load(text, Loader=safe_loader)
    fast = yaml.CSafeLoader if yaml.__with_libyaml__ else None
    return _libyaml_first(text, fast, yaml.SafeLoader, lambda t, using: yaml.load(t, Loader=using))


def nests_deeper_than(raw: str | bytes, limit: int) -> bool:
    """Whether YAML nests more than `limit` deep, read from the parser's events: the parser is a
    loop, while the composer that a load runs after it recurses once per level."""
    import yaml

    depth = 0
    for event in yaml.parse(raw, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > limit:
                return True
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return False


def syntax_line(exc: Exception) -> int | None:
    """The line a YAML error points at, where it says."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return int(mark.line) + 1 if mark is not None else None


@dataclass(frozen=True)
class Placed:
    """One error of a file's validation, placed: the key path and line it is at in the file, as
    deep as the YAML goes, with pydantic's own parts of it."""

    key: str  # "" for the file as a whole
    line: int | None
    loc: tuple[int | str, ...]
    type: str
    msg: str
    input: Any = None
    ctx: Mapping[str, Any] = field(default_factory=dict)

    def dotted(self, whole: str) -> str:
        """Pydantic's location as `a.b.0`, or `whole` for an error about the whole file."""
        return ".".join(str(p) for p in self.loc) or whole

    def worded(self, whole: str) -> str:
        """`key.path: message`, as errors.validation_problems words it (no line)."""
        return f"{self.dotted(whole)}: {self.msg}"

    def at_line(self, where: object, whole: str) -> str:
        """`where:line: field: message`, the field as deep as the YAML goes."""
        at = f"{where}:{self.line}" if self.line is not None else f"{where}"
        return f"{at}: {self.key or self.dotted(whole)}: {self.msg}"


@dataclass(frozen=True)
class Checked(Generic[_Model]):
    """A file's data validated against its model: the value, or each error placed, with
    pydantic's own error for a caller that words it whole."""

    value: _Model | None
    errors: list[Placed]
    failure: ValidationError | None = None


def placed(root: yaml.Node | None, exc: ValidationError) -> list[Placed]:
    """Each of the validation's errors at its key path and line in the file `root` was read from."""
    found = []
    for error in exc.errors():
        key, line = locate(root, error["loc"]) if root is not None else ("", None)
        found.append(
            Placed(
                key,
                line,
                tuple(error["loc"]),
                error["type"],
                error["msg"],
                error.get("input"),
                error.get("ctx") or {},
            )
        )
    return found


def check(model: type[_Model], data: Any, root: yaml.Node | None) -> Checked[_Model]:
    """`data` validated as `model`, each error placed through `root`, the file's nodes."""
    try:
        return Checked(model.model_validate(data), [])
    except ValidationError as exc:
        return Checked(None, placed(root, exc), exc)


@dataclass(frozen=True)
class YamlDocument:
    """A YAML file as nodes (for lines) and data (dates as text, for its model)."""

    where: str
    root: yaml.Node | None
    data: Any

    def check(self, model: type[_Model], empty_as_mapping: bool = True) -> Checked[_Model]:
        """The data validated as `model`; an empty file (and, as the loaders always read it,
        any other falsy data) as an empty mapping unless `empty_as_mapping` is false."""
        return check(model, (self.data or {}) if empty_as_mapping else self.data, self.root)


def parse_document(text: str, where: object) -> YamlDocument:
    """`text`, the file at `where`, parsed. Raises YamlSyntaxError naming `where` and the line."""
    import yaml

    try:
        root, data = parse(text)
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        # ValueError and TypeError: a constructor given an explicit tag (`!!int x`).
        marked = isinstance(exc, yaml.MarkedYAMLError)
        problem = str(getattr(exc, "problem", None) or exc)
        raise YamlSyntaxError(where, syntax_line(exc), problem, str(exc), marked) from exc
    return YamlDocument(str(where), root, data)


def read_document(path: Path) -> YamlDocument:
    """The file at `path` read and parsed. A missing file raises FileNotFoundError, for the
    caller to say what its absence means; one that cannot be read, a ConfigError; one that
    cannot be parsed, a YamlSyntaxError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from exc
    return parse_document(text, path)


def read_required(path: Path, missing: str) -> YamlDocument:
    """The file at `path`, which must be there: a missing one is a ConfigError `path: missing`
    in the caller's words; one that cannot be parsed, `path: not valid YAML:` with PyYAML's
    whole message."""
    try:
        return read_document(path)
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: {missing}") from exc
    except YamlSyntaxError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc.detail}") from exc


def model_from_yaml(path: Path, model: type[_Model], whole: str) -> _Model:
    """`path` read as YAML and validated as `model`. A file that cannot be read or parsed is a
    ConfigError naming it and the line; one that fails validation, a ConfigError with one
    `file:line: field: message` line for each error. A missing file raises FileNotFoundError,
    for the caller to say what its absence means."""
    checked = read_document(path).check(model)
    if checked.value is None:
        raise ConfigError("\n".join(e.at_line(path, whole) for e in checked.errors)) from (
            checked.failure
        )
    return checked.value
