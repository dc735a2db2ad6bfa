"""The project's scripts (bench/, scripts/) loaded as modules, for the tests that check them."""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType


@functools.cache
def load_script(path: Path) -> ModuleType:
    """A script of the project (bench/, scripts/) as a module, loaded once. It is registered in
    sys.modules under its file name first: dataclasses look their module up while a class is
    built."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
