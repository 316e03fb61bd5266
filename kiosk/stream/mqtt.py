"""The tournament bus: an MQTT publisher (paho-mqtt 2.x, QoS 1) that never blocks the referee.

Topics (``root`` defaults to ``scrabble/local``; one tree per tournament, e.g. ``scrabble/nationals-2026``)::

    {root}/board/{N}/status              retained presence {"online": true|false}; the Last Will sets false
    {root}/board/{N}/event/{type}        public events (behind the broadcast delay)
    {root}/board/{N}/snapshot            retained latest public snapshot (late joiners)
    {root}/board/{N}/tick                public 1 Hz clock tick
    {root}/judge/board/{N}/event/{type}  the same, live, for the tournament desk (restrict with broker ACLs)
    {root}/judge/board/{N}/snapshot      retained latest live snapshot, with the game's events so far
                                         (``events``): a desk joining mid-game catches up from it
    {root}/judge/board/{N}/tick
    {root}/judge/board/{N}/flags         retained table flags for the desk (kind "flags": judge called, device
                                         health, journal trouble); judge channel only

Every payload is a stream message (:mod:`kiosk.stream.envelope`): boot id, per-boot counter ``n`` and the
game's event ``seq``, so a subscriber drops duplicates (QoS 1 may deliver twice; a reconnect re-sends).

Reliability: :meth:`MqttPublisher.on_message` (called by the hub) only appends to an in-memory outbox. A
sender thread publishes the outbox in order while connected and tracks the broker's PUBACKs. When the broker
goes away the kiosk keeps refereeing; paho reconnects in the background, and on every (re)connection the
sender re-publishes every event not yet acknowledged, in order, then the latest retained snapshots. A message
that was in flight at the cut may thus arrive twice - with the same ``seq``, so subscribers drop it
(:class:`kiosk.stream.subscriber.Follower`). After a kiosk restart the hub is seeded from the journal and
the whole game is re-published (again recognisable by ``seq``).
"""

from __future__ import annotations

import logging
import queue
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kiosk.referee.state import GameState
from kiosk.stream.broker_watch import BrokerWatch
from kiosk.stream.envelope import encode, envelope

log = logging.getLogger(__name__)


class MqttConfigError(ValueError):
    """A bad MQTT setting (message names the setting)."""


def tls_problem(exc: BaseException) -> str:
    """Why a certificate or key file did not load, in words (the SSL library's own text names its internals,
    ``[X509: NO_CERTIFICATE_OR_CRL_FOUND] ... (_ssl.c:4154)``)."""
    import ssl

    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, ssl.SSLError):
        reason = (exc.reason or "").upper()
        if "NO_CERTIFICATE" in reason or "PEM" in reason or "NO_START_LINE" in reason:
            return "the file holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
        if "KEY" in reason:
            return "the key does not load or does not belong to the certificate"
        return f"the SSL library refuses it ({exc.reason or 'unknown reason'})"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


