"""A test fixture writer: a minimal OLE compound file ([MS-CFB], version 3, 512-byte sectors),
so that tests can make a real Outlook .msg for the reader to open with olefile (which reads
compound files but cannot make new ones).

It writes what the specification requires of a valid file: the header with its DIFAT (up to
109 FAT sectors, about 6.8 MB, plenty for a test), the FAT, the mini FAT and mini stream for
streams under 4,096 bytes, and the directory, each storage's children a binary search tree in
the specification's order (length, then upper-cased name). Every node is black: the tree is
balanced by construction but not coloured as a red-black tree, which readers do not check.
"""

from __future__ import annotations

import itertools
import struct
from dataclasses import dataclass, field

SECTOR = 512
MINI_SECTOR = 64
MINI_CUTOFF = 4096
FREE, END, FAT_SECTOR, NONE = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF
_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_STORAGE, _STREAM, _ROOT = 1, 2, 5


@dataclass
class _Entry:
    name: str
    kind: int
    data: bytes = b""
    children: list[int] = field(default_factory=list)
    left: int = NONE
    right: int = NONE
    child: int = NONE
    start: int = END


def compound_file(streams: dict[tuple[str, ...], bytes], chained: bool = False) -> bytes:
    """A compound file holding `streams`, each at its path of storage names, then its name.

    `chained`: each storage's children a chain (each the right sibling of the one before), a
    tree still in the specification's order but as deep as it has children: how a hostile file
    makes a reader that walks the tree recursively run out of stack."""
    entries = [_Entry("Root Entry", _ROOT)]
    where: dict[tuple[str, ...], int] = {(): 0}
    for path, data in streams.items():
        for depth in range(1, len(path) + 1):
            if path[:depth] not in where:
                last = depth == len(path)
                where[path[:depth]] = len(entries)
                entries.append(_Entry(path[depth - 1], _STREAM if last else _STORAGE, data))
                entries[where[path[: depth - 1]]].children.append(where[path[:depth]])
    for entry in entries:
        ordered = sorted(entry.children, key=lambda i: _order(entries[i]))
        entry.child = _chain_of(entries, ordered) if chained else _tree(entries, ordered)
    mini = bytearray()
    mini_fat: list[int] = []
    sectors = bytearray()
    fat: list[int] = []
    for entry in entries[1:]:
        if entry.kind != _STREAM or not entry.data:
            continue
        if len(entry.data) < MINI_CUTOFF:
            entry.start = len(mini_fat)
            mini += _padded(entry.data, MINI_SECTOR)
            mini_fat += _chain(entry.start, len(entry.data), MINI_SECTOR)
        else:
            entry.start = _append(sectors, fat, entry.data)
    root = entries[0]
    root.data = bytes(mini)
    root.start = _append(sectors, fat, root.data) if mini else END
    mini_fat_start = _append(sectors, fat, _words(mini_fat)) if mini_fat else END
    mini_fat_count = -(-len(mini_fat) * 4 // SECTOR)
    directory_start = _append(sectors, fat, b"".join(_entry_bytes(e) for e in entries))
    # The FAT describes every sector, its own included.
    fat_count = 1
    while (len(fat) + fat_count) > fat_count * (SECTOR // 4):
        fat_count += 1
    assert fat_count <= 109, "a test file this large needs DIFAT sectors"
    fat_sectors = list(range(len(fat), len(fat) + fat_count))
    fat += [FAT_SECTOR] * fat_count
    sectors += _padded(_words(fat), SECTOR)
    header = _header(fat_sectors, directory_start, mini_fat_start, mini_fat_count)
    return header + bytes(sectors)


def _order(entry: _Entry) -> tuple[int, str]:
    return (len(entry.name), entry.name.upper())


def _tree(entries: list[_Entry], ids: list[int]) -> int:
    if not ids:
        return NONE
    middle = len(ids) // 2
    node = entries[ids[middle]]
    node.left = _tree(entries, ids[:middle])
    node.right = _tree(entries, ids[middle + 1 :])
    return ids[middle]


def _chain_of(entries: list[_Entry], ids: list[int]) -> int:
    for this, after in itertools.pairwise(ids):
        entries[this].right = after
    return ids[0] if ids else NONE


def _padded(data: bytes, size: int) -> bytes:
    return data + b"\0" * (-len(data) % size)


def _chain(start: int, length: int, size: int) -> list[int]:
    count = -(-length // size)
    return [start + i + 1 for i in range(count - 1)] + [END]


def _append(sectors: bytearray, fat: list[int], data: bytes) -> int:
    start = len(fat)
    sectors += _padded(data, SECTOR)
    fat += _chain(start, len(data), SECTOR)
    return start


def _words(values: list[int]) -> bytes:
    return struct.pack(f"<{len(values)}I", *values)


def _entry_bytes(entry: _Entry) -> bytes:
    name = (entry.name + "\0").encode("utf-16-le")
    assert len(name) <= 64, entry.name
    size = len(entry.data) if entry.kind in (_STREAM, _ROOT) else 0
    return struct.pack(
        "<64sHBBIII16sIQQIQ",
        name,
        len(name),
        entry.kind,
        1,  # black
        entry.left,
        entry.right,
        entry.child,
        b"\0" * 16,
        0,
        0,
        0,
        entry.start if size else (END if entry.kind != _STORAGE else 0),
        size,
    )


def _header(fat_sectors: list[int], directory: int, mini_fat: int, mini_fat_count: int) -> bytes:
    difat = fat_sectors + [FREE] * (109 - len(fat_sectors))
    return (
        _MAGIC
        + b"\0" * 16
        + struct.pack("<HHHHH6sIIIIIIIII", 0x3E, 3, 0xFFFE, 9, 6, b"", 0, len(fat_sectors),
                      directory, 0, MINI_CUTOFF, mini_fat, mini_fat_count, END, 0)
        + _words(difat)
    )  # fmt: skip
