"""File names for the stream's outputs (records, overlay fields); they are written by :func:`kiosk.files.write_atomic`."""

from __future__ import annotations

import re

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str, fallback: str = "game") -> str:
    """``text`` as a file name part: letters, digits, ``._-`` only (others become ``_``), at most 80 chars."""
    s = _SAFE.sub("_", text).strip("._")[:80]
    return s or fallback

