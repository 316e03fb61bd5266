"""The one broker example, docs/mosquitto/: the ACL file is what kiosk.desk.acl writes, and Mosquitto started
with the example configuration lets the desk read, refuses anonymous clients, keeps each kiosk to its own board
and the public to the delayed channel."""

from __future__ import annotations

import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from kiosk.desk.acl import acl_text, password_file
from kiosk.stream.broker import LocalBroker, mosquitto_path

DOCS = Path(__file__).resolve().parents[2] / "docs" / "mosquitto"


def test_acl_example_is_what_the_code_writes():
    assert (DOCS / "acl").read_text() == acl_text("scrabble/+", [1, 2])


def _client(port: int, user: str | None, pw: str | None, got: list | None = None) -> tuple[mqtt.Client, list]:
    rc: list = []
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"docs-{user}-{time.monotonic_ns()}")
    if user:
        c.username_pw_set(user, pw)
    c.on_connect = lambda cl, u, f, reason, p: rc.append(reason)
    if got is not None:
        c.on_message = lambda cl, u, m: got.append(m.topic)
    c.connect("127.0.0.1", port)
    c.loop_start()
    end = time.monotonic() + 30          # generous: the suite runs on a loaded machine
    while not rc and time.monotonic() < end:
        time.sleep(0.02)
    assert rc, f"no CONNACK for {user} within 30 s"
    return c, rc


def test_example_config_with_mosquitto(tmp_path):
    if mosquitto_path() is None:
        pytest.fail("mosquitto is not installed: install the Debian packages in scripts/system-packages.txt")
    password_file(tmp_path / "passwd", {"desk": "d", "public": "p", "kiosk1": "k1", "kiosk2": "k2"})
    (tmp_path / "acl").write_text((DOCS / "acl").read_text())
    lines = []
    for ln in (DOCS / "mosquitto.conf").read_text().splitlines():
        key = ln.split(" ", 1)[0]
        if key in ("listener", "persistence_location", "persistence", "cafile", "certfile", "keyfile"):
            continue                                   # LocalBroker sets its own port and folder; no TLS here
        lines.append(ln.replace("/etc/mosquitto/scrabble.passwd", str(tmp_path / "passwd"))
                     .replace("/etc/mosquitto/scrabble.acl", str(tmp_path / "acl")))
    broker = LocalBroker(persistence=False, extra=tuple(lines)).start()
    try:
        anon, rc = _client(broker.port, None, None)
        assert rc and rc[0].is_failure
        anon.loop_stop()
        seen: list[str] = []
        desk, rc = _client(broker.port, "desk", "d", seen)
        assert rc and not rc[0].is_failure
        desk.subscribe("scrabble/nationals-2026/#", 1)
        public_seen: list[str] = []
        public, _ = _client(broker.port, "public", "p", public_seen)
        public.subscribe("scrabble/nationals-2026/#", 1)
        time.sleep(0.3)
        k1, rc = _client(broker.port, "kiosk1", "k1")
        assert not rc[0].is_failure
        for topic in ("scrabble/nationals-2026/judge/board/1/event/pass", "scrabble/nationals-2026/board/1/status",
                      "scrabble/nationals-2026/judge/board/1/flags"):
            k1.publish(topic, b"{}", qos=1).wait_for_publish(10)
        for topic in ("scrabble/nationals-2026/judge/board/2/event/pass", "scrabble/nationals-2026/board/2/status"):
            k1.publish(topic, b"{}", qos=1)     # refused by the broker (which may drop kiosk1's connection)
        end = time.monotonic() + 5
        while len(seen) < 3 and time.monotonic() < end:
            time.sleep(0.02)
        time.sleep(0.3)
        assert sorted(seen) == ["scrabble/nationals-2026/board/1/status",
                                "scrabble/nationals-2026/judge/board/1/event/pass",
                                "scrabble/nationals-2026/judge/board/1/flags"]
        assert public_seen == ["scrabble/nationals-2026/board/1/status"]
        for c in (desk, public, k1):
            c.loop_stop()
            c.disconnect()
    finally:
        broker.close()
