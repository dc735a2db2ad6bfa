"""Shared fixtures: a private data folder per test, and the project's sample and real policies."""

from __future__ import annotations

import functools
import importlib.util
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from claims_crew.policy.cache import write_index
from claims_crew.policy.document import PolicyDocument
from claims_crew.policy.library import PolicyLibrary, open_pdf, sha256_of
from claims_crew.policy.segment import segment
from claims_crew.policy.text import extract_pages
from tests.openai_server import OpenAIServer, Respond

# postgres_server and postgres_url: a throwaway PostgreSQL cluster (tests/postgres.py).
pytest_plugins = ["tests.postgres"]

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def load_script(path: Path) -> ModuleType:
    """A script of the project (bench/, scripts/) as a module, loaded once. It is registered in
    sys.modules under its file name first: dataclasses look their module up while a class is
    built."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


SAMPLE_POLICIES = ROOT / "policies"
SHARED_POLICIES = ROOT.parent / "shared" / "policies"


@pytest.fixture(autouse=True)
def _private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test gets its own CLAIMS_CREW_HOME and reads the sample policies of this repo."""
    monkeypatch.setenv("CLAIMS_CREW_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CLAIMS_CREW_POLICIES", str(SAMPLE_POLICIES))
    monkeypatch.setenv("CREWAI_DISABLE_TELEMETRY", "true")
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    monkeypatch.setenv("CREWAI_TRACING_ENABLED", "false")
    monkeypatch.setenv("CREWAI_STORAGE_DIR", str(tmp_path / "crewai"))
    monkeypatch.delenv("CLAIMS_CREW_DATABASE_URL", raising=False)  # the SQLite file unless asked
    yield


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test once on each store engine. `Store()` is then the SQLite file in the test's
    CLAIMS_CREW_HOME, or a fresh PostgreSQL database named by CLAIMS_CREW_DATABASE_URL (as a
    user would set it); subprocesses the test starts inherit the same. Use it with
    `pytestmark = pytest.mark.usefixtures("engine")` or as an argument."""
    if request.param == "postgresql":
        monkeypatch.setenv("CLAIMS_CREW_DATABASE_URL", request.getfixturevalue("postgres_url"))
    return str(request.param)


StartServer = Callable[..., OpenAIServer]


@pytest.fixture
def openai_server() -> Iterator[StartServer]:
    """Start scripted OpenAI-compatible servers on 127.0.0.1 (tests/openai_server.py):
    `openai_server(respond, latency_s=..., hang_limit_s=...)`. Each stops when the test ends,
    and a call it holds (Hang) is dropped then."""
    started: list[OpenAIServer] = []

    def start(respond: Respond, **options: float) -> OpenAIServer:
        server = OpenAIServer(respond, **options).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


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


def shared_pdf(name: str) -> Path:
    path = SHARED_POLICIES / name
    if not path.exists():
        pytest.skip(f"{path} is absent: the real policy PDFs live in ../shared/policies/")
    return path


@dataclass(frozen=True)
class RealPolicy:
    doc: PolicyDocument
    pages: list[str]


OpenReal = Callable[[str], RealPolicy]


@pytest.fixture(scope="session")
def real_doc(session_cache: Path) -> OpenReal:
    """Open a real policy from ../shared/policies once per run, keeping pypdf's page texts.

    The index is written from the same page texts that the coverage test compares against, so
    each large PDF is extracted once; open_pdf then loads it from the cache like any warm load.
    """
    opened: dict[str, RealPolicy] = {}

    def open_real(name: str) -> RealPolicy:
        if name not in opened:
            path = shared_pdf(name)
            data = path.read_bytes()
            pages = extract_pages(path, data)
            write_index(session_cache, sha256_of(data), name, len(pages), segment(pages))
            opened[name] = RealPolicy(open_pdf(path, session_cache), pages)
        return opened[name]

    return open_real
