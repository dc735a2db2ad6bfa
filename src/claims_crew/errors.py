"""Every error claims-crew raises on purpose. The CLI and the tools translate these at the edge."""

from __future__ import annotations

from typing import Literal

from pydantic import ValidationError

from claims_crew.vocabulary import ClaimFileProblem

PolicyErrorCode = Literal[
    "encrypted",
    "no_text_layer",
    "malformed",
    "timeout",
    "not_found",
    "unknown_policy",
    # A scanned wording: no OCR engine installed; OCR failed on a page; read by OCR, and not yet
    # marked reviewed in policies/index.yaml (policy/scanned.py).
    "needs_ocr",
    "ocr_failed",
    "ocr_unreviewed",
    # A policy as issued (policy/in_force.py): it, or an endorsement on it, is on another form
    # than the one named; it names an endorsement policies/index.yaml does not list; an
    # endorsement's change corrections name a change its reader did not give.
    "wrong_form",
    "unknown_endorsement",
    "bad_correction",
    # A file the policies folder names (an endorsement's PDF) lies outside it (OutsidePolicies).
    "outside_policies",
]


class ClaimsCrewError(Exception):
    """Base class: an expected failure with a message fit for a user."""


class ConfigError(ClaimsCrewError):
    """A config or index file is missing, unreadable or fails validation; names the file and key."""


class YamlSyntaxError(ConfigError):
    """A YAML file PyYAML cannot parse (settings/yaml_files.py). The message is
    `file:line: not valid YAML: problem`; `line` is None where PyYAML names none, `marked` says
    whether it pointed at a place, and `detail` is PyYAML's whole message, marks included."""

    def __init__(self, where: object, line: int | None, problem: str, detail: str, marked: bool):
        at = f"{where}:{line}" if line is not None else f"{where}"
        super().__init__(f"{at}: not valid YAML: {problem}")
        self.line = line
        self.problem = problem
        self.detail = detail
        self.marked = marked


class SecretUnset(ConfigError):
    """A secret's environment variable is not set (a webhook endpoint's `secret_env`); the
    message names the variable. `config check` reports it as a warning only: the secret lives in
    the environment `serve` runs in, which need not be the check's."""


class OutsidePolicies(ConfigError):
    """A file the policies folder names (an issued policy, a declarations or schedule file, an
    endorsement's PDF) lies outside it: by `../`, an absolute path, or a link leading out. It is
    never read; the message names the file as named, where it leads and the folder."""


class ClaimFileError(ClaimsCrewError):
    """A claim file cannot be reviewed; the message names the file, `code` says why in one word
    (vocabulary.ClaimFileProblem), and `missing` names the absent fields."""

    def __init__(
        self, message: str, missing: list[str] | None = None, code: ClaimFileProblem = "invalid"
    ) -> None:
        super().__init__(message)
        self.missing = missing or []
        self.code: ClaimFileProblem = code


class ModelError(ClaimsCrewError):
    """No usable model: a MODEL string no provider accepts, or a local model that cannot load."""


class PolicyError(ClaimsCrewError):
    """A policy PDF cannot be turned into clauses; `code` says why in one machine-readable word."""

    def __init__(self, code: PolicyErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: PolicyErrorCode = code
        self.message = message

    def as_json(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}


class StoreError(ClaimsCrewError):
    """The decision store refused an operation; the message says why."""


class ClauseRefused(StoreError):
    """A person's decision was refused for its clauses: it names none where the desk's rules
    (config/desk.yaml `decide_without_clause`) want one, or one the wording in force lacks."""


class UnknownClause(ClauseRefused):
    """A clause a person named is not in the wording in force for the claim; `clause_id` is
    the id as they gave it."""

    def __init__(self, clause_id: str, message: str) -> None:
        super().__init__(message)
        self.clause_id = clause_id


class NotFound(StoreError):
    """No claim, escalation or reviewer by that id or name."""


# Why a file a reopened claim reads cannot be used (documents/kept.py).
KeptFileProblem = Literal["missing", "not_a_file", "too_large", "changed"]


class KeptFileError(StoreError):
    """A file an appeal or a revalidation reads (an original intake kept under CLAIMS_CREW_HOME,
    or an appeal's new attachment) is missing, a link or not a regular file, over its cap, or no
    longer the bytes intake read; `code` says which, and the file is not used."""

    def __init__(self, code: KeptFileProblem, message: str) -> None:
        super().__init__(message)
        self.code: KeptFileProblem = code


class AlreadyDecided(StoreError):
    """Someone decided the escalation first; `decided_by` and `decided_at` say who and when."""

    def __init__(self, claim_id: str, decided_by: str, decided_at: str, decision: str) -> None:
        super().__init__(
            f"claim {claim_id} was already decided ({decision}) by {decided_by} at {decided_at}"
        )
        self.claim_id = claim_id
        self.decided_by = decided_by
        self.decided_at = decided_at
        self.decision = decision


class SignInThrottled(StoreError):
    """Too many wrong sign-in tokens lately; `retry_after` is how many seconds to wait."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"too many failed sign-ins; try again in {retry_after:.0f} s")
        self.retry_after = retry_after


class NotSignedIn(ClaimsCrewError):
    """A command that acts as a reviewer was given no token, a wrong one, or another
    reviewer's; nothing was written."""


class LeaseLost(StoreError):
    """A claim's lease passed to another holder while this one reviewed it (this one's ran out,
    its process paused or cut off): the review is abandoned, nothing of it is recorded, and the
    claim is left to the holder that has it now."""

    def __init__(self, claim_id: str) -> None:
        super().__init__(
            f"claim {claim_id}: its lease passed to another holder during the review; "
            "abandoned, nothing recorded"
        )
        self.claim_id = claim_id


class DatabaseUnavailable(StoreError):
    """The database could not be reached for longer than the store waits for it
    (CLAIMS_CREW_DATABASE_WAIT); the message says which, for how long, and the last error."""


class CopyRefused(StoreError):
    """`store copy` was pointed at a database that is not an empty store (or not a database)."""


class CheckpointError(ClaimsCrewError):
    """An audit checkpoint file that cannot be read, or no usable audit key; names which."""


class LabelError(ClaimsCrewError):
    """A labels file that cannot be read; the message names the file and line."""


class CaseError(ClaimsCrewError):
    """A case file that cannot be read; the message names the file and the key."""


class ShadowError(ClaimsCrewError):
    """A shadow name that is not a safe file name, or a shadow no run has made."""


def first_line(message: str, width: int = 200) -> str:
    """An error's first line, cut to `width`: what a one-line note says of it."""
    return (message.splitlines() or [""])[0][:width]


def validation_problems(exc: ValidationError, whole: str) -> list[str]:
    """Each pydantic error as "key.path: message"; `whole` names an error about the whole."""
    return [
        f"{'.'.join(str(p) for p in err['loc']) or whole}: {err['msg']}" for err in exc.errors()
    ]


class OutsideAuthority(StoreError):
    """A reviewer tried a decision beyond their authority; the message says which limit."""
