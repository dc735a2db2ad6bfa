"""A real PostgreSQL for the tests: one throwaway cluster per session, one database per test.

The cluster is Debian's `postgresql` package run from a temporary folder: initdb, then pg_ctl,
listening on a unix socket in that folder and on no TCP port at all, so it collides with nothing
(a system cluster on 5432, a developer's own, another test run). It is stopped and deleted when
the session ends. PostgreSQL refuses to run as root, so under root it runs as the `postgres`
system user that the package creates.

`CLAIMS_CREW_TEST_POSTGRES_URL` names a server to use instead (its user must be allowed to create
databases). Where neither is there, the tests that need PostgreSQL skip, saying why; with
`CLAIMS_CREW_REQUIRE_POSTGRES=1` (CI) they fail instead, so CI never skips them silently.

Fixtures: `postgres_server` (session) is the server's URL, on its admin database;
`postgres_url` is the URL of a fresh, empty database for one test, dropped when it ends;
`migrated_postgres_url` is the same but already at the store's current schema: a copy of
`postgres_template`, a database a first `Store()` migrated once per session (per xdist worker),
since migrating took each test of the `engine` fixture 0.5-1 s where a copy takes a fraction.
`engine_postgres_url` is the one of the two the `engine` fixture (conftest.py) hands a test: the
migrated copy, or the empty database for a test marked `empty_database`. All are SQLAlchemy
URLs for psycopg 3 (`postgresql+psycopg://…`). `restartable_postgres` is a cluster of one test's
own (a `Cluster`), which the test may stop and start again. `throwaway_cluster` and
`fresh_database` are the same machinery for scripts outside pytest.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import psycopg
import pytest
from psycopg import sql
from sqlalchemy.engine import make_url

SERVER_ENV = "CLAIMS_CREW_TEST_POSTGRES_URL"
# The marker for a test of what a first Store() does to a new database (see pytest_configure).
EMPTY_DATABASE = "empty_database"
REQUIRE_ENV = "CLAIMS_CREW_REQUIRE_POSTGRES"
NOT_INSTALLED = (
    "PostgreSQL is not installed (initdb not found): "
    "the PostgreSQL half of the store tests needs Debian's postgresql package"
)

# Debian keeps the server's programs out of PATH, one folder per major version.
VERSION_ROOTS = (Path("/usr/lib/postgresql"),)
SYSTEM_USER = "postgres"
SUPERUSER = "postgres"
# The socket's name carries the port; the port is fixed so that a PGPORT in the environment
# (set for another cluster) changes neither the server nor the URL.
PORT = 5432

# The cluster is deleted at the end of the run, so durability buys nothing: these make every
# commit, and CREATE DATABASE, much cheaper.
SETTINGS = {
    "listen_addresses": "''",
    "port": str(PORT),
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    # Worker tests run several processes, each with its own connection pool.
    "max_connections": "200",
}


def _version_key(folder: Path) -> tuple[int, ...]:
    """Versions compare as numbers, not as text: 9.6 < 15 < 16."""
    return tuple(int(part) if part.isdigit() else -1 for part in folder.name.split("."))


def find_bin_dir(path: str | None = None, roots: Sequence[Path] | None = None) -> Path | None:
    """The folder holding initdb and pg_ctl: PATH first, else the newest version under `roots`
    (VERSION_ROOTS by default)."""
    roots = VERSION_ROOTS if roots is None else roots
    on_path = shutil.which("initdb", path=path)
    if on_path is not None:
        folder = Path(on_path).resolve().parent
        if (folder / "pg_ctl").exists():
            return folder
    candidates = [
        version / "bin"
        for root in roots
        if root.is_dir()
        for version in root.iterdir()
        if (version / "bin" / "initdb").exists() and (version / "bin" / "pg_ctl").exists()
    ]
    if not candidates:
        return None
    return max(candidates, key=lambda folder: _version_key(folder.parent))


def _as_server_user(command: list[str]) -> list[str]:
    """The command as the user the server runs as: ourselves, or `postgres` when we are root."""
    if os.geteuid() != 0:
        return command
    if shutil.which("runuser"):
        return ["runuser", "-u", SYSTEM_USER, "--", *command]
    return [
        "setpriv",
        f"--reuid={SYSTEM_USER}",
        f"--regid={SYSTEM_USER}",
        "--init-groups",
        *command,
    ]


def _run(command: list[str], cwd: Path) -> None:
    """Run a server program; its output goes into the error when it fails."""
    done = subprocess.run(
        _as_server_user(command), cwd=cwd, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}"
        )


def server_user_missing() -> bool:
    """Root with no `postgres` user to run the server as."""
    if os.geteuid() != 0:
        return False
    try:
        pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        return True
    return False


@dataclass
class Cluster:
    """A throwaway cluster in its own folder, which a test may stop and start again (a server
    restart under running workers)."""

    bin_dir: Path
    base: Path
    running: bool = False

    @property
    def data(self) -> Path:
        return self.base / "data"

    @property
    def url(self) -> str:
        """Its admin database `postgres`, as superuser `postgres`, over its socket."""
        return f"postgresql+psycopg://{SUPERUSER}@/postgres?host={self.base}&port={PORT}"

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        log = self.base / "server.log"
        command = [str(self.bin_dir / "pg_ctl"), "--pgdata", str(self.data), "--log", str(log)]
        try:
            _run([*command, "-w", "start"], cwd=self.base)
        except RuntimeError as exc:
            server_log = log.read_text(errors="replace") if log.exists() else ""
            raise RuntimeError(f"{exc}\nserver log:\n{server_log}") from exc
        self.running = True

    def stop(self) -> None:
        """Kill the server as a crash would (`immediate`: no clean shutdown; it recovers on
        start). Nothing in the cluster is kept, so there is nothing to shut down cleanly."""
        pg_ctl = str(self.bin_dir / "pg_ctl")
        _run([pg_ctl, "--pgdata", str(self.data), "-m", "immediate", "stop"], cwd=self.base)
        self.running = False


@contextmanager
def own_cluster(bin_dir: Path) -> Iterator[Cluster]:
    """Make and start a new cluster in a temporary folder (trust auth, socket only); stop it if
    it runs and delete the folder afterwards."""
    cluster = Cluster(bin_dir, Path(tempfile.mkdtemp(prefix="claims-crew-pg-")))
    try:
        if os.geteuid() == 0:
            # mkdtemp makes a 0700 folder owned by root; the server's user must own it.
            user = pwd.getpwnam(SYSTEM_USER)
            os.chown(cluster.base, user.pw_uid, user.pw_gid)
        _run(
            [
                str(bin_dir / "initdb"),
                f"--pgdata={cluster.data}",
                f"--username={SUPERUSER}",
                "--auth=trust",
                "--encoding=UTF8",
                # Byte order, as SQLite compares text; and no locale needs installing.
                "--locale=C",
                "--no-sync",
            ],
            cwd=cluster.base,
        )
        with (cluster.data / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write(f"unix_socket_directories = '{cluster.base}'\n")
            conf.writelines(f"{name} = {value}\n" for name, value in SETTINGS.items())
        cluster.start()
        yield cluster
    finally:
        if cluster.running:
            cluster.stop()
        shutil.rmtree(cluster.base, ignore_errors=True)


@contextmanager
def throwaway_cluster(bin_dir: Path) -> Iterator[str]:
    """Start a new cluster in a temporary folder and yield its URL (admin database `postgres`,
    superuser `postgres`, trust auth, socket only); stop it and delete the folder afterwards."""
    with own_cluster(bin_dir) as cluster:
        yield cluster.url


def sqlalchemy_url(url: str) -> str:
    """The URL with SQLAlchemy's psycopg 3 driver, whatever driver (or none) it named."""
    return make_url(url).set(drivername="postgresql+psycopg").render_as_string(hide_password=False)


