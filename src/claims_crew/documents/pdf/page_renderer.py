"""The page renderer process: draws pages of the PDF it is given, one at a time, on request.

rendering.py starts this file as a script in a fresh interpreter (`python -P
.../pdf/page_renderer.py`), as the PDF text reader's child is started, so it imports only the
standard library, pypdfium2 and Pillow, never the caller. Before it imports pdfium it caps its own
address space (RLIMIT_AS): a page that asks for more memory than that makes pdfium's allocation fail
and the child die, not the process that asked.

Protocol: every message is one line of ASCII JSON, followed by as many raw bytes as it says.
- argv[1]: the address-space cap in bytes ("0": none); argv[2:]: folders from the parent's
  sys.path, appended after the child's own;
- stdin, first: `{"pdf": n}` and the PDF's n bytes (nothing at all: the child is not needed, and
  it exits without a word); it answers `{"sizes": [[width, height], ...]}` in points, one per
  page, or an error and exits;
- stdin, then: `{"page": number, "scale": s, "grey": bool}`, answered by `{"mode": "L" or
  "RGB", "width": w, "height": h, "bytes": n}` and the pixels, or an error; the end of stdin
  ends the child.
An error is `{"error": code, "message": text}`, code "unreadable" or "memory" (Python's own
allocation failed; pdfium's aborts the child instead, which the parent sees as a signal).
"""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO


def _send(stdout: BinaryIO, reply: dict[str, Any], payload: bytes = b"") -> None:
    stdout.write(json.dumps(reply).encode("ascii") + b"\n" + payload)
    stdout.flush()


def _receive(stdin: BinaryIO) -> dict[str, Any] | None:
    line = stdin.readline()
    if not line:
        return None
    request = json.loads(line)
    return request if isinstance(request, dict) else None


def draw(document: Any, request: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """One page drawn as the request asks: its header and its pixels."""
    page = document[int(request["page"]) - 1]
    bitmap = page.render(scale=float(request["scale"]), grayscale=bool(request["grey"]))
    image = bitmap.to_pil()
    mode = "L" if request["grey"] else "RGB"
    if image.mode != mode:
        image = image.convert(mode)
    pixels = image.tobytes()
    header = {"mode": image.mode, "width": image.width, "height": image.height}
    return {**header, "bytes": len(pixels)}, pixels


def serve(document: Any, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer page requests until stdin ends."""
    while (request := _receive(stdin)) is not None:
        try:
            header, pixels = draw(document, request)
        except MemoryError:
            _send(stdout, {"error": "memory", "message": "out of memory while drawing"})
            continue
        except Exception as exc:  # pdfium raises its own errors, all meaning "cannot draw"
            _send(stdout, {"error": "unreadable", "message": f"{type(exc).__name__}: {exc}"})
            continue
        _send(stdout, header, pixels)


def main(argv: list[str], stdin: BinaryIO, stdout: BinaryIO) -> None:
    cap = int(argv[0])
    if cap > 0:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    sys.path.extend(folder for folder in argv[1:] if folder not in sys.path)
    # A stray print from a library must not corrupt the replies: it goes to stderr instead.
    sys.stdout = sys.stderr
    import PIL.Image  # noqa: F401  # the slow part of starting, done before any PDF is waiting
    import pypdfium2

    opening = _receive(stdin)
    if opening is None:
        return
    data = stdin.read(int(opening["pdf"]))
    try:
        document = pypdfium2.PdfDocument(data)
        # Sizes from the page tree alone: loading a page parses its content, which is where a
        # page that draws a tree of forms spends its memory, and that is for `draw`.
        sizes = [list(document.get_page_size(index)) for index in range(len(document))]
    except Exception as exc:  # a broken or hostile file: pdfium cannot open it
        _send(stdout, {"error": "unreadable", "message": f"{type(exc).__name__}: {exc}"})
        return
    _send(stdout, {"sizes": sizes})
    serve(document, stdin, stdout)


if __name__ == "__main__":
    main(sys.argv[1:], sys.stdin.buffer, sys.stdout.buffer)
