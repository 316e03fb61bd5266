"""Publish a recorded game to an MQTT broker exactly as a real table would: the tournament desk cannot tell
a demo board from a live one. Used by ``kiosk stream-game`` and (later) ``kiosk demo --headless``."""

from __future__ import annotations

import ipaddress
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kiosk.referee.game_id import record_game_id
from kiosk.referee.records import RecordEventsError, events_from_gcg
from kiosk.rules.gcg import GcgError, read_gcg
from kiosk.stream.hub import StreamHub
from kiosk.stream.mqtt import MqttConfig, MqttPublisher
from kiosk.stream.records import RecordsWriter


class PublishError(RuntimeError):
    """The game could not be delivered to the broker (message says how far it got)."""


@dataclass
class PublishReport:
    """What :func:`publish_game` did: ``events`` sent, ``game_id``, ``boot``, ``seconds`` taken (wall),
    ``connections`` made to the broker, ``errors`` met on the way (not fatal), ``records_errors``: the records
    folder's files not written (each once)."""

    events: int
    game_id: str
    boot: str
    seconds: float
    connections: int
    errors: list[str] = field(default_factory=list)
    records_errors: list[str] = field(default_factory=list)


def _ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def parse_host_port(text: str, default_port: int = 1883) -> tuple[str, int]:
    """``"HOST:PORT"`` / ``"HOST"`` / ``"[::1]:1883"`` -> (host, port). Raises ``ValueError`` naming the problem."""
    t = text.strip()
    if not t:
        raise ValueError("broker address is empty (expected HOST:PORT)")
    if t.startswith("["):
        host, closed, rest = t[1:].partition("]")
        if not closed or (rest and not rest.startswith(":")):
            raise ValueError(f"broker address {text!r}: expected [IPv6]:PORT")
        port_s = rest[1:]
        if host and not _ipv6(host):
            raise ValueError(f"broker address {text!r}: {host!r} is not an IPv6 address")
    elif t.count(":") == 1:
        host, port_s = t.split(":")
    elif t.count(":") > 1 and _ipv6(t):
        host, port_s = t, ""  # a bare IPv6 address (its port: write [addr]:port)
    elif ":" in t:
        raise ValueError(f"broker address {text!r}: expected HOST:PORT (an IPv6 address as [addr]:PORT)")
    else:
        host, port_s = t, ""
    if not host:
        raise ValueError(f"broker address {text!r}: no host")
    if not t.startswith("[") and not re.fullmatch(r"[A-Za-z0-9._:-]+", host):
        raise ValueError(f"broker address {text!r}: {host!r} is not a host name or address")
    if not port_s:
        return host, default_port
    if not port_s.isdigit() or not 0 < int(port_s) < 65536:
        raise ValueError(f"broker address {text!r}: port {port_s!r} is not 1-65535")
    return host, int(port_s)


def publish_game(gcg_path: str | Path, mqtt_host: str, port: int = 1883, board: int = 0, *, preset: str = "naspa",
                 root: str = "scrabble/local", pace_s: float = 0.0, timeout_s: float = 30.0,
                 username: str | None = None, password: str | None = None, tls_ca: str | None = None,
                 tls_insecure: bool = False, records_dir: str | Path | None = None,
                 progress: Callable[[int, int], None] | None = None) -> PublishReport:
    """Drive a referee through the recorded game ``gcg_path`` and publish its events (judge and public
    channels, retained snapshots, presence) to the broker at ``mqtt_host:port`` as table ``board``.

    Args:
        preset: rules the referee applies. pace_s: wall seconds between events (0: as fast as possible).
        timeout_s: how long to wait for the broker to acknowledge everything at the end.
        records_dir: also write the GCG and result files there. progress: called with (sent, total).
        The game's id: :func:`~kiosk.referee.game_id.record_game_id` (the record's ``#id``, else its
        players' nicks and a hash of its moves), as ``kiosk replay`` and the referee's events name it.

    Raises:
        RecordScoresError: the referee's scores differ from the record's (file:line: both); nothing is sent.
        RecordEventsError: the record cannot be refereed (file:line: reason).
        RecordsError: a file of the game in ``records_dir`` cannot be written; nothing is sent.
        MqttConfigError: a bad setting. PublishError: the broker did not take every event within timeout_s.
    """
    try:
        game = read_gcg(gcg_path)
    except GcgError as exc:
        raise RecordEventsError(str(exc)) from None
    game_id = record_game_id(game)
    events = events_from_gcg(game, preset, game_id=game_id, check_scores=True)
    writer = RecordsWriter(records_dir) if records_dir is not None else None
    if writer is not None:
        writer.check(game_id)
    cfg = MqttConfig(host=mqtt_host, port=port, board=board, root=root, username=username, password=password,
                     tls_ca=tls_ca, tls_insecure=tls_insecure)
    current = {"t": events[0].t}
    hub = StreamHub(board, delay_ms=0, now_ms=lambda: current["t"])
    pub = MqttPublisher(cfg, boot=hub.boot)
    hub.add_sink(pub)
    if writer is not None:
        hub.add_sink(writer)
    started = time.monotonic()
    hub.start()
    pub.start()
    try:
        for i, ev in enumerate(events, 1):
            current["t"] = ev.t
            hub.publish(ev)
            if progress is not None:
                progress(i, len(events))
            if pace_s > 0:
                time.sleep(pace_s)
        deadline = time.monotonic() + timeout_s
        while not hub.idle() and time.monotonic() < deadline:
            time.sleep(0.01)
        ok = pub.wait_acked(max(0.0, deadline - time.monotonic()))
    finally:
        hub.stop()
        pub.stop(flush_s=0.5)
    game_id = (hub.latest("judge") or {}).get("game_id", "")
    if not ok:
        raise PublishError(f"broker {mqtt_host}:{port} acknowledged {len(events) * 2 - pub.pending()} of "
                           f"{len(events) * 2} event messages within {timeout_s:.0f} s "
                           f"({'never connected' if pub.connections == 0 else 'connection lost'})")
    return PublishReport(len(events), game_id, hub.boot, time.monotonic() - started, pub.connections,
                         hub.errors + pub.errors, list(writer.errors) if writer is not None else [])
