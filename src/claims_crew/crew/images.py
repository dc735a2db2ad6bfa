"""A claim's photos shown to the intake agent as images, for a model that can see.

With CLAIMS_CREW_INTAKE_IMAGES on (off by default), the intake task carries the claim's photo
attachments as CrewAI `input_files`: CrewAI 1.15 (through crewai-files) turns them into image
parts of the task's user message, in the provider's own format (an `image_url` part for
OpenAI's chat completions, an `image` block for Anthropic's messages). The photos' text of
record still reaches the agent as before; the image is in addition to it, never instead.

Only a model that says it can see gets them (CrewAI's `supports_multimodal()`). CrewAI would
raise at the first model call otherwise; it is refused here first, naming the setting, so the
reason is plain. The local model never can: a claim reviewed on it with the setting on fails
with code `config`, and nothing is sent.

Each photo is decoded under a pixel cap and re-encoded as a JPEG at most MAX_SIDE pixels on its
longer side: whatever came in (a TIFF, a 40-megapixel phone picture), what is sent is a format
every provider reads and far below any provider's per-image cap (5 MB at Anthropic), so
crewai-files always sends it inline and never uploads it to a provider's file store.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from crewai import BaseLLM
from crewai.agents.agent_builder.base_agent import BaseAgent
from crewai_files import ImageFile
from PIL import Image, UnidentifiedImageError

from claims_crew.documents.images.opener import ImageTooLarge, open_image, shrunk
from claims_crew.documents.limits import MAX_PIXELS
from claims_crew.errors import ConfigError

SETTING = "CLAIMS_CREW_INTAKE_IMAGES"
# Enough to read a printed estimate or see the damage; a provider scales larger ones down.
MAX_SIDE = 1600
# Under every provider's cap on images a request (images_per_request in llms/providers/:
# OpenAI's chat completions take ten).
MAX_IMAGES = 8
JPEG_QUALITY = 85


def shown_image(name: str, data: bytes) -> bytes:
    """The photo as the model is shown it: a JPEG at most MAX_SIDE pixels on its longer side.

    A file that is not an image Pillow reads, or one over MAX_PIXELS, is a ValueError naming it.
    """
    # An iPhone's photos are HEIC: the opener reads them, in a process that reads a claim from
    # the store alone (a worker) and never imported the intake readers too.
    try:
        with open_image(data, MAX_PIXELS) as image:
            out = io.BytesIO()
            shrunk(image, MAX_SIDE).convert("RGB").save(out, "JPEG", quality=JPEG_QUALITY)
    except ImageTooLarge as exc:
        raise ValueError(f"{name}: {exc}; it is not decoded") from exc
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as exc:
        raise ValueError(f"{name}: not an image that can be read ({exc})") from exc
    return out.getvalue()


def intake_files(photos: Mapping[str, bytes], agent: BaseAgent | None) -> dict[str, Any]:
    """The intake task's `input_files` for these photos (name → image bytes), for this agent.

    Refused with a ConfigError when the agent's model cannot take images, so a user who turned
    the setting on learns why at once instead of from a provider's error. At most MAX_IMAGES,
    in the order given (the claim file's order of attachments).
    """
    if not photos:
        return {}
    llm = agent.llm if agent is not None else None
    if not (isinstance(llm, BaseLLM) and llm.supports_multimodal()):
        model = getattr(llm, "model", llm)
        raise ConfigError(
            f"{SETTING} is on, but the intake agent's model {model} cannot take images "
            "(the local model never does): set MODEL, or the intake agent's llm in "
            f"agents.yaml, to a model that can see, or turn {SETTING} off"
        )
    shown = list(photos.items())[:MAX_IMAGES]
    return {name: ImageFile(source=shown_image(name, data)) for name, data in shown}
