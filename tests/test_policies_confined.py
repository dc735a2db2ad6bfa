"""Files the policies folder names stay inside it (policy/confined.py): an issued policy, its
declarations and an endorsement's PDF that lead out, by `../`, an absolute path or a link, are
refused when loaded, and `config check` reports each on its line."""

from __future__ import annotations

import os
import shutil
from datetime import date
from pathlib import Path

import pytest
import yaml

from claims_crew.config_check import check_config
from claims_crew.config_check.schedules import check_schedules
from claims_crew.errors import OutsidePolicies, PolicyError
from claims_crew.policy.library import PolicyLibrary
from claims_crew.policy.schedule import find_schedule
from tests.support.paths import ROOT, SAMPLE_POLICIES

HOME, HOME_NUMBER = "HM-HOME-001", "HM-25-00417"
AUTO, AUTO_NUMBER = "MR-AUTO-001", "MA-25-0193"
DECLARATIONS = "lindqvist-declarations.yaml"


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "policies"
    shutil.copytree(SAMPLE_POLICIES, folder, ignore=shutil.ignore_patterns("src"))
    return folder


def _outside(tmp_path: Path, name: str, source: Path) -> Path:
    """A copy of a good file, outside the policies folder."""
    out = tmp_path / "outside" / name
    out.parent.mkdir(exist_ok=True)
    shutil.copyfile(source, out)
    return out


def _named(how: str, folder: Path, outside: Path, link: Path) -> str:
    """The name a file gives: climbing out with ../, absolute, or through a link leading out."""
    if how == "climbs":
        return os.path.relpath(outside, folder)  # ../../outside/…
    if how == "absolute":
        return str(outside)
    link.symlink_to(outside)
    return link.name


def _set(path: Path, key: list[str], value: str) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    at = data
    for part in key[:-1]:
        at = at[part]
    at[key[-1]] = value
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")


def _line(path: Path, number: int | None) -> str:
    assert number is not None
    return path.read_text(encoding="utf-8").splitlines()[number - 1]


def test_an_issued_policy_linked_from_outside_is_refused_when_loaded(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    outside = _outside(tmp_path, "HM-25-00999.yaml", folder / "issued" / f"{HOME_NUMBER}.yaml")
    _set(outside, ["number"], "HM-25-00999")
    (folder / "issued" / "HM-25-00999.yaml").symlink_to(outside)
    with pytest.raises(OutsidePolicies) as refused:
        PolicyLibrary(folder, tmp_path / "cache")
    assert "issued policy 'issued/HM-25-00999.yaml' leads to" in str(refused.value)
    assert str(outside) in str(refused.value)


@pytest.mark.parametrize("how", ["climbs", "absolute", "link"])
def test_declarations_outside_the_schedules_folder_are_refused(tmp_path: Path, how: str) -> None:
    folder = _folder(tmp_path)
    schedules = folder / "schedules"
    outside = _outside(tmp_path, "theirs.yaml", schedules / DECLARATIONS)
    named = _named(how, schedules, outside, schedules / "linked.yaml")
    _set(folder / "issued" / f"{AUTO_NUMBER}.yaml", ["declarations"], named)
    issued = PolicyLibrary(folder, tmp_path / "cache").issued[AUTO_NUMBER]
    found = find_schedule(folder, AUTO, None, issued.declarations)
    assert found.schedule is None
    assert found.problem is not None and "nothing outside the policies folder" in found.problem
    # The same file inside the folder is read.
    assert find_schedule(folder, AUTO, None, DECLARATIONS).schedule is not None


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One index cache for the module: the home form is read once (indexes go by its hash)."""
    return tmp_path_factory.mktemp("cache")


@pytest.mark.parametrize("how", ["climbs", "absolute", "link"])
def test_an_endorsement_outside_the_policies_folder_is_refused(
    tmp_path: Path, cache: Path, how: str
) -> None:
    folder = _folder(tmp_path)
    pdf = folder / "endorsements" / "hm_e07_escape_of_water.pdf"
    outside = _outside(tmp_path, "e07.pdf", pdf)
    named = _named(how, folder, outside, folder / "linked.pdf")
    _set(folder / "index.yaml", ["endorsements", "HM-E-07", "file"], named)
    library = PolicyLibrary(folder, cache)
    with pytest.raises(PolicyError) as refused:
        library.in_force(HOME, HOME_NUMBER, date(2025, 3, 10))
    assert refused.value.code == "outside_policies"
    assert refused.value.message.startswith("endorsement HM-E-07: file ")
    assert "nothing outside the policies folder is read" in refused.value.message


def test_config_check_reports_each_file_leading_out_on_its_line(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    issued = folder / "issued" / f"{AUTO_NUMBER}.yaml"
    _set(issued, ["declarations"], "../../secrets.yaml")
    index = folder / "index.yaml"
    _set(index, ["endorsements", "HM-E-09", "file"], "/etc/hostname")
    linked = _outside(tmp_path, "X-1.yaml", folder / "issued" / f"{HOME_NUMBER}.yaml")
    _set(linked, ["number"], "X-1")
    (folder / "issued" / "X-1.yaml").symlink_to(linked)
    problems = check_config(ROOT / "config", folder, schedules=False)
    found = {p.file: p for p in problems if p.code == "outside_policies"}
    assert set(found) == {
        "policies/index.yaml",
        f"policies/issued/{AUTO_NUMBER}.yaml",
        "policies/issued/X-1.yaml",
    }
    assert all(p.severity == "error" for p in found.values())
    endorsement = found["policies/index.yaml"]
    assert endorsement.key == "endorsements.HM-E-09.file"
    assert "/etc/hostname" in _line(index, endorsement.line)
    declarations = found[f"policies/issued/{AUTO_NUMBER}.yaml"]
    assert "../../secrets.yaml" in _line(issued, declarations.line)
    assert "issued_declarations_unknown" not in {p.code for p in problems}
    assert found["policies/issued/X-1.yaml"].line is None  # the whole file is a link out


@pytest.mark.slow  # checking the schedules opens the sample forms' PDFs
def test_config_check_reports_a_schedule_file_linked_from_outside(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    outside = _outside(tmp_path, "theirs.yaml", folder / "schedules" / DECLARATIONS)
    (folder / "schedules" / "theirs.yaml").symlink_to(outside)
    [problem] = [p for p in check_schedules(folder) if p.code == "outside_policies"]
    assert problem.file == "policies/schedules/theirs.yaml"
    assert str(outside) in problem.message
