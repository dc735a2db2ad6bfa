"""The checks of config/resolution.yaml: its model's errors with their lines, and warnings.

An error is whatever ResolutionConfig refuses (the same validation a run does when it loads the
file), placed at its key and line, with a hint. A warning is a setting that is valid but lets
weaker evidence decide without a person: a prefer floor below the agreement floor, the
tool-sourced requirement turned off, abstention settings with no abstention allowed, a fact's
cue words dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from claims_crew.config_check.problems import Problem, did_you_mean
from claims_crew.config_check.source import Loaded, locate, siblings
from claims_crew.settings.yaml_files import Placed
from claims_crew.vocabulary import ABSTENTION, OUTCOMES

if TYPE_CHECKING:
    from claims_crew.resolver.config import ResolutionConfig


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        if (model := _inner_model(arg)) is not None:
            return model
    return None


def _keys_at(model: type[BaseModel] | None, loc: Sequence[int | str]) -> list[str]:
    """The keys allowed in the mapping at `loc`, by following the models' fields."""
    for part in loc:
        if model is None:
            return []
        if isinstance(part, int):
            continue
        field = next((f for n, f in model.model_fields.items() if (f.alias or n) == part), None)
        model = _inner_model(field.annotation) if field is not None else None
    if model is None:
        return []
    return [f.alias or n for n, f in model.model_fields.items()]


GATE_HINT = "a gate's field is claim_file.<field>, facts.<field>, policy.<field> or fraud.<field>"


def check_resolution(loaded: Loaded) -> list[Problem]:
    # Imported here: the models behind resolution.yaml are only needed when the file parsed.
    from claims_crew.resolver.config import ResolutionConfig, gate_fields

    checked = loaded.check(ResolutionConfig)
    if checked.value is not None:
        return _resolution_warnings(loaded, checked.value)
    problems = []
    for err in checked.errors:
        loc = list(err.loc)
        message = err.msg.removeprefix("Value error, ")
        code, hint = "invalid_value", ""
        if not loc and (m := re.match(r"(\w+): ", message)):
            loc = [m.group(1)]  # a whole-file rule names the key it is about first
        # A dict key's own error ends in "[key]": the key is where it is written.
        loc = [part for part in loc if part != "[key]"]
        path, line = locate(loaded.root, loc)
        kind = err.type
        if loc[:1] == ["expiry"] and kind in ("value_error", "literal_error", "string_type"):
            problems.append(_expiry_problem(loaded, loc, path, line, err, message))
            continue
        if kind == "extra_forbidden":
            code = "unknown_key"
            message = f"unknown key {str(loc[-1])!r}"
            hint = did_you_mean(
                str(loc[-1]),
                _keys_at(ResolutionConfig, loc[:-1]),
                siblings(loaded.data, loc),
                "a key already set here",
            )
        elif kind in ("greater_than_equal", "less_than_equal") and loc[:1] in (
            ["accept"],
            ["prefer"],
        ):
            code = "bad_threshold"
            message = f"{err.input!r} is outside [0, 1]"
            hint = "confidence thresholds are numbers from 0 to 1"
        elif kind == "literal_error":
            choices = re.findall(r"'([^']*)'", str(err.ctx.get("expected", "")))
            code = "unknown_outcome" if loc[:1] == ["automatic_outcomes"] else "invalid_value"
            message = f"{err.input!r} is not one of {', '.join(choices)}"
            hint = did_you_mean(
                str(err.input), choices, siblings(loaded.data, loc), "one already listed"
            )
            if code == "unknown_outcome":
                message = f"unknown outcome {err.input!r}; the outcomes are " + ", ".join(OUTCOMES)
        elif "unknown field" in message and loc[:1] == ["gates"]:
            code = "unknown_gate_field"
            field_loc = [*loc, "field"]
            path, line = locate(loaded.root, field_loc)
            bad = re.search(r"unknown field '([^']*)'", message)
            hint = (did_you_mean(bad.group(1), gate_fields()) if bad else "") or GATE_HINT
        problems.append(Problem(loaded.name, path, line, code, message, hint))
    return problems


def _expiry_problem(
    loaded: Loaded, loc: list[int | str], path: str, line: int | None, err: Placed, message: str
) -> Problem:
    """A duration that is not one, or a rule for an outcome or risk class that does not exist."""
    if err.type == "literal_error":
        choices = re.findall(r"'([^']*)'", str(err.ctx.get("expected", "")))
        what, whats = (
            ("outcome", "outcomes") if loc[1:2] == ["by_outcome"] else ("risk class", "classes")
        )
        return Problem(
            loaded.name,
            path,
            line,
            "unknown_outcome" if what == "outcome" else "unknown_risk_class",
            f"expiry: unknown {what} {err.input!r}; the {whats} are {', '.join(choices)}",
            did_you_mean(str(err.input), choices, siblings(loaded.data, loc), f"a {what} here"),
        )
    return Problem(
        loaded.name,
        path,
        line,
        "bad_duration",
        f"expiry: {message}",
        "a duration is a whole number and h, d or w: 12h, 30d, 2w; null never expires",
    )


def _dropped_cues(loaded: Loaded, config: ResolutionConfig) -> list[Problem]:
    """A fact whose cue words are emptied, where the defaults have some: any quote that holds
    its value then verifies it, whichever event the sentence is about."""
    from claims_crew.resolver.config import DEFAULT_FACT_CUES

    problems = []
    for name, defaults in DEFAULT_FACT_CUES.items():
        if config.fact_cues.of(name):
            continue
        path, line = locate(loaded.root, ["fact_cues", name])
        problems.append(
            Problem(
                loaded.name,
                path,
                line,
                "fact_cues_off",
                f"fact_cues.{name} is empty: a quote that holds the value verifies {name}, "
                "whatever the sentence is about",
                f"list the words that say it is the {name}, e.g. {', '.join(defaults[:3])}",
                "warning",
            )
        )
    return problems


def _resolution_warnings(loaded: Loaded, config: ResolutionConfig) -> list[Problem]:
    """Settings that are valid but let weaker evidence decide without a person."""
    problems = []
    floor = config.prefer.min_confidence
    if floor is not None and floor < config.accept.min_confidence:
        path, line = locate(loaded.root, ["prefer", "min_confidence"])
        problems.append(
            Problem(
                loaded.name,
                path,
                line,
                "weak_prefer_floor",
                f"prefer.min_confidence {floor} is below accept.min_confidence "
                f"{config.accept.min_confidence}: one side alone wins with less confidence "
                "than two agreeing sides need",
                "leave prefer.min_confidence out to use the agreement floor",
                "warning",
            )
        )
    if not config.tool_sourced.required:
        path, line = locate(loaded.root, ["tool_sourced", "required"])
        problems.append(
            Problem(
                loaded.name,
                path,
                line,
                "tool_sourced_off",
                "automatic outcomes may rest on clauses the agents quoted from memory, never "
                "returned by policy_lookup",
                "set tool_sourced.required: true",
                "warning",
            )
        )
    problems.extend(_dropped_cues(loaded, config))
    if "abstention" in loaded.data and not config.abstention_allowed:
        path, line = locate(loaded.root, ["abstention"])
        problems.append(
            Problem(
                loaded.name,
                path,
                line,
                "abstention_unused",
                f"abstention has no effect: allowed_answers does not list {ABSTENTION}",
                f"add {ABSTENTION} to allowed_answers, or remove abstention",
                "warning",
            )
        )
    return problems
