"""Acting as a reviewer on the command line: only with that reviewer's own sign-in token.

Anyone who can open the store can run `claims-crew`, so a name on the command line proves
nothing. A command that decides, confirms, returns or reassigns as a person, or changes the
desk, takes the person's token from CLAIMS_CREW_REVIEWER_TOKEN (or asks for it, hidden, at a
terminal) and checks it with the page's own sign-in (`Store.sign_in`, store/sign_ins.py): the
same hash lookup and the same throttle on wrong tokens, counted for the reviewer name claimed
(`--reviewer`, else CLAIMS_CREW_REVIEWER), not for the OS user, and all names together under
the command line's ceiling. The token's owner is who acts; `--reviewer`, where given, must name
them. Refused, the command writes nothing.

The one desk change made without a token is registering the first reviewer of an empty store:
there is nobody yet to vouch for it, so it is recorded as made by the OS user at the command line.
"""

from __future__ import annotations

import getpass
import sys
from typing import TYPE_CHECKING

import click

from claims_crew.errors import NotSignedIn
from claims_crew.records import same_person
from claims_crew.settings import current

if TYPE_CHECKING:
    from claims_crew.store import Store

TOKEN_VARIABLE = "CLAIMS_CREW_REVIEWER_TOKEN"
TOKEN_HELP = (
    f"The acting reviewer is proven by their sign-in token: {TOKEN_VARIABLE}, or asked for "
    "(hidden) at a terminal."
)


def named_reviewer() -> str | None:
    """--reviewer's default: CLAIMS_CREW_REVIEWER, from the environment or the settings file."""
    name: str | None = current().claims_crew_reviewer
    return name


def os_user() -> str:
    """Who is logged in to this machine, as far as it says."""
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name and no user database entry (a bare container)
        return "unknown"


def _token() -> str:
    """The token from the environment, or typed at a terminal; NotSignedIn without one."""
    token = current().claims_crew_reviewer_token or ""
    if not token and sys.stdin.isatty():
        typed = click.prompt("Reviewer token", hide_input=True, default="", show_default=False)
        token = str(typed).strip()
    if not token:
        raise NotSignedIn(
            f"acting as a reviewer needs their sign-in token: set {TOKEN_VARIABLE} "
            "(or run at a terminal to be asked for it)"
        )
    return token


def signed_in(store: Store, named: str | None = None) -> str:
    """The reviewer this command acts as: the owner of the token given, checked as the page
    checks a sign-in. `named` (`--reviewer`), when given, must be that reviewer."""
    from claims_crew.store import command_line_client  # the store loads when it is used

    # Counted by the name claimed, never by the OS user, which the caller sets (USER, LOGNAME).
    claimed = named if named is not None else named_reviewer()
    name = store.sign_in(_token(), command_line_client(claimed))
    if name is None:
        raise NotSignedIn("that reviewer token is not valid")
    if named is not None and not same_person(named, name):
        raise NotSignedIn(f"the token given is {name}'s, not {named}'s")
    return name


def desk_actor(store: Store) -> tuple[str, str, bool]:
    """Who makes a desk change, as its audit entry records it: (actor, note, first).

    `human:NAME`, proven by their token; or, in a store with no reviewer and no token given,
    the OS user at the command line (`cli:USER`), allowed only for the first registration."""
    if not current().claims_crew_reviewer_token and not store.has_reviewers():
        user = os_user()
        note = f"no reviewer existed yet: by OS user {user} at the command line, unproven"
        return f"cli:{user}", note, True
    return f"human:{signed_in(store)}", "", False