def libpq_url(url: str) -> str:
    """The URL as libpq (psycopg.connect) reads it: no `+driver` in the scheme."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def database_url(server_url: str, name: str) -> str:
    """The server's URL, on database `name`."""
    return (
        make_url(sqlalchemy_url(server_url))
        .set(database=name)
        .render_as_string(hide_password=False)
    )


def admin_connection(server_url: str) -> psycopg.Connection[tuple[object, ...]]:
    """An autocommit connection to the server's admin database: CREATE/DROP DATABASE cannot run
    inside a transaction."""
    return psycopg.connect(libpq_url(server_url), autocommit=True)


@contextmanager
def fresh_database(server_url: str, template: str = "template0") -> Iterator[str]:
    """Create a database with a unique name, a copy of `template`, and yield its URL; drop it
    afterwards, even with connections still open to it. The default, template0, is empty:
    nothing anyone added to template1 leaks in. No connection to `template` may be open."""
    name = f"test_{uuid.uuid4().hex[:16]}"
    with admin_connection(server_url) as admin:
        admin.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}{}").format(
                sql.Identifier(name), sql.Identifier(template), _copied_as_files(admin)
            )
        )
    try:
        yield database_url(server_url, name)
    finally:
        with admin_connection(server_url) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def _copied_as_files(admin: psycopg.Connection[tuple[object, ...]]) -> sql.Composable:
    """From PostgreSQL 15 a template is copied through the write-ahead log by default, block by
    block (STRATEGY WAL_LOG), which costs a small template more than copying its files, the only
    way before 15: 53-59 ms against 36-47 ms to create one, and about 70 against 50 ms of the
    server's CPU to create and drop it (an idle two-core machine, PostgreSQL 15, the migrated
    template, 20 databases each way, taken in turn four times). The cluster is thrown away, so
    what WAL_LOG saves (two checkpoints) buys nothing."""
    return sql.SQL(" STRATEGY FILE_COPY" if admin.info.server_version >= 150000 else "")


