"""The shipped Mosquitto ACL and password example (docs/mosquitto/) on a real mosquitto (127.0.0.1): kiosks
write their own board's topics only, the desk reads everything, the public reads only the delayed channel,
anonymous clients are refused. And ``kiosk run``'s stream set-up against it: credentials from a file or the
environment, never logged, the judge channel only with credentials."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import jsonschema
import paho.mqtt.client as mqtt
import pytest

from kiosk.referee.simulate import random_game
from kiosk.stream.broker import LocalBroker, mosquitto_path
from kiosk.stream.envelope import load_schema
from kiosk.stream.setup import StreamSettings, start_stream

DOCS = Path(__file__).resolve().parents[2] / "docs" / "mosquitto"
ROOT = "scrabble/acl-test"
PASSWORDS = dict(line.split(":", 1) for line in (DOCS / "passwords.example").read_text().split())


def _acked(started, timeout_s: float) -> bool:
    """Every event the kiosk's hub holds is handed to the publisher and acknowledged by the broker (the hub hands
    them over on its own thread: a publisher with nothing queued yet would answer 'acked' at once)."""
    end = time.monotonic() + timeout_s
    while not started.hub.idle() and time.monotonic() < end:
        time.sleep(0.02)
    return started.mqtt.wait_acked(max(0.1, end - time.monotonic()))


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    if mosquitto_path() is None or shutil.which("mosquitto_passwd") is None:
        pytest.fail("mosquitto is not installed: install the Debian packages in scripts/system-packages.txt")
    d = tmp_path_factory.mktemp("acl")
    pw = d / "passwd"
    shutil.copy(DOCS / "passwords.example", pw)
    subprocess.run(["mosquitto_passwd", "-U", str(pw)], check=True, timeout=30)   # as the docs say
    b = LocalBroker(persistence=False, extra=("allow_anonymous false", f"password_file {pw}",
                                              f"acl_file {DOCS / 'acl'}"))
    b.start()
    yield b
    b.close()


class Client:
    """A paho client logged in as ``user`` (None: anonymous) that records what it receives."""

    def __init__(self, port: int, user: str | None, subscribe: str | None = None) -> None:
        self.got: list[str] = []
        self.payloads: list[tuple[str, str]] = []
        self.rc: object = None
        self._ready = threading.Event()
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"acl-{user}-{time.monotonic_ns()}")
        if user:
            self.c.username_pw_set(user, PASSWORDS[user])

        def on_connect(c, u, f, rc, p):
            self.rc = rc
            if not rc.is_failure and subscribe:
                c.subscribe(subscribe, qos=1)
            else:
                self._ready.set()

        self.c.on_connect = on_connect
        self.c.on_subscribe = lambda *a: self._ready.set()
        self.c.on_message = lambda c, u, m: (self.got.append(m.topic),
                                             self.payloads.append((m.topic, m.payload.decode(errors="replace"))))
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        assert self._ready.wait(5), f"{user}: no CONNACK/SUBACK"

    def publish(self, topic: str, payload: bytes = b"{}") -> None:
        self.c.publish(topic, payload, qos=1).wait_for_publish(5)

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


TOPICS = {"pub1": f"{ROOT}/board/1/event/play", "snap1": f"{ROOT}/board/1/snapshot",
          "judge1": f"{ROOT}/judge/board/1/event/play", "pub2": f"{ROOT}/board/2/event/play",
          "judge2": f"{ROOT}/judge/board/2/event/play"}


def test_who_may_read_and_write_what(broker) -> None:
    anon = Client(broker.port, None)
    assert anon.rc.is_failure, "an anonymous client was let in"
    anon.close()
    desk = Client(broker.port, "desk", f"{ROOT}/#")
    public = Client(broker.port, "public", f"{ROOT}/#")
    tried = 0
    try:
        for user in ("kiosk1", "kiosk2", "desk", "public"):
            for topic in TOPICS.values():
                w = Client(broker.port, user)   # one connection per try: a refused write may end it
                try:
                    w.publish(topic, user.encode())
                except RuntimeError:
                    pass
                tried += 1
                w.close()
        time.sleep(1.0)
        written = {(user, next(n for n, tp in TOPICS.items() if t == tp)) for t, user in desk.payloads}
        assert written == {("kiosk1", "pub1"), ("kiosk1", "snap1"), ("kiosk1", "judge1"), ("kiosk2", "pub2"),
                           ("kiosk2", "judge2")}, written
        assert tried == 20
        assert public.got and all("/judge/" not in t for t in public.got), public.got
        assert sorted(public.payloads) == sorted(p for p in desk.payloads if "/judge/" not in p[0])
    finally:
        desk.close()
        public.close()


def test_kiosk_publishes_with_credentials_from_a_file_and_never_logs_the_password(broker, tmp_path, caplog,
                                                                                   monkeypatch) -> None:
    pw = tmp_path / "mqtt-password"
    pw.write_text(PASSWORDS["kiosk1"] + "\n")
    desk = Client(broker.port, "desk", f"{ROOT}/#")
    public = Client(broker.port, "public", f"{ROOT}/#")
    events = random_game("nsf", seed=19)[:6]
    caplog.set_level(logging.DEBUG)
    started = start_stream(StreamSettings(board=1, mqtt_host="127.0.0.1", mqtt_port=broker.port, mqtt_root=ROOT,
                                          mqtt_username="kiosk1", mqtt_password_file=str(pw)), events)
    try:
        assert started.problems == []
        assert started.mqtt.channels == {"judge", "public"}
        assert _acked(started, 10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and sum("/judge/board/1/event/" in t for t in desk.got) < 6:
            time.sleep(0.05)
        assert sum("/judge/board/1/event/" in t for t in desk.got) == 6
        assert not any("/judge/" in t for t in public.got)
        # a wrong password (from the environment): refused by the broker and reported, never logged
        monkeypatch.setenv("KIOSK_TEST_MQTT", "not-the-password-7f3a")
        bad = start_stream(StreamSettings(board=2, mqtt_host="127.0.0.1", mqtt_port=broker.port, mqtt_root=ROOT,
                                          mqtt_username="kiosk2", mqtt_password_env="KIOSK_TEST_MQTT"))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not bad.mqtt.errors:
            time.sleep(0.05)
        assert bad.mqtt.errors and "refused" in bad.mqtt.errors[0]
        bad.mqtt.stop(0)
        bad.hub.stop()
        assert "not-the-password-7f3a" not in repr(bad.mqtt.config)
    finally:
        started.mqtt.stop(1)
        started.hub.stop()
        desk.close()
        public.close()
    text = caplog.text + "".join(started.problems)
    assert PASSWORDS["kiosk1"] not in text and "not-the-password-7f3a" not in text
    assert PASSWORDS["kiosk1"] not in repr(started.mqtt.config)


def test_judge_channel_is_not_published_without_credentials(caplog) -> None:
    with LocalBroker(persistence=False) as anon_broker:            # anonymous: anyone may subscribe to '#'
        spy = Client(anon_broker.port, None, "#")
        events = random_game("nsf", seed=20)[:5]
        started = start_stream(StreamSettings(board=3, mqtt_host="127.0.0.1", mqtt_port=anon_broker.port,
                                              mqtt_root=ROOT), events)
        try:
            assert started.mqtt.channels == {"public"}
            assert "judge channel is not published" in caplog.text
            assert _acked(started, 10)
            time.sleep(0.5)
            assert spy.got and not any("/judge/" in t for t in spy.got), spy.got   # read the live channel before
        finally:
            started.mqtt.stop(1)
            started.hub.stop()
            spy.close()
        private = start_stream(StreamSettings(board=3, mqtt_host="127.0.0.1", mqtt_port=anon_broker.port,
                                              mqtt_root=ROOT, mqtt_private=True))
        assert private.mqtt.channels == {"judge", "public"}
        private.mqtt.stop(0)
        private.hub.stop()


def _certs(d: Path) -> tuple[Path, Path, Path]:
    """A test CA and a server certificate for 127.0.0.1 signed by it (openssl)."""
    ca_key, ca, key, csr, crt = (d / n for n in ("ca.key", "ca.crt", "server.key", "server.csr", "server.crt"))
    run = lambda *a: subprocess.run(["openssl", *a], check=True, capture_output=True, timeout=60)  # noqa: E731
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca), "-days", "2",
        "-subj", "/CN=kiosk test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr), "-subj", "/CN=127.0.0.1")
    ext = d / "san.cnf"
    ext.write_text("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial", "-out", str(crt),
        "-days", "2", "-extfile", str(ext))
    return ca, crt, key


def test_kiosk_publishes_over_tls_verified_against_the_configured_ca(tmp_path) -> None:
    if shutil.which("openssl") is None or mosquitto_path() is None:
        pytest.fail("openssl and mosquitto are needed (Debian packages openssl, mosquitto)")
    ca, crt, key = _certs(tmp_path)
    from kiosk.stream.broker import free_port

    tls_port = free_port()
    with LocalBroker(persistence=False, extra=(f"listener {tls_port} 127.0.0.1", f"cafile {ca}",
                                               f"certfile {crt}", f"keyfile {key}")) as b:
        desk = Client(b.port, None, f"{ROOT}/#")             # reads on the plain loopback listener
        events = random_game("nsf", seed=21)[:4]
        started = start_stream(StreamSettings(board=5, mqtt_host="127.0.0.1", mqtt_port=tls_port, mqtt_root=ROOT,
                                              mqtt_tls_ca=str(ca), mqtt_private=True), events)
        (tmp_path / "other").mkdir()
        other_ca = _certs(tmp_path / "other")[0]
        wrong = start_stream(StreamSettings(board=6, mqtt_host="127.0.0.1", mqtt_port=tls_port, mqtt_root=ROOT,
                                            mqtt_tls_ca=str(other_ca), mqtt_private=True), events)
        try:
            assert started.problems == [] and _acked(started, 15)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and sum("/board/5/event/" in t for t in desk.got) < 8:
                time.sleep(0.05)
            assert sum("/judge/board/5/event/" in t for t in desk.got) == 4
            time.sleep(1.0)
            assert not wrong.mqtt.connected and wrong.mqtt.pending() == 8   # a broker the CA does not vouch for
            assert not any("/board/6/" in t for t in desk.got)
        finally:
            for s in (started, wrong):
                s.mqtt.stop(0)
                s.hub.stop()
            desk.close()


def test_kiosk_run_publishes_with_its_config_credentials(broker, tmp_path) -> None:
    desk = Client(broker.port, "desk", f"{ROOT}/#")
    cfg = tmp_path / "kiosk.toml"
    cfg.write_text(f"""[table]
