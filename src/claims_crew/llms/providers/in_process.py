"""The models of our own, run in this process: no endpoint, no key, no wire.

With no model named for an agent, it gets the local model (llms/local.py), shared by the whole
run; `config check` shows it as model "local" at endpoint "in-process". The scripted model
(llms/scripted.py) and the probe (llms/probe.py) are never chosen by configuration: tests and
benches hand a factory of scripted models to the run, `claims-crew prompt` one of probes. Their
errors are ours (errors.ModelError), recorded with code `model`, never a provider's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crewai import BaseLLM

LOCAL_MODEL = "local"
LOCAL_ENDPOINT = "in-process"


def local_model(config_dir: Path | None) -> BaseLLM:
    """The local model, its grammar offering only the answers resolution.yaml in `config_dir`
    (default: the project's config) allows."""
    from claims_crew.llms.local import LocalLLM
    from claims_crew.resolver.config import load_config

    allowed = load_config(config_dir).allowed_answers
    return LocalLLM.from_environment(allowed)
