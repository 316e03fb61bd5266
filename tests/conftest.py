"""Suite-wide settings: no real screen or sound, and compiled lexicons in a per-session temporary cache."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


@pytest.fixture(autouse=True)
def _kiosk_cache(tmp_path_factory, monkeypatch):
    """Compiled lexicons go to a per-session temporary cache, not the user's home."""
    monkeypatch.setenv("KIOSK_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "kiosk-cache"))
