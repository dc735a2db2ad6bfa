"""The checks of policies/index.yaml: its entries, and every kind correction against the tree.

A correction that names no clause does nothing at all, silently: a misspelt id ("4.2b" for
"4.2(b)") would leave the wrong kind deciding claims while the team believes it fixed. So each
correction is matched against the policy's clause tree as segmented, and one that reaches no
clause is an error with the nearest ids (or titles) as the hint. A kind that is not a clause
kind is an error too, placed on its line.

Checking a correction opens its policy: the first check of a new PDF builds its index, which
every later run reuses.
"""

from __future__ import annotations

from pathlib import Path

from claims_crew.config_check.issued import check_endorsement_files, check_issued
from claims_crew.config_check.problems import Problem, did_you_mean
from claims_crew.config_check.source import load_file, locate
from claims_crew.errors import ConfigError, PolicyError
from claims_crew.policy.corrections import near, unmatched
from claims_crew.policy.library import PolicyIndexFile, PolicyLibrary
from claims_crew.policy.segment import CLAUSE_KINDS
from claims_crew.settings.yaml_files import Placed


def _shape_problem(name: str, error: Placed) -> Problem:
    if error.loc and error.loc[-1] == "kind" and error.type == "literal_error":
        value = str(error.input)
        return Problem(
            name,
            error.key,
            error.line,
            "bad_kind",
            f"{value!r} is not a clause kind",
            did_you_mean(value, CLAUSE_KINDS) or f"the kinds are {', '.join(CLAUSE_KINDS)}",
        )
    return Problem(name, error.key, error.line, "bad_policy_entry", error.worded(""))


def check_policy_index(policies_dir: Path) -> list[Problem]:
    """Every problem in `policies_dir`/index.yaml; none when the folder has no index."""
    if not (policies_dir / "index.yaml").exists():
        return []
    name = f"{policies_dir.name}/index.yaml"
    problems: list[Problem] = []
    loaded = load_file(policies_dir.parent, name, problems)
    if loaded is None:
        return problems
    checked = loaded.check(PolicyIndexFile)
    if (index := checked.value) is None:
        return problems + [_shape_problem(name, e) for e in checked.errors]
    problems += check_issued(policies_dir, index)
    problems += check_endorsement_files(policies_dir, index, name, loaded.root)
    try:
        library = PolicyLibrary(root=policies_dir)
    except ConfigError as exc:  # an issued policy's file, which check_issued has reported
        if problems:
            return problems
        return [Problem(name, "", None, "bad_policy_entry", str(exc))]  # pragma: no cover
    for policy_id, entry in index.policies.items():
        if not entry.corrections:
            continue
        try:
            doc = library.open(policy_id, corrected=False, unreviewed_ocr=True)
        except PolicyError as exc:
            key, line = locate(loaded.root, ["policies", policy_id, "file"])
            problems.append(
                Problem(
                    name,
                    key,
                    line,
                    "corrections_unchecked",
                    f"{policy_id}'s corrections cannot be checked: {exc.message}",
                    "claims on this policy are escalated as unreadable until the PDF opens",
                    "warning",
                )
            )
            continue
        for i, correction in unmatched(doc.clauses, entry.corrections):
            target = correction.target[0]
            key, line = locate(loaded.root, ["policies", policy_id, "corrections", i, target])
            nearby = near(doc.clauses, correction)
            problems.append(
                Problem(
                    name,
                    key,
                    line,
                    "correction_matches_nothing",
                    f"{policy_id}: {correction.describe()} matches no clause of {entry.file}",
                    (f"near: {', '.join(nearby)}; " if nearby else "")
                    + f"see the ids in `claims-crew policy tree {policy_id}`",
                )
            )
    return problems
