"""The effective settings: the environment over a settings file over the declared defaults.

`current()` is the one way in. The commands and `crewai run` call it first, so a bad value
stops them with one ConfigError naming the variable (and the file it was written in) before
any model is called. The deeper modules call it again where they need a setting: it reads the
environment and the files again only when they changed (tests change the environment between
calls), so it costs a dictionary lookup per variable, not a parse.

The files are the project folder's `claims-crew.toml`, else a `[tool.claims-crew]` table in
its pyproject.toml (the first found; both at once is refused, to keep one place to look).
Keys are the variables' names, in either case: `CLAIMS_CREW_MAX_RPM = 100` or `model = "..."`.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PyprojectTomlConfigSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from claims_crew.errors import ConfigError
from claims_crew.settings.declarations import Declared
from claims_crew.settings.masking import sayable, without_passwords

SETTINGS_FILE = "claims-crew.toml"
PYPROJECT_TABLE = ("tool", "claims-crew")
ENVIRONMENT = "environment"
DEFAULT = "default"
VARIABLES = tuple(name.upper() for name in Declared.model_fields)


class _Table(BaseSettings):
    """Where in pyproject.toml the settings are (the file sources take it from a class)."""

    model_config = SettingsConfigDict(pyproject_toml_table_header=PYPROJECT_TABLE)


@dataclass(frozen=True)
class Effective:
    """The settings, and where each variable's value came from: ENVIRONMENT, a file (its path,
    and the table for pyproject.toml) or DEFAULT."""

    values: Any  # a Declared (create_model's class, which mypy cannot name)
    sources: dict[str, str]


def current() -> Any:
    """The effective settings now (a Declared); ConfigError names a bad value."""
    return effective().values


def effective() -> Effective:
    global _last
    key = _inputs()
    last = _last
    if last is not None and last[0] == key:
        return last[1]
    found = _load(Path(key[0]))
    _last = (key, found)
    return found


_last: tuple[tuple[Any, ...], Effective] | None = None


def variables() -> dict[str, str]:
    """The settings that are set, by variable name, for the code that looks one up by a name
    it builds (an agent's own model: POLICY_MODEL)."""
    values = current()
    return {
        variable(field): str(value)
        for field in Declared.model_fields
        if (value := getattr(values, field)) is not None
    }


def variable(field: str) -> str:
    return field.upper()


def _inputs() -> tuple[Any, ...]:
    """What the settings are read from: the folder, each variable's value, each file's time."""
    cwd = os.getcwd()
    files: list[tuple[int, int] | None] = []
    for name in (SETTINGS_FILE, "pyproject.toml"):
        try:
            stat = os.stat(os.path.join(cwd, name))
            files.append((stat.st_mtime_ns, stat.st_size))
        except OSError:
            files.append(None)
    return (cwd, tuple(os.environ.get(name) for name in VARIABLES), tuple(files))


def given() -> dict[str, Any]:
    """Every setting set now, by variable name, as it was given, before it is checked: the
    environment's over the file's. A settings file that cannot be read gives none (`current`
    names its fault). Redaction reads this, so a secret is known even while a bad value of
    another setting is being reported."""
    global _last_given
    key = _inputs()
    last = _last_given
    if last is not None and last[0] == key:
        return last[1]
    try:
        _, from_file = _file_values(Path(key[0]))
    except ConfigError:
        from_file = {}
    found = {variable(field): value for field, value in from_file.items()}
    found |= {variable(field): value for field, value in EnvSettingsSource(Declared)().items()}
    _last_given = (key, found)
    return found


_last_given: tuple[tuple[Any, ...], dict[str, Any]] | None = None


def _load(folder: Path) -> Effective:
    where, from_file = _file_values(folder)
    from_env = EnvSettingsSource(Declared)()
    merged = {**from_file, **from_env}
    try:
        values = Declared(**merged)
    except ValidationError as exc:
        origin = {key: where for key in from_file} | dict.fromkeys(from_env, ENVIRONMENT)
        raise ConfigError("; ".join(refusal(error, origin) for error in exc.errors())) from None
    sources = {variable(field): DEFAULT for field in Declared.model_fields}
    sources |= {variable(key): where for key in from_file}
    sources |= {variable(key): ENVIRONMENT for key in from_env}
    return Effective(values, sources)


def _file_values(folder: Path) -> tuple[str, dict[str, Any]]:
    """The settings file's values by field name, and how to name the file."""
    toml, pyproject = folder / SETTINGS_FILE, folder / "pyproject.toml"
    try:
        own = TomlConfigSettingsSource(Declared, toml)() if toml.is_file() else {}
        table = PyprojectTomlConfigSettingsSource(_Table, pyproject)() if not own else {}
    except (tomllib.TOMLDecodeError, OSError) as exc:
        raise ConfigError(f"{toml if toml.is_file() else pyproject}: {exc}") from None
    if own and _pyproject_table(pyproject):
        raise ConfigError(
            f"settings in both {toml} and {pyproject}'s [tool.claims-crew]: keep them in one"
        )
    if own:
        return str(toml), _by_field(own)
    return f"{pyproject} [tool.claims-crew]", _by_field(table)


def _pyproject_table(pyproject: Path) -> bool:
    if not pyproject.is_file():
        return False
    return bool(PyprojectTomlConfigSettingsSource(_Table, pyproject)())


def _by_field(data: dict[str, Any]) -> dict[str, Any]:
    return {str(key).lower(): value for key, value in data.items()}


def refusal(error: Any, origin: dict[str, str]) -> str:
    """One bad value as a line: the variable, the value given, what was expected, and the
    file it was written in (a value from the environment is the variable's own). The value is
    left out where it is a secret's or looks like a key: an error is printed, logged, pasted."""
    field = str(error["loc"][0]) if error.get("loc") else "?"
    where = origin.get(field, ENVIRONMENT)
    if error["type"] == "extra_forbidden":
        return f"{where}: {field!r} is not a claims-crew setting"
    expected = str(error["msg"]).removeprefix("Value error, ")
    written = "" if where == ENVIRONMENT else f" (in {where})"
    name, value = variable(field), error["input"]
    said = f"={without_passwords(repr(value))}" if sayable(name, value) else ""
    return f"{name}{said}{written}: {expected}"
