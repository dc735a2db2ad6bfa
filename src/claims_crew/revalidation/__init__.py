"""Expiry and revalidation: which decisions no longer stand as made, and deciding them again."""

from claims_crew.revalidation.stale import Project, StaleDecision, find_stale, stale_reasons

__all__ = ["Project", "StaleDecision", "find_stale", "stale_reasons"]
