"""``kiosk desk``: bad usage and input exit 2 naming the problem; a real run serves, records and stops on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from kiosk.stream.broker import LocalBroker, free_port, mosquitto_path
from kiosk.stream.publish import publish_game
from shared_data import SHARED, needs_shared

DOUG = SHARED / "corpus" / "gcg" / "real" / "domino14_macondo__gcgio_testdata__doug_v_emely.gcg"
EVENT = 'name = "CLI Open"\nrounds = 1\n[[division]]\nname = "A"\nplayers = ["doug", "emely"]\n' \
        '[[pairing]]\nround = 1\nboard = 4\nplayers = ["doug", "emely"]\n'


def _kiosk(*args: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kiosk.cli", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.mark.parametrize("args, message", [
    (["--mqtt", "host:99999", "--event", "."], "kiosk desk: --mqtt: broker address 'host:99999': port '99999'"),
    (["--mqtt", "h:1883", "--http", "x:y", "--event", "."], "kiosk desk: --http: address 'x:y': port 'y'"),
    (["--mqtt", "h:1883", "--event", "/nonexistent/event"], "kiosk desk: /nonexistent/event: not a folder"),
    (["--mqtt", "h:1883", "--event", ".", "--tls-ca", "/nonexistent.pem"], "kiosk desk: --tls-ca /nonexistent.pem: no such file"),
    (["--mqtt", "h:1883", "--event", ".", "--root", "a/#"], "kiosk desk: --root 'a/#'"),
    (["--mqtt", "h:1883", "--event", ".", "--username", "desk", "--password-env", "NO_SUCH_VAR_X"],
     "the environment variable NO_SUCH_VAR_X holding the password is not set"),
])
def test_bad_usage_exits_2_naming_the_problem(tmp_path, args, message):
    r = _kiosk("desk", *args)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert r.stdout == ""


def test_a_bad_event_file_exits_2_naming_the_file(tmp_path):
    (tmp_path / "event.toml").write_text("rounds = 1\n[[division]]\nname = 'A'\nplayers = ['X']\n[[pairing]]\n"
                                         "round = 1\nboard = 1\nplayers = ['X', 'Q']\n")
    r = _kiosk("desk", "--mqtt", "127.0.0.1:1", "--event", str(tmp_path))
    assert r.returncode == 2
    assert f"kiosk desk: {tmp_path / 'event.toml'}: pairing 1: 'Q' is not a registered player" in r.stderr


def test_a_taken_http_port_exits_2(tmp_path):
    (tmp_path / "event.toml").write_text(EVENT)
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        r = _kiosk("desk", "--mqtt", "127.0.0.1:1", "--event", str(tmp_path), "--http",
                   f"127.0.0.1:{s.getsockname()[1]}")
    assert r.returncode == 2 and "kiosk desk: --http" in r.stderr and "cannot listen" in r.stderr


@needs_shared
def test_desk_command_serves_records_and_stops_on_sigterm(tmp_path):
    if mosquitto_path() is None:
        pytest.fail("mosquitto is not installed: install the Debian packages in scripts/system-packages.txt")
    (tmp_path / "event.toml").write_text(EVENT)
    http = free_port()
    with LocalBroker() as broker:
        proc = subprocess.Popen([sys.executable, "-m", "kiosk.cli", "desk", "--mqtt", f"127.0.0.1:{broker.port}",
                                 "--http", f"127.0.0.1:{http}", "--event", str(tmp_path)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            line = proc.stdout.readline()
            assert line.startswith("desk: CLI Open: 1 division, 1 pairing;") and f":{http}/" in line, line
            publish_game(DOUG, "127.0.0.1", broker.port, 4)
            url = f"http://127.0.0.1:{http}/results.json"
            end = time.monotonic() + 20
            rows = []
            while time.monotonic() < end and not rows:
                rows = json.loads(urllib.request.urlopen(url, timeout=5).read())
                time.sleep(0.1)
            assert [(r["board"], r["round"], [p["score"] for p in r["players"]]) for r in rows] == [(4, 1, [451, 345])]
        finally:
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
        assert "desk: stopped" in err
    assert (tmp_path / "desk" / "desk.sqlite").is_file()
