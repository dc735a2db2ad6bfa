"""A PDF page that is a few kilobytes on disk and costs gigabytes and minutes to draw.

The page draws Form XObject X0; each Xi draws X(i+1) twice, and the last fills the page. So the
page is 2**depth fills of a full page, and a renderer that expands the tree (pdfium does) holds
and paints every one of them. Written object by object, with its cross-reference table, so the
file is a well-formed PDF that every reader opens.
"""

from __future__ import annotations

DEPTH = 24
# An A4 page, in points.
WIDTH, HEIGHT = 595, 842


def _stream(dictionary: str, content: bytes) -> bytes:
    return (
        f"<< {dictionary} /Length {len(content)} >>\nstream\n".encode() + content + (b"\nendstream")
    )


def _pdf(objects: list[bytes]) -> bytes:
    """The objects (numbered from 1, the first the catalog) as a whole PDF file."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    table = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n".encode()
    out += f"startxref\n{table}\n%%EOF\n".encode()
    return bytes(out)


def bomb_pdf(texts: list[str], bombs: frozenset[int], depth: int = DEPTH) -> bytes:
    """A PDF with one page per entry of `texts`, each with that line of text on it ("": no text
    layer, so intake sends the page to OCR); the pages numbered (1-based) in `bombs` also draw
    the tree of forms."""
    page_count = len(texts)
    font = 3 + 2 * page_count  # after the catalog, the page tree and each page with its content
    first_form = font + 1
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(page_count))
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {page_count} >>".encode(),
    ]
    for number, text in enumerate(texts, start=1):
        resources = f"/Font << /F1 {font} 0 R >> /XObject << /X0 {first_form} 0 R >>"
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {WIDTH} {HEIGHT}] "
            f"/Resources << {resources} >> /Contents {4 + 2 * (number - 1)} 0 R >>".encode()
        )
        line = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        content = f"BT /F1 9 Tf 36 780 Td ({line}) Tj ET\n".encode() if text else b""
        objects.append(_stream("", content + (b"q /X0 Do Q" if number in bombs else b"")))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for level in range(depth):
        form = f"/Type /XObject /Subtype /Form /BBox [0 0 {WIDTH} {HEIGHT}]"
        if level < depth - 1:
            resources = f"/Resources << /XObject << /X {first_form + level + 1} 0 R >> >>"
            objects.append(_stream(f"{form} {resources}", b"q /X Do Q q /X Do Q"))
        else:
            objects.append(_stream(form, f"0.5 g 0 0 {WIDTH} {HEIGHT} re f".encode()))
    return _pdf(objects)
