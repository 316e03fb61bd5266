"""The desk against a real Mosquitto with passwords and ACLs: kiosks publish recorded games, the desk records
and exports them; the broker restarts mid-game; the desk itself restarts; forged writes are refused."""

from __future__ import annotations

import io
import json
import threading
import time
import urllib.request
import zipfile

import paho.mqtt.client as mqtt
import pytest
from desk_helpers import acl_broker, start_desk, wait_for

from kiosk.desk.acl import kiosk_user
from kiosk.desk.ingest import BrokerConfig
from kiosk.desk.service import Desk
from kiosk.referee.records import events_from_gcg
from kiosk.referee.referee import Referee
from kiosk.rules.gcg import read_gcg
from kiosk.stream.broker import LocalBroker
from kiosk.stream.publish import PublishError, publish_game, record_game_id
from shared_data import SHARED, needs_shared

REAL = SHARED / "corpus" / "gcg" / "real"
DOUG = REAL / "domino14_macondo__gcgio_testdata__doug_v_emely.gcg"
GUY = REAL / "domino14_macondo__gcgio_testdata__guy_vs_bot.gcg"
ROOT = "scrabble/local"
USERS = {"desk": "desk-pw", "public": "public-pw", kiosk_user(1): "k1-pw", kiosk_user(2): "k2-pw"}

EVENT = """
name = "Live Open"
rounds = 1
[[division]]
name = "A"
players = ["Doug", "Emely", "Guy", "Bot"]
[[pairing]]
round = 1
board = 1
players = ["doug", "emely"]
[[pairing]]
round = 1
board = 2
players = ["guy", "bot"]
"""


@pytest.fixture
def broker(tmp_path, start_broker):
    """The shared broker fixture's Mosquitto with the desk's password file and ACL."""
    return acl_broker(tmp_path, start_broker, USERS, [1, 2], root=ROOT)


def _desk(tmp_path, port: int) -> Desk:
    return start_desk(tmp_path, port, USERS["desk"], "desk-live-test", root=ROOT, event=EVENT)


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read()


def _final(path) -> tuple[int, ...]:
    return Referee.from_events(events_from_gcg(path)).state.result.final


def _publish(path, port: int, board: int, **kw):
    return publish_game(path, "127.0.0.1", port, board, root=ROOT, username=kiosk_user(board),
                        password=USERS[kiosk_user(board)], **kw)


@needs_shared
def test_two_tables_recorded_once_and_exported(broker, tmp_path):
    desk = _desk(tmp_path, broker.port)
    try:
        _publish(DOUG, broker.port, 1)
        _publish(GUY, broker.port, 2)
        _publish(DOUG, broker.port, 1)   # a kiosk re-publishing its game after a restart: recorded once
        # the re-published game's 33 events arrive after the results may be complete and the queue idle: wait
        # for them too (the desk counts them as duplicates), never a fixed sleep on a loaded machine
        assert wait_for(lambda: len(desk.store.results()) == 2 and desk.tables.duplicates >= 33 and desk.ingest.idle())
        time.sleep(0.5)
        rows = json.loads(_get(desk.url + "results.json"))
        assert len(rows) == 2
        by_board = {r["board"]: r for r in rows}
        assert [p["score"] for p in by_board[1]["players"]] == list(_final(DOUG)) == [451, 345]
        assert [p["score"] for p in by_board[2]["players"]] == list(_final(GUY)) == [454, 424]
        assert [p["name"] for p in by_board[1]["players"]] == ["Doug", "Emely"]
        assert by_board[1]["round"] == 1 and by_board[1]["division"] == "A"
        assert set(by_board[1]) >= {"round", "board", "division", "players", "game_id", "gcg"}
        gcg = _get(by_board[1]["gcg"]).decode()
        assert "#player1 doug" in gcg and "+32" in gcg and "#incomplete" not in gcg
        csv_lines = _get(desk.url + "results.csv").decode().splitlines()
        gid = record_game_id(read_gcg(DOUG))   # stream-game's id: the nicks and a hash of the record's content
        assert csv_lines[1].startswith(f"1,A,1,{gid},Doug,451,Emely,345,106,1,0,0,")
        tsh = _get(desk.url + "tsh/A.t").decode().splitlines()
        assert tsh == ["Doug 0 2; 451", "Emely 0 1; 345", "Guy 0 4; 454", "Bot 0 3; 424"]
        assert (tmp_path / "event" / "desk" / "tsh" / "A.t").read_text().splitlines() == tsh
        with zipfile.ZipFile(io.BytesIO(_get(desk.url + "round/1.zip"))) as z:
            assert len(z.namelist()) == 2 and all(n.startswith("round1/") for n in z.namelist())
        state = json.loads(_get(desk.url + "state.json"))
        st = state["standings"]["A"]
        assert st["running"] == 0 and [p["name"] for p in st["players"]][:2] == ["Doug", "Guy"]
        assert desk.tables.duplicates >= 33 and sum(desk.tables.counts.values()) == 0
    finally:
        desk.stop()