def rows_in_tables(url: str) -> dict[str, int]:
    """How many rows each table of the database's public schema holds."""
    with psycopg.connect(libpq_url(url), autocommit=True) as conn:
        tables = [
            str(row[0])
            for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
            )
        ]
        counted: dict[str, int] = {}
        for name in tables:
            query = sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(name))
            found = conn.execute(query).fetchone()
            counted[name] = int(found[0]) if found is not None else 0
        return counted


# What a first Store() may write besides the schema, and so what a template may hold: every test
# copied from it starts with the same rows, so none may be a store's own (a key, an id, a claim).
TEMPLATE_ROWS = {"alembic_version": 1}


def refuse_other_rows(written: dict[str, int], what: str) -> None:
    """Refuse a template (`what`: a database, a file) whose first Store() wrote any table's rows
    (`written`, the empty tables left out) beyond TEMPLATE_ROWS."""
    if written != TEMPLATE_ROWS:
        raise RuntimeError(
            f"a first Store() wrote {written}, not only {TEMPLATE_ROWS}: "
            f"its {what} cannot be every test's template"
        )


@contextmanager
def migrated_template(server_url: str, home: Path) -> Iterator[str]:
    """Create an empty database, let a first `Store()` migrate it (with `home` as its
    CLAIMS_CREW_HOME, so no setting of the developer's is read), close every connection to it
    (CREATE DATABASE … TEMPLATE needs none open), and yield its name; drop it afterwards.

    Refused if the store wrote rows beyond TEMPLATE_ROWS: a copy would then hand every test the
    rows of one store, where each test's store must be its own."""
    from claims_crew.store import Store  # the store's import, only for the sessions that use it

    with fresh_database(server_url) as url:
        with pytest.MonkeyPatch.context() as env:  # undone before the tests run
            env.setenv("CLAIMS_CREW_HOME", str(home))
            Store(url=url).close()
        refuse_other_rows({table: n for table, n in rows_in_tables(url).items() if n}, "database")
        yield str(make_url(url).database)


def unavailable(reason: str) -> NoReturn:
    """Skip for want of PostgreSQL, or fail where it is required (CI)."""
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{REQUIRE_ENV}=1, but {reason}", pytrace=False)
    pytest.skip(reason)


def local_bin_dir() -> Path:
    """Where this machine's PostgreSQL programs are, if a cluster can be run from them here;
    else skip (or fail, in CI) saying why."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        unavailable(NOT_INSTALLED)
    if server_user_missing():
        unavailable(f"PostgreSQL refuses to run as root, and there is no {SYSTEM_USER!r} user")
    return bin_dir


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a running PostgreSQL server (admin database), for the whole session."""
    given = os.environ.get(SERVER_ENV)
    if given:
        yield sqlalchemy_url(given)
        return
    with throwaway_cluster(local_bin_dir()) as url:
        yield url


@pytest.fixture
def restartable_postgres() -> Iterator[Cluster]:
    """A cluster of this test's own, which it may stop and start (the session's is shared)."""
    with own_cluster(local_bin_dir()) as cluster:
        yield cluster


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """The URL of a fresh, empty PostgreSQL database for one test, dropped when it ends."""
    with fresh_database(postgres_server) as url:
        yield url


@pytest.fixture(scope="session")
def postgres_template(
    postgres_server: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The name of a database at the store's current schema, holding no store's rows, made once
    per session (per xdist worker, each with its own name) and copied by `migrated_postgres_url`.
    Nothing may connect to it: a copy is refused while anyone does."""
    with migrated_template(postgres_server, tmp_path_factory.mktemp("template-home")) as name:
        yield name


@pytest.fixture
def migrated_postgres_url(postgres_server: str, postgres_template: str) -> Iterator[str]:
    """The URL of a fresh PostgreSQL database for one test, already at the store's current
    schema (a copy of `postgres_template`), dropped when it ends."""
    with fresh_database(postgres_server, postgres_template) as url:
        yield url


@pytest.fixture
def engine_postgres_url(request: pytest.FixtureRequest) -> str:
    """The database the `engine` fixture's postgresql case names: `migrated_postgres_url`, or
    `postgres_url` (empty) for a test marked `empty_database`."""
    empty = request.node.get_closest_marker(EMPTY_DATABASE) is not None
    return str(request.getfixturevalue("postgres_url" if empty else "migrated_postgres_url"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{EMPTY_DATABASE}: the test's first Store() migrates a new database, not a copy of one "
        "already migrated: its home holds no SQLite file (sqlite_template.py), and the engine "
        "fixture's postgresql case gives it an empty database (postgres_url)",
    )
