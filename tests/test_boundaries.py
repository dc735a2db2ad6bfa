"""The package boundaries, kept by reading every module's imports (AST only: nothing is imported).

CrewAI lives in crew/, llms/ and tools/ (and main.py, the `crewai run` entry); SQL in store/ and
policy/, and the database libraries (SQLAlchemy, Alembic, psycopg) in store/ alone; click and rich
in cli/; FastAPI in review/ and api/. vocabulary.py depends on nothing of ours.

The layers: the resolver imports nothing from crew, llms, store or the claim routine (run/);
crew nothing from the store or the claim routine; the store (persistence only) nothing from the
desk's rules, the resolver, llms, crew, cli, review or the claim routine; the desk (pure rules)
nothing from the store or the claim routine; llms nothing from the claim routine; deciding/ (what
a person does to an escalation, which the command line and the page both call) nothing from
cli, review, api, crew, llms or the claim routine. cli/ and review/ do not import each other:
the page imports nothing of the command line, and the command line takes from review/ only the
views both render (views.py, desk_views.py, claim_detail.py) and the page it serves, never a
person's action or its rules. And no parts of the package (a package, or a module at the top)
import one another in a loop of any length, at any depth (tests/support/import_graph.py draws
the graph); a failure names the loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.import_graph import PACKAGE, arrows, imported, loops, package_sources

# Imported module (top-level name) → where under src/claims_crew/ it may be imported.
ALLOWED: dict[str, tuple[str, ...]] = {
    "crewai": ("crew/", "llms/", "tools/", "main.py"),
    "sqlite3": ("store/", "policy/"),
    "sqlalchemy": ("store/",),
    "alembic": ("store/",),
    "psycopg": ("store/",),
    "click": ("cli/",),
    "rich": ("cli/",),
    "fastapi": ("review/", "api/"),
}


# Package of ours → the packages of ours it may not import, at any depth of either.
LAYERS: dict[str, tuple[str, ...]] = {
    "resolver/": ("crew", "llms", "store", "run"),
    "crew/": ("store", "run"),
    "store/": ("desk", "resolver", "llms", "crew", "cli", "review", "run"),
    "desk/": ("store", "run"),
    "llms/": ("run",),
    "deciding/": ("cli", "review", "api", "crew", "llms", "run"),
    "review/": ("cli",),
}

# What cli/ may import from review/: the plain data every renderer reads, and the page it serves.
# What a person does (decide, confirm, return, assign) and its rules are deciding/'s, not these.
CLI_FROM_REVIEW = (
    "claims_crew.review.views",
    "claims_crew.review.desk_views",
    "claims_crew.review.claim_detail",
    "claims_crew.review.serving",
    "claims_crew.review.web",
)


def violations(relative: str, source: str) -> list[str]:
    """The imports of the module at `relative` (a path under src/claims_crew/) out of bounds."""
    problems = []
    for line, module in imported(source):
        top = module.split(".")[0]
        places = ALLOWED.get(top)
        if places is not None and not relative.startswith(places):
            problems.append(f"{relative}:{line} imports {module}; allowed only in {places}")
        if relative == "vocabulary.py" and (top == "claims_crew" or top in ALLOWED):
            problems.append(f"{relative}:{line} imports {module}; vocabulary stands alone")
        problems.extend(_across_layers(relative, line, module))
        if (
            relative.startswith("cli/")
            and module.startswith("claims_crew.review")
            and module not in CLI_FROM_REVIEW
        ):
            problems.append(
                f"{relative}:{line} imports {module}; cli/ takes only views from review/"
            )
    return problems


def _across_layers(relative: str, line: int, module: str) -> list[str]:
    parts = module.split(".")
    if parts[0] != "claims_crew" or len(parts) < 2:
        return []
    return [
        f"{relative}:{line} imports {module}; {layer} may not import {parts[1]}/"
        for layer, below in LAYERS.items()
        if relative.startswith(layer) and parts[1] in below
    ]


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_parts_import_one_another_in_a_loop() -> None:
    assert loops(arrows(package_sources())) == []


def test_a_pair_importing_each_other_is_caught() -> None:
    sources = {
        "desk/appeal.py": "def f():\n    from claims_crew.run.routine import decide\n",
        "run/routine.py": "from claims_crew.desk import rules\n",
        "policy/scanned.py": "from claims_crew.documents.images.ocr import read_image\n",
        "models.py": "from claims_crew.vocabulary import SIDES\n",
    }
    assert loops(arrows(sources)) == [
        "desk -> run -> desk: "
        "desk/appeal.py:2 claims_crew.run.routine; run/routine.py:1 claims_crew.desk"
    ]


def test_a_loop_of_three_is_caught_and_named() -> None:
    """The loop the pairwise check could not see: llms -> resolver -> records -> llms."""
    sources = {
        "llms/providers/in_process.py": "def f():\n    from claims_crew.resolver.config import c\n",
        "resolver/__init__.py": "from claims_crew.records import ClaimRecord\n",
        "records/__init__.py": "from claims_crew.llms.redact import redact\n",
        "crew/crew.py": "from claims_crew.llms import select\n",
    }
    assert loops(arrows(sources)) == [
        "llms -> resolver -> records -> llms: "
        "llms/providers/in_process.py:2 claims_crew.resolver.config; "
        "resolver/__init__.py:1 claims_crew.records; records/__init__.py:1 claims_crew.llms.redact"
    ]


def test_each_knot_is_named_once_by_a_shortest_loop() -> None:
    sources = {
        "a/x.py": "import claims_crew.b\nimport claims_crew.c\n",
        "b/x.py": "import claims_crew.c\n",
        "c/x.py": "import claims_crew.a\n",
        "d/x.py": "import claims_crew.e\nimport claims_crew.a\n",
        "e/x.py": "import claims_crew.d\n",
    }
    assert loops(arrows(sources)) == [
        "a -> c -> a: a/x.py:2 claims_crew.c; c/x.py:1 claims_crew.a",
        "d -> e -> d: d/x.py:1 claims_crew.e; e/x.py:1 claims_crew.d",
    ]


def test_every_module_keeps_the_boundaries() -> None:
    problems = [
        problem
        for path in modules()
        for problem in violations(
            path.relative_to(PACKAGE).as_posix(), path.read_text(encoding="utf-8")
        )
    ]
    assert problems == []


@pytest.mark.parametrize(
    ("relative", "source"),
    [
        ("resolver/rules.py", "import crewai\n"),
        ("resolver/rules.py", "def f():\n    from crewai.tools import BaseTool\n"),
        ("report/build.py", "import sqlite3\n"),
        ("cli/store.py", "from sqlalchemy import select\n"),
        ("review/web.py", "def f():\n    import sqlalchemy.exc\n"),
        ("run/ingest.py", "from alembic import command\n"),
        ("run/worker.py", "import psycopg\n"),
        ("policy/cache.py", "from sqlalchemy import create_engine\n"),
        ("run/crew_review.py", "from rich.console import Console\n"),
        ("store/attempts.py", "import click\n"),
        ("cli/review.py", "from fastapi import FastAPI\n"),
        ("vocabulary.py", "from claims_crew.models import ClaimFile\n"),
        ("resolver/rules.py", "from claims_crew.crew.ledger import ToolLedger\n"),
        ("resolver/case.py", "from claims_crew.store import Store\n"),
        ("resolver/gates.py", "def f():\n    from claims_crew.llms.select import LLMFactory\n"),
        ("resolver/rules.py", "from claims_crew.run.context import RunContext\n"),
        ("crew/crew.py", "from claims_crew.run.routine import decide_claim\n"),
        ("crew/prompt_preview.py", "from claims_crew.store import Store\n"),
        ("store/claims.py", "from claims_crew.crew.crew import ClaimsCrew\n"),
        ("store/queue.py", "from claims_crew.cli.run import run_inbox\n"),
        ("store/audit.py", "from claims_crew.review.web import app\n"),
        ("store/work_queue.py", "import claims_crew.run.ingest\n"),
        ("store/desk_rows.py", "from claims_crew.desk.authority import may_change_desk\n"),
        ("store/queue.py", "from claims_crew.resolver import Resolution\n"),
        ("store/rate_windows.py", "from claims_crew.llms.rate_limit import token_delay\n"),
        ("desk/appeal.py", "from claims_crew.store import Store\n"),
        ("desk/clocks.py", "def f():\n    from claims_crew.run.routine import decide\n"),
        ("llms/select.py", "from claims_crew.run.limits import Limits\n"),
        ("deciding/actions.py", "from claims_crew.review.pages import Pages\n"),
        ("deciding/clauses.py", "def f():\n    from claims_crew.cli.acting import signed_in\n"),
        ("deciding/payable.py", "from claims_crew.run.routine import decide_claim\n"),
        ("deciding/actions.py", "from claims_crew.api.app import build\n"),
        ("review/routes_desk.py", "from claims_crew.cli.desk import show_decided\n"),
        ("cli/desk.py", "def f():\n    from claims_crew.review.amounts import payable_detail\n"),
        ("cli/review.py", "from claims_crew.review.routes_escalation import read_choice\n"),
        ("cli/review.py", "import claims_crew.review.clause_offer\n"),
    ],
)
def test_an_import_across_a_boundary_is_caught(relative: str, source: str) -> None:
    assert len(violations(relative, source)) == 1


def test_imports_inside_the_bounds_pass() -> None:
    assert violations("crew/crew.py", "from crewai import Agent\n") == []
    assert violations("store/audit.py", "import sqlite3\n") == []
    assert violations("store/copy.py", "from sqlalchemy import insert\n") == []
    assert violations("store/schema.py", "from alembic import command\n") == []
    assert violations("store/engine.py", "import psycopg\n") == []
    assert violations("main.py", "import crewai\n") == []
    assert violations("resolver/rules.py", "from claims_crew.vocabulary import SIDES\n") == []
    assert violations("resolver/rules.py", "from claims_crew.models import Claim\n") == []
    assert violations("crew/crew.py", "from claims_crew.llms.select import LLMFactory\n") == []
    assert violations("run/routine.py", "from claims_crew.crew.crew import ClaimsCrew\n") == []
    assert violations("store/work_queue.py", "from claims_crew.claim_files import X\n") == []
    assert violations("deciding/actions.py", "from claims_crew.store import Store\n") == []
    assert violations("deciding/actions.py", "from claims_crew.desk import load_desk\n") == []
    assert violations("review/routes_desk.py", "from claims_crew.deciding import actions\n") == []
    assert violations("cli/desk.py", "from claims_crew.deciding.actions import confirm\n") == []
    assert violations("cli/review.py", "from claims_crew.review.views import MAX_PAGE\n") == []
    assert violations("cli/serve.py", "from claims_crew.review.serving import serve\n") == []
