"""The checks of config/prices.yaml, the optional price table: each mistake at its key and line.

The file is validated by the same model a report loads it with (claims_crew.prices), and each
error is placed and given a hint: a price that is not a number, a negative or infinite one, a
key the table does not know (a misspelt `input`, say), a model with a price missing.
"""

from __future__ import annotations

from claims_crew.config_check.problems import Problem, did_you_mean
from claims_crew.config_check.source import Loaded, siblings

PRICE_HINT = "a price is a plain number per million tokens, e.g. input: 0.15, output: 0.60"
# pydantic's error types for a value that is there but is not a usable number.
NOT_A_NUMBER = {"float_type", "float_parsing", "finite_number"}


def check_prices(loaded: Loaded) -> list[Problem]:
    # Imported here: the model is needed only when the file is there and parsed.
    from claims_crew.prices import Price, PriceTable

    problems = []
    for err in loaded.check(PriceTable).errors:
        loc, path, line, kind = list(err.loc), err.key, err.line, err.type
        if kind == "extra_forbidden":
            known = list(Price.model_fields) if len(loc) == 3 else list(PriceTable.model_fields)
            code, message = "unknown_key", f"unknown key {str(loc[-1])!r}"
            given = siblings(loaded.data, loc)
            left = [k for k in known if k not in given]
            hint = did_you_mean(str(loc[-1]), known, given, "a key already set here") or (
                "the keys left to set here: " + ", ".join(left)
                if left
                else "every key here is set already: remove it"
            )
        elif kind == "greater_than_equal":
            code, message = "negative_price", f"price {err.input!r} is below zero"
            hint = "a price is zero or more (zero for a model you run yourself)"
        elif kind in NOT_A_NUMBER:
            code, message = "bad_price", f"{err.input!r} is not a finite number"
            hint = PRICE_HINT + " (no quotes, no currency sign)"
        elif kind == "missing":
            code, message = "missing_key", f"{str(loc[-1])!r} is missing"
            hint = (
                PRICE_HINT
                if len(loc) == 3
                else "list each model under models:, with its input and output price"
            )
        else:
            code, message, hint = "invalid_value", err.msg, ""
            if loc[:1] == ["models"] and len(loc) == 2:
                hint = "each model maps to its prices: {input: NUMBER, output: NUMBER}"
        problems.append(Problem(loaded.name, path, line, code, message, hint))
    return problems