players = ["Ann", "Bob"]
judge_pin = "2468"
journal = "{tmp_path / 'j.sqlite'}"
[stream]
board = 2
mqtt_host = "127.0.0.1"
mqtt_port = {broker.port}
mqtt_root = "{ROOT}"
mqtt_username = "kiosk2"
mqtt_password_env = "KIOSK_MQTT_PASSWORD"
[devices]
buttons = {{backend = "scripted"}}
camera = {{backend = "none"}}
display = {{backend = "null"}}
""")
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
           "KIOSK_MQTT_PASSWORD": PASSWORDS["kiosk2"]}
    try:
        res = subprocess.run([sys.executable, "-m", "kiosk", "run", "--config", str(cfg), "--headless",
                              "--seconds", "3"], cwd=Path(__file__).resolve().parents[2], env=env,
                             capture_output=True, text=True, timeout=120)
        time.sleep(0.5)
    finally:
        desk.close()
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert f"{ROOT}/judge/board/2/event/game_started" in desk.got, (desk.got, out)   # "unknown key" before
    assert f"{ROOT}/board/2/status" in desk.got
    flags = [json.loads(p) for t, p in desk.payloads if t == f"{ROOT}/judge/board/2/flags"]
    assert flags, (desk.got, out)      # kiosk run publishes the table's flags (docs/desk.md)
    assert flags[-1]["kind"] == "flags" and flags[-1]["channel"] == "judge" and flags[-1]["board"] == 2
    assert flags[-1]["devices"]["camera"] == "absent" and flags[-1]["judge_called"] is False
    assert flags[-1]["journal"] is None
    jsonschema.Draft202012Validator(load_schema()).validate(flags[-1])   # the envelope's schema
    bad = dict(flags[-1], channel="public")
    assert not jsonschema.Draft202012Validator(load_schema()).is_valid(bad)   # flags are judge-channel only
    assert PASSWORDS["kiosk2"] not in out and "Not authorized" not in out


def test_a_repeated_refusal_is_logged_once_then_rarely(caplog) -> None:
    from kiosk.stream.mqtt import MqttConfig, MqttPublisher

    class Refused:
        is_failure = True

        def __str__(self) -> str:
            return "Not authorized"

    pub = MqttPublisher(MqttConfig(host="127.0.0.1", port=1, username="kiosk1", password="pw-never-logged"))
    refused = Refused()
    for _ in range(120):  # two hours of retries every minute, or a minute of a fast loop
        pub._on_connect(None, None, None, refused, None)
    lines = [r for r in caplog.records if "refused the connection" in r.getMessage()]
    assert len(lines) == 3 and pub.refusals == 120          # the 1st, 50th and 100th ("Not authorized" every few s)
    assert "pw-never-logged" not in caplog.text
