"""Every YAML file is read through one home, settings/yaml_files.py, so what `config check`
accepts is what the loaders read: no other module calls PyYAML's loaders (AST only: nothing is
imported). And a loader meets a bad date as config check does, as a ConfigError, not PyYAML's
bare ValueError."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from claims_crew.errors import ConfigError
from claims_crew.policy.library import load_index_file
from claims_crew.prices import load_prices
from claims_crew.resolver.config import load_config
from tests.support.paths import ROOT

PACKAGE = ROOT / "src" / "claims_crew"
HOME = "settings/yaml_files.py"

# PyYAML's functions that build Python data from YAML text.
LOADERS = frozenset(
    {
        "load",
        "safe_load",
        "full_load",
        "unsafe_load",
        "load_all",
        "safe_load_all",
        "full_load_all",
        "unsafe_load_all",
    }
)


def yaml_loads(source: str) -> list[int]:
    """The lines where a source calls one of PyYAML's loaders, or imports one by name."""
    tree = ast.parse(source)
    aliases = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name == "yaml"
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "yaml" and node.level == 0:
            if any(alias.name in LOADERS for alias in node.names):
                found.append(node.lineno)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in LOADERS
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in aliases
        ):
            found.append(node.lineno)
    return sorted(found)


def outside_the_home(package: Path) -> list[str]:
    """Each place under `package` but the home that loads YAML itself, as `module:line`."""
    return [
        f"{relative}:{line}"
        for path in sorted(package.rglob("*.py"))
        if (relative := path.relative_to(package).as_posix()) != HOME
        for line in yaml_loads(path.read_text(encoding="utf-8"))
    ]


def test_only_the_home_loads_yaml() -> None:
    assert yaml_loads((PACKAGE / HOME).read_text(encoding="utf-8")), "the home must load it"
    assert outside_the_home(PACKAGE) == []


@pytest.mark.parametrize(
    "source",
    [
        "import yaml\nyaml.safe_load(text)\n",
        "import yaml\ndef f():\n    return yaml.load(raw, Loader=Mine)\n",
        "import yaml as y\ny.full_load(text)\n",
        "from yaml import safe_load\n",
        "import yaml\nlist(yaml.safe_load_all(text))\n",
    ],
)
def test_each_way_of_loading_is_caught(source: str) -> None:
    assert len(yaml_loads(source)) == 1


def test_reading_nodes_and_other_loads_pass() -> None:
    source = (
        "import json, yaml\n"
        "json.load(handle)\n"
        "yaml.parse(raw, Loader=yaml.SafeLoader)\n"
        "config.load(path)\n"
        "load(path)\n"
    )
    assert yaml_loads(source) == []


@pytest.fixture
def bad_dates(tmp_path: Path) -> Path:
    """A config and a policies folder, each file holding a date no calendar has."""
    (tmp_path / "resolution.yaml").write_text(
        "accept:\n  min_confidence: 2025-13-01\n", encoding="utf-8"
    )
    (tmp_path / "prices.yaml").write_text(
        "models:\n  m:\n    input: 2025-13-01\n    output: 1\n", encoding="utf-8"
    )
    (tmp_path / "index.yaml").write_text(
        "policies:\n  P-1:\n    file: p.pdf\n    in_force_from: 2025-13-01\n", encoding="utf-8"
    )
    return tmp_path


def test_a_loader_refuses_a_bad_date_as_config_check_does(bad_dates: Path) -> None:
    with pytest.raises(ConfigError, match=r"resolution\.yaml: accept\.min_confidence: "):
        load_config(bad_dates)
    with pytest.raises(ConfigError, match=r"prices\.yaml is not a valid price table"):
        load_prices(bad_dates)
    with pytest.raises(ConfigError, match=r"index\.yaml: policies\.P-1\."):
        load_index_file(bad_dates / "index.yaml")
