"""The ``[stream]`` section of ``kiosk run``'s config, and starting the stream from it without ever stopping
the referee.

Keys (all optional; a section without ``mqtt_host`` or ``live_port`` publishes nothing there)::

    board = 7                      table number
    delay_s = 120                  public channel delay (s)
    live_port = 8080               live web page (1-65535; 0: any free port)
    live_host = "127.0.0.1"        address it listens on: loopback unless a LAN address is configured
    live_max_connections = 64      connections served at once; more get 503
    mqtt_host = "desk.local"       MQTT tournament bus
    mqtt_port = 8883
    mqtt_root = "scrabble/nationals-2026"   topic root (default "scrabble/local")
    mqtt_username = "board7"
    mqtt_password_file = "/etc/scrabble-kiosk/mqtt-password"   first line of the file, or:
    mqtt_password_env = "KIOSK_MQTT_PASSWORD"                  an environment variable
    mqtt_tls = true                TLS with the system CAs, or:
    mqtt_tls_ca = "/etc/scrabble-kiosk/desk-ca.pem"            TLS verified against this CA
    mqtt_tls_cert / mqtt_tls_key   client certificate and key (optional)
    mqtt_private = false           true: the broker is on a private network nobody else can reach

The password never appears in the config file itself, in a log line or in a repr. The live judge channel
goes to the broker only with credentials (``mqtt_username``) or where ``mqtt_private`` says the broker is
private; otherwise only the delayed public channel is published (anyone on an anonymous broker could read
the judge channel and bypass the broadcast delay).

:func:`start_stream` never raises for a network problem: a port taken or out of range, a password file
missing, a certificate unreadable are reported (logged, and listed in :attr:`StreamStart.problems`) and the
kiosk referees on without that sink.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kiosk.files.config_layout import STREAM_KEYS

log = logging.getLogger("kiosk.stream")

KEYS = STREAM_KEYS
"""The keys of ``[stream]``: the one list, :data:`kiosk.files.config_layout.STREAM_KEYS` (which the config's
layout check reads without importing this package); each is in one type group below, checked at import."""
_INT_KEYS = ("board", "delay_s", "live_port", "live_max_connections", "mqtt_port")
_INT_LEAST = {"live_max_connections": 1}  # a page that serves nobody is a typo, not a setting (others: 0)
_STR_KEYS = ("live_host", "mqtt_host", "mqtt_root", "mqtt_username", "mqtt_password_file", "mqtt_password_env",
             "mqtt_tls_ca", "mqtt_tls_cert", "mqtt_tls_key")
_BOOL_KEYS = ("mqtt_tls", "mqtt_private")


def untyped_keys(keys: frozenset[str], groups: Iterable[tuple[str, ...]]) -> list[str]:
    """The keys of ``keys`` in no type group of ``groups`` or in more than one, and the keys of a group that are
    not in ``keys`` (sorted; empty when the groups split ``keys`` exactly)."""
    typed = [k for group in groups for k in group]
    return sorted({k for k in keys if typed.count(k) != 1} | (set(typed) - keys))


if _odd := untyped_keys(KEYS, (_INT_KEYS, _STR_KEYS, _BOOL_KEYS)):   # a key no type check would look at
    raise ImportError(f"kiosk.stream.setup: the [stream] keys {', '.join(_odd)} are not in exactly one type group "
                      "of STREAM_KEYS (kiosk.files.config_layout)")
_REFUSED = {"mqtt_password": "a password is not written in the config file: use mqtt_password_file or "
                             "mqtt_password_env"}


class StreamConfigError(ValueError):
    """A ``[stream]`` key of the wrong type or unknown (the message starts with ``stream.KEY``)."""


def _check_host(host: str) -> None:
    """Refuse an ``mqtt_host`` that holds a port ("host:1883", "[::1]:1883") or brackets: the port is ``mqtt_port``.

    A bare IPv6 address (colons, no brackets) is a host. Raises :class:`StreamConfigError` naming the key.
    """
    import ipaddress

    m = re.fullmatch(r"\[([^\]]*)\](?::(.*))?", host.strip())
    if m and m[2] is None:
        raise StreamConfigError(f"stream.mqtt_host: {host!r}: write an IPv6 address without brackets "
                                f"(mqtt_host = \"{m[1]}\")")
    port = m[2] if m else (host.rpartition(":")[2] if host.count(":") == 1 else None)
    if port is None and ":" in host:
        try:
            ipaddress.IPv6Address(host.strip())
        except ValueError:
            raise StreamConfigError(f"stream.mqtt_host: {host!r} holds colons but is not an IPv6 address: give "
                                    f"the host alone and the port as mqtt_port") from None
    if port is not None:
        given = f"mqtt_port = {port}" if port.isascii() and port.isdigit() else "mqtt_port (a whole number)"
        raise StreamConfigError(f"stream.mqtt_host: {host!r} holds a port: give the host alone and the port as "
                                f"{given}")


@dataclass(frozen=True)
class StreamSettings:
    """Checked ``[stream]`` settings (see module doc); ports may still be out of range (reported at start)."""

    board: int = 0
    delay_s: int = 0
    live_port: int | None = None
    live_host: str = "127.0.0.1"
    live_max_connections: int = 64
    mqtt_host: str | None = None
    mqtt_port: int = 1883
    mqtt_root: str = "scrabble/local"
    mqtt_username: str | None = None
    mqtt_password_file: str | None = None
    mqtt_password_env: str | None = None
    mqtt_tls: bool = False
    mqtt_tls_ca: str | None = None
    mqtt_tls_cert: str | None = None
    mqtt_tls_key: str | None = None
    mqtt_private: bool = False

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> StreamSettings:
        """Check types and names. Raises :class:`StreamConfigError` naming ``stream.KEY``."""
        for key in data:
            if key in _REFUSED:
                raise StreamConfigError(f"stream.{key}: {_REFUSED[key]}")
            if key not in KEYS:
                raise StreamConfigError(f"stream.{key}: unknown key (known: {', '.join(sorted(KEYS))})")
        for key in _INT_KEYS:
            least = _INT_LEAST.get(key, 0)
            if key in data and (isinstance(data[key], bool) or not isinstance(data[key], int) or data[key] < least):
                raise StreamConfigError(f"stream.{key}: expected a whole number >= {least}")
        for key in _STR_KEYS:
            if key in data and (not isinstance(data[key], str) or not data[key].strip()):
                raise StreamConfigError(f"stream.{key}: expected a non-empty string")
        for key in _BOOL_KEYS:
            if key in data and not isinstance(data[key], bool):
                raise StreamConfigError(f"stream.{key}: expected true or false")
        if "mqtt_host" in data:
            _check_host(data["mqtt_host"])
        if "mqtt_password_file" in data and "mqtt_password_env" in data:
            raise StreamConfigError("stream.mqtt_password_file: give the password file or mqtt_password_env, "
                                    "not both")
        if ("mqtt_password_file" in data or "mqtt_password_env" in data) and "mqtt_username" not in data:
            raise StreamConfigError("stream.mqtt_username: required with a password")
        return cls(**{k: v for k, v in data.items()})

    @property
    def judge_allowed(self) -> bool:
        """Whether the live judge channel may go to the broker (credentials, or a private broker)."""
        return bool(self.mqtt_username) or self.mqtt_private


@dataclass
class StreamStart:
    """What :func:`start_stream` started: the hub (None without a ``[stream]``), its sinks, and the problems
    reported (sentences naming the key)."""

    hub: Any = None
    mqtt: Any = None
    live: Any = None
    problems: list[str] = field(default_factory=list)

    def report(self, text: str) -> None:
        log.error("stream: %s", text)
        self.problems.append(text)


def read_password(s: StreamSettings) -> str | None:
    """The MQTT password from ``mqtt_password_file`` (its first line) or ``mqtt_password_env``.

    Raises:
        ValueError: file unreadable or empty, variable unset or empty (the message never holds the password).
    """
    if s.mqtt_password_file:
        path = Path(s.mqtt_password_file).expanduser()
        from kiosk.files import InputError, read_text

        try:  # checked first: a FIFO or a device would block the start until something writes to it
            text = read_text(path, "password file", secret=True)   # no byte of it in a message
        except InputError as exc:
            raise ValueError(f"stream.mqtt_password_file: {exc}") from None
        lines = text.splitlines()
        if not lines or not lines[0]:
            raise ValueError(f"stream.mqtt_password_file: {path}: the first line is empty")
        return lines[0]
    if s.mqtt_password_env:
        value = os.environ.get(s.mqtt_password_env)
        if not value:
            raise ValueError(f"stream.mqtt_password_env: the environment variable {s.mqtt_password_env} is "
                             f"not set or empty")
        return value
    return None


def _config_key(message: str) -> str:
    """A :class:`~kiosk.stream.mqtt.MqttConfigError` names the publisher's setting ('mqtt root: ...', shared with
    the command-line tools); in the kiosk's config it is the key ``stream.mqtt_root``."""
    return re.sub(r"^mqtt (\w+):", lambda m: f"stream.mqtt_{m[1]}:", message)


