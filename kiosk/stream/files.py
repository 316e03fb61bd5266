"""Small file helpers for the stream's outputs (records, overlay fields): atomic, durable writes."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str, fallback: str = "game") -> str:
    """``text`` as a file name part: letters, digits, ``._-`` only (others become ``_``), at most 80 chars."""
    s = _SAFE.sub("_", text).strip("._")[:80]
    return s or fallback


def write_atomic(path: Path, data: str | bytes, *, durable: bool = False) -> None:
    """Replace ``path`` with ``data`` in one step (readers never see half a file). ``durable``: fsync first.

    Raises ``OSError`` (with the path) when the folder cannot be written."""
    raw = data.encode() if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.chmod(tmp, 0o644)   # mkstemp makes it owner-only; the pages and broadcasters read these files
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
