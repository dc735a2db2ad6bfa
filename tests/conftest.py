"""Shared fixtures: a private data folder per test, and the project's sample and real policies.

Fixtures and pytest hooks only: what the tests share besides fixtures is in tests/support/."""

from __future__ import annotations

import gc
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from claims_crew.llms.threads import usable_cores
from claims_crew.policy.cache import index_path, write_index
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.library import PolicyLibrary, extract_pages, open_pdf, sha256_of
from claims_crew.policy.segment import segment
from claims_crew.settings import policy_cache_dir
from tests.support.memory_temp import memory_folder, use_memory_temp
from tests.support.openai_server import OpenAIServer, OpenAIWire, Respond, StartServer, Wire
from tests.support.paths import SAMPLE_POLICIES, shared_pdf
from tests.support.real_policies import OpenReal, RealPolicy
from tests.support.run_cache import file_once, held, keep_bytecode, run_folder, texts_once
from tests.support.schedule import slowest_files_first
from tests.support.skips import reason_of, skip_summary
from tests.support.wires import WIRES

# postgres_server, postgres_url, engine_postgres_url and restartable_postgres: throwaway
# PostgreSQL clusters and databases (tests/support/postgres.py); sqlite_template: the SQLite file
# every test's home starts with, and home_folder, that home (tests/support/sqlite_template.py).
pytest_plugins = ["tests.support.postgres", "tests.support.sqlite_template"]


