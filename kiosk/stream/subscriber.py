"""The receiving side of the stream: drop duplicates, spot gaps, keep each board's events in order.

A tournament-desk tool (or a test) feeds every decoded message to :meth:`Follower.feed`. Events are keyed by
(board, channel, game_id, seq): a repeat is a duplicate (QoS 1, or a re-send after a reconnect or a kiosk
restart) and is dropped; a jump is a gap (reported - with the kiosk's catch-up it never happens unless the
subscriber itself lost messages). Other messages (snapshots, ticks) are dropped when their (boot, channel, n)
was seen before.
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from collections.abc import Callable
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


class DeskSubscriber:
    """A tournament-desk MQTT subscriber (paho, QoS 1, persistent session) feeding a :class:`Follower`.

    Args:
        host / port: the broker. topics: subscriptions (wildcards allowed), e.g.
            ``["scrabble/local/judge/board/+/event/#"]``. client_id: a stable id - with ``clean_session=False``
            the broker keeps queuing QoS 1 messages for it while it is away (and across a broker restart with
            persistence). on_message: optional callback ``(topic, msg, status)`` after each message.

    ``raw`` keeps (topic, message) pairs in arrival order. Access ``follower`` / ``raw`` under ``lock``.
    Raises ``OSError`` when the broker cannot be reached, ``TimeoutError`` if the subscription is not granted.
    """

    def __init__(self, host: str, port: int, topics: list[str], client_id: str = "desk", *,
                 username: str | None = None, password: str | None = None, keep_raw: bool = True,
                 on_message: Callable[[str, dict[str, Any], str], None] | None = None) -> None:
        import paho.mqtt.client as mqtt

        self.follower = Follower()
        self.lock = threading.Lock()
        self.raw: list[tuple[str, dict[str, Any]]] = []
        self.keep_raw = keep_raw
        self._callback = on_message
        self._subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False)
        if username:
            self.client.username_pw_set(username, password)
        self.client.reconnect_delay_set(1, 1)
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe([(t, 1) for t in topics])
        self.client.on_subscribe = lambda *a: self._subscribed.set()
        self.client.on_message = self._on_message
        self.client.connect(host, port, keepalive=5)
        self.client.loop_start()
        if not self._subscribed.wait(5):
            self.close()
            raise TimeoutError(f"desk: no subscription granted by {host}:{port} within 5 s")

    def _on_message(self, client: Any, userdata: Any, m: Any) -> None:
        try:
            msg = json.loads(m.payload)
        except ValueError:
            msg = None
        with self.lock:
            status = self.follower.feed(msg) if isinstance(msg, dict) and "kind" in msg else \
                self.follower.feed_payload(m.payload)
            if self.keep_raw and isinstance(msg, dict):
                self.raw.append((m.topic, msg))
        if self._callback is not None and isinstance(msg, dict):
            self._callback(m.topic, msg, status)

    def wait_for(self, pred: Callable[[Follower], bool], timeout: float = 30.0) -> bool:
        """Poll ``pred(follower)`` (under the lock) until true or ``timeout`` seconds pass."""
        end = time.monotonic() + timeout
        while True:
            with self.lock:
                if pred(self.follower):
                    return True
            if time.monotonic() >= end:
                return False
            time.sleep(0.02)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