@dataclass(frozen=True)
class MqttConfig:
    """Where and how to publish.

    Attributes:
        host / port: the broker (1883 plain, 8883 TLS usually). board: table number.
        root: topic root (no trailing slash, no wildcards).
        username / password: broker credentials (None: anonymous).
        tls_ca: CA certificate file to verify the broker (setting it switches TLS on); tls_cert / tls_key:
            client certificate and key (optional); tls_insecure: skip the host name check (test rigs only).
        tls: force TLS with the system CAs even without ``tls_ca``.
        keepalive_s: MQTT keepalive (s). reconnect_min_s / reconnect_max_s: reconnect back-off (s).
        client_id: default ``kiosk-board{N}-{boot}``.
        channels: which channels to publish ("judge", "public").
    """

    host: str
    port: int = 1883
    board: int = 0
    root: str = "scrabble/local"
    username: str | None = None
    password: str | None = field(default=None, repr=False)  # never in a log line
    tls: bool = False
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_insecure: bool = False
    keepalive_s: int = 15
    reconnect_min_s: int = 1
    reconnect_max_s: int = 10
    client_id: str | None = None
    channels: frozenset[str] = frozenset({"judge", "public"})

    def check(self) -> None:
        """Raise :class:`MqttConfigError` naming the first bad setting."""
        if not self.host or not isinstance(self.host, str):
            raise MqttConfigError("mqtt host: empty")
        if not isinstance(self.port, int) or not 0 < self.port < 65536:
            raise MqttConfigError(f"mqtt port: {self.port!r} is not a TCP port (1-65535)")
        if not isinstance(self.board, int) or self.board < 0:
            raise MqttConfigError(f"mqtt board: {self.board!r} must be a whole number >= 0")
        if not self.root or any(c in self.root for c in "#+\0") or self.root.endswith("/") or self.root.startswith("/"):
            raise MqttConfigError(f"mqtt root: {self.root!r} must be a topic path without wildcards or edge slashes")
        if self.password is not None and self.username is None:
            raise MqttConfigError("mqtt password: given without a username")
        for name in ("tls_ca", "tls_cert", "tls_key"):
            path = getattr(self, name)
            if path is not None and not Path(path).is_file():
                raise MqttConfigError(f"mqtt {name}: {path} is not a readable file")
        if self.tls_key and not self.tls_cert:
            raise MqttConfigError("mqtt tls_key: given without tls_cert")
        if not 1 <= self.reconnect_min_s <= self.reconnect_max_s:
            raise MqttConfigError("mqtt reconnect: need 1 <= reconnect_min_s <= reconnect_max_s (seconds)")


def topics(root: str, board: int) -> dict[str, str]:
    """Topic prefixes of a board: ``status``, ``public`` and ``judge`` (append ``/event/{type}``,
    ``/snapshot`` or ``/tick``)."""
    return {"status": f"{root}/board/{board}/status", "public": f"{root}/board/{board}",
            "judge": f"{root}/judge/board/{board}"}


def message_topic(root: str, msg: dict[str, Any]) -> str:
    """The topic a stream message goes to (see module doc)."""
    t = topics(root, msg["board"])
    base = t[msg["channel"]]
    if msg["kind"] == "event":
        return f"{base}/event/{msg['event']['type']}"
    if msg["kind"] == "presence":
        return t["status"]
    return f"{base}/{msg['kind']}"


REFUSAL_LOG_EVERY = 50  # a refusal repeated (wrong password) is logged again only every 50th attempt
_TRIM = 512  # acknowledged outbox entries kept before trimming


@dataclass
class _Item:
    topic: str
    payload: bytes


