"""Every error claims-crew raises on purpose. The CLI and the tools translate these at the edge."""

from __future__ import annotations

from typing import Literal

PolicyErrorCode = Literal[
    "encrypted", "no_text_layer", "malformed", "timeout", "not_found", "unknown_policy"
]


class ClaimsCrewError(Exception):
    """Base class: an expected failure with a message fit for a user."""


class ConfigError(ClaimsCrewError):
    """A config or index file is missing, unreadable or fails validation; names the file and key."""


class PolicyError(ClaimsCrewError):
    """A policy PDF cannot be turned into clauses; `code` says why in one machine-readable word."""

    def __init__(self, code: PolicyErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: PolicyErrorCode = code
        self.message = message

    def as_json(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": self.message}}
