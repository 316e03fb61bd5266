"""Where the kiosk keeps its files, and the config file of ``kiosk run``.

Config file (TOML)::

    [table]
    players = ["Ann", "Bob"]          # 2-4 names in turn order, for the first game (the new-game screen can change them)
    preset = "nsf"                    # bundled preset name or a .toml path
    judge_pin = "2468"                # 4-8 digits 0-9; required
    director_code = "90817263"        # 6-8 digits: opens the judge menu and clears every PIN wait (optional)
    journal = "/var/lib/scrabble-kiosk/journal.sqlite"   # default: the user's data folder
    tiles = "english"                 # tile set the reader expects (the preset's by default)
    lexicon = "/etc/scrabble-kiosk/event.marisa"   # the event's lexicon, compiled (kiosk lexicon compile) or a word
                                      # list, for the ruling suggested to the judge on a challenge (default ENABLE)
    [screen]
    size = [800, 480]                 # window / framebuffer size in px
    fullscreen = true
    [vision]
    profile = "/etc/scrabble-kiosk/calibration"   # the reader's calibration profile (optional)
    stable_frames = 2
    [stream]                          # optional: publish the game (every key: kiosk.stream.setup)
    board = 7                         # table number
    delay_s = 120                     # public channel delay
    mqtt_host = "desk.local"          # MQTT tournament bus (optional)
    mqtt_root = "scrabble/nationals-2026"
    mqtt_username = "board7"          # the live judge channel is published only with credentials
    mqtt_password_file = "/etc/scrabble-kiosk/mqtt-password"   # or mqtt_password_env = "VAR"
    mqtt_tls_ca = "/etc/scrabble-kiosk/desk-ca.pem"            # TLS (or mqtt_tls = true: system CAs)
    live_port = 8080                  # live web page on this port (optional)
    live_host = "127.0.0.1"           # loopback by default; a LAN address only when set here
    [devices]                         # passed to kiosk.devices.factory.build_devices
    buttons = {backend = "gpio"}
    camera = {backend = "picamera2"}

Every problem raises :class:`ConfigError` naming the file and the key.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from kiosk.files import InputError
from kiosk.files.config_layout import read_config_file
from kiosk.settings.table import TableError, TableSettings, check_table, config_checker
from kiosk.stream.setup import StreamConfigError, StreamSettings

APP_NAME = "scrabble-kiosk"


class ConfigError(ValueError):
    """The config file is missing, unreadable or has a bad key (the message names file and key)."""


def data_dir() -> Path:
    """The user's data folder for the kiosk: ``$XDG_DATA_HOME/scrabble-kiosk`` (default ``~/.local/share/...``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / APP_NAME


@dataclass
class KioskConfig:
    """``kiosk run``'s settings (see module doc); sizes in px."""

    players: tuple[str, ...] = ("Player 1", "Player 2")
    preset: str = "nsf"
    judge_pin: str = ""
    director_code: str | None = None
    journal: Path = field(default_factory=lambda: data_dir() / "journal.sqlite")
    tiles: str = ""
    lexicon: Path | None = None
    size: tuple[int, int] = (800, 480)
    fullscreen: bool = True
    profile: str | None = None
    stable_frames: int = 2
    devices: dict[str, Any] = field(default_factory=dict)
    stream: dict[str, Any] = field(default_factory=dict)
    stream_settings: StreamSettings | None = None   # the checked [stream] section; None without one
    source: Path | None = None   # the config file read (named in messages about its settings)
    table: TableSettings | None = None   # the checked [table] (the names of its rules and tile set too)


@dataclass(frozen=True)
class _ScreenFile:
    size: tuple[int, int] = (800, 480)
    fullscreen: bool = True


@dataclass(frozen=True)
class _VisionFile:
    profile: Any = None         # any value, read as its text
    stable_frames: int = 2


@dataclass(frozen=True)
class _ConfigFile:
    """The file's shape, checked by :mod:`kiosk.rules.checked` (value ranges are checked in :func:`load_config`)."""

    table: dict[str, Any] = field(default_factory=dict)   # its values: kiosk.settings.table.check_table
    screen: _ScreenFile = field(default_factory=_ScreenFile)
    vision: _VisionFile = field(default_factory=_VisionFile)
    stream: dict[str, Any] = field(default_factory=dict)
    devices: dict[str, Any] = field(default_factory=dict)


_FIELD_WORDS = {"screen.size": "[width, height] in px, 240..4000", "vision.stable_frames": "a whole number 1..10"}


