"""Suite-wide settings and fixtures: no real screen or sound, compiled lexicons in a per-session temporary
cache, and a local MQTT broker. Plain test doubles (the test clock, the kiosk builder) are in
``tests/common_fixtures.py``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from kiosk.stream.broker import LocalBroker

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


@pytest.fixture(autouse=True)
def _kiosk_cache(tmp_path_factory, monkeypatch):
    """Compiled lexicons go to a per-session temporary cache, not the user's home."""
    monkeypatch.setenv("KIOSK_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "kiosk-cache"))


@pytest.fixture
def broker() -> Iterator[LocalBroker]:
    """A Mosquitto broker of its own on a free port of 127.0.0.1, stopped after the test. Fails (never skips) when mosquitto is not installed."""
    from kiosk.stream.broker import LocalBroker, mosquitto_path

    if mosquitto_path() is None:
        pytest.fail("mosquitto is not installed: install the Debian packages in scripts/system-packages.txt")
    b = LocalBroker().start()
    yield b
    b.close()
