"""settings/yaml_files reads with libyaml and gives what PyYAML's own parser gives: `parse` the
same data and, for every node, the same lines and offsets in the text, `plain_data` the same data;
a text libyaml refuses, and one that opens with a byte-order mark, are read by PyYAML's parser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from claims_crew.run.config_hash import config_sha256
from claims_crew.settings.yaml_files import _nodes_and_data, fast_loader, loader, parse, plain_data
from tests.support.paths import ROOT

SHIPPED = sorted(
    path
    for folder in ("config", "policies", "claims", "examples")
    for path in (ROOT / folder).rglob("*")
    if path.suffix in (".yaml", ".yml")
)


def marks(node: yaml.Node | None) -> Iterator[tuple[object, ...]]:
    """Each node's tag, value (a scalar's), and where it starts and ends, depth first."""
    if node is None:
        return
    start, end = node.start_mark, node.end_mark
    value = node.value if isinstance(node, yaml.ScalarNode) else None
    yield node.tag, value, start.line, start.column, start.index, end.line, end.index
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from marks(item)
    elif isinstance(node, yaml.MappingNode):
        for key, item in node.value:
            yield from marks(key)
            yield from marks(item)


def by_pyyaml(text: str) -> tuple[yaml.Node | None, object]:
    return _nodes_and_data(text, loader())


def test_this_pyyaml_has_libyaml() -> None:
    assert fast_loader() is not None  # the wheels PyPI ships are built with it


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_shipped_file_reads_as_pyyaml_reads_it(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    node, data = parse(text)
    expected_node, expected_data = by_pyyaml(text)
    assert data == expected_data
    assert list(marks(node)) == list(marks(expected_node))
    assert plain_data(text) == yaml.load(text, Loader=yaml.SafeLoader)  # dates as dates


def test_the_config_hash_is_the_one_pyyaml_s_parser_gave(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decisions keep the hash of the config they were made under: reading it on libyaml must
    not make every stored decision's config look changed."""
    on_libyaml = config_sha256(ROOT / "config")
    monkeypatch.setattr(yaml, "__with_libyaml__", False)
    assert config_sha256(ROOT / "config") == on_libyaml


def test_offsets_count_characters_and_dates_stay_text() -> None:
    text = 'holder: "Zoë Müller"\nlost: 2025-03-04\nitems: [vélo, 2]\nnote: é\n'
    node, data = parse(text)
    assert data == {"holder": "Zoë Müller", "lost": "2025-03-04", "items": ["vélo", 2], "note": "é"}
    assert list(marks(node)) == list(marks(by_pyyaml(text)[0]))
    assert isinstance(node, yaml.MappingNode)
    value = node.value[2][1].value[0]
    assert text[value.start_mark.index : value.end_mark.index] == "vélo"


def test_a_refused_text_is_worded_by_pyyaml() -> None:
    """PyYAML's error quotes the line under a caret; libyaml's marks hold no text to quote."""
    text = "number: HM-1\nform: [HM-HOME-001\nholder: x\n"
    with pytest.raises(yaml.YAMLError) as raised:
        parse(text)
    mark = raised.value.problem_mark  # type: ignore[attr-defined]
    assert mark.buffer is not None and "^" in str(raised.value)
    with pytest.raises(yaml.YAMLError) as again:
        by_pyyaml(text)
    assert str(raised.value) == str(again.value)
    with pytest.raises(yaml.YAMLError) as plain:
        plain_data(text)
    assert str(plain.value) == str(again.value)


def test_a_byte_order_mark_leaves_the_offsets_in_the_text() -> None:
    """libyaml counts its offsets from after the mark; the text a check slices still has it."""
    text = "\ufeffrole: '{claim_id} adjuster'\n"
    node, data = parse(text)
    assert data == {"role": "{claim_id} adjuster"}
    assert isinstance(node, yaml.MappingNode)
    value = node.value[0][1]
    assert text[value.start_mark.index : value.end_mark.index] == "'{claim_id} adjuster'"
