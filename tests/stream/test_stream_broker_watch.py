"""MQTT trouble in words (kiosk publisher and desk alike, :mod:`kiosk.stream.broker_watch`): a closed port, a
server that is no MQTT broker, one that never answers, a broker stopped and started again. Each outage is said
once, as a warning, and its end with how long it lasted. Every server here is on 127.0.0.1, bounded in time."""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from common_fixtures import wait_for

from kiosk.desk.ingest import BrokerConfig
from kiosk.desk.service import Desk
from kiosk.stream.broker import LocalBroker, free_port, mosquitto_path
from kiosk.stream.mqtt import MqttConfig, MqttPublisher

EVENT = 'name = "Words Open"\nrounds = 1\n[[division]]\nname = "A"\nplayers = ["Ann", "Bob"]\n'


class _Listener:
    """A TCP server on 127.0.0.1 that gives each connection to ``serve`` (keeps the sockets until closed)."""

    def __init__(self, serve: Callable[[socket.socket], None]) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.kept: list[socket.socket] = []
        self.serve = serve
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.kept.append(conn)
            self.serve(conn)

    def close(self) -> None:
        self.sock.close()
        for c in self.kept:
            c.close()


def _kiosk(port: int, keepalive_s: int = 15) -> MqttPublisher:
    return MqttPublisher(MqttConfig("127.0.0.1", port, board=3, keepalive_s=keepalive_s)).start()


def _desk(tmp: Path, port: int) -> Desk:
    (tmp / "event.toml").write_text(EVENT)
    return Desk(tmp, BrokerConfig("127.0.0.1", port, client_id="words-desk"), http_port=0).start()


def _said(errors: list[str] | object, text: str) -> bool:
    return any(text in e for e in list(errors))  # type: ignore[call-overload]


def test_a_closed_port_is_said_once_as_connection_refused(tmp_path, caplog):
    port = free_port()
    where = f"127.0.0.1:{port}"
    refused = f"the tournament broker at {where} cannot be reached: connection refused"
    caplog.set_level(logging.INFO, logger="kiosk.stream")
    kiosk = _kiosk(port)
    desk = _desk(tmp_path, port)
    try:
        assert wait_for(lambda: _said(kiosk.errors, refused) and _said(desk.ingest.errors, refused), 20), \
            (kiosk.errors, list(desk.ingest.errors))
        time.sleep(4)   # more attempts fail: nothing more is said
        assert [e for e in kiosk.errors if where in e] == [e for e in kiosk.errors if refused in e]
        assert len(kiosk.errors) == 1 and len(desk.ingest.errors) == 1, (kiosk.errors, list(desk.ingest.errors))
        warned = [r for r in caplog.records if refused in r.getMessage()]
        assert warned and all(r.levelno == logging.WARNING for r in warned)
    finally:
        kiosk.stop(0)
        desk.stop()


def test_a_web_server_is_said_to_be_no_mqtt_broker(tmp_path):
    port = free_port()
    web = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    banner = _Listener(lambda c: (c.sendall(b"SSH-2.0-OpenSSH_9.2p1\r\n"), c.close()))
    try:
        assert wait_for(lambda: _can_connect(port), 10)
        desk = _desk(tmp_path, port)            # the desk's keepalive (10 s) ends its CONNECT with a line feed:
        kiosk = _kiosk(banner.port)             # the web server answers 400; the other greets as SSH
        try:
            assert wait_for(lambda: _said(desk.ingest.errors, f"the tournament broker at 127.0.0.1:{port} is not an "
                                                          "MQTT broker"), 30), list(desk.ingest.errors)
            assert wait_for(lambda: _said(kiosk.errors, f"the tournament broker at 127.0.0.1:{banner.port} is not an "
                                                     "MQTT broker"), 30), kiosk.errors
            time.sleep(3)
            assert len(desk.ingest.errors) == 1 and len(kiosk.errors) == 1, (list(desk.ingest.errors), kiosk.errors)
        finally:
            kiosk.stop(0)
            desk.stop()
    finally:
        web.kill()
        web.wait()
        banner.close()


def _can_connect(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def test_a_server_that_never_answers_is_said_not_to_answer(tmp_path):
    silent = _Listener(lambda c: None)
    kiosk = _kiosk(silent.port, keepalive_s=3)
    try:
        assert wait_for(lambda: _said(kiosk.errors, f"the tournament broker at 127.0.0.1:{silent.port} does not "
                                                 "answer: no MQTT reply within 3 s"), 30), kiosk.errors
        time.sleep(4)
        assert len(kiosk.errors) == 1, kiosk.errors
    finally:
        kiosk.stop(0)
        silent.close()


def test_a_broker_stopped_is_a_warning_and_its_return_is_said_with_the_time_it_was_away(tmp_path, caplog):
    if mosquitto_path() is None:
        pytest.fail("mosquitto is not installed: install the Debian packages in scripts/system-packages.txt")
    caplog.set_level(logging.INFO, logger="kiosk.stream")
    broker = LocalBroker(persistence=False).start()
    where = f"127.0.0.1:{broker.port}"
    kiosk = _kiosk(broker.port)
    desk = _desk(tmp_path, broker.port)
    try:
        assert wait_for(lambda: kiosk.connected and desk.ingest.connected, 20)
        assert kiosk.errors == [] and list(desk.ingest.errors) == []
        broker.stop()
        lost = (f"lost the connection to the tournament broker at {where} (the connection was lost); it cannot be "
                "reached: connection refused (nothing listens on that port); reconnecting")
        assert wait_for(lambda: _said(kiosk.errors, lost) and _said(desk.ingest.errors, lost), 20), \
            (kiosk.errors, list(desk.ingest.errors))
        time.sleep(3)                            # attempts fail meanwhile: refused, not said again
        broker.start()
        again = f"connected again to {where} after "
        assert wait_for(lambda: _said(kiosk.errors, again) and _said(desk.ingest.errors, again), 30), \
            (kiosk.errors, list(desk.ingest.errors))
        for errors in (kiosk.errors, list(desk.ingest.errors)):
            assert len(errors) == 2, errors
            assert errors[1].startswith(again) and errors[1].endswith(" s")
            assert 2 <= int(errors[1][len(again):-2]) <= 40, errors
        for text in (lost, again):
            records = [r for r in caplog.records if r.name == "kiosk.stream.mqtt" and text in r.getMessage()]
            assert len(records) == 1 and records[0].levelno == logging.WARNING, text
    finally:
        kiosk.stop(0)
        desk.stop()
        broker.close()
