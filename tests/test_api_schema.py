"""Schemathesis over the API's own OpenAPI document, against the review app served for real on
127.0.0.1 (uvicorn, the HTTP protocol `serve` runs), over the real store on both engines, with a
client's token: no server error, and every answer as the document says (its status, its
content type, its body's schema, a 405's Allow).

CI runs a small, derandomized size; CLAIMS_CREW_SCHEMA_EXAMPLES=200 runs more examples per
operation (docs/development.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import schemathesis
from schemathesis import BaseSchema, Case

from claims_crew.api.app import ApiSettings
from claims_crew.store import Store
from tests.support.web import review_page

EXAMPLES = int(os.environ.get("CLAIMS_CREW_SCHEMA_EXAMPLES", "10"))

# The claim file and a later document are binary parts: the document cannot say what a claim
# file must hold, so a request that fits the document may still carry bytes that ingest (or the
# document readers) refuse, with 422 as documented. Everywhere else a request that fits the
# document must be taken (the default: 2xx, or 401, 403, 404, 409, 429).
TAKES_FILES = [
    {
        "include-method": "POST",
        "include-path-regex": "^/claims",
        "checks": {"positive_data_acceptance": {"expected-statuses": ["2xx", "404", "409", "422"]}},
    }
]

CONFIG = schemathesis.Config.from_dict(
    {
        "seed": 20261206,
        # Requests that fit the document and requests that do not (each must be refused as
        # the document says).
        "generation": {
            "mode": "all",
            "max-examples": EXAMPLES,
            "deterministic": True,
            "database": "none",
        },
        # Coverage: the edges of each parameter, and methods the paths do not take (405 and
        # Allow). The document has no examples to run; stateful runs are the CLI's, not
        # pytest's.
        "phases": {"coverage": {"enabled": True}, "examples": {"enabled": False}},
        "operations": TAKES_FILES,
    }
)


@pytest.fixture
def api_schema(engine: str) -> Iterator[BaseSchema]:
    store = Store()
    token = store.add_client("core", ["submit", "read"], "ops")
    try:
        # A limit no run reaches: the rate limit has its own test (test_api.py).
        with review_page(store, api=ApiSettings(calls_per_minute=10**9)) as port:
            url = f"http://127.0.0.1:{port}/api/v1"
            schema = schemathesis.openapi.from_url(f"{url}/openapi.json", config=CONFIG)
            schema.config.update(base_url=url, headers={"Authorization": f"Bearer {token}"})
            yield schema
    finally:
        store.close()


@pytest.fixture(autouse=True)
def _node_id_for_schemathesis(request: pytest.FixtureRequest) -> None:
    """Schemathesis 4.32's fixture-loaded tests read (and rename, to report each operation)
    `_nodeid`, which pytest 9 no longer has on a test (its nodeid is made from `_id`): the
    test's own id, where schemathesis looks for it."""
    node = request.node
    if not hasattr(node, "_nodeid"):
        node._nodeid = node.nodeid


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.mark.slow
@schema.parametrize()
def test_the_api_answers_as_its_document_says(case: Case) -> None:
    case.call_and_validate()
