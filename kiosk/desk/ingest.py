"""The desk's MQTT side: a paho-mqtt subscriber on the judge channel that feeds :class:`~kiosk.desk.tables.Tables`.

* Persistent session (``clean_session=False``, a stable client id) with QoS 1: while the desk is away, or the
  broker restarts with persistence, the broker keeps the desk's messages.
* Manual acknowledgement: a message is acknowledged to the broker only after its events are committed to
  SQLite, so a desk that dies between receiving and storing gets the message again.
* paho's network thread only appends to an inbox; a worker thread checks the messages
  (:func:`kiosk.desk.message.parse`), folds them in batches (one SQLite transaction per batch) and then acks.
  The inbox is bounded (:data:`MAX_INBOX`): beyond it clock ticks (QoS 0) are dropped and counted; events
  are never dropped (unacknowledged, the broker re-sends them).
"""

from __future__ import annotations

import collections
import hashlib
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kiosk.desk.message import Message, Refused, parse, subscriptions
from kiosk.desk.tables import Tables
from kiosk.rules.counts import counted
from kiosk.stream.broker_watch import BrokerWatch

log = logging.getLogger(__name__)

MAX_INBOX = 20_000
BATCH = 500
#: this many times dropped by the broker within :data:`TAKEOVER_WINDOW_S`, each time let straight back in: another
#: client logs in under the desk's client id (each connection pushes the other out)
TAKEOVER_DROPS = 3
TAKEOVER_WINDOW_S = 60.0


def default_client_id(data_dir: str | Path) -> str:
    """The desk's MQTT client id when none is given: ``kiosk-desk-`` and 10 hex digits of this host's name and the
    desk's data folder. Stable across restarts of the same desk (the broker keeps its session under it), another
    for a desk of another event or on another host (one id for all made two desks push each other off the
    broker); 21 characters, within MQTT 3.1.1's 23."""
    key = f"{socket.gethostname()}:{Path(data_dir).resolve()}"
    return "kiosk-desk-" + hashlib.sha256(key.encode()).hexdigest()[:10]


def _mono_ms() -> int:
    """The monotonic clock in ms (never set by NTP): what the desk's own waits are timed by."""
    return time.monotonic_ns() // 1_000_000


class IngestConfigError(ValueError):
    """A bad broker setting (message names it)."""


@dataclass(frozen=True)
class BrokerConfig:
    """The event's broker: ``host``/``port``; ``username``/``password``; ``tls_ca`` (switches TLS on);
    ``root`` (topic root); ``client_id`` (stable: the broker keeps the session under it; the desk service gives
    :func:`default_client_id` when it is empty)."""

    host: str
    port: int = 1883
    root: str = "scrabble/local"
    username: str | None = None
    password: str | None = None
    tls_ca: str | None = None
    client_id: str = ""
    keepalive_s: int = 10


