"""``kiosk stream-game`` and the kiosk-restart catch-up from the journal, against a real local broker."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from kiosk.referee.simulate import random_game
from kiosk.rules.gcg import read_gcg
from kiosk.store.session import GameSession
from kiosk.stream.broker import free_port
from kiosk.stream.hub import StreamHub
from kiosk.stream.mqtt import MqttConfig, MqttPublisher
from kiosk.stream.publish import record_game_id
from kiosk.stream.subscriber import DeskSubscriber
from shared_data import SHARED, needs_shared

GAME = SHARED / "corpus" / "gcg" / "real" / "domino14_macondo__gcgio_testdata__doug_v_emely.gcg"


def Desk(port: int, topics: list[str], client_id: str) -> DeskSubscriber:
    return DeskSubscriber("127.0.0.1", port, topics, client_id)


def _kiosk(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kiosk.cli", *args], capture_output=True, text=True, timeout=timeout)


@needs_shared
def test_stream_game_publishes_a_recorded_game_like_a_table(broker, tmp_path):
    desk = Desk(broker.port, ["scrabble/local/judge/board/5/event/#", "scrabble/local/board/5/snapshot"],
                client_id="cli-desk")
    try:
        r = _kiosk("stream-game", str(GAME), "--mqtt", f"127.0.0.1:{broker.port}", "--board", "5",
                   "--records", str(tmp_path))
        assert r.returncode == 0, r.stderr
        assert "board 5" in r.stdout and "33 events" in r.stdout
        assert desk.wait_for(lambda f: f.count(5) == 33, 10)
        gid = record_game_id(read_gcg(GAME))   # the players' nicks and a hash of the record's content
        assert f"game {gid}:" in r.stdout and gid.startswith("doug-emely-")
        got = desk.follower.events[(5, "judge", gid)]
        assert got[0]["type"] == "game_started" and got[-1]["type"] == "outplay_accepted"
        assert desk.follower.gaps == []
        assert desk.wait_for(lambda f: any(m["kind"] == "snapshot" and m["seq"] == 33 for _, m in desk.raw), 5)
        final = [m for _, m in desk.raw if m["kind"] == "snapshot"][-1]["state"]
        assert final["scores"] == [451, 345] and final["phase"] == "over"
        assert (tmp_path / f"{gid}.result.json").is_file()
    finally:
        desk.close()


def test_stream_game_explains_bad_input_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.gcg"
    bad.write_text("#player1 a Ann\n#player2 b Bob\n>a: ABC 8H CAB +14 14\n>b: XYZ 8H ZZZ +30 30\n")
    r = _kiosk("stream-game", str(bad), "--mqtt", "127.0.0.1:1883")
    assert r.returncode == 2 and "bad.gcg:4" in r.stderr and "Traceback" not in r.stderr
    r = _kiosk("stream-game", str(bad), "--mqtt", "127.0.0.1:99999")
    assert r.returncode == 2 and "port" in r.stderr and "Traceback" not in r.stderr
    r = _kiosk("stream-game", str(tmp_path / "missing.gcg"), "--mqtt", "127.0.0.1")
    assert r.returncode == 2 and "missing.gcg" in r.stderr and "Traceback" not in r.stderr


@needs_shared
def test_stream_game_with_no_broker_gives_up_with_a_clear_message():
    r = _kiosk("stream-game", str(GAME), "--mqtt", f"127.0.0.1:{free_port()}", "--timeout", "1.5")
    assert r.returncode == 1 and "never connected" in r.stderr and "Traceback" not in r.stderr


def test_kiosk_restart_republishes_from_the_journal_and_subscribers_see_each_event_once(broker, tmp_path):
    root = "scrabble/reboot"
    desk = Desk(broker.port, [f"{root}/judge/board/6/event/#"], client_id="reboot-desk")
    events = random_game("nsf", seed=77)
    half = len(events) // 2
    journal = tmp_path / "journal.sqlite"

    def kiosk_run() -> tuple[GameSession, StreamHub, MqttPublisher]:
        session = GameSession.open(journal)
        hub = StreamHub(6, tick_ms=0)
        pub = MqttPublisher(MqttConfig(host="127.0.0.1", port=broker.port, board=6, root=root), boot=hub.boot)
        hub.add_sink(pub)
        hub.seed(session.referee.events)  # what the journal holds (nothing on the first run)
        hub.start()
        pub.start()
        return session, hub, pub

    try:
        session, hub, pub = kiosk_run()
        for ev in events[:half]:
            assert session.apply(ev).accepted
            hub.publish(ev)
        assert desk.wait_for(lambda f: f.count(6) == half, 10)
        hub.stop()
        pub._client.loop_stop()  # the kiosk dies: no clean disconnect
        session.journal.close()
        session, hub, pub = kiosk_run()
        assert len(session.referee.events) == half
        for ev in events[half:]:
            assert session.apply(ev).accepted
            hub.publish(ev)
        assert desk.wait_for(lambda f: f.count(6) == len(events), 15)
        time.sleep(0.2)
        f = desk.follower
        assert f.gaps == [] and f.duplicates >= half  # the re-sent first half is recognised by seq
        assert f.events[(6, "judge", "sim-77")] == [e.to_dict() for e in events]
        hub.stop()
        pub.stop(flush_s=0.5)
        session.close()
    finally:
        desk.close()


def test_a_broker_address_that_is_no_address_is_refused_by_name():
    """`kiosk desk --mqtt "a b:1"` and `--mqtt "[::1"` were taken (the desk then retried a host that cannot
    exist for ever), and '1.2.3.4:80:90' became the host '1.2.3.4:80:90' on port 1883."""
    from kiosk.stream.publish import parse_host_port

    for text in ("a b:1", "[::1", "[::1]x", "[zz]:1883", "1.2.3.4:80:90", "host/x:1883", "h\u00e9:1"):
        with pytest.raises(ValueError, match="broker address"):
            parse_host_port(text)
    assert parse_host_port("desk.local") == ("desk.local", 1883)
    assert parse_host_port("127.0.0.1:1884") == ("127.0.0.1", 1884)
    assert parse_host_port("[::1]:1884") == ("::1", 1884)
    assert parse_host_port("[fe80::1%eth0]") == ("fe80::1%eth0", 1883)
    assert parse_host_port("::1") == ("::1", 1883)
    assert parse_host_port("my-broker_2") == ("my-broker_2", 1883)
