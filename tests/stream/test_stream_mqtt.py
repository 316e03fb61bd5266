"""The tournament bus against a real Mosquitto broker on 127.0.0.1 (started by the tests).

50 boards publishing whole games at once; a broker stopped and restarted mid-game; presence with the Last
Will; retained snapshots for late joiners; credentials. Skipped only when mosquitto is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time

import jsonschema
import pytest

from kiosk.referee.simulate import random_game
from kiosk.stream.broker import LocalBroker
from kiosk.stream.envelope import load_schema
from kiosk.stream.hub import StreamHub
from kiosk.stream.mqtt import MqttConfig, MqttConfigError, MqttPublisher
from kiosk.stream.subscriber import DeskSubscriber


def Desk(port: int, topics: list[str], client_id: str = "desk", username=None, password=None) -> DeskSubscriber:
    return DeskSubscriber("127.0.0.1", port, topics, client_id, username=username, password=password)


def _board(port: int, board: int, root: str, **kw) -> tuple[StreamHub, MqttPublisher]:
    hub = StreamHub(board, tick_ms=0)
    pub = MqttPublisher(MqttConfig(host="127.0.0.1", port=port, board=board, root=root, **kw), boot=hub.boot)
    hub.add_sink(pub)
    return hub, pub


def test_fifty_boards_publish_whole_games_at_once_and_every_event_arrives_once_in_order(broker):
    root = "scrabble/t50"
    desk = Desk(broker.port, [f"{root}/judge/board/+/event/#", f"{root}/board/+/event/#"])
    games = {b: random_game("nsf", seed=100 + b) for b in range(50)}
    boards = [_board(broker.port, b, root) for b in range(50)]
    try:
        for hub, pub in boards:
            hub.start()
            pub.start()
        for b, (hub, _) in enumerate(boards):
            for ev in games[b]:
                hub.publish(ev)
        total = sum(len(g) for g in games.values())
        assert desk.wait_for(lambda f: sum(f.count(b, "judge") + f.count(b, "public") for b in games) >= 2 * total,
                             timeout=90), f"only {sum(desk.follower.count(b) for b in games)} of {total} judge events"
        f = desk.follower
        assert f.gaps == [] and f.bad == []
        for b, events in games.items():
            for ch in ("judge", "public"):
                got = f.events[(b, ch, f"sim-{100 + b}")]
                assert got == [e.to_dict() for e in events], f"board {b} {ch}"
        with desk.lock:
            per_board_seqs: dict[tuple[int, str], list[int]] = {}
            for _, m in desk.raw:
                per_board_seqs.setdefault((m["board"], m["channel"]), []).append(m["seq"])
        for seqs in per_board_seqs.values():  # first arrivals are in order (duplicates only repeat old numbers)
            firsts = list(dict.fromkeys(seqs))
            assert firsts == sorted(firsts)
        validator = jsonschema.Draft202012Validator(load_schema())
        for _, m in desk.raw[::25]:
            validator.validate(m)
    finally:
        for hub, pub in boards:
            hub.stop()
            pub.stop(flush_s=0.2)
        desk.close()


def test_broker_restart_mid_game_loses_nothing_and_the_referee_never_waits(broker):
    root = "scrabble/restart"
    desk = Desk(broker.port, [f"{root}/judge/board/7/event/#"], client_id="desk-restart")
    events = random_game("nsf", seed=42)
    hub, pub = _board(broker.port, 7, root, reconnect_min_s=1, reconnect_max_s=1)
    hub.start()
    pub.start()
    try:
        third = len(events) // 3
        for ev in events[:third]:
            hub.publish(ev)
        assert desk.wait_for(lambda f: f.count(7) == third, 15)
        broker.stop()
        worst = 0.0
        for ev in events[third:2 * third]:  # the referee keeps going while the broker is down
            t0 = time.perf_counter()
            hub.publish(ev)
            worst = max(worst, time.perf_counter() - t0)
            time.sleep(0.01)
        assert worst < 0.05, f"publish() took {worst * 1000:.1f} ms with the broker down"  # typically ~25 us
        time.sleep(0.5)
        assert not pub.connected and pub.pending() >= third
        broker.start()
        for ev in events[2 * third:]:
            hub.publish(ev)
        assert desk.wait_for(lambda f: f.count(7) == len(events), 30), \
            f"{desk.follower.count(7)} of {len(events)} events after the restart"
        assert desk.follower.gaps == []
        assert desk.follower.events[(7, "judge", "sim-42")] == [e.to_dict() for e in events]
        assert pub.connections >= 2
        assert pub.wait_acked(10)
    finally:
        hub.stop()
        pub.stop(flush_s=0.2)
        desk.close()


def test_late_joiner_gets_the_retained_snapshot_and_presence(broker):
    root = "scrabble/late"
    events = random_game("nsf", seed=11)
    hub, pub = _board(broker.port, 3, root)
    hub.start()
    pub.start()
    try:
        for ev in events:
            hub.publish(ev)
        end = time.monotonic() + 10
        while (not hub.idle() or pub.pending()) and time.monotonic() < end:
            time.sleep(0.02)
        time.sleep(0.3)
        late = Desk(broker.port, [f"{root}/board/3/snapshot", f"{root}/board/3/status"], client_id="late")
        assert late.wait_for(lambda f: len(late.raw) >= 2, 10)
        by_topic = {t: m for t, m in late.raw}
        snap = by_topic[f"{root}/board/3/snapshot"]
        assert snap["kind"] == "snapshot" and snap["seq"] == len(events)
        assert snap["state"]["phase"] == "over"
        assert by_topic[f"{root}/board/3/status"]["online"] is True
        validator = jsonschema.Draft202012Validator(load_schema())
        for _, m in late.raw:  # the payloads on the wire follow the published schema (presence included)
            validator.validate(m)
        late.close()
    finally:
        hub.stop()
        pub.stop(flush_s=0.5)
    gone = Desk(broker.port, [f"{root}/board/3/status"], client_id="after")
    assert gone.wait_for(lambda f: any(not m["online"] for _, m in gone.raw), 10), "no retained offline presence"
    gone.close()


_CRASHING_KIOSK = """
import sys, time
from kiosk.stream.mqtt import MqttConfig, MqttPublisher
pub = MqttPublisher(MqttConfig(host="127.0.0.1", port=int(sys.argv[1]), board=9, root="scrabble/will", keepalive_s=1))
pub.start()
end = time.monotonic() + 10
while not pub.connected and time.monotonic() < end:
    time.sleep(0.02)
