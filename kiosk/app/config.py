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

from kiosk.app.pin import check_pin, check_recovery_code
from kiosk.files import InputError
from kiosk.files.config_layout import read_config_file
from kiosk.rules.checked import Checker
from kiosk.rules.counts import counted
from kiosk.rules.names import clash, name_problem, shown_name
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


@dataclass(frozen=True)
class _TableFile:
    """``[table]`` as written in the file (defaults: :class:`KioskConfig`'s)."""

    players: tuple[str, ...] = ("Player 1", "Player 2")
    preset: str = "nsf"
    judge_pin: Any = ""         # checked by check_pin, with its own messages (a number: write it in quotes)
    director_code: Any = None   # checked by check_recovery_code, with its own messages
    journal: str | None = None
    tiles: str = ""
    lexicon: str | None = None


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

    table: _TableFile = field(default_factory=_TableFile)
    screen: _ScreenFile = field(default_factory=_ScreenFile)
    vision: _VisionFile = field(default_factory=_VisionFile)
    stream: dict[str, Any] = field(default_factory=dict)
    devices: dict[str, Any] = field(default_factory=dict)


_JOURNAL_WORDS = 'the path of a journal file, e.g. "/var/lib/scrabble-kiosk/journal.sqlite"'
_FIELD_WORDS = {"table.players": "2 to 4 non-empty names, in turn order", "table.journal": _JOURNAL_WORDS,
                "screen.size": "[width, height] in px, 240..4000", "vision.stable_frames": "a whole number 1..10"}


def _read_file(p: Path) -> _ConfigFile:
    """The file's sections, keys and types checked (raises ConfigError naming the file and the key)."""
    try:   # the one reader of the config file (the device check's too): every section and key in its place
        data = read_config_file(p)
    except InputError as exc:
        raise ConfigError(str(exc)) from None
    check = Checker(error=lambda message: ConfigError(f"{p}: {message}"), template="{path}: expected {what}",
                    words={bool: "true or false"}, field_words=_FIELD_WORDS)
    return check.build(_ConfigFile, data)


def load_config(path: str | Path) -> KioskConfig:
    """Read and check a config file.

    Raises:
        ConfigError: unreadable file, unknown section or key, wrong type (names file and key).
    """
    p = Path(path)
    f = _read_file(p)
    t, s, v = f.table, f.screen, f.vision
    cfg = KioskConfig(players=_players(p, t.players), preset=t.preset, judge_pin=t.judge_pin, tiles=t.tiles,
                      fullscreen=s.fullscreen, stable_frames=v.stable_frames,
                      profile=None if v.profile is None else str(v.profile), source=p)
    _check_player_count(p, cfg)
    try:
        check_pin(cfg.judge_pin, "table.judge_pin")
        if t.director_code is not None:
            cfg.director_code = check_recovery_code(t.director_code, cfg.judge_pin, "table.director_code")
    except ValueError as exc:
        raise ConfigError(f"{p}: {exc}") from None
    if t.journal is not None:
        if not t.journal.strip() or t.journal.endswith(("/", ".")):
            raise ConfigError(f"{p}: table.journal: expected {_JOURNAL_WORDS}")
        cfg.journal = Path(t.journal).expanduser()
    if t.lexicon is not None:
        if not t.lexicon.strip():
            raise ConfigError(f"{p}: table.lexicon: expected the path of the event's lexicon (a .marisa file or a "
                              f"word list)")
        cfg.lexicon = Path(t.lexicon).expanduser()
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


def _players(p: Path, pl: tuple[str, ...]) -> tuple[str, ...]:
    """``table.players``: 2-4 different non-empty names in turn order (seeds 003/004 allow 4).

    Raises:
        ConfigError: not a list of 2-4 names, an empty name, a name no player may have (a control character, more
            than 100 characters: :func:`kiosk.rules.names.name_problem`), or two names a scoresheet cannot tell
            apart (given twice, or differing only in letter case: :func:`kiosk.rules.names.clash`).
    """
    if not 2 <= len(pl) <= 4 or not all(x.strip() for x in pl):
        raise ConfigError(f"{p}: table.players: expected 2 to 4 non-empty names, in turn order")
    for x in pl:
        if (why := name_problem(x)) is not None:   # it would add lines to the journal, the GCG and the desk's files
            raise ConfigError(f"{p}: table.players: the name {shown_name(x)} {why}")
    if (same := clash([x.strip() for x in pl])) is not None:
        raise ConfigError(f"{p}: table.players: players {same[0] + 1} and {same[1] + 1} {same[2]}: the players need "
                          "distinct names")
    return tuple(x.strip() for x in pl)


def _check_player_count(p: Path, cfg: KioskConfig) -> None:
    """The preset must load (``table.preset``), and its tile set or ``table.tiles``, and be for as many players as
    ``table.players`` names (home and team: 2-4, seeds 003/004).

    Raises:
        ConfigError: naming the file and the key: the preset or the tile set does not load, or its
            ``min_players``..``max_players`` leave the count out.
    """
    from kiosk.referee.presets import PresetError, load_preset
    from kiosk.rules.tiles import TileSetError, load_tile_set

    try:
        preset = load_preset(cfg.preset)
    except PresetError as exc:
        raise ConfigError(f"{p}: table.preset: {exc}") from None
    if cfg.tiles:
        try:
            load_tile_set(cfg.tiles)
        except TileSetError as exc:
            raise ConfigError(f"{p}: table.tiles: {exc}") from None
    if not preset.min_players <= len(cfg.players) <= preset.max_players:
        raise ConfigError(f"{p}: table.players: {counted(len(cfg.players), 'name')}, but the preset {preset.name} "
                          f"is for {preset.seats}")
