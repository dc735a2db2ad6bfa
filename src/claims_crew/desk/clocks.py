"""The desk's clocks: when a claim must be acknowledged and decided, and how late it is.

The table is config/clocks.yaml: days to acknowledge and days to decide, by the claim file's
optional `jurisdiction`, with a default row (the NAIC model regulation's 15 and 30 days). The
days count from the day the claim was reported (its claim file's `date_reported`), or, for an
appeal, from the day it was lodged. A sample claim (`sample: true` in its file: the project's
demonstration claims, reported long ago) counts from the day this store first received it
instead, so a first run shows due dates ahead, not "overdue by 400 days"; a real claim's clock
never moves that way. Each escalation keeps its deadlines in the store as dates,
fixed when it opens, so every worker and every restart sees the same clock, and a later change
to the table moves no deadline already set.

"Now" is the wall clock, or CLAIMS_CREW_NOW when set: a testing aid that moves the clock
(an overdue escalation is made by moving now, never by waiting).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from claims_crew import settings
from claims_crew.records import Deadlines
from claims_crew.settings.yaml_files import model_from_yaml
from claims_crew.vocabulary import utc_now

NOW_VARIABLE = "CLAIMS_CREW_NOW"


class Clock(BaseModel):
    """One row of the table: calendar days to acknowledge and to decide."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    acknowledge_days: int = Field(15, ge=0, le=3650)
    decide_days: int = Field(30, ge=1, le=3650)


class ClockTable(BaseModel):
    """config/clocks.yaml as loaded."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str = Field(min_length=1, description="Where the numbers come from.")
    default: Clock = Clock()
    jurisdictions: dict[str, Clock] = Field(default_factory=dict)

    def clock(self, jurisdiction: str | None) -> Clock:
        if jurisdiction is None:
            return self.default
        return self.jurisdictions.get(jurisdiction, self.default)

    def problems(self) -> list[str]:
        """What `config check` warns about beyond the schema: a row that decides before it
        acknowledges."""
        rows = {"default": self.default, **self.jurisdictions}
        return [
            f"{name}: decide_days ({row.decide_days}) is under acknowledge_days "
            f"({row.acknowledge_days})"
            for name, row in rows.items()
            if row.decide_days < row.acknowledge_days
        ]


DEFAULT_TABLE = ClockTable(
    source="NAIC Unfair Claims Settlement Practices Model Regulation (built-in default)"
)


def clocks_path(config_dir: Path | None = None) -> Path:
    return (config_dir if config_dir is not None else settings.config_dir()) / "clocks.yaml"


def load_clocks(config_dir: Path | None = None) -> ClockTable:
    """config/clocks.yaml, validated (a ConfigError naming each key at fault); without the
    file, the built-in NAIC defaults."""
    path = clocks_path(config_dir)
    try:
        return model_from_yaml(path, ClockTable, "file")
    except FileNotFoundError:
        return DEFAULT_TABLE


def clock_start(reported: date, sample: bool, first_received: date | None) -> date:
    """The day a claim's clock starts: the day it was reported; for a sample claim, the day the
    store first received it (today, if it has not yet)."""
    if not sample:
        return reported
    return first_received if first_received is not None else today()


def deadlines(table: ClockTable, started: date, jurisdiction: str | None) -> Deadlines:
    """The deadlines of a claim whose clock started on `started`."""
    row = table.clock(jurisdiction)
    return Deadlines(
        jurisdiction=jurisdiction,
        acknowledge_by=(started + timedelta(days=row.acknowledge_days)).isoformat(),
        decide_by=(started + timedelta(days=row.decide_days)).isoformat(),
    )


def now() -> datetime:
    """The wall clock, or the moment CLAIMS_CREW_NOW names (ISO 8601; a bare date is its
    midnight UTC)."""
    moved: datetime | None = settings.current().claims_crew_now
    return moved if moved is not None else utc_now()


def today() -> date:
    return now().astimezone(UTC).date()


def days_left(due: str | None, on: date) -> int | None:
    """Days from `on` to the last day on time: negative once overdue; None without a clock."""
    return None if due is None else (date.fromisoformat(due) - on).days


def due_text(days: int | None) -> str:
    """How a deadline reads on the page and in the terminal."""
    if days is None:
        return "no clock"
    if days < 0:
        return f"overdue by {-days} day{'s' if days != -1 else ''}"
    if days == 0:
        return "due today"
    return f"due in {days} day{'s' if days != 1 else ''}"