time.sleep(0.3)
print("up", flush=True)
time.sleep(60)
"""


def test_last_will_marks_a_crashed_kiosk_offline(broker):
    proc = subprocess.Popen([sys.executable, "-c", _CRASHING_KIOSK, str(broker.port)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "up"
        desk = Desk(broker.port, ["scrabble/will/board/9/status"], client_id="will")
        assert desk.wait_for(lambda f: desk.raw and desk.raw[-1][1]["online"] is True, 5)
        proc.kill()  # no clean disconnect: the broker must publish the Last Will after the keepalive
        assert desk.wait_for(lambda f: desk.raw[-1][1]["online"] is False, 10)
        desk.close()
    finally:
        proc.kill()
        proc.wait()


def test_username_and_password(tmp_path):
    pw = tmp_path / "passwd"
    pw.write_text("")
    subprocess.run(["mosquitto_passwd", "-b", str(pw), "kiosk", "s3cret"], check=True)
    pw.chmod(0o600)
    b = LocalBroker(extra=(f"password_file {pw}",))
    b.config.write_text(b.config.read_text().replace("allow_anonymous true", "allow_anonymous false"))
    b.start()
    try:
        desk = Desk(b.port, ["scrabble/auth/judge/board/1/event/#"], client_id="auth-desk", username="kiosk",
                    password="s3cret")
        events = random_game("nsf", seed=12)[:8]
        good_hub, good = _board(b.port, 1, "scrabble/auth", username="kiosk", password="s3cret")
        bad_hub, bad = _board(b.port, 2, "scrabble/auth", username="kiosk", password="wrong")
        for h, p in ((good_hub, good), (bad_hub, bad)):
            h.start()
            p.start()
            for ev in events:
                h.publish(ev)
        assert desk.wait_for(lambda f: f.count(1) == len(events), 10)
        time.sleep(0.5)
        assert not bad.connected and bad.pending() == 2 * len(events)
        assert any("refused" in e for e in bad.errors)
        for h, p in ((good_hub, good), (bad_hub, bad)):
            h.stop()
            p.stop(flush_s=0.1)
        desk.close()
    finally:
        b.close()


@pytest.mark.parametrize("kw, what", [({"port": 0}, "port"), ({"root": "a/#"}, "root"), ({"password": "x"}, "password"),
                                      ({"tls_ca": "/no/such/ca.pem"}, "tls_ca"), ({"host": ""}, "host")])
def test_bad_settings_are_named(kw, what):
    base = {"host": "127.0.0.1", "port": 1883}
    with pytest.raises(MqttConfigError, match=what):
        MqttPublisher(MqttConfig(**{**base, **kw}))


def test_tls_broker_verified_with_the_ca(tmp_path):
    if shutil.which("openssl") is None:
        pytest.fail("openssl is not installed: install the Debian packages in scripts/system-packages.txt")
    key, cert = tmp_path / "broker.key", tmp_path / "broker.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    b = LocalBroker(extra=(f"cafile {cert}", f"certfile {cert}", f"keyfile {key}"))
    b.start()
    try:
        events = random_game("nsf", seed=13)[:6]
        hub, pub = _board(b.port, 1, "scrabble/tls", tls_ca=str(cert))
        plain_hub, plain = _board(b.port, 2, "scrabble/tls")  # no TLS against a TLS listener: never connects
        for h, p in ((hub, pub), (plain_hub, plain)):
            h.start()
            p.start()
            for ev in events:
                h.publish(ev)
        end = time.monotonic() + 30   # the hubs hand the events over on their own threads: wait for that first
        while (not hub.idle() or not plain_hub.idle() or plain.pending() < 2 * len(events)
               or not pub.connected) and time.monotonic() < end:
            time.sleep(0.05)
        assert pub.wait_acked(10) and pub.connected
        assert not plain.connected and plain.pending() == 2 * len(events)
        for h, p in ((hub, pub), (plain_hub, plain)):
            h.stop()
            p.stop(flush_s=0.1)
    finally:
        b.close()


def test_a_day_of_games_keeps_the_outbox_bounded_across_an_outage(broker):
    root = "scrabble/day"
    desk = Desk(broker.port, [f"{root}/judge/board/8/event/#"], client_id="desk-day")
    games = [random_game("nsf", seed=s) for s in (201, 202, 203, 204)]
    hub, pub = _board(broker.port, 8, root, reconnect_min_s=1, reconnect_max_s=1)
    hub.start()
    pub.start()
    try:
        for i, game in enumerate(games):
            if i == 2:
                assert desk.wait_for(lambda f: f.count(8) == len(games[0]) + len(games[1]), 15)
                broker.stop()
            for ev in game:
                hub.publish(ev)
            if i == 2:
                time.sleep(0.3)
                broker.start()
        total = sum(len(g) for g in games)
        assert desk.wait_for(lambda f: f.count(8) == total, 30), f"{desk.follower.count(8)} of {total}"
        assert desk.follower.gaps == []
        for s, game in zip((201, 202, 203, 204), games):
            assert desk.follower.events[(8, "judge", f"sim-{s}")] == [e.to_dict() for e in game]
        assert pub.wait_acked(10)
        assert pub._base > 0 and len(pub._items) < 512  # acknowledged entries were trimmed
    finally:
        hub.stop()
        pub.stop(flush_s=0.2)
        desk.close()
