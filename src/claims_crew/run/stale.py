"""Which decisions are stale: expired, or standing on a policy, corrections, config or claim
file that has changed since.

Each decided claim's recorded versions (store: validations) are compared with the project as it
is now: the policy PDF re-hashed through the library, the policy's kind corrections in
policies/index.yaml, the config files (config_hash.py) and the claim file at the path it was
read from. A version that was not recorded (decisions made before config hashes were kept)
cannot be compared and is not counted as a change.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from claims_crew import settings
from claims_crew.documents.kept import read_plain_file
from claims_crew.errors import KeptFileError, PolicyError
from claims_crew.policy.corrections import corrections_sha256
from claims_crew.policy.library import PolicyLibrary, sha256_of
from claims_crew.store import Standing, Store
from claims_crew.vocabulary import StaleReason, parse_stamp


@dataclass(frozen=True)
class StaleDecision:
    """A decision that no longer stands as it was made, and why (one line per reason)."""

    claim_id: str
    outcome: str
    answer: str | None
    decided_by: str
    human_decision: str | None
    validated_at: str
    expires_at: str | None
    reasons: list[StaleReason]
    why: dict[StaleReason, str]

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


class Project:
    """The project as it is now; each policy is re-hashed once per listing."""

    def __init__(self, library: PolicyLibrary, config_sha256: str) -> None:
        self.library = library
        self.config_sha256 = config_sha256
        self._policies: dict[tuple[str, str | None, str | None], str | None] = {}

    def policy_sha256(
        self, policy_id: str, policy_number: str | None = None, on: str | None = None
    ) -> str | None:
        """The hash of the wording now: the policy's PDF, or for a claim on an issued policy the
        wording in force on its date of loss (its digest covers the form and each endorsement
        in force, policy/in_force.py); None if the library cannot read it."""
        key = (policy_id, policy_number, on)
        if key not in self._policies:
            digest: str | None
            try:
                if policy_number is not None and on is not None:
                    day = date.fromisoformat(on)
                    digest = self.library.for_claim(policy_id, policy_number, day).sha256
                else:
                    digest = sha256_of(self.library.path_of(policy_id).read_bytes())
            except (PolicyError, OSError, ValueError):
                digest = None
            self._policies[key] = digest
        return self._policies[key]

    def corrections_sha256(self, policy_id: str) -> str | None:
        """The hash of the policy's kind corrections now, as the library applies them."""
        entry = self.library.entries.get(policy_id)
        return corrections_sha256(entry.corrections) if entry is not None else None


def current_project() -> Project:
    """The project as it is now: its policy library and the hash of its config files."""
    from claims_crew.run.config_hash import config_sha256

    return Project(PolicyLibrary(), config_sha256(settings.config_dir()))


def _file_sha256(path: str) -> str | None:
    """The inbox file's hash, or None where it is gone, a link or not a regular file: it is
    only compared, never read for its contents, and a FIFO put there must not block."""
    try:
        return sha256_of(read_plain_file(Path(path)))
    except KeptFileError:
        return None


def stale_reasons(standing: Standing, project: Project, now: datetime) -> dict[StaleReason, str]:
    """Why the decision no longer stands as made, reason → what changed; empty if it does."""
    why: dict[StaleReason, str] = {}
    if standing.expires_at is not None and parse_stamp(standing.expires_at) <= now:
        why["expired"] = f"expired at {standing.expires_at}"
    policy = project.policy_sha256(
        standing.policy_id, standing.policy_number, standing.date_of_loss
    )
    if policy != standing.policy_sha256:
        named = standing.policy_number or standing.policy_id
        what = "wording in force" if standing.policy_number else "PDF"
        why["policy"] = (
            f"policy {named}: the {what} is {_short(policy)}, was {_short(standing.policy_sha256)}"
        )
    corrections = project.corrections_sha256(standing.policy_id)
    if corrections != standing.policy_corrections_sha256:
        why["corrections"] = (
            f"policy {standing.policy_id}: kind corrections are {_short(corrections)}, "
            f"were {_short(standing.policy_corrections_sha256)}"
        )
    if standing.config_sha256 is not None and project.config_sha256 != standing.config_sha256:
        why["config"] = (
            f"config files are {_short(project.config_sha256)}, "
            f"were {_short(standing.config_sha256)}"
        )
    claim_file = _file_sha256(standing.claim_path)
    if claim_file != standing.claim_sha256:
        why["claim_file"] = (
            f"{standing.claim_path} is gone"
            if claim_file is None
            else f"{standing.claim_path} is {_short(claim_file)}, "
            f"was {_short(standing.claim_sha256)}"
        )
    return why


def _short(digest: str | None) -> str:
    return digest[:12] if digest else "none"


def stale_decision(standing: Standing, why: dict[StaleReason, str]) -> StaleDecision:
    return StaleDecision(
        claim_id=standing.claim_id,
        outcome=standing.outcome,
        answer=standing.answer,
        decided_by=f"human:{standing.human[0]}" if standing.human else standing.decided_by,
        human_decision=standing.human[1] if standing.human else None,
        validated_at=standing.validated_at,
        expires_at=standing.expires_at,
        reasons=list(why),
        why=why,
    )


def find_stale(
    store: Store, project: Project, now: datetime, claim_ids: list[str] | None = None
) -> list[StaleDecision]:
    """The stale decisions in claim-id order (of `claim_ids` only, if given)."""
    found = []
    for standing in store.standings(claim_ids):
        if why := stale_reasons(standing, project, now):
            found.append(stale_decision(standing, why))
    return found
