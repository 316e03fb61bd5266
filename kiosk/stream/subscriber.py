"""The receiving side of the stream: drop duplicates, spot gaps, keep each board's events in order.

A tournament-desk tool (or a test) feeds every decoded message to :meth:`Follower.feed`. Events are keyed by
(board, channel, game_id, seq): a repeat is a duplicate (QoS 1, or a re-send after a reconnect or a kiosk
restart) and is dropped; a jump is a gap (reported - with the kiosk's catch-up it never happens unless the
subscriber itself lost messages). Other messages (snapshots, ticks) are dropped when their (boot, channel, n)
was seen before.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from kiosk.rules.counts import counted
from kiosk.stream.envelope import CHANNELS, KINDS, SCHEMA_VERSION, load_schema

log = logging.getLogger(__name__)

MAX_PAYLOAD = 256 * 1024   # bytes; a snapshot is a few KB
MAX_SEQ = 100_000          # a game has a few hundred events
MAX_BOARD = 1_000_000      # table numbers 0..MAX_BOARD (the desk pairs no board beyond it)
MAX_GAMES = 1000           # (board, channel, game) keys followed
MAX_EVENTS = 500_000       # events kept over all games (a tournament day of 50 boards: ~150,000)
MAX_SEEN = 4096            # (boot, kind, n) keys remembered for non-event duplicates
MAX_GAP_RANGES = 64        # missing seq ranges kept per game
MAX_BAD_KEPT = 100
MAX_RAW = 10_000         # texts of bad payloads kept (all are counted)
_STR_MAX = 200


@lru_cache(maxsize=1)
def event_types() -> frozenset[str]:
    """Event types the published schema knows (``play``, ``pass``, ...)."""
    return frozenset(name[3:] for name in load_schema()["$defs"] if name.startswith("ev_"))


def _int(msg: dict[str, Any], key: str, lo: int, hi: int) -> str | None:
    v = msg.get(key)
    if isinstance(v, bool) or not isinstance(v, int):
        return f"{key}: expected a whole number, got {type(v).__name__}"
    if not lo <= v <= hi:
        return f"{key}: {v} is outside {lo}..{hi}"
    return None


def check_message(msg: Any) -> str | None:
    """The first problem of a decoded stream message against the envelope of the published schema
    (``kiosk/stream/schema/message.schema.json``), or None when it is one. Checks every envelope field's type
    and range and the kind's body: an event's type must be one the schema knows."""
    if not isinstance(msg, dict):
        return f"expected a JSON object, got {type(msg).__name__}"
    if msg.get("v") != SCHEMA_VERSION or isinstance(msg.get("v"), bool):
        return f"v: expected schema version {SCHEMA_VERSION}, got {msg.get('v')!r:.40}"
    if msg.get("kind") not in KINDS:
        return f"kind: {msg.get('kind')!r:.40} is not one of {', '.join(KINDS)}"
    if msg.get("channel") not in CHANNELS:
        return f"channel: {msg.get('channel')!r:.40} is not one of {', '.join(CHANNELS)}"
    for key in ("game_id", "boot"):
        v = msg.get(key)
        if not isinstance(v, str) or len(v) > _STR_MAX or (key == "boot" and not v):
            return f"{key}: expected a string of up to {_STR_MAX} characters"
    for key, lo, hi in (("board", 0, MAX_BOARD), ("n", 1, 2**53), ("seq", 0, MAX_SEQ), ("ts", 0, 2**53),
                        ("delay_ms", 0, 2**53)):
        problem = _int(msg, key, lo, hi)
        if problem:
            return problem
    kind = msg["kind"]
    if kind == "event":
        ev = msg.get("event")
        if not isinstance(ev, dict) or ev.get("type") not in event_types():
            return "event: expected an event object whose type the schema knows"
        if msg["seq"] < 1:
            return "seq: an event's seq starts at 1"
    elif kind == "snapshot" and not isinstance(msg.get("state"), dict):
        return "state: a snapshot needs a state object"
    elif kind == "snapshot" and "events" in msg:
        return _snapshot_events(msg)
    elif kind == "tick" and not (msg.get("clock") is None or isinstance(msg.get("clock"), dict)):
        return "clock: a tick needs a clock object or null"
    elif kind == "presence" and not isinstance(msg.get("online"), bool):
        return "online: presence needs true or false"
    return None


def _snapshot_events(msg: dict[str, Any]) -> str | None:
    """The first problem of a judge snapshot's ``events`` (the game's events 1..seq), or None."""
    events = msg["events"]
    if not isinstance(events, list) or len(events) != msg["seq"]:
        return f"events: expected a list of the game's {counted(msg['seq'], 'event')}"
    for i, item in enumerate(events, 1):
        ev = item.get("event") if isinstance(item, dict) else None
        if not isinstance(ev, dict) or ev.get("type") not in event_types() or _int(item, "ts", 0, 2**53):
            return f"events: item {i} is not a timed event object whose type the schema knows"
    return None


@dataclass
class Follower:
    """Per-board event sequence tracker with bounded memory, whatever it is fed.

    Attributes:
        events: accepted events per (board, channel, game_id), in arrival order (the event dicts); a late
            event that fills a gap is appended when it comes.
        duplicates: messages dropped as already seen. gaps: (board, channel, game_id, expected, got) jumps.
        bad_count: payloads refused (not JSON, not a stream message, out of bounds); ``bad`` keeps the text of
            the last :data:`MAX_BAD_KEPT` of them, each also logged.
    """

    events: dict[tuple[int, str, str], list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    duplicates: int = 0
    gaps: list[tuple[int, str, str, int, int]] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)
    bad_count: int = 0
    _total: int = 0
    _next: dict[tuple[int, str, str], int] = field(default_factory=dict)
    _missing: dict[tuple[int, str, str], list[list[int]]] = field(default_factory=dict)
    _seen: OrderedDict[tuple[str, str, int], None] = field(default_factory=OrderedDict)

    def _bad(self, text: str, payload: Any = b"") -> str:
        self.bad_count += 1
        line = f"{text}: {bytes(payload[:80]) if isinstance(payload, bytes | bytearray) else payload!r:.80}"
        self.bad.append(line)
        del self.bad[:-MAX_BAD_KEPT]
        if self.bad_count <= MAX_BAD_KEPT or self.bad_count % 1000 == 0:
            log.warning("stream subscriber: bad message %d: %s", self.bad_count, line)
        return "bad"

    def feed_payload(self, payload: bytes) -> str:
        """Decode and :meth:`feed`; returns ``"bad"`` for anything but a valid stream message (counted, logged)."""
        if len(payload) > MAX_PAYLOAD:
            return self._bad(f"payload of {len(payload)} bytes, more than {MAX_PAYLOAD}", payload)
        try:
            msg = json.loads(payload)
        except (ValueError, RecursionError) as exc:
            return self._bad(f"not JSON ({type(exc).__name__})", payload)
        return self.feed(msg)

    def feed(self, msg: Any) -> str:
        """Take one decoded message; returns ``"new"``, ``"duplicate"``, ``"gap"`` (a new event after a jump)
        or ``"bad"`` (refused by :func:`check_message`, counted and logged)."""
        problem = check_message(msg)
        if problem:
            return self._bad(problem, msg)
        if msg["kind"] != "event":
            key = (msg["boot"], f"{msg['channel']}:{msg['kind']}:{msg.get('online', '')}", msg["n"])
            if key in self._seen:
                self.duplicates += 1
                return "duplicate"
            self._seen[key] = None
            if len(self._seen) > MAX_SEEN:
                self._seen.popitem(last=False)
            if msg["kind"] == "snapshot" and msg["game_id"]:
                self._join(msg)
            return "new"
        k = (msg["board"], msg["channel"], msg["game_id"])
        if k not in self._next and len(self._next) >= MAX_GAMES:
            return self._bad(f"more than {MAX_GAMES} games followed", msg.get("game_id"))
        nxt = self._next.get(k, 1)
        seq = msg["seq"]
        if self._total >= MAX_EVENTS:
            return self._bad(f"more than {MAX_EVENTS} events kept", msg.get("game_id"))
        if seq < nxt:
            return self._fill(k, seq, msg["event"])
        status = "new"
        if seq != nxt:
            self.gaps.append((k[0], k[1], k[2], nxt, seq))
            del self.gaps[:-1000]
            missing = self._missing.setdefault(k, [])
            missing.append([nxt, seq])        # seqs nxt .. seq-1 not seen yet
            del missing[:-MAX_GAP_RANGES]
            status = "gap"
        self._next[k] = seq + 1
        self.events[k].append(msg["event"])
        self._total += 1
        return status

    def _join(self, snap: dict[str, Any]) -> None:
        """A snapshot (the retained one a late subscriber gets first, or a later one): a judge snapshot's
        ``events`` fill what this follower lacks of the game (in order, none twice); a game not followed yet
        and a snapshot without events (the public channel) start the game at the snapshot's ``seq``, so the
        next live event is no gap."""
        k = (snap["board"], snap["channel"], snap["game_id"])
        if k not in self._next and len(self._next) >= MAX_GAMES:
            return
        nxt = self._next.get(k, 1)
        for seq, item in enumerate(snap.get("events", ()), 1):
            if self._total >= MAX_EVENTS:
                return
            if seq >= nxt:
                self.events[k].append(item["event"])
                self._total += 1
                self._next[k] = nxt = seq + 1
            elif any(r[0] <= seq < r[1] for r in self._missing.get(k, ())):
                self._fill(k, seq, item["event"])
        if k not in self._next:
            self._next[k] = snap["seq"] + 1

    def _fill(self, k: tuple[int, str, str], seq: int, event: dict[str, Any]) -> str:
        for r in self._missing.get(k, []):
            if r[0] <= seq < r[1]:
                self._missing[k].remove(r)
                self._missing[k] += [x for x in ([r[0], seq], [seq + 1, r[1]]) if x[0] < x[1]]
                self.events[k].append(event)
                self._total += 1
                return "new"
        self.duplicates += 1
        return "duplicate"

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

    ``raw`` keeps the last :data:`MAX_RAW` or more good (topic, message) pairs in arrival order. Access
    ``follower`` / ``raw`` under ``lock``. Any payload is survived: bad ones are counted in
    ``follower.bad_count`` and logged; an exception in ``on_message`` is logged and counted in ``errors``.
    Raises ``OSError`` when the broker cannot be reached, ``TimeoutError`` if the subscription is not granted.
    """

    def __init__(self, host: str, port: int, topics: list[str], client_id: str = "desk", *,
                 username: str | None = None, password: str | None = None, keep_raw: bool = True,
                 on_message: Callable[[str, dict[str, Any], str], None] | None = None) -> None:
        import paho.mqtt.client as mqtt

        self.follower = Follower()
        self.errors = 0
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
        # paho's network thread: nothing may escape from here (an exception ends the thread, and the message
        # is redelivered on the next start, so the desk would never come up again)
        try:
            with self.lock:
                status = self.follower.feed_payload(bytes(m.payload))
                msg = None
                if status != "bad":
                    msg = json.loads(m.payload)
                    if self.keep_raw:
                        self.raw.append((m.topic, msg))
                        if len(self.raw) > 2 * MAX_RAW:
                            del self.raw[:-MAX_RAW]
            if self._callback is not None and msg is not None:
                self._callback(m.topic, msg, status)
        except Exception:
            self.errors += 1
            log.exception("desk subscriber: message on %s not handled", getattr(m, "topic", "?"))

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
