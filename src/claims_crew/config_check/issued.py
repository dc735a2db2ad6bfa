"""The checks of the policies as issued (policies/issued/*.yaml) and of the endorsements'
changes (policies/index.yaml `endorsements:`).

An issued policy that names a form, an endorsement or a declarations file nobody can find would
fail every claim on it; an endorsement effective outside the policy's period never applies (or
applies from the start), which is a typo more often than a choice. Each is an error on its line.

An endorsement change whose target the form lacks is applied to nothing: the clause it meant to
replace or narrow goes on deciding claims in the form's words. So every endorsement's changes
are read and applied, each on the issued policies that carry it (in their order, so a change to
a clause an earlier endorsement added counts as found), else to its form alone; one the form
lacks is an error on the endorsement's entry, naming the change, the target and the form.
Reading them opens the PDFs, so, like the schedules' checks, it is left out of the check a run
makes before it starts (`opening_pdfs`); `config check` makes it, and the first check builds
the indexes later runs reuse.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from claims_crew.config_check.problems import Problem
from claims_crew.config_check.schedules import check_schedules
from claims_crew.config_check.source import load_file, locate
from claims_crew.errors import ConfigError, OutsidePolicies, PolicyError
from claims_crew.policy.amend import Unmatched
from claims_crew.policy.confined import inside
from claims_crew.policy.confirmations import unconfirmed
from claims_crew.policy.issued import IssuedPolicy, issued_dir
from claims_crew.policy.library import PolicyIndexFile, PolicyLibrary
from claims_crew.policy.schedule import schedules_dir
from claims_crew.policy.target_clauses import is_literal

_KEEP_INSIDE = "keep the policies' files inside the policies folder, named relative to it"


def opening_pdfs(policies_dir: Path) -> list[Problem]:
    """The checks that open the policies' PDFs, left out before a run (check_or_raise): the
    schedules' clauses, and the endorsements' changes against their forms."""
    problems = check_schedules(policies_dir)
    name = f"{policies_dir.name}/index.yaml"
    if not (policies_dir / "index.yaml").exists():
        return problems
    loaded = load_file(policies_dir.parent, name, [])
    if loaded is None:
        return problems
    index = loaded.check(PolicyIndexFile).value
    if index is None:
        return problems  # the index's own check reports it
    issued, found = _issued(policies_dir, index)
    if any(p.severity == "error" for p in found):
        return problems  # the library refuses a folder it cannot read; those come first
    return problems + _unmatched_changes(policies_dir, index, loaded.root, issued)


def check_issued(policies_dir: Path, index: PolicyIndexFile) -> list[Problem]:
    """Every problem in policies/issued/: what each policy names must exist and fit it."""
    return _issued(policies_dir, index)[1]


def _issued(policies_dir: Path, index: PolicyIndexFile) -> tuple[list[IssuedPolicy], list[Problem]]:
    """The issued policies that pass, and the problems of those that do not."""
    problems: list[Problem] = []
    issued: list[IssuedPolicy] = []
    folder = issued_dir(policies_dir)
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else ():
        name = str(path.relative_to(policies_dir.parent))
        try:
            inside(policies_dir, path.relative_to(policies_dir), "issued policy")
        except OutsidePolicies as exc:
            problems.append(Problem(name, "", None, "outside_policies", str(exc), _KEEP_INSIDE))
            continue
        loaded = load_file(policies_dir.parent, name, problems)
        if loaded is None:
            continue
        checked = loaded.check(IssuedPolicy)
        if (policy := checked.value) is None:
            problems += [
                Problem(name, e.key, e.line, "bad_issued_policy", f"{e.key}: {e.msg}")
                for e in checked.errors
            ]
            continue
        found = _references(name, loaded.root, policy, index, policies_dir, path.stem)
        problems += found
        if not found:
            issued.append(policy)
    return issued, problems


def _references(
    name: str,
    root: yaml.Node,
    policy: IssuedPolicy,
    index: PolicyIndexFile,
    policies_dir: Path,
    stem: str,
) -> list[Problem]:
    """What an issued policy names that cannot be found, or does not fit it."""
    out: list[Problem] = []

    def add(at: list[str | int], code: str, message: str, hint: str = "") -> None:
        key, line = locate(root, at)
        out.append(Problem(name, key or str(at[0]), line, code, message, hint))

    if policy.number != stem:
        add(
            ["number"],
            "issued_number_mismatch",
            f"number {policy.number!r} is not the file's name",
            f"name the file {policy.number}.yaml",
        )
    if policy.form not in index.policies:
        known = ", ".join(sorted(index.policies)) or "none"
        add(
            ["form"],
            "issued_form_unknown",
            f"form {policy.form!r} is not in policies/index.yaml",
            f"known forms: {known}",
        )
    if policy.declarations is not None and (
        outside := _outside(schedules_dir(policies_dir), policy.declarations, "declarations")
    ):
        add(["declarations"], "outside_policies", outside, _KEEP_INSIDE)
    elif (
        policy.declarations is not None
        and not (schedules_dir(policies_dir) / policy.declarations).is_file()
    ):
        add(
            ["declarations"],
            "issued_declarations_unknown",
            f"no declarations file {policy.declarations!r} in {schedules_dir(policies_dir).name}/",
        )
    for i, on_policy in enumerate(policy.endorsements):
        entry = index.endorsements.get(on_policy.endorsement)
        if entry is None:
            known = ", ".join(sorted(index.endorsements)) or "none"
            add(
                ["endorsements", i, "endorsement"],
                "issued_endorsement_unknown",
                f"endorsement {on_policy.endorsement!r} is not under `endorsements:` in "
                "policies/index.yaml",
                f"known endorsements: {known}",
            )
        elif entry.form != policy.form:
            add(
                ["endorsements", i, "endorsement"],
                "endorsement_wrong_form",
                f"endorsement {on_policy.endorsement} amends form {entry.form}, but policy "
                f"{policy.number} is on form {policy.form}",
            )
        if not policy.period.covers(on_policy.effective):
            add(
                ["endorsements", i, "effective"],
                "endorsement_outside_period",
                f"endorsement {on_policy.endorsement} is effective {on_policy.effective}, outside "
                f"the policy's period {policy.period.start} to {policy.period.end}",
                "an endorsement takes effect within the period it amends",
            )
    return out


def check_endorsement_files(
    policies_dir: Path, index: PolicyIndexFile, name: str, root: yaml.Node
) -> list[Problem]:
    """Each endorsement whose PDF lies outside the policies folder, on its `file:` line."""
    problems: list[Problem] = []
    for endorsement, entry in index.endorsements.items():
        if outside := _outside(policies_dir, entry.file, f"endorsement {endorsement}'s file"):
            key, line = locate(root, ["endorsements", endorsement, "file"])
            problems.append(Problem(name, key, line, "outside_policies", outside, _KEEP_INSIDE))
    return problems


def _outside(folder: Path, named: str, what: str) -> str | None:
    """Why `named` may not be read (it lies outside `folder`), or None."""
    try:
        inside(folder, named, what)
    except OutsidePolicies as exc:
        return str(exc)
    return None


def _pattern(unmatched: Unmatched) -> bool:
    return bool(unmatched.change.target) and not is_literal(unmatched.change.target)


def _named(exc: PolicyError, names: list[str]) -> str:
    """The endorsement an error on an issued policy is about (its message names it)."""
    return next((n for n in names if f"endorsement {n}:" in exc.message), names[0])


def _unconfirmed(
    library: PolicyLibrary,
    index_root: yaml.Node,
    name: str,
    readings: dict[str, str],
    unread: dict[str, PolicyError],
) -> list[Problem]:
    """Each endorsement whose reading no lead confirmed as it reads now, on its entry's line:
    a claim it is in force for goes to a person (policy/confirmations.py)."""
    from claims_crew.policy.in_force import changes_of

    for endorsement, entry in library.endorsements.items():
        if endorsement in readings or endorsement in unread or entry.form not in library.entries:
            continue
        try:
            readings[endorsement] = changes_of(library, endorsement).digest
        except PolicyError as exc:
            unread[endorsement] = exc
    problems: list[Problem] = []
    for endorsement, why in sorted(unconfirmed(readings, library.confirmations).items()):
        key, line = locate(index_root, ["endorsements", endorsement])
        problems.append(
            Problem(
                name,
                key,
                line,
                "endorsement_unconfirmed",
                f"{why}: claims on a policy it is in force on go to a person",
                f"check `claims-crew policy changes {endorsement}`, then a lead runs "
                f"`claims-crew policy confirm {endorsement}`",
                severity="warning",
            )
        )
    return problems


def _unmatched_changes(
    policies_dir: Path, index: PolicyIndexFile, index_root: yaml.Node, issued: list[IssuedPolicy]
) -> list[Problem]:
    """Each endorsement change whose target clause the form lacks, once, on its entry's line."""
    from claims_crew.policy.in_force import unmatched_alone

    try:
        library = PolicyLibrary(root=policies_dir)
    except ConfigError:
        return []  # the index's own check reports it
    name = f"{policies_dir.name}/index.yaml"
    found: dict[tuple[str, int], Unmatched] = {}
    unread: dict[str, PolicyError] = {}
    carried: set[str] = set()
    readings: dict[str, str] = {}
    for policy in issued:
        names = [e.endorsement for e in policy.endorsements]
        if not names:
            continue  # the form alone: its own checks are the index's
        last = max([e.effective for e in policy.endorsements], default=policy.period.start)
        try:
            doc = library.in_force(policy.form, policy.number, last)
        except PolicyError as exc:
            unread.setdefault(_named(exc, names), exc)
            continue
        carried.update(names)
        readings.update(doc.readings)
        found.update({(u.endorsement, u.number): u for u in doc.unmatched})
    for endorsement, entry in index.endorsements.items():
        if endorsement in carried or entry.form not in index.policies:
            continue
        try:
            found.update(
                {(u.endorsement, u.number): u for u in unmatched_alone(library, endorsement)}
            )
        except PolicyError as exc:
            unread[endorsement] = exc
    problems = _unconfirmed(library, index_root, name, readings, unread)
    for endorsement, error in unread.items():
        if error.code == "outside_policies":
            continue  # check_endorsement_files reports it, before a run too
        bad = error.code == "bad_correction"
        at = ["endorsements", endorsement, "corrections" if bad else "file"]
        key, line = locate(index_root, at)
        code = "endorsement_correction_invalid" if bad else "endorsement_unreadable"
        problems.append(Problem(name, key, line, code, error.message))
    for (endorsement, number), u in sorted(found.items()):
        form = index.endorsements[endorsement].form
        key, line = locate(index_root, ["endorsements", endorsement])
        problems.append(
            Problem(
                name,
                key,
                line,
                "endorsement_target_missing",
                f"{endorsement} change {number} ({u.change.kind} {u.change.target!r}, page "
                f"{u.change.page}): form {form} has no such clause",
                ("a target is a clause label, never a pattern; " if _pattern(u) else "")
                + f"see the ids in `claims-crew policy tree {form}`; correct the change under "
                f"`corrections:` of {endorsement} (change: {number}, target: ...)",
            )
        )
    return problems
