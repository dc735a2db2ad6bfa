"""Files the policies folder names stay inside it.

policies/ is the team's: an issued policy names its declarations file, index.yaml names each
endorsement's PDF, and those are read and quoted into decisions and letters. A name that climbs
out (`../`, an absolute path) or a link that leads out would let that folder read any file the
process can, and its words would decide claims, so such a file is refused before it is opened,
wherever it is loaded (policy/issued.py, schedule.py, in_force.py), and `config check` reports
it on its line. Policy forms are not confined: their entries may point at a shared folder of
wordings, and they are listed by the team, not by a policyholder's file.
"""

from __future__ import annotations

from pathlib import Path

from claims_crew.errors import OutsidePolicies


def inside(folder: Path, named: str | Path, what: str) -> Path:
    """The file `named` (relative to `folder`) as it resolves, links followed, when it lies
    inside `folder`; else OutsidePolicies. A file that does not exist is not refused here:
    its reader says it is missing."""
    path = folder / named  # an absolute name replaces the folder, and is refused below
    try:
        target, home = path.resolve(), folder.resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a loop of links
        raise OutsidePolicies(f"{what} {str(named)!r} cannot be resolved: {exc}") from exc
    if not target.is_relative_to(home):
        raise OutsidePolicies(
            f"{what} {str(named)!r} leads to {target}, outside {home}; "
            "nothing outside the policies folder is read"
        )
    return target
