"""The project's settings as every command builds them: the config checked first, then the
library, the models and the store. No CrewAI is loaded before the check has passed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claims_crew import settings

if TYPE_CHECKING:
    from claims_crew.llms.select import LLMFactory
    from claims_crew.run.context import RunContext
    from claims_crew.store import Store


def project_settings(store: Store, llm_for: LLMFactory | None = None) -> RunContext:
    """What every claim of a run shares, from the project's config folder; a broken config or
    an unusable audit key is refused (ConfigError) before any model call is spent on it."""
    from claims_crew.config_check import check_or_raise

    config_dir = settings.config_dir()
    check_or_raise(config_dir)
    check_audit_key()
    # Imported after the check: a broken config is refused without loading CrewAI.
    from claims_crew.llms.select import default_llm_factory
    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.run.context import build_context

    return build_context(
        library=PolicyLibrary(),
        llm_for=llm_for or default_llm_factory(config_dir),
        config_dir=config_dir,
        store=store,
    )


def check_audit_key() -> None:
    """Refuse an audit key that is set but unusable (CLAIMS_CREW_AUDIT_KEY under 32 bytes, a
    key file others may read or that holds no hex key) now: otherwise the first claim's
    decision, written with a signed audit entry, would fail only after its model calls were
    paid for, and every claim after it the same way. No key at all is fine: the first entry
    written makes the key file."""
    from claims_crew.errors import CheckpointError, ConfigError
    from claims_crew.store.audit_key import find_key

    try:
        find_key()
    except CheckpointError as exc:
        raise ConfigError(f"{exc}; no claim was reviewed") from exc
