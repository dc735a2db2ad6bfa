"""The README stays short and points only at pages that exist; its two commands are the ones a
fresh machine runs, and the one CI runs; the site's command reference covers every command and
option the commands themselves list."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
import yaml
from click.testing import CliRunner

from claims_crew.cli import main
from tests.support.paths import ROOT
from tests.support.scripts import load_script

README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def readme() -> str:
    return README.read_text(encoding="utf-8")


def local_links(text: str) -> list[str]:
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t) and not t.startswith("#")]


def test_the_readme_fits_on_two_screens() -> None:
    assert len(readme().splitlines()) <= 150


def test_the_readme_links_only_to_pages_that_exist() -> None:
    links = local_links(readme())
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        path = link.split("#", 1)[0]
        assert (ROOT / path).is_file(), f"README links to {link}, which is not there"
        if path.startswith("docs/"):
            assert path.endswith(".md"), f"README links to {link}, not a page of the site"


def test_the_site_nav_holds_every_page() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(nav: list[object]) -> set[str]:
        found: set[str] = set()
        for entry in nav:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            found |= pages(value) if isinstance(value, list) else {str(value)}
        return found

    on_disk = {p.name for p in (ROOT / "docs").glob("*.md")}
    generated = load_script(ROOT / "scripts" / "command_reference.py").PAGE
    assert pages(config["nav"]) == on_disk | {generated}
    assert generated not in on_disk  # written at build time only, never by hand


def test_the_site_build_fetches_nothing() -> None:
    """No plugin that downloads at build time (privacy, social), and no web fonts."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["plugins"] == ["search"]
    assert config["theme"]["font"] is False


def test_the_readme_opens_with_the_two_commands_and_ci_runs_its_test_command() -> None:
    first_block = readme().split("```bash\n", 1)[1].split("```", 1)[0]
    main_job, tests = (line.split("#", 1)[0].strip() for line in first_block.splitlines())
    assert main_job.endswith("&& uv run crewai run")
    assert tests.endswith("&& uv run pytest -n auto")
    test_command = tests.split("&&")[-1].strip()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(rf"^{re.escape(test_command)}( |$)", ci, flags=re.MULTILINE)
    assert "mkdocs build --strict" in ci.split(test_command, 1)[0]  # the site is built first


def _commands(group: click.Group, prefix: list[str]) -> list[list[str]]:
    ctx = click.Context(group, info_name=prefix[-1] if prefix else "claims-crew")
    found = [prefix]
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            found += _commands(command, [*prefix, name])
        else:
            found.append([*prefix, name])
    return found


@pytest.fixture(scope="module")
def reference() -> str:
    return str(load_script(ROOT / "scripts" / "command_reference.py").reference(main))


@pytest.mark.parametrize("args", _commands(main, []), ids=lambda a: " ".join(a) or "claims-crew")
def test_the_command_reference_has_every_command_and_option(
    reference: str, args: list[str]
) -> None:
    """What `--help` lists, the page lists under that command's heading."""
    shown = CliRunner().invoke(main, [*args, "--help"], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    heading = "## " + " ".join(["claims-crew", *args]) + "\n"
    assert heading in reference
    section = reference.split(heading, 1)[1].split("\n## ", 1)[0]
    listed_by_help = shown.output.split("Options:", 1)[1].split("Commands:", 1)[0]
    options = set(re.findall(r"^ +(?:-\w, +)?(--[a-z][a-z-]*)", listed_by_help, flags=re.M))
    rows = [row.split(" | ", 1)[0] for row in section.splitlines() if row.startswith("| `-")]
    listed = {option for row in rows for option in re.findall(r"`(--[a-z][a-z-]*)`", row)}
    assert options - {"--help"} == listed


def _map(page: Path) -> str:
    """The code block under a page's "## Where things live"."""
    section = page.read_text(encoding="utf-8").split("## Where things live\n", 1)[1]
    return section.split("```", 2)[1]


def readme_map_entries() -> set[str]:
    """README's map: two columns, each cell led by the packages it is about (`crew/ tools/`)."""
    found: set[str] = set()
    for line in _map(README).splitlines():
        for cell in re.split(r" {2,}", line.strip()):
            for token in cell.split(" "):
                if not re.fullmatch(r"[a-z_]+/", token):
                    break
                found.add(token)
    return found


def development_map_entries() -> set[str]:
    """docs/development.md's map: each part of src/claims_crew/ on a line of its own."""
    text = _map(ROOT / "docs" / "development.md")
    return set(re.findall(r"^  ([a-z_]+/|[a-z_]+\.py)(?= )", text, flags=re.MULTILINE))


def package_parts() -> tuple[set[str], set[str]]:
    """The package's sub-packages (`name/`) and its modules at the top (`name.py`), read from
    the tree."""
    package = ROOT / "src" / "claims_crew"
    packages = {f"{p.parent.name}/" for p in package.glob("*/__init__.py")}
    top = {p.name for p in package.glob("*.py")} - {"__init__.py"}
    return packages, top


def test_the_maps_name_every_package() -> None:
    """Both "Where things live" maps list every package of src/claims_crew (a new one too), and
    development.md's every module at the top; neither names one that is gone."""
    packages, top = package_parts()
    assert sorted(packages - readme_map_entries()) == [], "missing from README's map"
    assert sorted(readme_map_entries() - packages) == [], "in README's map, not in the tree"
    assert sorted((packages | top) - development_map_entries()) == [], "missing from development.md"
    assert sorted(development_map_entries() - packages - top) == [], "not in the tree"
