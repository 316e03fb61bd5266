"""Shared test helpers: where ../shared is, and a skip marker for when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = (ROOT / ".." / "shared").resolve()
HAVE_SHARED = SHARED.is_dir()

# tests never draw on a real screen or leave caches in the user's home
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

needs_shared = pytest.mark.skipif(not HAVE_SHARED, reason=f"../shared is absent ({SHARED}): real-data test skipped")


@pytest.fixture(autouse=True)
def _kiosk_cache(tmp_path_factory, monkeypatch):
    """Compiled lexicons go to a per-session temporary cache."""
    monkeypatch.setenv("KIOSK_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "kiosk-cache"))
