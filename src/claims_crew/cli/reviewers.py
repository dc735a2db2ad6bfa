"""`claims-crew reviewers add | set | list`: the people who decide escalations, their role, the
lines of business they take and their authority (docs/review-desk.md). Every change is an audit
entry. `claims-crew reviewer add NAME`, the command's old name, still registers a reviewer with
the defaults for one more release, hidden from --help and saying so on stderr.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console

from claims_crew.cli._output import emit_json, json_option, reports_errors
from claims_crew.cli.acting import desk_actor, signed_in
from claims_crew.cli.safe_text import clean, plain
from claims_crew.cli.tables import Table
from claims_crew.records import ROLES

if TYPE_CHECKING:
    from claims_crew.records import ReviewerSettings


def _amount(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Any:
    """An amount, `none` (no limit), or not given (None: unchanged)."""
    if value is None:
        return None
    if value.lower() in ("none", "any"):
        return "none"
    try:
        amount = Decimal(value)
    except InvalidOperation:
        raise click.BadParameter(f"{value!r} is not an amount") from None
    if not amount.is_finite() or amount < 0:
        raise click.BadParameter("an amount is a number of 0 or more")
    return amount


def _changes(
    role: str | None, lines: tuple[str, ...], max_amount: Any, may_deny: bool | None
) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    if role is not None:
        changes["role"] = role
    if lines:
        wanted = [line.strip() for line in lines if line.strip()]
        changes["lines"] = None if wanted == ["all"] else sorted(set(wanted))
    if max_amount is not None:
        changes["max_amount"] = None if max_amount == "none" else max_amount
    if may_deny is not None:
        changes["may_deny"] = may_deny
    return changes


def _settings_json(name: str, settings: Any, **extra: Any) -> dict[str, Any]:
    return {"name": name, **settings.model_dump(mode="json"), **extra}


def settings_options(func: Any) -> Any:
    for option in reversed(
        [
            click.option("--role", type=click.Choice(ROLES), help="reviewer, or lead."),
            click.option(
                "--line",
                "lines",
                multiple=True,
                help="A line of business taken (repeat; `all`: every line).",
            ),
            click.option(
                "--max-amount",
                callback=_amount,
                help="The largest payment they may approve (`none`: no limit).",
            ),
            click.option(
                "--may-deny",
                type=click.Choice(["yes", "no"]),
                callback=lambda _c, _p, v: None if v is None else v == "yes",
                help="Whether they may deny claims.",
            ),
        ]
    ):
        func = option(func)
    return func


@click.group()
def reviewers() -> None:
    """Reviewers: their role, lines of business and authority."""


@reviewers.command("add")
@click.argument("name")
@settings_options
@json_option
@reports_errors
def reviewers_add(
    name: str,
    role: str | None,
    lines: tuple[str, ...],
    max_amount: Any,
    may_deny: bool | None,
    as_json: bool,
) -> None:
    """Add a reviewer with their settings; print their sign-in token once.

    Made as a reviewer proven by their token (CLAIMS_CREW_REVIEWER_TOKEN, or asked for at a
    terminal), whom the audit entry names; the first reviewer of an empty store, with nobody
    yet to vouch for it, by the OS user at the command line, as the entry says."""
    from claims_crew.records import ReviewerSettings

    settings = ReviewerSettings.model_validate(_changes(role, lines, max_amount, may_deny))
    token, assigned = _register(name, settings)
    if as_json:
        emit_json(
            {
                "reviewer": _settings_json(name.strip(), settings),
                "token": token,
                "assigned": _assigned_json(assigned),
            }
        )
        return
    _say_token(name, token)
    _say_assigned(assigned)
    _warn_no_lead()


def _register(name: str, settings: ReviewerSettings | None) -> tuple[str, list[tuple[str, str]]]:
    """The new reviewer's sign-in token, registered as the acting reviewer (desk_actor), and
    the waiting escalations then given out (Store.assign_waiting)."""
    from claims_crew.desk import desk_change_refusal
    from claims_crew.errors import ClaimsCrewError
    from claims_crew.store import Store

    assign = _desk_rule()  # read first: a broken config/desk.yaml changes nothing
    store = Store()
    actor, note, first = desk_actor(store)
    token = store.add_reviewer(
        name, settings, actor, note=note, first=first, permit=desk_change_refusal
    )
    try:
        return token, store.assign_waiting(assign, f"after reviewer {name.strip()} was added")
    except ClaimsCrewError as exc:
        # The reviewer is added and their token is shown only once: a failure to hand out the
        # waiting escalations must not lose it. It is said; the next add or set tries again.
        click.echo(clean(f"notice: the open escalations were not assigned: {exc}"), err=True)
        return token, []


def _desk_rule() -> Any:
    """config/desk.yaml's assignment rule (desk.assignment.Assigner)."""
    from claims_crew.desk import Assigner, load_desk

    return Assigner(tuple(load_desk().assignment.steps))