class MqttPublisher:
    """A hub sink publishing to one broker (see module doc). ``start()`` connects in the background and
    returns at once; ``stop()`` publishes "offline", waits briefly for the outbox and disconnects.

    Raises:
        MqttConfigError: from the constructor, for a bad setting.
    """

    def __init__(self, config: MqttConfig, *, boot: str | None = None) -> None:
        config.check()
        self.config = config
        self.channels = frozenset(config.channels)
        self.boot = boot or uuid.uuid4().hex[:12]
        self._items: list[_Item] = []           # event messages from position _base on, in order
        self._base = 0                          # position of _items[0] (acknowledged items are trimmed)
        self._acked_upto = 0                    # positions < this are acknowledged by the broker
        self._acked: set[int] = set()
        self._next = 0                          # next position to send on this connection
        self._mids: dict[int, int] = {}         # paho mid -> position
        self._acks: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._retained: dict[str, dict[str, Any]] = {}  # topic -> latest snapshot, re-sent on every connection
        self._dirty_retained: set[str] = set()
        self._ticks: dict[str, dict[str, Any]] = {}
        self._flags: dict[str, Any] | None = None  # the last flags body set (judge_called, devices, journal)
        self._flags_n = 0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._connected = False
        self._gen = 0                            # connection generation (increments on every CONNACK)
        self._sent_gen = 0
        self.connections = 0
        self.refusals = 0                        # refused connection attempts in a row
        self._last_refusal = ""
        self.published = 0
        self.errors: list[str] = []
        #: says once per outage why the broker cannot be reached, and when it is connected again
        self.watch = BrokerWatch(config.host, config.port, self._error, keepalive_s=config.keepalive_s)
        self._client = self._make_client()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------------------------------ set-up
    def _presence(self, online: bool) -> bytes:
        msg = envelope("presence", "public", game_id="", board=self.config.board, boot=self.boot,
                       n=max(1, self.connections), seq=0, ts=_wall(), online=online)
        return encode(msg)

    def _make_client(self) -> Any:
        import paho.mqtt.client as mqtt

        c = self.config
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                             client_id=c.client_id or f"kiosk-board{c.board}-{self.boot}", clean_session=True)
        client.will_set(topics(c.root, c.board)["status"], self._presence(False), qos=1, retain=True)
        if c.username is not None:
            client.username_pw_set(c.username, c.password)
        if c.tls or c.tls_ca:
            try:
                client.tls_set(ca_certs=c.tls_ca, certfile=c.tls_cert, keyfile=c.tls_key)
            except (OSError, ValueError) as exc:
                given = [(n, getattr(c, n)) for n in ("tls_ca", "tls_cert", "tls_key") if getattr(c, n)]
                name = given[0][0] if len(given) == 1 else "tls"
                files = ", ".join(f"{n} {v}" for n, v in given)
                raise MqttConfigError(f"mqtt {name}: cannot load the certificates ({files or 'the system CAs'}): "
                                      f"{tls_problem(exc)}") from None
            if c.tls_insecure:
                client.tls_insecure_set(True)
        client.reconnect_delay_set(c.reconnect_min_s, c.reconnect_max_s)
        client.max_queued_messages_set(0)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        self.watch.attach(client)
        return client

    def start(self) -> MqttPublisher:
        """Connect in the background (unreachable broker: keeps retrying) and start the sender thread."""
        c = self.config
        self._stop.clear()
        self._client.connect_async(c.host, c.port, keepalive=c.keepalive_s)
        self._client.loop_start()
        self._thread = threading.Thread(target=self._run, name=f"mqtt-board-{c.board}", daemon=True)
        self._thread.start()
        return self

    def stop(self, flush_s: float = 2.0) -> None:
        """Wait up to ``flush_s`` for the outbox, publish "offline" (retained), disconnect, stop threads."""
        self.wait_acked(flush_s)
        if self._connected:
            try:
                info = self._client.publish(topics(self.config.root, self.config.board)["status"],
                                            self._presence(False), qos=1, retain=True)
                info.wait_for_publish(timeout=1.0)
            except (RuntimeError, ValueError) as exc:
                self._error(f"mqtt: offline presence not sent: {exc}")
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.watch.stopping = True   # our own disconnect is no outage
        self._client.disconnect()
        self._client.loop_stop()

    # ------------------------------------------------------------------------------------------ sink
    def on_message(self, msg: dict[str, Any], state: GameState | None) -> None:
        """Hub sink entry: queue ``msg`` (events in the outbox; snapshots/ticks as latest-only). Never blocks."""
        topic = message_topic(self.config.root, msg)
        kind = msg["kind"]
        with self._lock:
            if kind == "event":
                self._items.append(_Item(topic, encode(msg)))
            elif kind == "snapshot":  # latest only: encoded when sent (most are superseded before)
                self._retained[topic] = msg
                self._dirty_retained.add(topic)
            elif kind == "tick":
                self._ticks[topic] = msg
        self._wake.set()

    def set_flags(self, judge_called: bool, devices: dict[str, str], journal: str | None) -> bool:
        """Publish the table's flags (retained, QoS 1, ``{root}/judge/board/{N}/flags``) when they differ from
        the last ones set; ``devices``: name -> "ok" | "degraded" | "down" | "absent"; ``journal``: a sentence
        or None. Never on the public channel: nothing is sent when this publisher has no judge channel.
        Returns whether a message was queued. Never blocks."""
        body: dict[str, Any] = {"judge_called": bool(judge_called), "devices": dict(devices), "journal": journal}
        if "judge" not in self.channels or body == self._flags:
            return False
        self._flags = body
        self._flags_n += 1
        msg = envelope("flags", "judge", game_id="", board=self.config.board, boot=self.boot, n=self._flags_n,
                       seq=0, ts=_wall(), **body)
        topic = message_topic(self.config.root, msg)
        with self._lock:
            self._retained[topic] = msg
            self._dirty_retained.add(topic)
        self._wake.set()
        return True

    # ------------------------------------------------------------------------------------------ status
    @property
    def connected(self) -> bool:
        return self._connected

    def pending(self) -> int:
        """Event messages not yet acknowledged by the broker."""
        with self._lock:
            return self._base + len(self._items) - self._acked_upto

    def wait_acked(self, timeout_s: float) -> bool:
        """Block (not for the referee loop!) until every queued event is acknowledged; False on timeout."""
        import time

        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if self.pending() == 0:
                return True
            self._wake.set()
            time.sleep(0.01)
        return self.pending() == 0

    # ------------------------------------------------------------------------------------------ paho callbacks
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        if getattr(reason_code, "is_failure", False):
            self.refusals += 1
            text = f"mqtt: broker {self.config.host}:{self.config.port} refused the connection: {reason_code}"
            if text != self._last_refusal or self.refusals % REFUSAL_LOG_EVERY == 0:  # not every few seconds
                self._error(f"{text} (refusal {self.refusals}; retrying in the background)")
            self._last_refusal = text
            self.watch.refused()
            return
        self.watch.on_connect()
        self.refusals = 0
        self._last_refusal = ""
        self.connections += 1
        self._connected = True
        self._gen += 1
        self._wake.set()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        self.watch.on_disconnect(reason_code, bool(getattr(flags, "is_disconnect_packet_from_server", False)))
        self._connected = False

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason_code: Any, properties: Any) -> None:
        self._acks.put(mid)  # handled on the sender thread (paho holds its own locks here)
        self._wake.set()

    # ------------------------------------------------------------------------------------------ sender
    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(0.05)
            self._wake.clear()
            try:
                self._send()
            except Exception as exc:  # the sender must survive anything
                self._error(f"mqtt sender: {type(exc).__name__}: {exc}")

    def _take_acks(self) -> None:
        while True:
            try:
                mid = self._acks.get_nowait()
            except queue.Empty:
                break
            pos = self._mids.pop(mid, None)
            if pos is not None and pos >= self._acked_upto:
                self._acked.add(pos)
        while self._acked_upto in self._acked:
            self._acked.discard(self._acked_upto)
            self._acked_upto += 1
        if self._acked_upto - self._base >= _TRIM:  # keep memory bounded over a long day of games
            del self._items[:self._acked_upto - self._base]
            self._base = self._acked_upto

    def _send(self) -> None:
        import paho.mqtt.client as mqtt

        with self._lock:
            self._take_acks()
            if not self._connected:
                return
            client = self._client
            if self._sent_gen != self._gen:  # a new connection: presence, then everything unacknowledged
                self._sent_gen = self._gen
                self._mids.clear()
                self._acked.clear()
                self._next = self._acked_upto
                client.publish(topics(self.config.root, self.config.board)["status"], self._presence(True),
                               qos=1, retain=True)
                self._dirty_retained = set(self._retained)
            while self._next < self._base + len(self._items):
                item = self._items[self._next - self._base]
                info = client.publish(item.topic, item.payload, qos=1)
                if info.rc != mqtt.MQTT_ERR_SUCCESS:
                    return  # connection lost; the next CONNACK restarts from the last acknowledged event
                self._mids[info.mid] = self._next
                self._next += 1
                self.published += 1
            for topic in sorted(self._dirty_retained):
                info = client.publish(topic, encode(self._retained[topic]), qos=1, retain=True)
                if info.rc != mqtt.MQTT_ERR_SUCCESS:
                    return
            self._dirty_retained.clear()
            ticks, self._ticks = self._ticks, {}
            for topic, msg in ticks.items():
                client.publish(topic, encode(msg), qos=1)

    def _error(self, text: str) -> None:
        log.warning("%s", text)
        self.errors.append(text)
        del self.errors[:-100]


def _wall() -> int:
    import time

    return int(time.time() * 1000)
