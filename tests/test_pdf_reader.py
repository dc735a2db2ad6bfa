"""Any caller can open a PDF: the reader child never imports the caller, and is stopped or
reported when it hangs or dies."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pypdf
import pytest

import claims_crew
from claims_crew.documents.forked_children import ForkedChild, ForkServers
from claims_crew.documents.pdf import reader_process
from claims_crew.errors import PolicyError
from claims_crew.policy.library import open_pdf
from tests.support.children import record_plain_starts, wait_ready
from tests.support.paths import SAMPLE_POLICIES

HOME_PDF = SAMPLE_POLICIES / "harbour_home.pdf"

# A caller's script with no `if __name__ == "__main__":` guard. Each run of its top level adds a
# line to ran.txt, so a child that re-imported it would show as a second line.
UNGUARDED = """\
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

here = Path(__file__).parent
with open(here / "ran.txt", "a") as ran:
    ran.write("top level\\n")

{prelude}
from claims_crew.policy import open_pdf

doc = open_pdf(Path(sys.argv[1]), here / "cache")
print(len(doc.clauses))
"""


class _Recording(ForkServers):
    """The readers' fork server keeper, noting the pid of every child forked."""

    def __init__(self) -> None:
        super().__init__()
        self.forked: list[int] = []

    def fork(self, command: list[str], limit_s: float) -> ForkedChild | None:
        child = super().fork(command, limit_s)
        if child is not None:
            self.forked.append(child.pid)
        return child

    def ready_server(self) -> subprocess.Popen[bytes]:
        """The fork server's process, once it has warmed up."""
        return wait_ready(self).process


@pytest.fixture(autouse=True)
def readers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[_Recording, list[int]]]:
    """A fresh keeper for the PDF reader, and the pid of every reader started plainly."""
    started = record_plain_starts(monkeypatch)
    keeper = _Recording()
    monkeypatch.setattr(reader_process, "_FORKS", keeper)
    yield keeper, started
    keeper.close()


