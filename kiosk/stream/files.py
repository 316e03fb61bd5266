"""Small file helpers for the stream's outputs (records, overlay fields): atomic, durable writes."""

from __future__ import annotations

import re
from pathlib import Path

from kiosk.files import replacing

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str, fallback: str = "game") -> str:
    """``text`` as a file name part: letters, digits, ``._-`` only (others become ``_``), at most 80 chars."""
    s = _SAFE.sub("_", text).strip("._")[:80]
    return s or fallback


def write_atomic(path: Path, data: str | bytes, *, durable: bool = False) -> None:
    """Replace ``path`` with ``data`` in one step (readers never see half a file), through
    :func:`kiosk.files.replacing`: a device, FIFO, socket or folder planted at ``path`` is left as it is; a link
    to a file is written through. ``durable``: fsync first. The folder is made when missing.

    Raises:
        OSError: with the path, when the folder cannot be written or something that is no regular file is at
            ``path`` (:class:`kiosk.files.NotReplaceable`, whose ``str()`` reads ``PATH: REASON``).
    """
    raw = data.encode() if isinstance(data, str) else data
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path, durable=durable) as tmp:
        Path(tmp).write_bytes(raw)
