"""Photos shown to the intake agent as images (CLAIMS_CREW_INTAKE_IMAGES), through CrewAI's own
multimodal support, checked where it matters: in the request the provider receives.

The motor sample C-2002, whose repair estimate is a photo (C-2002-estimate.jpg), is read as
intake reads it and reviewed for real (the crew, CrewAI's OpenAI client, the scripted server);
the server records each request, and the test reads the image parts out of them.
"""

from __future__ import annotations

import base64
import io
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from claims_crew.claim_files import LoadedClaim, load_claim
from claims_crew.crew.images import MAX_SIDE, SETTING, shown_image
from claims_crew.documents.limits import MAX_PIXELS
from claims_crew.errors import ConfigError
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.crew_review import review_claim
from claims_crew.run.photos import claim_photos, intake_images_from_environment
from claims_crew.store import Store
from tests.support.attachments import ESTIMATE, ESTIMATE_CLAIM, HEIC_CLAIM, HEIC_ESTIMATE
from tests.support.crew import responding, settings, water_intake
from tests.support.openai_server import ChatRequest, StartServer
from tests.support.provider import (
    CrewScript,
    agent_of,
    point_model_at,
    provider_settings,
    water_replies,
)

CLAIM_ID = "C-2002"


@pytest.fixture(scope="module")
def estimate_claim(tmp_path_factory: pytest.TempPathFactory) -> LoadedClaim:
    """C-2002 and its photographed estimate in an inbox of their own, read once as intake
    reads them (OCR of the photo included, where Tesseract is installed)."""
    inbox = tmp_path_factory.mktemp("inbox")
    for source in (ESTIMATE_CLAIM, ESTIMATE_CLAIM.parent / ESTIMATE):
        shutil.copy(source, inbox / source.name)
    return load_claim(inbox / ESTIMATE_CLAIM.name)


def image_parts(request: ChatRequest) -> list[dict[str, Any]]:
    """The image parts of a request's messages, as the provider receives them."""
    return [
        part
        for message in request.messages
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if isinstance(part, dict) and part.get("type") == "image_url"
    ]


Reviewed = Callable[[str | None], dict[str, list[ChatRequest]]]


