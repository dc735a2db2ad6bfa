"""The documents package's map: readers in rooms by kind, one way in, one image opener.

documents/ keeps at its top only what every kind shares (the entry point read.py, the record, the
caps, kept originals, the instruction scan, the child processes); each kind's readers live in a
room of their own (pdf/, mail/, office/, images/) that imports no other room, and Pillow is handed
an image's bytes in one place, documents/images/opener.py, which registers pi-heif's HEIC opener
for every part that shows or reads a photo. Read from the source (AST only), but for the opener's
own tests and the child scripts' paths.
"""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest
from PIL import Image

from claims_crew.documents.images.opener import ImageTooLarge, open_image, shrunk
from claims_crew.documents.office.read import OFFICE_SCRIPT
from claims_crew.documents.pdf.reader_process import READER_SCRIPT
from claims_crew.documents.pdf.rendering import RENDERER_SCRIPT
from tests.support.paths import ROOT

PACKAGE = ROOT / "src" / "claims_crew"
DOCUMENTS = PACKAGE / "documents"
ROOMS = ("pdf", "mail", "office", "images")
# What every kind shares, at the top of documents/.
SHARED = {
    "__init__.py",
    "read.py",
    "record.py",
    "limits.py",
    "kept.py",
    "instructions.py",
    "child_process.py",
    "forked_children.py",
    "fork_server.py",
}
OPENER = "documents/images/opener.py"


def _calls(source: str) -> list[tuple[int, str]]:
    """Each call of `register_heif_opener` or `<something>.open` on Pillow's Image, by line."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "register_heif_opener":
            found.append((node.lineno, "register_heif_opener"))
        elif (
            isinstance(func, ast.Attribute)
            and func.attr in {"open", "register_heif_opener"}
            and isinstance(func.value, ast.Name)
            and func.value.id in {"Image", "pi_heif"}
        ):
            found.append((node.lineno, f"{func.value.id}.{func.attr}"))
    return found


def image_openers(sources: dict[str, str]) -> list[str]:
    """Where, outside the opener, an image is opened with Pillow or HEIC registered."""
    return [
        f"{relative}:{line} {what}"
        for relative, source in sorted(sources.items())
        if relative != OPENER
        for line, what in _calls(source)
    ]


def _sources() -> dict[str, str]:
    return {
        p.relative_to(PACKAGE).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(PACKAGE.rglob("*.py"))
    }


def test_documents_keep_only_what_kinds_share_at_the_top() -> None:
    top = {p.name for p in DOCUMENTS.glob("*.py")}
    assert top - SHARED == set()
    rooms = sorted(p.name for p in DOCUMENTS.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert rooms == sorted(ROOMS)
    assert all((DOCUMENTS / room / "__init__.py").is_file() for room in ROOMS)


def crossings(room: str, name: str, source: str) -> list[str]:
    """The imports of module `name` in `room` that reach into another room."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            parts = node.module.split(".")
            into = parts[2] if parts[:2] == ["claims_crew", "documents"] and len(parts) > 2 else ""
            if into in ROOMS and into != room:
                found.append(f"{room}/{name}:{node.lineno} {node.module}")
    return found


def test_no_room_imports_another() -> None:
    found = [
        crossing
        for room in ROOMS
        for path in sorted((DOCUMENTS / room).glob("*.py"))
        for crossing in crossings(room, path.name, path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_a_room_importing_another_is_caught() -> None:
    source = (
        "from claims_crew.documents.pdf.text import read_text_layer\n"
        "from claims_crew.documents.office.reader import main\n"
        "from claims_crew.documents.limits import MAX_PAGES\n"
    )
    assert crossings("office", "read.py", source) == [
        "office/read.py:1 claims_crew.documents.pdf.text"
    ]


def test_images_are_opened_in_one_place() -> None:
    assert image_openers(_sources()) == []
    assert _calls(_sources()[OPENER]) != []  # the opener itself is seen


def test_an_image_opened_elsewhere_is_caught() -> None:
    sources = {
        "crew/images.py": "import io\nfrom PIL import Image\nImage.open(io.BytesIO(b''))\n",
        "review/page_image.py": "import pi_heif\npi_heif.register_heif_opener()\n",
        OPENER: "register_heif_opener()\nImage.open(data)\n",
        "report/html.py": "open('report.html')\n",
    }
    assert image_openers(sources) == [
        "crew/images.py:3 Image.open",
        "review/page_image.py:2 pi_heif.register_heif_opener",
    ]


@pytest.mark.parametrize("script", [READER_SCRIPT, RENDERER_SCRIPT, OFFICE_SCRIPT])
def test_each_child_script_is_found_beside_its_caller_and_imports_nothing_of_ours(
    script: Path,
) -> None:
    # The children run as scripts by their path (`python -P`), outside the package.
    assert script.is_file()
    assert script.parent.parent == DOCUMENTS
    modules = [
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(ast.parse(script.read_text(encoding="utf-8")))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    assert not [m for m in modules if m and m.startswith("claims_crew")]


def _png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(out, "PNG")
    return out.getvalue()


def test_an_image_over_its_cap_is_refused_before_it_is_decoded() -> None:
    with pytest.raises(ImageTooLarge, match="40x30 pixels, over the cap of 1,000"):
        open_image(_png(40, 30), max_pixels=1_000)
    with open_image(_png(40, 30), max_pixels=1_200) as image:
        assert shrunk(image, 20).size == (20, 15)
