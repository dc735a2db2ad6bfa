"""Headless Chromium as Debian installs it, and a free local port to serve a page on."""

from __future__ import annotations

import socket
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def console_errors(driver: object) -> list[str]:
    """What the page wrote to the browser console at SEVERE level (errors, failed loads);
    the driver must be started with `goog:loggingPrefs` {"browser": "ALL"}."""
    entries: list[dict[str, str]] = driver.get_log("browser")  # type: ignore[attr-defined]
    return [e["message"] for e in entries if e.get("level") == "SEVERE"]
