"""The gates: config/resolution.yaml's limits on what may be decided without a person.

A gate escalates an outcome the rules would otherwise let stand, when a field of the case is
above a number or one of some values (a large amount, fraud's red flags, a risk class), and so
does an outcome resolution.yaml does not list as automatic. The trail keeps the outcome the rules
reached, so a person sees what they are asked to confirm.
"""

from __future__ import annotations

from claims_crew.resolver.case import Case
from claims_crew.resolver.config import Gate, ResolutionConfig
from claims_crew.resolver.resolution import Resolution, Trail


def _gate_value(case: Case, gate: Gate) -> object:
    subject, name = gate.field.split(".", 1)
    source: object = {
        "claim_file": case.claim_file,
        "facts": case.facts,
        "policy": case.policy,
        "fraud": case.fraud,
    }[subject]
    return getattr(source, name, None)


def gate_trips(case: Case, gate: Gate) -> bool:
    value = _gate_value(case, gate)
    if value is None:
        return False
    if gate.in_ is not None:
        return str(value) in gate.in_
    if isinstance(value, (list, tuple, set, frozenset, dict, str)):
        value = len(value)
    assert gate.above is not None
    try:
        return float(value) > gate.above  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def gated_or(
    case: Case, config: ResolutionConfig, trail: Trail, resolution: Resolution
) -> Resolution:
    """Apply the gates to an outcome that would stand without a person."""
    tripped = [g.name for g in config.gates if gate_trips(case, g)]
    not_automatic = (
        resolution.outcome != "ADJUDICATION_REQUIRED"
        and resolution.outcome not in config.automatic_outcomes
    )
    if not tripped and not not_automatic:
        trail.add("gates", False, "no gate tripped")
        return resolution.model_copy(update={"trail": list(trail.steps)})
    why = [f"gate {name}" for name in tripped]
    if not_automatic:
        why.append(f"{resolution.outcome} is not an automatic outcome in resolution.yaml")
    trail.add("gates", True, "; ".join(why), "policy_gate")
    would = resolution.answer or resolution.outcome
    return resolution.model_copy(
        update={
            "outcome": "ESCALATED",
            "winner": None,
            "answer": None,
            "would_have_been": resolution.outcome,
            "gates_tripped": tripped,
            "reason_codes": [*resolution.reason_codes, "policy_gate"],
            "reason": f"{resolution.reason}; escalated by {', '.join(why)}",
            "question": f"The rules would have decided {would}, but {', '.join(why)}: "
            "do you confirm?",
            "trail": list(trail.steps),
        }
    )
