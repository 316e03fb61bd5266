"""Stream messages: every message the kiosk sends is one JSON object with the same envelope.

Envelope fields (schema ``kiosk/stream/schema/message.schema.json``, version :data:`SCHEMA_VERSION`):

* ``v``: schema version (int). ``kind``: ``"event"``, ``"tick"``, ``"snapshot"``, ``"presence"`` or
  ``"flags"`` (the table's flags for the desk, judge channel only).
* ``channel``: ``"judge"`` (live) or ``"public"`` (behind the broadcast delay).
* ``game_id`` (str, ``""`` before a game), ``board`` (table number, int >= 0).
* ``boot``: id of this kiosk run (changes at every start); ``n``: message counter per (boot, channel),
  1, 2, 3 ... - a subscriber drops a message whose (boot, channel, n) it has seen (QoS 1 may deliver twice).
* ``seq``: the game's event sequence number (the journal's: 1 = game_started). For an event it is that
  event's number - stable across kiosk restarts, so (game_id, seq) identifies an event for good; for ticks and
  snapshots it is the number of the last event they include.
* ``ts``: wall-clock time (ms since the Unix epoch, UTC) the kiosk accepted the event / made the message.
* ``delay_ms``: the broadcast delay applied (0 on the judge channel).
* kind-specific body: ``event`` (the referee event dict, with ``type`` and ``t``), ``state`` (a snapshot,
  :func:`kiosk.stream.snapshot.snapshot`) and, on the judge channel, ``events`` (the game's events so far,
  ``[{"ts": ms, "event": {...}}]``, seq i+1 at index i, for a subscriber joining mid-game), ``clock`` (tick), ``online`` (presence), ``judge_called`` (bool),
  ``devices`` (device name -> "ok" | "degraded" | "down" | "absent") and ``journal`` (a sentence or null) (flags).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
KINDS = ("event", "tick", "snapshot", "presence", "flags")
CHANNELS = ("judge", "public")
SCHEMA_PATH = Path(__file__).with_name("schema") / "message.schema.json"


def envelope(kind: str, channel: str, *, game_id: str, board: int, boot: str, n: int, seq: int, ts: int,
             delay_ms: int = 0, **body: Any) -> dict[str, Any]:
    """Build one message. ``body`` holds the kind's payload (``event=...``, ``state=...``, ``clock=...``,
    ``online=...``). Raises ``ValueError`` for an unknown kind or channel."""
    if kind not in KINDS:
        raise ValueError(f"stream message kind {kind!r} is not one of {', '.join(KINDS)}")
    if channel not in CHANNELS:
        raise ValueError(f"stream channel {channel!r} is not one of {', '.join(CHANNELS)}")
    msg: dict[str, Any] = {"v": SCHEMA_VERSION, "kind": kind, "channel": channel, "game_id": game_id,
                           "board": board, "boot": boot, "n": n, "seq": seq, "ts": ts, "delay_ms": delay_ms}
    msg.update(body)
    return msg


def encode(msg: dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON (the MQTT payload / SSE data line)."""
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False).encode()


def load_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of every stream message."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
