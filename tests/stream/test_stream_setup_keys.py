"""The keys of ``[stream]`` are one list (:data:`kiosk.files.config_layout.STREAM_KEYS`): the config's layout check
places them, :class:`kiosk.stream.setup.StreamSettings` takes each one and checks its type (its type groups are
checked against the list at import, so a key added to the list alone cannot pass unchecked)."""

from __future__ import annotations

import pytest

from kiosk.files.config_layout import STREAM_KEYS
from kiosk.stream.setup import StreamConfigError, StreamSettings, untyped_keys

GOOD = {"board": 3, "delay_s": 120, "live_port": 8080, "live_max_connections": 8, "mqtt_port": 8883,
        "live_host": "10.0.0.5", "mqtt_host": "desk.local", "mqtt_root": "scrabble/open", "mqtt_username": "board3",
        "mqtt_password_file": "/etc/pw", "mqtt_password_env": "PW", "mqtt_tls_ca": "/etc/ca.pem",
        "mqtt_tls_cert": "/etc/c.pem", "mqtt_tls_key": "/etc/k.pem", "mqtt_tls": True, "mqtt_private": True}


@pytest.mark.parametrize("key", sorted(STREAM_KEYS))
def test_every_stream_key_is_taken_and_its_type_checked(key: str) -> None:
    login = {"mqtt_username": "board3"} if key.startswith("mqtt_password") else {}
    settings = StreamSettings.from_mapping({key: GOOD[key], **login})
    assert getattr(settings, key) == GOOD[key]
    with pytest.raises(StreamConfigError, match=rf"^stream\.{key}: expected "):
        StreamSettings.from_mapping({key: [GOOD[key]], **login})


def test_a_key_in_no_type_group_or_in_two_or_only_in_a_group_is_found() -> None:
    assert untyped_keys(frozenset({"a", "b", "c"}), [("a",), ("b",), ("c",)]) == []
    assert untyped_keys(frozenset({"a", "b", "c"}), [("a", "b"), ("b", "d")]) == ["b", "c", "d"]
