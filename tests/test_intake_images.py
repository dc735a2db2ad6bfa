"""Photos shown to the intake agent as images (CLAIMS_CREW_INTAKE_IMAGES), through CrewAI's own
multimodal support, checked where it matters: in the request the provider receives.

The water claim C-1042 with a photo of the ceiling beside it goes through the real review (the
crew, CrewAI's OpenAI client, the scripted server); the server records each request, and the
test reads the image parts out of them.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from claims_crew.claim_files import LoadedClaim
from claims_crew.crew.images import MAX_SIDE, SETTING, shown_image
from claims_crew.errors import ConfigError
from claims_crew.models import ClaimFile
from claims_crew.policy.library import PolicyLibrary
from claims_crew.run.photos import intake_images_from_environment
from claims_crew.run.review import review_claim
from claims_crew.store import Store
from tests.support.crew import responding, settings, water_intake
from tests.support.openai_server import ChatRequest, StartServer
from tests.support.paths import ROOT
from tests.support.provider import (
    CrewScript,
    agent_of,
    point_model_at,
    provider_settings,
    water_replies,
)

PHOTO = "ceiling.jpg"
PHOTO_TEXT = "Kitchen ceiling, plaster down, stain on the floor."


def photo_bytes(size: tuple[int, int] = (640, 480)) -> bytes:
    """A photo rendered here: a stained ceiling drawn in two colours, with a caption."""
    image = Image.new("RGB", size, (236, 232, 222))
    draw = ImageDraw.Draw(image)
    draw.ellipse((size[0] // 4, size[1] // 4, size[0] // 2, size[1] // 2), fill=(150, 120, 70))
    draw.text((10, 10), "kitchen ceiling", fill=(0, 0, 0))
    out = io.BytesIO()
    image.save(out, "JPEG")
    return out.getvalue()


def water_claim_with_photo(folder: Path, claim_id: str = "P-1") -> LoadedClaim:
    """C-1042 under `claim_id`, with a photo beside it, as intake would hand it on: its fields,
    and the photo's text of record."""
    data = json.loads((ROOT / "claims" / "inbox" / "C-1042.json").read_text(encoding="utf-8"))
    data.update(claim_id=claim_id, attachments=[PHOTO])
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{claim_id}.json"
    raw = json.dumps(data).encode()
    path.write_bytes(raw)
    (folder / PHOTO).write_bytes(photo_bytes())
    return LoadedClaim(path, ClaimFile.model_validate(data), raw, {PHOTO: PHOTO_TEXT})


def image_parts(request: ChatRequest) -> list[dict[str, Any]]:
    """The image parts of a request's messages, as the provider receives them."""
    return [
        part
        for message in request.messages
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if isinstance(part, dict) and part.get("type") == "image_url"
    ]


def reviewed_requests(
    openai_server: StartServer,
    library: PolicyLibrary,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> list[ChatRequest]:
    """Every request the scripted provider got while the claim with a photo was reviewed."""
    seen: list[ChatRequest] = []
    script = water_replies(CrewScript(), "P-1")

    def respond(request: ChatRequest) -> Any:
        seen.append(request)
        return script(request)

    point_model_at(openai_server(respond), monkeypatch)
    monkeypatch.setenv("CLAIMS_CREW_CLAIM_DEADLINE", "0")
    loaded = water_claim_with_photo(folder / "inbox")
    record = review_claim(loaded, provider_settings(library, Store(folder / "s.sqlite")))
    assert record.status == "reviewed", record.error
    return seen


def test_with_the_setting_on_intake_sees_the_photo_and_the_others_do_not(
    openai_server: StartServer,
    sample_library: PolicyLibrary,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SETTING, "1")
    seen = reviewed_requests(openai_server, sample_library, tmp_path, monkeypatch)
    by_agent: dict[str, list[ChatRequest]] = {}
    for request in seen:
        by_agent.setdefault(agent_of(request), []).append(request)
    assert set(by_agent) == {"intake", "policy", "fraud"}
    for request in by_agent["intake"]:  # its facts, and the targeted question
        (part,) = image_parts(request)
        url = part["image_url"]["url"]
        assert url.startswith("data:image/jpeg;base64,")
        shown = Image.open(io.BytesIO(base64.b64decode(url.partition(",")[2])))
        assert shown.size == (640, 480)
        # The photo's text of record still reaches the agent beside the image.
        assert PHOTO_TEXT in request.text
    assert not [p for a in ("policy", "fraud") for r in by_agent[a] for p in image_parts(r)]


def test_with_the_setting_off_no_image_part_is_sent(
    openai_server: StartServer,
    sample_library: PolicyLibrary,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(SETTING, raising=False)
    seen = reviewed_requests(openai_server, sample_library, tmp_path, monkeypatch)
    assert seen and not [part for request in seen for part in image_parts(request)]
    assert any(PHOTO_TEXT in request.text for request in seen)


def test_a_model_that_cannot_see_is_refused_before_any_call(
    sample_library: PolicyLibrary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scripted in-process model, as the local model, says it cannot take images."""
    monkeypatch.setenv(SETTING, "1")
    script = responding(intake=water_intake)
    loaded = water_claim_with_photo(tmp_path / "inbox")
    record = review_claim(loaded, settings(sample_library, script, tmp_path))
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
    big = Image.open(io.BytesIO(shown_image("big.jpg", photo_bytes((4000, 3000)))))
    assert max(big.size) == MAX_SIDE
    header = io.BytesIO()
    # A PNG of 63 megapixels (a few kilobytes, one colour): refused from its header, not decoded.
    Image.new("1", (9000, 7000)).save(header, "PNG")
    with pytest.raises(ValueError, match="over the cap"):
        shown_image("bomb.png", header.getvalue())