@needs_shared
def test_acl_kiosks_write_only_their_board_and_the_public_reads_only_the_delayed_tree(broker, tmp_path):
    desk = _desk(tmp_path, broker.port)
    seen: list[str] = []
    pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="public-viewer")
    pub.username_pw_set("public", USERS["public"])
    pub.on_message = lambda c, u, m: seen.append(m.topic)
    pub.connect("127.0.0.1", broker.port)
    pub.subscribe(f"{ROOT}/#", 1)
    pub.loop_start()
    try:
        # kiosk 2's credentials on board 1: the broker drops (or acknowledges and drops) what its ACL denies and may
        # close the connection, so how many were acknowledged depends on timing; what counts is that the game
        # does not get through (the desk below records board 2's result only)
        with pytest.raises(PublishError, match=r"acknowledged \d+ of 66 event messages"):
            publish_game(DOUG, "127.0.0.1", broker.port, 1, root=ROOT, username=kiosk_user(2),
                         password=USERS[kiosk_user(2)], timeout_s=3)
        with pytest.raises(PublishError, match="acknowledged 0 of"):   # a wrong password
            publish_game(DOUG, "127.0.0.1", broker.port, 1, root=ROOT, username=kiosk_user(1),
                         password="guess", timeout_s=2)
        _publish(GUY, broker.port, 2)
        assert wait_for(lambda: len(desk.store.results()) == 1)
        assert desk.store.results()[0].board == 2
        with desk.lock:                                 # not one of kiosk 2's events on board 1 got through
            assert 1 not in desk.tables.tables or desk.tables.tables[1].game is None
        assert seen and all(t.startswith(f"{ROOT}/board/") for t in seen)   # nothing of the judge tree
        intruder = Desk(tmp_path / "event", BrokerConfig("127.0.0.1", broker.port, root=ROOT, username="desk",
                                                         password="guess", client_id="intruder"),
                        http_port=0, data_dir=tmp_path / "intruder").start()
        try:
            assert wait_for(lambda: intruder.ingest.errors, 10)
            assert "refused the desk" in intruder.ingest.errors[0] and not intruder.ingest.connected
            assert "refused the desk" in json.loads(_get(intruder.url + "state.json"))["status"]["broker"]["errors"][0]
        finally:
            intruder.stop()
    finally:
        pub.loop_stop()
        pub.disconnect()
        desk.stop()


@needs_shared
def test_broker_restart_mid_game_and_desk_restart_lose_no_result(broker, tmp_path):
    desk = _desk(tmp_path, broker.port)
    try:
        restarter = threading.Timer(0.6, lambda: broker.restart(down_s=0.5))
        restarter.start()
        _publish(DOUG, broker.port, 1, pace_s=0.04, timeout_s=60)   # about 1.3 s of events, the broker down mid-way
        restarter.join()
        assert wait_for(lambda: len(desk.store.results()) == 1, 30), desk.tables.status()
        assert desk.store.results()[0].scores == (451, 345)
        assert desk.ingest.connections >= 2
        desk.stop()                                                  # the desk goes away ...
        _publish(GUY, broker.port, 2)                                # ... the broker keeps its session's messages
        desk = _desk(tmp_path, broker.port)                          # restarted: SQLite + the queued messages
        assert wait_for(lambda: len(desk.store.results()) == 2, 30), desk.tables.status()
        assert desk.restored >= 33
        assert sorted(r.scores for r in desk.store.results()) == [(451, 345), (454, 424)]
        assert desk.tables.tile(1)["final"] == [451, 345]
    finally:
        desk.stop()


@needs_shared
def test_tls_broker_verified_with_the_ca(tmp_path):
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.fail("openssl is not installed: install the Debian packages in scripts/system-packages.txt")
    key, cert = tmp_path / "broker.key", tmp_path / "broker.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    ev = tmp_path / "event"
    ev.mkdir()
    (ev / "event.toml").write_text('rounds = 1\n[[division]]\nname = "A"\nplayers = ["Ann", "Bob"]\n')
    with LocalBroker(extra=(f"cafile {cert}", f"certfile {cert}", f"keyfile {key}")) as b:
        desk = Desk(ev, BrokerConfig("127.0.0.1", b.port, root=ROOT, tls_ca=str(cert), client_id="tls-desk"),
                    http_port=0).start()
        plain = Desk(ev, BrokerConfig("127.0.0.1", b.port, root=ROOT, client_id="plain-desk"), http_port=0,
                     data_dir=tmp_path / "plain").start()
        try:
            gcg = tmp_path / "g.gcg"
            gcg.write_text(DOUG.read_text())
            publish_game(gcg, "127.0.0.1", b.port, 3, root=ROOT, tls_ca=str(cert))
            assert wait_for(lambda: len(desk.store.results()) == 1, 20)
            assert desk.ingest.connected and not plain.ingest.connected and not plain.tables.tables
        finally:
            desk.stop()
            plain.stop()
    bad = tmp_path / "not-a-cert.pem"
    bad.write_text("hello\n")
    from kiosk.desk.ingest import IngestConfigError
    with pytest.raises(IngestConfigError, match=f"--tls-ca {bad}: cannot load: the file holds no PEM certificate"):
        Desk(ev, BrokerConfig("127.0.0.1", 1, tls_ca=str(bad)), http_port=0, data_dir=tmp_path / "bad")
