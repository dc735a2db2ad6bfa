"""The page image on the review page: C-1049's start date is quoted from page 2 of its plumber's
PDF, and the escalation shows that page beside the quote, to a signed-in reviewer only, from the
original intake kept, and only while it is the file intake read."""

from __future__ import annotations

import io
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from PIL import Image

from claims_crew.documents.limits import RenderLimits
from claims_crew.documents.pdf.rendering import PdfRenderer
from claims_crew.policy.library import PolicyLibrary
from claims_crew.review import page_image
from claims_crew.review.web import SESSION_COOKIE, create_app
from claims_crew.store import Store
from tests.support.attachments import SPLIT_REPORT, SPLIT_STARTED
from tests.support.page_images import split_escalated
from tests.support.pdf_bomb import bomb_pdf
from tests.support.web import client, review_page, signed_in

PAGE_1 = "/escalations/C-1049/attachments/0/pages/1.png"
PAGE_2 = "/escalations/C-1049/attachments/0/pages/2.png"
# Small enough that a tree of forms reaches it within a moment, large enough for a page.
SMALL_CAP = 192 << 20

pytestmark = pytest.mark.usefixtures("engine")


@pytest.fixture
def store(tmp_path: Path, sample_library: PolicyLibrary, warm_index: None) -> Store:
    """C-1049 escalated with its split report kept; the policy's index already in the home
    (warm_index), as none of these tests is about reading the policy's PDF."""
    store = Store()
    split_escalated(store, sample_library, tmp_path)
    return store


def kept_report(store: Store) -> Path:
    record = store.claim_record("C-1049")
    assert record is not None
    kept = (store.kept_records("C-1049", record.claim_sha256) or {})[SPLIT_REPORT]
    assert kept.kept_at is not None
    return Path(kept.kept_at)


def test_the_quote_s_page_is_shown_beside_it(store: Store) -> None:
    c = signed_in(store)
    html = c.get("/escalations/C-1049").text
    assert f'<img src="{PAGE_2}" alt="{SPLIT_REPORT}, page 2"' in html
    response = c.get(PAGE_2)
    assert response.status_code == 200 and response.headers["content-type"] == "image/png"
    assert response.headers["cache-control"] == "no-store"
    page = Image.open(io.BytesIO(response.content))
    assert page.format == "PNG" and page.width > 0 and page.height > page.width  # a portrait page


def test_only_a_signed_in_reviewer_gets_it(store: Store) -> None:
    response = client(store).get(PAGE_2)
    assert response.status_code == 401 and not response.content.startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/escalations/C-1049/attachments/1/pages/1.png", 404),  # it has one attachment
        ("/escalations/C-1049/attachments/0/pages/99.png", 404),  # the report has two pages
        ("/escalations/C-1049/attachments/0/pages/0.png", 400),
        ("/escalations/C-1049/attachments/-1/pages/1.png", 400),
        ("/escalations/NO-SUCH/attachments/0/pages/1.png", 404),
        # A path or a name in the request is no attachment: no route, or not a number.
        ("/escalations/C-1049/attachments/..%2F..%2Fetc%2Fpasswd/pages/1.png", 404),
        (f"/escalations/C-1049/attachments/{SPLIT_REPORT}/pages/1.png", 400),
    ],
)
def test_what_names_no_page_of_an_attachment_is_refused(
    store: Store, path: str, status: int
) -> None:
    response = signed_in(store).get(path)
    assert response.status_code == status, response.text
    assert not response.content.startswith(b"\x89PNG")


def test_a_kept_file_that_changed_since_intake_is_refused(store: Store) -> None:
    c = signed_in(store)
    kept = kept_report(store)
    kept.write_bytes(kept.read_bytes() + b"\n% changed after intake\n")
    response = c.get(PAGE_2)
    assert response.status_code == 409 and "changed" in response.text


def test_the_host_guard_holds_for_it_too(store: Store) -> None:
    foreign = TestClient(create_app(store, ["testserver"]), base_url="http://evil.example")
    assert foreign.get(PAGE_2).status_code == 403


def test_without_a_kept_original_no_image_is_offered(
    tmp_path: Path, sample_library: PolicyLibrary
) -> None:
    """A claim read before originals were kept: the quote and its page number, and no image
    that could not load."""
    store = Store()
    split_escalated(store, sample_library, tmp_path, keep_originals=False)
    c = signed_in(store)
    html = c.get("/escalations/C-1049").text
    assert f"{SPLIT_REPORT}, page 2" in html and "<img" not in html
    response = c.get(PAGE_2)
    assert response.status_code == 404 and "original was not kept" in response.text


def test_a_page_too_costly_to_draw_is_a_413_and_keeps_no_one_waiting(
    tmp_path: Path, sample_library: PolicyLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report's page 2 has its text layer (so intake took it) and draws a tree of Form
    XObjects. While it is being drawn, another page image is answered; then it is refused with
    the cap it went over, as a 413."""
    report = bomb_pdf(["Kestrel Plumbing - call-out report", SPLIT_STARTED], frozenset({2}))
    store = Store()
    split_escalated(store, sample_library, tmp_path, report=report)
    store.add_reviewer("ana")
    cookie = {"Cookie": f"{SESSION_COOKIE}={store.open_session('ana')}"}
    limits = RenderLimits(memory_bytes=SMALL_CAP, seconds=600)
    monkeypatch.setattr(page_image, "PAGE_IMAGE_LIMITS", limits)
    drawing, page_1_shown = threading.Event(), threading.Event()
    draw = PdfRenderer.draw

    def held_draw(renderer: PdfRenderer, number: int, *args: object, **kwargs: object) -> object:
        if number == 2:  # page 2 is drawn only once page 1 was answered meanwhile
            drawing.set()
            page_1_shown.wait(120)
        return draw(renderer, number, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(PdfRenderer, "draw", held_draw)
    with review_page(store) as port, ThreadPoolExecutor(1) as pool:
        url = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=url, headers=cookie, timeout=120) as bomb_client:
            bombed = pool.submit(bomb_client.get, PAGE_2)
            assert drawing.wait(120)
            # Had the first request held a lock across its drawing, this one would wait for
            # page_1_shown, which only comes after it: a timeout, not a page.
            with httpx.Client(base_url=url, headers=cookie, timeout=60) as other:
                first = other.get(PAGE_1)
            page_1_shown.set()
            refused = bombed.result()
    assert first.status_code == 200 and first.content.startswith(b"\x89PNG")
    assert refused.status_code == 413 and not refused.content.startswith(b"\x89PNG")
    assert refused.text.startswith("too_large: ")
    assert "page 2" in refused.text and "192 MiB" in refused.text
