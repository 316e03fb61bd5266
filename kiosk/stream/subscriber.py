"""The receiving side of the stream: drop duplicates, spot gaps, keep each board's events in order.

A tournament-desk tool (or a test) feeds every decoded message to :meth:`Follower.feed`. Events are keyed by
(board, channel, game_id, seq): a repeat is a duplicate (QoS 1, or a re-send after a reconnect or a kiosk
restart) and is dropped; a jump is a gap (reported - with the kiosk's catch-up it never happens unless the
subscriber itself lost messages). Other messages (snapshots, ticks) are dropped when their (boot, channel, n)
was seen before.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Follower:
    """Per-board event sequence tracker.

    Attributes:
        events: accepted events per (board, channel, game_id), in order (the event dicts).
        duplicates: messages dropped as already seen. gaps: (board, channel, game_id, expected, got) jumps.
        bad: payloads that were not valid JSON stream messages (text of the problem).
    """

    events: dict[tuple[int, str, str], list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    duplicates: int = 0
    gaps: list[tuple[int, str, str, int, int]] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)
    _seen: set[tuple[str, str, int]] = field(default_factory=set)

    def feed_payload(self, payload: bytes) -> str:
        """Decode and :meth:`feed`; a payload that is not a stream message counts as ``"bad"``."""
        try:
            msg = json.loads(payload)
            if not isinstance(msg, dict) or "kind" not in msg:
                raise ValueError("not a stream message object")
        except ValueError as exc:
            self.bad.append(f"{exc}: {payload[:80]!r}")
            return "bad"
        return self.feed(msg)

    def feed(self, msg: dict[str, Any]) -> str:
        """Take one message; returns ``"new"``, ``"duplicate"`` or ``"gap"`` (a new event after a jump)."""
        if msg.get("kind") != "event":
            kind = f"{msg.get('channel')}:{msg.get('kind')}:{msg.get('online', '')}"
            key = (str(msg.get("boot")), kind, int(msg.get("n", 0)))
            if key in self._seen:
                self.duplicates += 1
                return "duplicate"
            self._seen.add(key)
            return "new"
        k = (int(msg["board"]), str(msg["channel"]), str(msg["game_id"]))
        got = self.events[k]
        seq = int(msg["seq"])
        if seq <= len(got):
            self.duplicates += 1
            return "duplicate"
        status = "new"
        if seq != len(got) + 1:
            self.gaps.append((k[0], k[1], k[2], len(got) + 1, seq))
            status = "gap"
            got.extend({} for _ in range(seq - len(got) - 1))  # placeholders keep positions = seq
        got.append(msg["event"])
        return status

    def count(self, board: int, channel: str = "judge") -> int:
        """Events received for ``board`` on ``channel`` over all its games."""
        return sum(len(v) for (b, ch, _), v in self.events.items() if b == board and ch == channel)
