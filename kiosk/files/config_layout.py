"""The layout of the kiosk's config file (``kiosk run --config``; its keys: :mod:`kiosk.app.config`): its sections
and the keys each holds, checked by :func:`read_config_file`, the one reader of the file for ``kiosk run`` and the
device check (``python -m kiosk.devices.check``), so both refuse a file in the same sentence.

A key written at the top of the file where it belongs in a section is named as a key with its section
("players belongs in [table]: write it under a [table] line"), a device table as one of ``[devices]``; only a
table of a name no section has is an unknown section.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kiosk.files import InputError, read_toml

DEVICE_TABLES = ("buttons", "display", "camera", "serial")
"""The tables of the ``[devices]`` section (:func:`kiosk.devices.factory.build_devices`)."""

STREAM_KEYS = frozenset({
    "board", "delay_s", "live_port", "live_host", "live_max_connections", "mqtt_host", "mqtt_port", "mqtt_root",
    "mqtt_username", "mqtt_password_file", "mqtt_password_env", "mqtt_tls", "mqtt_tls_ca", "mqtt_tls_cert",
    "mqtt_tls_key", "mqtt_private"})
"""The keys of ``[stream]``, the one list of them: the layout check here places a stray one (``mqtt_host belongs in
[stream]``) without importing the stream package (which imports this package: a cycle), and
:class:`kiosk.stream.setup.StreamSettings` checks each one's type (its type groups are checked against this list
when it is imported)."""

SECTIONS: dict[str, frozenset[str] | None] = {
    "table": frozenset({"players", "preset", "judge_pin", "director_code", "journal", "tiles", "lexicon"}),
    "screen": frozenset({"size", "fullscreen"}),
    "vision": frozenset({"profile", "stable_frames"}),
    "stream": None,    # its keys are checked by kiosk.stream.setup.StreamSettings
    "devices": None,   # its keys are checked by kiosk.devices.factory
}
"""Each section and its keys (None: checked by the section's own reader)."""

_HOMES = {"stream": STREAM_KEYS, "devices": frozenset(DEVICE_TABLES)}


def home_of(key: str) -> str | None:
    """The section a key belongs in (``players``: ``table``; ``buttons``: ``devices``), or None."""
    for sec, keys in SECTIONS.items():
        if key in (keys if keys is not None else _HOMES[sec]):
            return sec
    return None


def _placed(key: str, value: Any) -> str:
    """Where a key written at the top of the file belongs, said as what to write."""
    sec = home_of(key)
    if sec is None:
        if isinstance(value, dict):
            return f"[{key}]: unknown section (known: {', '.join(SECTIONS)})"
        return f"{key}: unknown key at the top of the file: every key belongs in a section ({', '.join(SECTIONS)})"
    if sec == "devices":
        return (f"{key} belongs in [devices]: write it as [devices.{key}] (or {key} = {{...}} under a [devices] "
                f"line)")
    return f"{key} belongs in [{sec}]: write it under a [{sec}] line"


def layout_problem(data: dict[str, Any]) -> str | None:
    """The first section or key of a config file's ``data`` out of its place (see module doc), said as
    ``KEY: ...`` or ``[SECTION]: ...``; None when every one is in place."""
    for sec, val in data.items():
        if sec not in SECTIONS:
            return _placed(sec, val)
        if not isinstance(val, dict):
            return f"[{sec}]: expected a table"
        keys = SECTIONS[sec]
        if keys is None:
            continue
        for k in val:
            if k not in keys:
                home = home_of(k)
                where = f"; {k} belongs in [{home}]" if home is not None else ""
                return f"{sec}.{k}: unknown key (known: {', '.join(sorted(keys))}){where}"
    return None


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The config file at ``path`` (:func:`kiosk.files.read_toml`), every section and key in its place.

    Raises:
        InputError: as read_toml, or ``PATH: KEY ...`` naming the first section or key out of its place.
    """
    data = read_toml(path, "config file")
    if (problem := layout_problem(data)) is not None:
        raise InputError(f"{path}: {problem}")
    return data