@pytest.fixture
def reviewed(
    estimate_claim: LoadedClaim,
    openai_server: StartServer,
    sample_library: PolicyLibrary,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Reviewed:
    """Review C-2002 with CLAIMS_CREW_INTAKE_IMAGES set to a value (None: unset); every request
    the scripted provider got meanwhile, by agent."""

    def review(setting: str | None) -> dict[str, list[ChatRequest]]:
        if setting is None:
            monkeypatch.delenv(SETTING, raising=False)
        else:
            monkeypatch.setenv(SETTING, setting)
        seen: dict[str, list[ChatRequest]] = {}
        script = water_replies(CrewScript(), CLAIM_ID)  # the answers' words do not matter here

        def respond(request: ChatRequest) -> Any:
            seen.setdefault(agent_of(request), []).append(request)
            return script(request)

        point_model_at(openai_server(respond), monkeypatch)
        monkeypatch.setenv("CLAIMS_CREW_CLAIM_DEADLINE", "0")
        store = Store(tmp_path / "s.sqlite")
        record = review_claim(estimate_claim, provider_settings(sample_library, store))
        assert record.status == "reviewed", record.error
        return seen

    return review


def test_with_the_setting_on_intake_sees_the_photo_and_the_others_do_not(
    estimate_claim: LoadedClaim, reviewed: Reviewed
) -> None:
    seen = reviewed("1")
    assert set(seen) == {"intake", "policy", "fraud"}
    photo = Image.open(ESTIMATE_CLAIM.parent / ESTIMATE)
    for request in seen["intake"]:  # its facts, and the targeted question
        (part,) = image_parts(request)
        url = part["image_url"]["url"]
        assert url.startswith("data:image/jpeg;base64,")
        shown = Image.open(io.BytesIO(base64.b64decode(url.partition(",")[2])))
        assert max(shown.size) <= MAX_SIDE
        assert abs(shown.width / shown.height - photo.width / photo.height) < 0.01
        # The photo's text of record still reaches the agent beside the image.
        assert estimate_claim.attachments[ESTIMATE] in request.text
    assert not [p for a in ("policy", "fraud") for r in seen[a] for p in image_parts(r)]


@pytest.mark.parametrize("setting", [None, "0", "off"])
def test_with_the_setting_off_no_image_part_is_sent(
    reviewed: Reviewed, setting: str | None
) -> None:
    seen = reviewed(setting)
    assert seen["intake"]
    assert not [p for requests in seen.values() for r in requests for p in image_parts(r)]


def test_a_photo_replaced_after_intake_is_not_shown(
    estimate_claim: LoadedClaim, tmp_path: Path
) -> None:
    assert list(claim_photos(estimate_claim)) == [ESTIMATE]
    inbox = tmp_path / "inbox"
    shutil.copytree(estimate_claim.path.parent, inbox)
    Image.new("RGB", (64, 64), "white").save(inbox / ESTIMATE, "JPEG")
    claim, raw = estimate_claim.claim, estimate_claim.raw
    moved = LoadedClaim(inbox / ESTIMATE_CLAIM.name, claim, raw, estimate_claim.documents)
    assert claim_photos(moved) == {}


def test_a_model_that_cannot_see_is_refused_before_any_call(
    estimate_claim: LoadedClaim,
    sample_library: PolicyLibrary,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A scripted in-process model, as the local model, says it cannot take images."""
    monkeypatch.setenv(SETTING, "1")
    script = responding(intake=water_intake)
    record = review_claim(estimate_claim, settings(sample_library, script, tmp_path))
    assert record.status == "failed" and record.error is not None
    assert record.error.code == "config"
    assert SETTING in record.error.message and "cannot take images" in record.error.message
    assert script("intake").calls == []


def test_the_local_model_never_takes_images() -> None:
    from claims_crew.llms.local import LocalLLM

    local = LocalLLM(model="local/x.gguf", model_path="x.gguf")
    assert not local.supports_multimodal()


@pytest.mark.parametrize("value", ["2", "maybe", "on please"])
def test_a_setting_that_is_not_on_or_off_is_refused(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SETTING, value)
    with pytest.raises(ConfigError, match=SETTING):
        intake_images_from_environment()


def test_a_large_photo_is_scaled_down_and_a_bomb_is_refused() -> None:
    photo = io.BytesIO()
    Image.new("RGB", (4000, 3000), "grey").save(photo, "JPEG")
    big = Image.open(io.BytesIO(shown_image("big.jpg", photo.getvalue())))
    assert max(big.size) == MAX_SIDE
    header = io.BytesIO()
    # A PNG just over the cap (a few kilobytes, one colour): refused from its header, not decoded.
    Image.new("1", (9000, MAX_PIXELS // 9000 + 1)).save(header, "PNG")
    with pytest.raises(ValueError, match="over the cap"):
        shown_image("bomb.png", header.getvalue())


def test_a_heic_photo_is_shown_as_a_jpeg_by_a_process_that_read_no_attachment() -> None:
    # A fresh interpreter, so that no reader imported earlier has registered the HEIC plugin.
    code = (
        "import sys, io; from PIL import Image; "
        "from claims_crew.crew.images import shown_image; "
        "shown = shown_image('photo.heic', sys.stdin.buffer.read()); "
        "print(Image.open(io.BytesIO(shown)).format)"
    )
    heic = (HEIC_CLAIM.parent / HEIC_ESTIMATE).read_bytes()
    done = subprocess.run([sys.executable, "-c", code], input=heic, capture_output=True, check=True)
    assert done.stdout.decode().strip() == "JPEG"