class DeskIngest:
    """See module doc. ``lock`` guards ``tables`` (the web server takes it too); ``on_batch`` is called after
    each folded batch (outside the lock)."""

    def __init__(self, tables: Tables, lock: threading.Lock, config: BrokerConfig,
                 on_batch: Callable[[], None] | None = None) -> None:
        import paho.mqtt.client as mqtt

        self.tables = tables
        self.lock = lock
        self.config = config
        self.on_batch = on_batch
        self.connected = False
        self.connections = 0
        self.dropped_ticks = 0
        self.errors: collections.deque[str] = collections.deque(maxlen=20)
        self.error_total = 0
        self._drops: collections.deque[float] = collections.deque(maxlen=TAKEOVER_DROPS)  # when the broker dropped us
        self._takeover_told = False
        self._stopping = False
        # (topic, payload, mid, qos, desk wall ms it arrived (the page's clock base), monotonic ms it arrived)
        self._inbox: collections.deque[tuple[str, bytes, int, int, int, int]] = collections.deque()
        self._unacked: list[tuple[int, int]] = []   # acknowledged to the broker only once stored
        #: worst cases seen: messages waiting, the oldest one's wait, a batch's fold and store times (ms)
        self.stats = {"batches": 0, "inbox_max": 0, "wait_max_ms": 0, "fold_max_ms": 0, "flush_max_ms": 0}
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._worker: threading.Thread | None = None
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=config.client_id or "kiosk-desk", clean_session=False,
                        manual_ack=True)
        if config.username:
            c.username_pw_set(config.username, config.password)
        if config.tls_ca:
            try:
                c.tls_set(ca_certs=config.tls_ca)
            except (OSError, ValueError) as exc:
                from kiosk.stream.mqtt import tls_problem

                raise IngestConfigError(f"--tls-ca {config.tls_ca}: cannot load: {tls_problem(exc)}") from None
        c.reconnect_delay_set(1, 5)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        #: says once per outage why the broker cannot be reached (`kiosk desk` prints :attr:`errors` on stderr), and
        #: when it is connected again
        self.watch = BrokerWatch(config.host, config.port, self._error, keepalive_s=config.keepalive_s)
        self.watch.attach(c)
        self.client = c

    def start(self) -> DeskIngest:
        """Connect in the background (keeps retrying while the broker is away) and start the worker."""
        self._worker = threading.Thread(target=self._run, name="desk-ingest", daemon=True)
        self._worker.start()
        self.client.connect_async(self.config.host, self.config.port, keepalive=self.config.keepalive_s)
        self.client.loop_start()
        return self

    def stop(self) -> None:
        """Disconnect and stop the worker after it has folded what it holds."""
        self._stopping = True
        self.watch.stopping = True
        self.client.disconnect()
        self.client.loop_stop()
        self._stop.set()
        self._wake.set()
        if self._worker is not None:
            self._worker.join(timeout=10)

    def idle(self) -> bool:
        """Nothing waits in the inbox."""
        return not self._inbox

    # ------------------------------------------------------------------------------------------ paho thread
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        if reason_code.is_failure:
            self._error(f"broker {self.config.host}:{self.config.port} refused the desk: {reason_code}")
            self.watch.refused()
            return
        self.watch.on_connect()
        self.connected = True
        self.connections += 1
        client.subscribe(subscriptions(self.config.root))
        now = time.monotonic()
        if not self._takeover_told and len(self._drops) == TAKEOVER_DROPS and now - self._drops[0] <= TAKEOVER_WINDOW_S:
            self._takeover_told = True   # said once: every further push is the same story
            self._error(f"another client with id {self.config.client_id or 'kiosk-desk'} took over the "
                        f"connection: the broker dropped the desk {TAKEOVER_DROPS} times within "
                        f"{TAKEOVER_WINDOW_S:.0f} s and let it straight back in each time; give each desk its own "
                        "--client-id (two desks of one id push each other off the broker)")

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason_code: Any, properties: Any) -> None:
        if self.connected and not self._stopping:   # dropped by the broker, not our own disconnect
            self._drops.append(time.monotonic())
        self.watch.on_disconnect(reason_code, bool(getattr(flags, "is_disconnect_packet_from_server", False)))
        self.connected = False

    def _on_message(self, client: Any, userdata: Any, m: Any) -> None:
        if len(self._inbox) >= MAX_INBOX and m.qos == 0:
            self.dropped_ticks += 1
            return
        self._inbox.append((m.topic, m.payload, m.mid, m.qos, int(time.time() * 1000), _mono_ms()))
        self._wake.set()

    # ------------------------------------------------------------------------------------------ worker
    def _run(self) -> None:
        while True:
            self._wake.wait(0.2)
            self._wake.clear()
            while self._inbox:
                self._batch()
            if self._stop.is_set():
                return

    def _batch(self) -> None:
        t0 = time.monotonic()
        self.stats["inbox_max"] = max(self.stats["inbox_max"], len(self._inbox))
        if self._inbox:
            # timed on the monotonic clock: the desk's wall clock set by NTP made it years, kept as the maximum
            self.stats["wait_max_ms"] = max(self.stats["wait_max_ms"], _mono_ms() - self._inbox[0][5])
        items: list[Message | Refused] = []
        arrived: list[int] = []
        acks: list[tuple[int, int]] = []
        while self._inbox and len(items) < BATCH:
            topic, payload, mid, qos, at, _ = self._inbox.popleft()
            items.append(parse(self.config.root, topic, payload))
            arrived.append(at)
            if qos > 0:
                acks.append((mid, qos))
        self._unacked.extend(acks)
        try:
            with self.lock:
                self.tables.take_all(items, arrived, flush=False)
        except Exception as exc:  # a desk bug: logged and shown, the desk keeps running
            self._error(f"desk: could not fold {counted(len(items), 'message')}: {type(exc).__name__}: {exc}")
            log.exception("desk ingest")
        t1 = time.monotonic()
        self.stats["fold_max_ms"] = max(self.stats["fold_max_ms"], int(1000 * (t1 - t0)))
        try:
            self.tables.flush()   # the disk outside the lock: the page keeps being served meanwhile
        except Exception as exc:  # a full disk: the events stay in memory and unacknowledged until it works
            self._error(f"desk: cannot store events in {self.tables.store.path}: {type(exc).__name__}: {exc}")
            return
        self.stats["flush_max_ms"] = max(self.stats["flush_max_ms"], int(1000 * (time.monotonic() - t1)))
        self.stats["batches"] += 1
        for mid, qos in self._unacked:
            self.client.ack(mid, qos)
        self._unacked.clear()
        if self.on_batch is not None:
            self.on_batch()

    def _error(self, text: str) -> None:
        # info, not warning: `kiosk desk` prints each of :attr:`errors` as 'warning: ...' and the page shows them;
        # a warning here reached stderr a second time (Python's last-resort log handler)
        log.info("%s", text)
        self.errors.append(text)
        self.error_total += 1
