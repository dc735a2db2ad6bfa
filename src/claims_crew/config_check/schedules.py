"""The checks of the schedules: policies/index.yaml's, and each file in policies/schedules/.

A schedule item names the clause its figure comes from; a clause the policy does not have, or
one of a kind that cannot carry the figure (a deductible is written in a limit clause, a limit
in a limit clause or in the grant that caps itself), is an error on the item's line. A schedule
in index.yaml whose figure is not printed in its clause is a warning: the figure may be a typo.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path

import yaml

from claims_crew.config_check.problems import Problem
from claims_crew.config_check.source import load_file, locate
from claims_crew.errors import ConfigError, OutsidePolicies, PolicyError
from claims_crew.policy.confined import inside
from claims_crew.policy.document import LookupMiss, PolicyDocument
from claims_crew.policy.library import PolicyLibrary
from claims_crew.policy.schedule import Schedule, ScheduleKind, schedules_dir

# The clause kinds that can carry each kind of figure.
FITTING_KINDS: dict[ScheduleKind, tuple[str, ...]] = {
    "limit": ("limit", "grant"),
    "sub_limit": ("limit", "grant"),
    "deductible": ("limit",),
}


def check_schedules(policies_dir: Path) -> list[Problem]:
    """Every problem in the schedules of index.yaml and of policies/schedules/*.yaml."""
    if not (policies_dir / "index.yaml").exists():
        return []
    try:
        library = PolicyLibrary(root=policies_dir)
    except ConfigError:
        return []  # the index's own check reports it
    problems: list[Problem] = []
    index_name = f"{policies_dir.name}/index.yaml"
    index = load_file(policies_dir.parent, index_name, problems)
    for policy_id, entry in library.entries.items():
        if entry.schedule is not None and index is not None:
            at = ["policies", policy_id, "schedule"]
            problems += _check(library, policy_id, entry.schedule, index_name, index.root, at, True)
    folder = schedules_dir(policies_dir)
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else ():
        problems += _check_file(library, policies_dir, path)
    return problems


def _check_file(library: PolicyLibrary, policies_dir: Path, path: Path) -> list[Problem]:
    problems: list[Problem] = []
    name = str(path.relative_to(policies_dir.parent))
    try:
        inside(policies_dir, path.relative_to(policies_dir), "schedule file")
    except OutsidePolicies as exc:
        hint = "keep the policies' files inside the policies folder"
        return [Problem(name, "", None, "outside_policies", str(exc), hint)]
    loaded = load_file(policies_dir.parent, name, problems)
    if loaded is None:
        return problems
    checked = loaded.check(Schedule)
    if (schedule := checked.value) is None:
        problems += [
            Problem(name, e.key, e.line, "bad_schedule", f"{e.key}: {e.msg}")
            for e in checked.errors
        ]
        return problems
    if schedule.policy is None or schedule.policy not in library.entries:
        key, line = locate(loaded.root, ["policy"])
        known = ", ".join(sorted(library.entries))
        problems.append(
            Problem(
                name,
                key or "policy",
                line,
                "schedule_policy_unknown",
                f"the schedule names no policy of index.yaml ({schedule.policy!r})",
                f"add `policy:` with one of {known}",
            )
        )
        return problems
    return _check(library, schedule.policy, schedule, name, loaded.root, [], False)


def _check(
    library: PolicyLibrary,
    policy_id: str,
    schedule: Schedule,
    name: str,
    root: yaml.Node,
    at: Sequence[str | int],
    printed: bool,
) -> list[Problem]:
    try:
        doc = library.open(policy_id)
    except PolicyError as exc:
        key, line = locate(root, at)
        return [
            Problem(
                name,
                key,
                line,
                "schedule_unchecked",
                f"{policy_id}'s schedule cannot be checked: {exc.message}",
                severity="warning",
            )
        ]
    problems: list[Problem] = []
    for i, item in enumerate(schedule.items):
        for field in ("clause", "section"):
            ref = getattr(item, field)
            if ref is None:
                continue
            key, line = locate(root, [*at, "items", i, field])
            found = doc.lookup(ref)
            if isinstance(found, LookupMiss):
                hint = f"near: {', '.join(found.near)}" if found.near else ""
                problems.append(
                    Problem(
                        name,
                        key,
                        line,
                        "schedule_clause_missing",
                        f"{policy_id} has no clause {ref!r}",
                        hint,
                    )
                )
            elif field == "clause":
                problems.extend(
                    _kind_and_figure(
                        doc, found.id, found.kind, item, name, key, line, policy_id, printed
                    )
                )
    return problems


def _kind_and_figure(
    doc: PolicyDocument,
    clause_id: str,
    kind: str,
    item: object,
    name: str,
    key: str,
    line: int | None,
    policy_id: str,
    printed: bool,
) -> Iterator[Problem]:
    item_kind: ScheduleKind = getattr(item, "kind")  # noqa: B009 - a ScheduleItem
    amount: Decimal = getattr(item, "amount")  # noqa: B009
    fitting = FITTING_KINDS[item_kind]
    if kind not in fitting:
        yield Problem(
            name,
            key,
            line,
            "schedule_kind_mismatch",
            f"{policy_id} {clause_id} is a {kind} clause; a {item_kind} comes from a "
            f"{' or '.join(fitting)} clause",
        )
    if printed and not _printed(amount, doc.full_text(clause_id)):
        yield Problem(
            name,
            key,
            line,
            "schedule_figure_not_printed",
            f"{amount} is not printed in {policy_id} {clause_id}",
            "check the figure against the clause's words",
            "warning",
        )


def _printed(amount: Decimal, text: str) -> bool:
    """The figure written in the clause, with or without thousands separators."""
    plain = f"{amount:f}".rstrip("0").rstrip(".") if "." in f"{amount:f}" else f"{amount:f}"
    whole = int(amount)
    forms = {plain, f"{whole:,}", str(whole)} if amount == whole else {plain}
    digits = text.replace("\u00a0", " ")
    return any(form in digits for form in forms)