def _alive(pid: int) -> bool:
    """Whether a reader child still runs; every finished one has been reaped by its parent."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _run_script(
    folder: Path, python: str = sys.executable, prelude: str = ""
) -> subprocess.CompletedProcess[str]:
    script = folder / "count_clauses.py"
    script.write_text(UNGUARDED.format(prelude=prelude))
    return subprocess.run(
        [python, str(script), str(HOME_PDF)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=folder,
        check=False,
    )


def _clause_count(tmp_path: Path) -> int:
    return len(open_pdf(HOME_PDF, tmp_path / "in-process-cache").clauses)


def test_a_script_without_a_main_guard_opens_a_pdf(tmp_path: Path) -> None:
    folder = tmp_path / "caller"
    folder.mkdir()
    done = _run_script(folder)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) == _clause_count(tmp_path)
    # The reader ran without importing the script: its top level ran once, in the script.
    assert (folder / "ran.txt").read_text().splitlines() == ["top level"]


def test_modules_beside_the_caller_do_not_shadow_the_readers(tmp_path: Path) -> None:
    folder = tmp_path / "caller"
    folder.mkdir()
    # The caller itself never imports pypdf, so only the reader could pick this one up.
    (folder / "pypdf.py").write_text('raise SystemExit("the caller\'s pypdf.py")\n')
    done = _run_script(folder)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) == _clause_count(tmp_path)


def test_the_reader_finds_pypdf_where_the_caller_put_it(tmp_path: Path) -> None:
    """A bare interpreter that finds claims_crew and pypdf only through folders it added to
    sys.path at run time: the reader gets those folders too."""
    base = getattr(sys, "_base_executable", sys.executable)
    if sys.prefix == sys.base_prefix:
        pytest.skip("not running in a virtual environment: no bare interpreter to compare with")
    missing = subprocess.run([base, "-c", "import pypdf"], capture_output=True, check=False)
    if missing.returncode == 0:
        pytest.skip(f"{base} has pypdf of its own")
    folders = [
        str(Path(claims_crew.__file__).parent.parent),
        str(Path(pypdf.__file__).parent.parent),
    ]
    folder = tmp_path / "caller"
    folder.mkdir()
    done = _run_script(folder, python=base, prelude=f"sys.path[:0] = {folders!r}")
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) == _clause_count(tmp_path)


def _fake_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    reader = tmp_path / "reader.py"
    reader.write_text(textwrap.dedent(body))
    monkeypatch.setattr(reader_process, "READER_SCRIPT", reader)


def test_a_reader_past_the_limit_is_killed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pid_file = tmp_path / "reader.pid"
    _fake_reader(
        tmp_path,
        monkeypatch,
        f"""\
        import os, time
        with open({str(pid_file)!r}, "w") as out:
            out.write(str(os.getpid()))
        time.sleep(600)
        """,
    )
    with pytest.raises(PolicyError) as err:
        open_pdf(HOME_PDF, tmp_path / "cache", timeout_s=3)
    assert err.value.code == "timeout"
    pid = int(pid_file.read_text())
    assert not _alive(pid)


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", "exit status -9"),
        ("import sys\nsys.stderr.write('out of memory')\nsys.exit(1)\n", "out of memory"),
        ("print('not json')\n", "exit status 0"),
        ("print('{\"pages\": [1, 2]}')\n", "sent no page texts"),
    ],
)
def test_a_reader_that_dies_or_answers_nonsense_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, shown: str
) -> None:
    _fake_reader(tmp_path, monkeypatch, body)
    with pytest.raises(PolicyError) as err:
        open_pdf(HOME_PDF, tmp_path / "cache")
    assert err.value.code == "malformed"
    assert HOME_PDF.name in err.value.message
    assert shown in err.value.message
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_the_reader_passes_on_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_READER_PROBE", "seen")
    _fake_reader(
        tmp_path,
        monkeypatch,
        """\
        import json, os
        print(json.dumps({"pages": [os.environ["CLAIMS_CREW_READER_PROBE"] * 40]}))
        """,
    )
    doc = open_pdf(HOME_PDF, tmp_path / "cache")
    assert "seen" * 10 in doc.full_text(doc.clauses[0].id)


def test_one_open_leaves_no_reader_behind(
    tmp_path: Path, readers: tuple[_Recording, list[int]]
) -> None:
    keeper, started = readers
    open_pdf(HOME_PDF, tmp_path / "cache")
    # A one-off open starts one reader of its own, and no fork server.
    assert len(started) == 1 and keeper.forked == []
    assert keeper._server is None
    assert not _alive(started[0])


def test_from_the_second_open_readers_are_forked_from_a_warm_server(
    tmp_path: Path, readers: tuple[_Recording, list[int]]
) -> None:
    keeper, started = readers
    counts = [len(open_pdf(HOME_PDF, tmp_path / f"cache-{n}").clauses) for n in range(2)]
    server = keeper.ready_server()  # started by open 2, warming up while it read
    counts += [len(open_pdf(HOME_PDF, tmp_path / f"cache-{n}").clauses) for n in range(2, 4)]
    assert counts == [counts[0]] * 4 and counts[0] > 0
    # Opens 1 and 2 start their own reader; opens 3 and 4 each get a fresh fork.
    assert len(started) == 2 and len(keeper.forked) == 2
    assert len(set(started + keeper.forked)) == 4
    assert not any(_alive(pid) for pid in started + keeper.forked)
    assert server.poll() is None
    keeper.close()
    assert server.poll() is not None


def test_a_server_for_another_sys_path_is_not_used(
    tmp_path: Path, readers: tuple[_Recording, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    keeper, started = readers
    open_pdf(HOME_PDF, tmp_path / "cache-1")
    open_pdf(HOME_PDF, tmp_path / "cache-2")
    server = keeper.ready_server()
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    open_pdf(HOME_PDF, tmp_path / "cache-3")
    assert len(started) == 3 and keeper.forked == []
    assert server.poll() is not None  # closed, and one for the new sys.path started instead
    assert keeper._server is not None and keeper._server.process is not server


def test_without_an_interpreter_to_start_the_pdf_is_refused_with_a_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "executable", "")
    with pytest.raises(PolicyError) as err:
        open_pdf(HOME_PDF, tmp_path / "cache")
    assert err.value.code == "malformed"
    assert "could not start" in err.value.message and "sys.executable" in err.value.message


def test_threads_opening_at_once_each_get_their_own_reader(
    tmp_path: Path, readers: tuple[_Recording, list[int]]
) -> None:
    keeper, started = readers
    expected = _clause_count(tmp_path)
    with ThreadPoolExecutor(max_workers=4) as pool:
        counts = list(
            pool.map(lambda n: len(open_pdf(HOME_PDF, tmp_path / f"cache-{n}").clauses), range(4))
        )
    assert counts == [expected] * 4
    readers_used = started + keeper.forked
    assert len(set(readers_used)) == len(readers_used) == 5  # no child read two PDFs
    keeper.close()
    assert not any(_alive(pid) for pid in readers_used)