def _assigned_json(assigned: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"claim_id": claim_id, "reviewer": who} for claim_id, who in assigned]


def _say_assigned(assigned: list[tuple[str, str]]) -> None:
    """One line per reviewer given open escalations that nobody had: "assigned 3 open
    escalations to dana: C-1044, C-1045, C-1046"."""
    by_reviewer: dict[str, list[str]] = {}
    for claim_id, who in assigned:
        by_reviewer.setdefault(who, []).append(claim_id)
    for who, claims in by_reviewer.items():
        many = "s" if len(claims) != 1 else ""
        click.echo(
            clean(f"assigned {len(claims)} open escalation{many} to {who}: {', '.join(claims)}")
        )


def _say_token(name: str, token: str) -> None:
    """The token on a line of its own (scripts read the line after the first), then the
    variable every command that acts as a reviewer reads it from, ready to paste."""
    from claims_crew.cli.acting import TOKEN_VARIABLE

    click.echo(f"Reviewer {name.strip()} added. Sign-in token (shown once, keep it safe):")
    click.echo(token)
    click.echo(f"Commands act as {name.strip()} with it in {TOKEN_VARIABLE}:")
    click.echo(f"  export {TOKEN_VARIABLE}={token}")


def _warn_no_lead() -> None:
    """A desk with no lead lets any reviewer change it (docs/review-desk.md): said after every
    add until there is one, with the command that makes one."""
    from claims_crew.store import Store

    if any(r.settings.role == "lead" for r in Store().reviewer_list()):
        return
    click.echo(
        "warning: the desk has no lead, so any reviewer may change it; make one with "
        "`claims-crew reviewers set NAME --role lead` (or add the first with --role lead)",
        err=True,
    )


@reviewers.command("set")
@click.argument("name")
@settings_options
@json_option
@reports_errors
def reviewers_set(
    name: str,
    role: str | None,
    lines: tuple[str, ...],
    max_amount: Any,
    may_deny: bool | None,
    as_json: bool,
) -> None:
    """Change a reviewer's role, lines or authority (what is not given stays), as a reviewer
    proven by their token, whom the audit entry names."""
    from claims_crew.desk import desk_change_refusal
    from claims_crew.store import Store

    changes = _changes(role, lines, max_amount, may_deny)
    if not changes:
        raise click.UsageError("nothing to change: give --role, --line, --max-amount or --may-deny")
    assign = _desk_rule()
    store = Store()
    actor = f"human:{signed_in(store)}"
    settings = store.set_reviewer(name, actor=actor, permit=desk_change_refusal, **changes)
    assigned = store.assign_waiting(assign, f"after reviewer {name}'s settings changed")
    if as_json:
        emit_json(
            {"reviewer": _settings_json(name, settings), "assigned": _assigned_json(assigned)}
        )
        return
    click.echo(f"Reviewer {name}: {_describe(settings)}.")
    _say_assigned(assigned)


def _describe(settings: Any) -> str:
    lines = ", ".join(settings.lines) if settings.lines is not None else "every line"
    limit = settings.max_amount if settings.max_amount is not None else "any amount"
    deny = "may deny" if settings.may_deny else "may not deny"
    return f"{settings.role}; {lines}; approves up to {limit}; {deny}"


@reviewers.command("list")
@json_option
@reports_errors
def reviewers_list(as_json: bool) -> None:
    """Every reviewer, with their settings and the open escalations assigned to them."""
    from claims_crew.store import Store

    rows = Store().reviewer_list()
    if as_json:
        emit_json({"reviewers": [_settings_json(r.name, r.settings, open=r.load) for r in rows]})
        return
    table = Table(title=f"{len(rows)} reviewer(s)")
    for column in ("name", "role", "lines", "approves up to", "may deny", "open"):
        table.add_column(column, no_wrap=column == "name")
    for r in rows:
        s = r.settings
        table.add_row(
            plain(r.name),
            s.role,
            plain(", ".join(s.lines) if s.lines is not None else "all"),
            str(s.max_amount) if s.max_amount is not None else "any",
            "yes" if s.may_deny else "no",
            str(r.load),
        )
    Console().print(table)


# ---- `reviewer add`: the old name of `reviewers add`, for one more release ------------------

RENAMED = (
    "note: `claims-crew reviewer add` is now `claims-crew reviewers add`; "
    "`reviewer add` goes in the next release"
)


@click.group("reviewer", hidden=True)
def reviewer() -> None:
    """The old name of `claims-crew reviewers`, for one more release."""


@reviewer.command("add")
@click.argument("name")
@json_option
@reports_errors
def reviewer_add(name: str, as_json: bool) -> None:
    """Add a reviewer with the defaults: `claims-crew reviewers add NAME`, under its old name."""
    click.echo(RENAMED, err=True)
    token, assigned = _register(name, None)
    if as_json:  # as this command always printed it, for the scripts that read it
        emit_json({"reviewer": name.strip(), "token": token})
        return
    _say_token(name, token)
    _say_assigned(assigned)
