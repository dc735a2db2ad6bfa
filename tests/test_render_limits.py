"""A PDF page is drawn in a child process with a memory cap and a time limit: a page of a few
kilobytes that draws a tree of Form XObjects (gigabytes and minutes to draw) is refused with the
limit it went over, and only that child dies; the claim's other files, and other claims, are
read as before."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import pytest

from claims_crew.claim_files import LoadedClaim, load_claims
from claims_crew.documents import limits
from claims_crew.documents.forked_children import ForkedChild, new_fork_servers
from claims_crew.documents.limits import AttachmentError, ClaimBudget, RenderLimits
from claims_crew.documents.pdf import rendering
from claims_crew.documents.pdf.rendering import PdfRenderer, RenderError
from claims_crew.documents.read import read_attachment
from claims_crew.errors import ClaimFileError
from tests.support.attachments import SPLIT_CLAIM, SPLIT_REPORT
from tests.support.children import wait_ready
from tests.support.ocr import needs_tesseract
from tests.support.pdf_bomb import bomb_pdf

# Small enough that the tree of forms reaches it within a moment, large enough for a page: the
# child starts near 45 MiB, and an A4 page drawn at 300 dpi in grey is 8.7 MB.
SMALL_CAP = 192 << 20
SMALL = RenderLimits(memory_bytes=SMALL_CAP, seconds=600)
# Page 1 is a plain page; page 2 draws the tree.
BOMB = bomb_pdf(["Page one of the report.", "Page two of the report."], frozenset({2}))


def test_a_page_over_the_memory_cap_is_refused_and_the_next_one_is_drawn() -> None:
    with PdfRenderer("bomb.pdf", BOMB, SMALL) as renderer:
        assert len(renderer.sizes) == 2  # read from the page tree: page 2 is not parsed for it
        first = renderer.draw(1, 1.0, grey=True)
        with pytest.raises(RenderError) as err:
            renderer.draw(2, 1.0, grey=True)
    assert first.mode == "L" and first.size == (595, 842)
    assert err.value.code == "memory"
    assert "bomb.pdf page 2" in str(err.value) and "192 MiB" in str(err.value)
    # Only that child died: the next document is drawn as before.
    with PdfRenderer("bomb.pdf", BOMB, SMALL) as renderer:
        again = renderer.draw(1, 150 / 72, grey=False)
    assert again.mode == "RGB" and again.height > again.width


def test_a_forked_renderer_draws_alike_and_is_held_to_the_same_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From a process's second document on, the renderer is forked from a server that imported
    pdfium once (documents/forked_children.py): the page comes out the same, and the memory cap
    still stops the tree of forms in that child alone."""
    servers = new_fork_servers()
    monkeypatch.setattr(rendering, "_FORKS", servers)
    drawn = []
    for _ in range(2):  # plain children; the second starts the server
        with PdfRenderer("bomb.pdf", BOMB, SMALL) as renderer:
            drawn.append(renderer.draw(1, 1.0, grey=True).tobytes())
    wait_ready(servers)
    with PdfRenderer("bomb.pdf", BOMB, SMALL) as renderer:
        forked = renderer._process
        drawn.append(renderer.draw(1, 1.0, grey=True).tobytes())
        with pytest.raises(RenderError) as err:
            renderer.draw(2, 1.0, grey=True)
    servers.close()
    assert isinstance(forked, ForkedChild)
    assert drawn[2] == drawn[0] == drawn[1]
    assert err.value.code == "memory" and "192 MiB" in str(err.value)


@pytest.mark.parametrize(
    ("limit", "deadline", "whose"),
    [(600.0, 0.5, "the claim's deadline"), (0.5, None, "the limit per page")],
)
def test_a_page_that_outlasts_its_time_is_stopped(
    limit: float, deadline: float | None, whose: str
) -> None:
    """A child that never answers (stopped here, as a page that takes minutes would keep it
    busy) is killed at the time limit, or sooner at the claim's deadline."""
    with PdfRenderer("slow.pdf", BOMB, RenderLimits(seconds=limit)) as renderer:
        os.kill(renderer.pid, signal.SIGSTOP)
        with pytest.raises(RenderError) as err:
            renderer.draw(1, 1.0, grey=True, seconds=deadline)
    assert err.value.code == "time"
    assert "slow.pdf page 1" in str(err.value) and "within 0.5 s" in str(err.value)
    assert whose in str(err.value)


@needs_tesseract
def test_intake_refuses_the_page_as_too_large_and_reads_the_next_file() -> None:
    """Neither page has a text layer, so both go to OCR: page 1 is drawn and read, page 2 is
    refused with the cap it went over; the claim's budget reads the next file as before."""
    budget = ClaimBudget(render=SMALL)
    scanned = bomb_pdf(["", ""], frozenset({2}))
    with pytest.raises(AttachmentError) as err:
        read_attachment("scan.pdf", scanned, budget)
    assert err.value.code == "too_large"
    assert "scan.pdf page 2" in str(err.value) and "192 MiB" in str(err.value)
    report = read_attachment(SPLIT_REPORT, (SPLIT_CLAIM.parent / SPLIT_REPORT).read_bytes(), budget)
    assert len(report.pages) == 2 and "split overnight" in report.pages[1].text


@needs_tesseract
def test_a_claim_with_such_a_page_is_refused_and_the_batch_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "RENDER_MEMORY_BYTES", SMALL_CAP)
    shutil.copy(SPLIT_CLAIM, tmp_path)
    shutil.copy(SPLIT_CLAIM.parent / SPLIT_REPORT, tmp_path)
    claim = json.loads(SPLIT_CLAIM.read_text())
    bombed = tmp_path / "C-9001.json"
    bombed.write_text(json.dumps({**claim, "claim_id": "C-9001", "attachments": ["scan.pdf"]}))
    (tmp_path / "scan.pdf").write_bytes(bomb_pdf([""], frozenset({1})))
    found = load_claims([bombed, tmp_path / SPLIT_CLAIM.name], seconds=600)
    refused = found[bombed]
    assert isinstance(refused, ClaimFileError) and refused.code == "too_large"
    assert "scan.pdf page 1" in str(refused) and "192 MiB" in str(refused)
    assert isinstance(found[tmp_path / SPLIT_CLAIM.name], LoadedClaim)
