"""Rendering a Letter through the team's Jinja2 templates in config/letters/.

One template per format: `letter.md.j2` (Markdown), `letter.html.j2` (a page of its own) and
`letter.pdf.html.j2` (the plain HTML that pdf.py lays out: headings, paragraphs, lists, quotes
and bold or italic text). Undefined names are errors (StrictUndefined), never blanks: a
template naming a field the letter lacks fails to render, and `template_problem` says where,
as file and line, for `config check`.
"""

from __future__ import annotations

import functools
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

import jinja2

from claims_crew.errors import ConfigError
from claims_crew.letters.content import Letter
from claims_crew.settings.command import command

Format = Literal["md", "html", "pdf"]
FORMATS: tuple[Format, ...] = get_args(Format)
LETTERS_DIR = "letters"
TEMPLATES: dict[Format, str] = {
    "md": "letter.md.j2",
    "html": "letter.html.j2",
    "pdf": "letter.pdf.html.j2",
}


@functools.cache
def environment(folder: Path) -> jinja2.Environment:
    """Templates from `folder` (config/letters/): HTML escaped, every name required. One per
    folder, so a template is compiled once, not per letter or preview; the loader still sees a
    template edited since (it checks the file's time)."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",), default=False),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _render(folder: Path, format: Format, letter: Letter) -> str:
    template = environment(folder).get_template(TEMPLATES[format])
    return template.render(letter=letter.model_dump(mode="json"))


def render_text(folder: Path, format: Format, letter: Letter) -> str:
    """The letter through its format's template (for pdf: the HTML pdf.py lays out); a
    template that cannot render it is a ConfigError naming its file and line."""
    try:
        return _render(folder, format, letter)
    except jinja2.TemplateError as exc:
        problem = _described(folder, format, exc)
        where = f"{folder / problem.file}" + (f":{problem.line}" if problem.line else "")
        raise ConfigError(
            f"{where}: {problem.message} ({command('config check')} finds these)"
        ) from exc


@dataclass(frozen=True)
class TemplateProblem:
    file: str  # relative to the letters folder
    line: int | None
    message: str


def _line_in(folder: Path, exc: BaseException) -> tuple[str, int | None]:
    """The template file and line an error was raised at: Jinja2 puts the template's own
    frames, with their template lines, into the traceback."""
    found: tuple[str, int | None] = ("", None)
    for frame in traceback.extract_tb(exc.__traceback__):
        path = Path(frame.filename)
        if path.suffix == ".j2" and path.is_relative_to(folder):
            found = (path.relative_to(folder).as_posix(), frame.lineno)
    return found


def _described(folder: Path, format: Format, exc: jinja2.TemplateError) -> TemplateProblem:
    name = TEMPLATES[format]
    if isinstance(exc, jinja2.TemplateSyntaxError):
        file = Path(exc.filename).relative_to(folder).as_posix() if exc.filename else name
        return TemplateProblem(file, exc.lineno, f"syntax: {exc.message}")
    if isinstance(exc, jinja2.TemplateNotFound):
        return TemplateProblem(str(exc.name or name), None, "the template file is missing")
    file, line = _line_in(folder, exc)
    if isinstance(exc, jinja2.UndefinedError):
        return TemplateProblem(file or name, line, f"names a field the letter lacks: {exc}")
    return TemplateProblem(file or name, line, str(exc))


def template_problem(folder: Path, format: Format, letter: Letter) -> TemplateProblem | None:
    """Why the format's template cannot render `letter`, with its file and line; None if it
    renders."""
    try:
        _render(folder, format, letter)
    except jinja2.TemplateError as exc:
        return _described(folder, format, exc)
    return None
