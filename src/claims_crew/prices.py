"""The optional price table, config/prices.yaml: what a million tokens cost, per model.

Without the file no cost is shown anywhere; with it, a claim's cost is each task's prompt and
completion tokens at the prices of the model that ran the task. A model the table does not list
has no price, and a claim that used one has no cost: nothing is guessed. `claims-crew config
check` places every mistake in the file at its key and line (config_check/prices.py).

A model is looked up by the name its record keeps (ClaimRecord.models); a table key written with
its provider (`openai/gpt-4o-mini`) also matches the bare name CrewAI's clients keep
(`gpt-4o-mini`), and the other way round.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from claims_crew import settings
from claims_crew.errors import ConfigError, YamlSyntaxError
from claims_crew.settings.yaml_files import read_document

PRICES_FILE = "prices.yaml"
PER_TOKENS = 1_000_000  # prices are per million tokens, as providers list them

PerMillion = Annotated[float, Field(ge=0, strict=True, allow_inf_nan=False)]


class Price(BaseModel):
    """One model's price per million tokens."""

    model_config = ConfigDict(extra="forbid")

    input: PerMillion = Field(description="Per million prompt (input) tokens.")
    output: PerMillion = Field(description="Per million completion (output) tokens.")

    def cost(self, prompt: int, completion: int) -> float:
        return (prompt * self.input + completion * self.output) / PER_TOKENS


class PriceTable(BaseModel):
    """config/prices.yaml: the currency the prices are in, and a price per model."""

    model_config = ConfigDict(extra="forbid")

    currency: str = Field("USD", min_length=1, description="What the prices are in, e.g. USD.")
    models: dict[str, Price] = Field(description="Model name → its price per million tokens.")

    def price_of(self, model: str) -> Price | None:
        """The model's price: by its exact name, else by the name without its provider."""
        if model in self.models:
            return self.models[model]
        bare = _bare(model)
        return next((p for name, p in self.models.items() if _bare(name) == bare), None)


def _bare(model: str) -> str:
    return model.split("/", 1)[1] if "/" in model else model


def load_prices(config_dir: Path | None = None) -> PriceTable | None:
    """The price table in `config_dir` (default: the project's config/), None when absent."""
    path = (config_dir if config_dir is not None else settings.config_dir()) / PRICES_FILE
    try:
        document = read_document(path)
    except FileNotFoundError:
        return None
    except YamlSyntaxError as exc:
        raise ConfigError(_not_a_table(path, exc.detail)) from exc
    # An empty file is no table (None is not one), as config check reads it.
    checked = document.check(PriceTable, empty_as_mapping=False)
    if checked.value is None:
        raise ConfigError(_not_a_table(path, checked.failure)) from checked.failure
    return checked.value


def _not_a_table(path: Path, why: object) -> str:
    return f"{path} is not a valid price table (claims-crew config check shows where): {why}"
