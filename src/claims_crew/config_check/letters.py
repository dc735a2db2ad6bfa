"""The letter templates in config/letters/: each renders every sample letter (letters/sample.py),
and a template that fails is an error on its file and line.

Rendering is the check: Jinja2's StrictUndefined raises on the first name a letter lacks, and
the line it is raised at is the template's own, so `config check` points at the field a team
misspelt, not at a Python traceback.
"""

from __future__ import annotations

from pathlib import Path

from claims_crew.config_check.problems import Problem
from claims_crew.errors import ConfigError
from claims_crew.letters.render import FORMATS, LETTERS_DIR, template_problem
from claims_crew.letters.sample import sample_letters
from claims_crew.letters.wording import SETTINGS_FILE, load_style


def check_letters(config_dir: Path) -> list[Problem]:
    """Each template's first problem, once per template file; a missing folder is a warning
    (no letter can be written without it, but claims can still be reviewed)."""
    folder = config_dir / LETTERS_DIR
    if not folder.is_dir():
        return [
            Problem(
                LETTERS_DIR,
                "",
                None,
                "no_letter_templates",
                f"{folder} is missing: claims-crew letter has no templates to write from",
                "copy config/letters/ from the project",
                "warning",
            )
        ]
    found: dict[str, Problem] = {}
    try:
        load_style(folder)
    except ConfigError as exc:
        found["settings"] = Problem(
            f"{LETTERS_DIR}/{SETTINGS_FILE}",
            "",
            None,
            "letter_settings",
            str(exc),
            "the keys are locale (such as en_GB) and time_zone (such as Europe/London)",
        )
    for format in FORMATS:
        for letter in sample_letters():
            problem = template_problem(folder, format, letter)
            if problem is None:
                continue
            file = f"{LETTERS_DIR}/{problem.file}"
            found.setdefault(
                f"{file}:{problem.line}",
                Problem(
                    file,
                    "",
                    problem.line,
                    "letter_template",
                    problem.message,
                    "docs/letters.md lists the fields a letter has",
                ),
            )
            break
    return list(found.values())
