"""The rules as a list: the order they run in is the order the docs give, one module per rule,
and every outcome change goes through Resolution's typed methods."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

import claims_crew.resolver
from claims_crew.policy.library import PolicyLibrary
from claims_crew.records.resolution import Resolution, ResolutionChanges
from claims_crew.resolver.case_files import load_case
from claims_crew.resolver.config import load_config
from claims_crew.resolver.rules import ORDER, RULES, resolve

ROOT = Path(__file__).resolve().parent.parent
RESOLVER = ROOT / "src" / "claims_crew" / "resolver"
CONFIG = load_config(ROOT / "config")


def documented_order() -> list[str]:
    """The rule names the package docstring lists under "The rules, in order", one a line."""
    doc = claims_crew.resolver.__doc__ or ""
    listed = doc.split("The rules, in order", 1)[1].split("\n\n", 1)[0]
    # A rule's line starts with two spaces and its name; a continuation line is indented more.
    return re.findall(r"^  ([a-z]+)\s", listed, flags=re.MULTILINE)


def page_order() -> list[str]:
    """The rule names of the table on the resolver's page (docs/resolver.md), in its order."""
    page = (ROOT / "docs" / "resolver.md").read_text(encoding="utf-8")
    names = re.findall(r"^\| ([a-z-]+) \|", page.split("\n## ", 1)[0], flags=re.MULTILINE)
    # "re-read" is the reread rule; the debate row is a level the pipeline runs, not a rule.
    rules = {rule.name for rule in RULES} | {"gates"}
    return [n.replace("-", "") for n in names if n.replace("-", "") in rules]


def test_the_rules_run_in_the_documented_order() -> None:
    assert documented_order() == list(ORDER)
    assert ORDER[-1] == "gates" and [rule.name for rule in RULES] == list(ORDER[:-1])


def test_the_resolver_page_lists_the_rules_in_the_same_order() -> None:
    assert page_order() == list(ORDER)


def test_each_rule_has_a_module_named_for_it() -> None:
    modules = {p.stem for p in (RESOLVER / "rules").glob("*.py")} - {"__init__", "context"}
    assert modules == {rule.name for rule in RULES}
    for rule in RULES:
        assert rule.decide.__module__ == f"claims_crew.resolver.rules.{rule.name}"


@pytest.mark.parametrize("path", sorted((ROOT / "examples" / "cases").glob("*.json")))
def test_each_trail_follows_the_order(path: Path, sample_library: PolicyLibrary) -> None:
    """A trail names the rules tried, in the order they ran, the deciding one last but the
    gates."""
    resolution = resolve(load_case(path, sample_library, CONFIG), CONFIG)
    tried = list(dict.fromkeys(step.rule for step in resolution.trail))
    assert tried == sorted(tried, key=ORDER.index)
    assert resolution.rule == [r for r in tried if r != "gates"][-1]


def test_the_changes_a_copy_may_make_are_resolutions_fields() -> None:
    changes = typing.get_type_hints(ResolutionChanges)
    fields = {name: field.annotation for name, field in Resolution.model_fields.items()}
    assert changes == fields


def test_outcomes_change_only_through_resolution_methods() -> None:
    """A model_copy with an update dict is checked by neither mypy nor pydantic: resolution.py
    keeps the one copy, behind typed methods."""
    copies = [
        f"{path.relative_to(RESOLVER)}:{number}"
        for path in sorted(RESOLVER.rglob("*.py"))
        if path.name != "resolution.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "model_copy(" in line
    ]
    assert copies == []
