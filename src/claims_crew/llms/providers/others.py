"""CrewAI's other native providers: built as CrewAI builds them, with no facts of the crew's own
beyond the model ids `config check` holds them to. A provider that gains some (a client option,
an error of its own) moves to a module of its own, as openai.py.

None of their clients takes CrewAI's interceptor or httpx hooks: the pre-call hook takes the
rate limit for them (llms/cutoff.py).
"""

from __future__ import annotations

from claims_crew.llms.providers.facts import Provider


def bedrock_id(model: str, name: str) -> tuple[str, str, bool] | None:
    if "." in name:
        return None
    return (
        f"{model!r} is not a Bedrock model id",
        "Bedrock ids look like anthropic.claude-3-haiku-20240307-v1:0",
        True,
    )


def deepinfra_id(model: str, name: str) -> tuple[str, str, bool] | None:
    parts = name.split("/")
    if len(parts) == 2 and all(parts):
        return None
    return (
        f"{model!r}: DeepInfra model ids are org/model",
        "e.g. deepinfra/deepseek-ai/DeepSeek-V3",
        False,
    )


AZURE = Provider(
    name="azure",
    prefixes=("azure", "azure_openai"),
    sdk_package=("azure.ai.inference", "crewai[azure-ai-inference]"),
)
BEDROCK = Provider(
    name="bedrock",
    prefixes=("bedrock", "aws"),
    id_check=bedrock_id,
    sdk_package=("boto3", "crewai[bedrock]"),
)
OPENROUTER = Provider(name="openrouter", prefixes=("openrouter",))
DEEPSEEK = Provider(name="deepseek", prefixes=("deepseek",), model_names=("deepseek",))
CEREBRAS = Provider(name="cerebras", prefixes=("cerebras",))
DASHSCOPE = Provider(name="dashscope", prefixes=("dashscope",))
SNOWFLAKE = Provider(name="snowflake", prefixes=("snowflake",))
DEEPINFRA = Provider(name="deepinfra", prefixes=("deepinfra",), id_check=deepinfra_id)

PROVIDERS = (AZURE, BEDROCK, OPENROUTER, DEEPSEEK, CEREBRAS, DASHSCOPE, SNOWFLAKE, DEEPINFRA)
