"""An endorsement's changes to a policy form, as the endorsement's own words state them.

An endorsement "changes the policy" in a handful of standard amendatory phrases: a clause "is
replaced by the following", "the following exclusion is added" to a section, a paragraph "is
deleted", a provision "does not apply". Each becomes one Change: what kind of change, the clause
of the form it targets (as printed: "4.2(b)", "Exclusion B.1."), and the words it brings.

`read_changes` reads them from the endorsement's page texts. It is a pure function over strings;
what it gets wrong a claims team corrects in policies/index.yaml (ChangeCorrection), as it
corrects clause kinds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

# replace: the target's text (and its sub-clauses) gives way to `text`;
# add: `text` is added under the target (a section, or a clause it extends);
# delete: the target is removed;
# not_apply: the target does not apply; `text` is the endorsement's sentence saying so, and
#   `qualified` says whether it applies only in part ("does not apply to …").
ChangeKind = Literal["replace", "add", "delete", "not_apply"]
CHANGE_KINDS: tuple[ChangeKind, ...] = get_args(ChangeKind)


@dataclass(frozen=True, slots=True)
class Change:
    """One change an endorsement makes to the form."""

    kind: ChangeKind
    target: str  # the form's clause as the endorsement names it, e.g. "4.2(b)"; "" if unnamed
    text: str  # the words it brings (replace, add, not_apply); "" for delete
    page: int  # the endorsement's page it is printed on, from 1
    qualified: bool = False  # not_apply only: it applies in part ("does not apply to …")


def read_changes(pages: Sequence[str]) -> list[Change]:
    """The changes an endorsement's page texts (page 1 first) state, in the order printed."""
    raise NotImplementedError  # the endorsement reader
