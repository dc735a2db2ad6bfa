"""The project's settings as every command builds them: the config checked first, then the
library, the models and the store. No CrewAI is loaded before the check has passed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claims_crew import paths

if TYPE_CHECKING:
    from claims_crew.llms.select import LLMFactory
    from claims_crew.run.settings import Settings
    from claims_crew.store import Store


def project_settings(store: Store, llm_for: LLMFactory | None = None) -> Settings:
    """What every claim of a run shares, from the project's config folder; a broken config is
    refused (ConfigError) before any model call is spent on it."""
    from claims_crew.config_check import check_or_raise

    config_dir = paths.config_dir()
    check_or_raise(config_dir)
    # Imported after the check: a broken config is refused without loading CrewAI.
    from claims_crew.llms.select import default_llm_factory
    from claims_crew.policy.library import PolicyLibrary
    from claims_crew.run.settings import Settings

    return Settings(
        library=PolicyLibrary(),
        llm_for=llm_for or default_llm_factory(config_dir),
        config_dir=config_dir,
        store=store,
    )
