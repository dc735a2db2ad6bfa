"""The documentation's settings reference (docs/settings.md), written from the declarations.

`uv run python scripts/settings_reference.py > docs/settings.md` writes the page again after a
setting is added or its help changed; tests/test_settings.py fails while the page and
src/claims_crew/settings/declarations.py disagree.
"""

from __future__ import annotations

from typing import Any

from claims_crew.settings.declarations import GROUPS, Declared
from claims_crew.settings.loading import PYPROJECT_TABLE, SETTINGS_FILE, variable
from claims_crew.settings.showing import extra, written

INTRO = f"""\
# Settings

Every setting claims-crew reads, with its default and what it does. This page is generated
from the declarations in `src/claims_crew/settings/declarations.py`
(`scripts/settings_reference.py`); `claims-crew config show` prints the values in effect and
where each came from, secrets masked, and every URL's password.

A setting comes from the environment, else from a settings file in the project folder, else
its default. The settings file is `{SETTINGS_FILE}`, or a `[{".".join(PYPROJECT_TABLE)}]` table
in the project's `pyproject.toml` (one of the two), with the variables' names as keys:

```toml
# {SETTINGS_FILE}
MODEL = "openai/gpt-4o-mini"
CLAIMS_CREW_MAX_RPM = 500
CLAIMS_CREW_CLAIM_DEADLINE = 900
```

Every command, and `crewai run`, reads the settings first: a bad value stops it with one
error naming the variable (and the file it was written in) before any model is called; the
value itself is left out of it where the setting is a secret or the value looks like a key.
Keep keys and tokens (marked *secret*) in the environment: the provider keys are read from
there by the providers' clients themselves. One written in the settings file is still a
secret: masked, and blanked out of every error's text.
"""


def default_text(field: str) -> str:
    value: Any = Declared.model_fields[field].default
    shown = written(value)
    return f"`{shown}`" if shown else "unset"


def reference() -> str:
    """The whole page, in markdown."""
    lines = [INTRO]
    for group in GROUPS:
        lines += [f"## {group}", "", "| variable | default | what it does |", "|---|---|---|"]
        for field in Declared.model_fields:
            about = extra(field)
            if about.get("group") != group:
                continue
            help_text = str(Declared.model_fields[field].description or "")
            if about.get("secret"):
                help_text = f"*Secret.* {help_text}"
            lines.append(f"| `{variable(field)}` | {default_text(field)} | {help_text} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(reference(), end="")