def _read_file(p: Path) -> _ConfigFile:
    """The file's sections, keys and types checked (raises ConfigError naming the file and the key)."""
    try:   # the one reader of the config file (the device check's too): every section and key in its place
        data = read_config_file(p)
    except InputError as exc:
        raise ConfigError(str(exc)) from None
    return config_checker(p, ConfigError, _FIELD_WORDS).build(_ConfigFile, data)


def load_config(path: str | Path, *, open_lexicon: bool = False) -> KioskConfig:
    """Read and check a config file; ``open_lexicon``: the event's lexicon (``table.lexicon``) is loaded too, as
    ``kiosk run --check`` does (``kiosk run`` loads it at start).

    Raises:
        ConfigError: unreadable file, unknown section or key, wrong type or value (names file and key; the
            ``[table]`` values: :func:`kiosk.settings.table.check_table`, the device check's check too).
    """
    p = Path(path)
    f = _read_file(p)
    s, v = f.screen, f.vision
    try:
        t = check_table(p, f.table, open_lexicon=open_lexicon)
    except TableError as exc:
        raise ConfigError(str(exc)) from None
    cfg = KioskConfig(players=t.players, preset=t.preset, judge_pin=t.judge_pin, director_code=t.director_code,
                      tiles=t.tiles, lexicon=t.lexicon, table=t, fullscreen=s.fullscreen,
                      stable_frames=v.stable_frames, profile=None if v.profile is None else str(v.profile), source=p)
    if t.journal is not None:
        cfg.journal = t.journal
    if not all(240 <= x <= 4000 for x in s.size):
        raise ConfigError(f"{p}: screen.size: expected {_FIELD_WORDS['screen.size']}")
    cfg.size = s.size
    if not 1 <= v.stable_frames <= 10:
        raise ConfigError(f"{p}: vision.stable_frames: expected {_FIELD_WORDS['vision.stable_frames']}")
    cfg.devices = dict(f.devices)
    st = dict(f.stream)
    try:
        cfg.stream_settings = StreamSettings.from_mapping(st) if st else None
    except StreamConfigError as exc:
        raise ConfigError(f"{p}: {exc}") from None
    if cfg.stream_settings is not None:
        _check_stream(p, cfg.stream_settings)
    cfg.stream = st
    return cfg


def _check_stream(p: Path, s: StreamSettings) -> None:
    """What the stream would refuse at start - where the kiosk then ran on with only a log line "MQTT is off" -
    refused with the config: a topic root with wildcards, a password file that cannot be read, a certificate
    file that holds no certificate, a port out of range (the stream's own checks).

    Raises:
        ConfigError: naming the file and the ``stream.KEY``.
    """
    import re

    from kiosk.stream.mqtt import MqttConfigError
    from kiosk.stream.server import check_port
    from kiosk.stream.setup import mqtt_config

    try:
        if s.live_port is not None:
            check_port(s.live_port, "stream.live_port")
        if s.mqtt_host:
            if not 1 <= s.mqtt_port <= 65535:
                raise ValueError(f"stream.mqtt_port: {s.mqtt_port} is not a TCP port (1-65535)")
            # the password's variable is the service's environment, not the file's: it is looked up at start
            _check_tls(mqtt_config(replace(s, mqtt_password_env=None)))
    except (ValueError, MqttConfigError) as exc:  # the publisher's 'mqtt root: ...' is the key stream.mqtt_root
        raise ConfigError(f"{p}: " + re.sub(r"^mqtt (\w+):", lambda m: f"stream.mqtt_{m[1]}:", str(exc))) from None


def _check_tls(c: Any) -> None:
    """Load the TLS files of MQTT settings ``c`` as the publisher will (CA, client certificate and key).

    Raises:
        MqttConfigError: a file does not load, said with :func:`kiosk.stream.mqtt.tls_problem`.
    """
    import ssl

    from kiosk.stream.mqtt import MqttConfigError, tls_problem

    if not (c.tls or c.tls_ca):
        return
    for name, load in (("tls_cert", lambda ctx: ctx.load_cert_chain(c.tls_cert, c.tls_key)),
                       ("tls_ca", lambda ctx: ctx.load_verify_locations(c.tls_ca))):
        if getattr(c, name):
            try:
                load(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))
            except (OSError, ValueError) as exc:
                raise MqttConfigError(f"mqtt {name}: cannot load {getattr(c, name)}: {tls_problem(exc)}") from None