@pytest.fixture(autouse=True)
def _private_home(
    tmp_path: Path, home_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Every test gets its own CLAIMS_CREW_HOME and reads the sample policies of this repo.

    The home holds an SQLite store at the current schema and with no rows, as a user's does
    after a first command, unless the test is marked `empty_database`
    (tests/support/sqlite_template.py)."""
    monkeypatch.setenv("CLAIMS_CREW_HOME", str(home_folder))
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(SAMPLE_POLICIES))
    monkeypatch.setenv("CREWAI_DISABLE_TELEMETRY", "true")
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    monkeypatch.setenv("CREWAI_TRACING_ENABLED", "false")
    monkeypatch.setenv("CREWAI_STORAGE_DIR", str(tmp_path / "crewai"))
    monkeypatch.delenv("CLAIMS_CREW_DATABASE_URL", raising=False)  # the SQLite file unless asked
    # Hints name `uv run claims-crew` under uv (settings/command.py): the tests, run through
    # `uv run pytest` or not, see the plain command unless a test sets UV itself.
    monkeypatch.delenv("UV", raising=False)
    yield


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test once on each store engine. `Store()` is then the SQLite file in the test's
    CLAIMS_CREW_HOME, or a fresh PostgreSQL database named by CLAIMS_CREW_DATABASE_URL (as a
    user would set it); subprocesses the test starts inherit the same. Use it with
    `pytestmark = pytest.mark.usefixtures("engine")` or as an argument.

    The PostgreSQL database is already at the current schema, holding no rows (a copy of one
    that a first `Store()` migrated, tests/support/postgres.py); a test of what a first
    `Store()` does to a new database is marked `empty_database` and gets an empty one."""
    if request.param == "postgresql":
        url = request.getfixturevalue("engine_postgres_url")
        monkeypatch.setenv("CLAIMS_CREW_DATABASE_URL", url)
    return str(request.param)


def _servers(wire: Callable[[], Wire]) -> Iterator[StartServer]:
    started: list[OpenAIServer] = []

    def start(respond: Respond, **options: float) -> OpenAIServer:
        server = OpenAIServer(respond, wire=wire(), **options).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def openai_server() -> Iterator[StartServer]:
    """Start scripted OpenAI-compatible servers on 127.0.0.1 (tests/support/openai_server.py):
    `openai_server(respond, latency_s=..., hang_limit_s=...)`. Each stops when the test ends,
    and a call it holds (Hang) is dropped then."""
    yield from _servers(OpenAIWire)


@pytest.fixture(params=sorted(WIRES))
def provider_server(request: pytest.FixtureRequest) -> Iterator[StartServer]:
    """`openai_server`, once per provider's wire format (OpenAI, Anthropic, Gemini): a test that
    takes this fixture runs on each, and point_model_at names that provider's model."""
    yield from _servers(WIRES[request.param][0])


@pytest.fixture
def warm_crew(
    openai_server: StartServer,
    sample_library: PolicyLibrary,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CrewAI warmed up by one scripted claim, so that a test's short claim deadline holds only
    a warm claim's work, not the process's first-claim costs (tests/support/provider.py)."""
    from tests.support.provider import warm_up  # imports CrewAI: only for the tests that ask

    warm_up(openai_server, sample_library, tmp_path / "warm", monkeypatch)


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One index cache for the whole run, so each large PDF is parsed once."""
    return tmp_path_factory.mktemp("policy-index")


@pytest.fixture(scope="session")
def sample_library(session_cache: Path) -> PolicyLibrary:
    return PolicyLibrary(root=SAMPLE_POLICIES, cache_dir=session_cache)


@pytest.fixture(scope="session")
def home_policy(sample_library: PolicyLibrary) -> PolicyDocument:
    return sample_library.open("HM-HOME-001")


@pytest.fixture(scope="session")
def real_doc(session_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> OpenReal:
    """Open a real policy from ../shared/policies once per run, keeping pypdf's page texts.

    The index is written from the same page texts that the coverage test compares against, so
    each large PDF is extracted once; open_pdf then loads it from the cache like any warm load.
    Once per run, not per worker: the page texts and the index are kept, named by the PDF's
    hash, where every worker of the run finds them (tests/support/run_cache.py), since reading
    the seven PDFs takes a worker a minute or two.
    """
    opened: dict[str, RealPolicy] = {}
    shared = run_folder(tmp_path_factory, "real-policies")

    def open_real(name: str) -> RealPolicy:
        if name not in opened:
            path = shared_pdf(name)
            data = path.read_bytes()
            sha = sha256_of(data)
            with held(shared / f"{sha}.lock"):
                pages = texts_once(shared / f"{sha}.pages.json", lambda: extract_pages(path, data))
                file_once(
                    index_path(shared, sha),
                    index_path(session_cache, sha),
                    lambda folder: write_index(folder, sha, name, len(pages), segment(pages)),
                )
            opened[name] = RealPolicy(open_pdf(path, session_cache), pages)
        return opened[name]

    return open_real


@pytest.fixture(scope="session")
def _warm_indexes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("warm-index")


@pytest.fixture
def warm_index(_warm_indexes: Path) -> None:
    """The sample policies indexed where the workers look, so that no worker parses a PDF.

    Indexed once per worker, into a folder of its own, and copied into each test's home: an
    index is named by its PDF's hash, so the copy is the one the home would have made."""
    library = PolicyLibrary(cache_dir=_warm_indexes)
    for policy_id in ("HM-HOME-001", "MR-AUTO-001", "WF-TRAVEL-001"):
        library.open(policy_id)
    shutil.copytree(_warm_indexes, policy_cache_dir(), dirs_exist_ok=True)


POSTGRES_FIXTURES = {
    "postgres_server",
    "postgres_url",
    "engine_postgres_url",
    "migrated_postgres_url",
    "postgres_template",
    "restartable_postgres",
}
# Files whose tests start processes, load the local model or run scripted-server batches: each
# takes seconds. A slow test elsewhere carries @pytest.mark.slow itself.
SLOW_FILES = {
    "test_local_model.py",
    "test_pdf_reader.py",
    "test_poisoned_inbox.py",
    "test_provider_faults.py",
    "test_provider_speed.py",
    "test_rate_limit.py",
    "test_shadow.py",
    "test_work_cli.py",
    "test_work_killed.py",
    "test_work_stop.py",
    "test_workers.py",
}
# real_doc parses a real policy PDF of up to a few hundred pages on its first use.
SLOW_FIXTURES = {"real_doc"}


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: a worker more than the cores this run may use. Some tests spend much of their
    time waiting (on a scripted provider's deadline, a rate limit's window, a worker process's
    start), and a third worker on two cores has work ready for the core they leave idle."""
    return usable_cores() + 1


@pytest.hookimpl(trylast=True)  # after pytest's own tmp_path set-up, before xdist's workers
def pytest_configure(config: pytest.Config) -> None:
    """The run's temporary files go to memory where the machine has room for them
    (tests/support/memory_temp.py), before the run's folder is chosen; and the run's processes,
    xdist's workers among them, keep their bytecode in the run's folder where
    PYTHONDONTWRITEBYTECODE would have each compile all it imports again
    (tests/support/run_cache.py). A worker finds both done by the controller that started it,
    whose environment it inherits."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    use_memory_temp(os.environ, memory_folder())
    keep_bytecode(os.environ, config._tmp_path_factory.getbasetemp() / "bytecode")


def pytest_collection_finish(session: pytest.Session) -> None:
    """The garbage collector visits the run's long-lived objects less often.

    A worker holds the tests, pytest, and soon CrewAI and its schemas: hundreds of thousands of
    objects that live as long as it does. At Python's default thresholds a worker ran a full
    collection over all of them every few tests, about 0.3 s each; over six web, report and
    review files (188 tests, three workers) collecting took 8.5 s of each worker's 55-59 s of
    CPU, three quarters of it in those full passes. What exists once the tests are collected is
    frozen out of every collection, and each generation waits for more allocations before it
    collects: the same run then spent 2.7 s a worker collecting. Garbage is still collected,
    only in larger batches; a test that needs it now calls gc.collect()."""
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark `postgres` every test that needs PostgreSQL: the postgresql case of a fixture
    parametrized on engines (`engine`, test_store_copy's `target`), and tests asking for the
    server or a database directly. `-m "not postgres"` then leaves them out without skipping
    them (CI runs them all)."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        params = callspec.params.values() if callspec is not None else ()
        on_postgres = any(isinstance(value, str) and value == "postgresql" for value in params)
        fixtures = set(getattr(item, "fixturenames", ()))
        if on_postgres or POSTGRES_FIXTURES & fixtures:
            item.add_marker(pytest.mark.postgres)
        if item.path.name in SLOW_FILES or SLOW_FIXTURES & fixtures:
            item.add_marker(pytest.mark.slow)
    # The files with the most slow tests go to the workers first (tests/support/schedule.py).
    items[:] = slowest_files_first(
        items, lambda item: item.path, lambda item: item.get_closest_marker("slow") is not None
    )


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> Iterator[None]:
    """After pytest's list of skip reasons (the outermost wrapper ends last), one line saying
    which skips are the expected ones (tests/support/skips.py)."""
    yield
    line = skip_summary(reason_of(report) for report in terminalreporter.stats.get("skipped", []))
    if line:
        terminalreporter.write_line(line)
