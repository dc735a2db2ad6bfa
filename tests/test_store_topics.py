"""The store's shape: `Store` composes topic classes that share only StoreBase, and no topic
reaches into another's private methods or a module's private names."""

from __future__ import annotations

import ast
from pathlib import Path

import claims_crew.store
from claims_crew.store import Store
from claims_crew.store.base import StoreBase

STORE_DIR = Path(claims_crew.store.__file__).parent
MODULES = sorted(p for p in STORE_DIR.glob("*.py"))


def test_each_topic_inherits_only_the_base() -> None:
    topics = Store.__bases__
    assert len(topics) >= 10
    for topic in topics:
        assert topic.__bases__ == (StoreBase,), topic.__name__


def _own_names(cls: ast.ClassDef) -> set[str]:
    """The methods a class defines, and the attributes it sets on self."""
    names = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    for node in ast.walk(cls):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            names.add(node.attr)
    return names


def test_no_topic_calls_another_topics_private_methods() -> None:
    base = _own_names(
        next(
            n
            for n in ast.parse((STORE_DIR / "base.py").read_text()).body
            if isinstance(n, ast.ClassDef) and n.name == "StoreBase"
        )
    )
    reaches = []
    for path in MODULES:
        for cls in ast.parse(path.read_text()).body:
            if not isinstance(cls, ast.ClassDef):
                continue
            own = _own_names(cls) | base
            for node in ast.walk(cls):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "self"
                    and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and node.attr not in own
                ):
                    reaches.append(f"{path.name}: {cls.name} uses self.{node.attr}")
    assert reaches == []


def test_no_store_module_imports_a_private_name() -> None:
    imported = [
        f"{path.name}: {alias.name} from {node.module}"
        for path in MODULES
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("claims_crew")
        for alias in node.names
        if alias.name.startswith("_")
    ]
    assert imported == []