def mqtt_config(s: StreamSettings) -> Any:
    """The :class:`~kiosk.stream.mqtt.MqttConfig` for ``s`` (checked). Raises ValueError / MqttConfigError."""
    from kiosk.stream.mqtt import MqttConfig

    channels = frozenset({"public", "judge"} if s.judge_allowed else {"public"})
    cfg = MqttConfig(host=s.mqtt_host or "", port=s.mqtt_port, board=s.board, root=s.mqtt_root,
                     username=s.mqtt_username, password=read_password(s), tls=s.mqtt_tls, tls_ca=s.mqtt_tls_ca,
                     tls_cert=s.mqtt_tls_cert, tls_key=s.mqtt_tls_key, channels=channels)
    cfg.check()
    return cfg


def start_stream(s: StreamSettings | None, seed: Iterable[Any] = (),
                 now_ms: Callable[[], int] | None = None) -> StreamStart:
    """Start the hub and the sinks ``s`` asks for; ``seed``: the journal's events so far; ``now_ms``: the
    kiosk's clock, the events' time base (default: the wall clock). Problems are reported, never raised: the
    referee runs on without a sink that cannot start."""
    out = StreamStart()
    if s is None:
        return out
    from kiosk.stream.hub import StreamHub
    from kiosk.stream.mqtt import MqttConfigError, MqttPublisher
    from kiosk.stream.overlay import OverlayWriter
    from kiosk.stream.server import LiveServer, LiveServerError, check_port

    hub = StreamHub(board=s.board, delay_ms=s.delay_s * 1000, now_ms=now_ms)
    if s.mqtt_host:
        try:
            if not 1 <= s.mqtt_port <= 65535:
                raise ValueError(f"stream.mqtt_port: {s.mqtt_port} is not a TCP port (1-65535)")
            cfg = mqtt_config(s)
            out.mqtt = MqttPublisher(cfg)
        except (ValueError, MqttConfigError) as exc:
            out.report(f"MQTT is off: {_config_key(str(exc))}")
        else:
            if not s.judge_allowed:
                log.warning("stream: the live judge channel is not published to %s: no mqtt_username, and "
                            "mqtt_private is not set (only the delayed public channel goes out)", s.mqtt_host)
            hub.add_sink(out.mqtt.start())
    if s.live_port is not None:
        try:
            check_port(s.live_port, "stream.live_port")
            overlay = OverlayWriter(None, board=s.board)
            server = LiveServer(overlay, host=s.live_host, port=s.live_port, max_connections=s.live_max_connections)
            server.start()
        except (ValueError, LiveServerError) as exc:
            out.report(f"the live page is off: {exc}")
        else:
            hub.add_sink(overlay)
            hub.add_sink(server)
            out.live = server
            log.info("stream: live page on http://%s:%d/", s.live_host, server.port)
    hub.seed(seed)
    hub.start()
    out.hub = hub
    return out
