"""The desk's two late cases against a real Mosquitto with the shipped passwords and ACL: a judge correction
after the end of a published game, and a kiosk whose network drops while its game goes on and ends (also
restarted from its journal while offline). Each kiosk is a stream hub with the real MQTT publisher."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request

import paho.mqtt.client as mqtt
import pytest
from desk_helpers import acl_broker, start_desk, wait_for

from kiosk.app.table import stream_seed
from kiosk.desk.acl import kiosk_user
from kiosk.desk.service import Desk
from kiosk.referee.events import Event, JudgeAdjustment
from kiosk.referee.records import events_from_gcg
from kiosk.store import GameSession
from kiosk.stream.hub import StreamHub
from kiosk.stream.mqtt import MqttConfig, MqttPublisher
from shared_data import SHARED, needs_shared

REAL = SHARED / "corpus" / "gcg" / "real"
DOUG = REAL / "domino14_macondo__gcgio_testdata__doug_v_emely.gcg"
ROOT = "scrabble/local"
USERS = {"desk": "desk-pw", kiosk_user(1): "k1-pw"}
EVENT = """
name = "Late Open"
rounds = 1
[[division]]
name = "A"
players = ["Doug", "Emely"]
[[pairing]]
round = 1
board = 1
players = ["doug", "emely"]
"""


@pytest.fixture
def broker(tmp_path, start_broker):
    return acl_broker(tmp_path, start_broker, USERS, [1], root=ROOT)


def _desk(tmp_path, port: int) -> Desk:
    return start_desk(tmp_path, port, USERS["desk"], "desk-late-test", root=ROOT, event=EVENT)


def _get(desk: Desk, path: str) -> bytes:
    with urllib.request.urlopen(desk.url + path, timeout=10) as r:
        return r.read()


class _Kiosk:
    """Table 1's stream: a hub (stamped with the events' own times) feeding the real MQTT publisher."""

    def __init__(self, port: int, seed: list[Event] = ()) -> None:  # type: ignore[assignment]
        self.now = {"t": seed[0].t if seed else 0}
        self.hub = StreamHub(1, delay_ms=0, now_ms=lambda: self.now["t"])
        self.pub = MqttPublisher(MqttConfig(host="127.0.0.1", port=port, board=1, root=ROOT,
                                            username=kiosk_user(1), password=USERS[kiosk_user(1)],
                                            reconnect_min_s=1, reconnect_max_s=2))
        self.hub.add_sink(self.pub)
        self.hub.seed(seed)          # a restart: the journal's events go out again from event 1
        self.hub.start()
        self.pub.start()

    def play(self, events: list[Event], pace_s: float = 0.0) -> None:
        for ev in events:
            self.now["t"] = ev.t
            self.hub.publish(ev)
            if pace_s:
                time.sleep(pace_s)

    def settled(self, timeout: float = 30.0) -> bool:
        return wait_for(self.hub.idle, timeout) and self.pub.wait_acked(timeout)

    def stop(self, flush_s: float = 0.5) -> None:
        self.hub.stop()
        self.pub.stop(flush_s=flush_s)


class _Link:
    """A TCP proxy on loopback standing for the kiosk's network: ``cut()`` drops every connection and refuses
    new ones (the broker sees the kiosk vanish), ``restore()`` lets it in again."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.up = True
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._srv = socket.create_server(("127.0.0.1", 0))
        self.port = self._srv.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                c, _ = self._srv.accept()
            except OSError:
                return
            if not self.up:
                c.close()
                continue
            try:
                b = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                c.close()
                continue
            with self._lock:
                self._socks += [c, b]
            for src, dst in ((c, b), (b, c)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        self.up = False
        with self._lock:
            socks, self._socks = self._socks, []
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def restore(self) -> None:
        self.up = True

    def close(self) -> None:
        self.cut()
        self._srv.close()


def _scores(desk: Desk) -> list[list[int]]:
    return [[p["score"] for p in r["players"]] for r in json.loads(_get(desk, "results.json"))]


@needs_shared
def test_a_judge_correction_after_the_end_updates_the_result_once(broker, tmp_path):
    desk = _desk(tmp_path, broker.port)
    events = events_from_gcg(DOUG)
    kiosk = _Kiosk(broker.port)
    try:
        kiosk.play(events)
        assert kiosk.settled()
        assert wait_for(lambda: len(desk.store.results()) == 1 and desk.ingest.idle()), desk.tables.status()
        assert desk.store.results()[0].scores == (451, 345) and not desk.store.results()[0].corrected
        # the judge finds 10 points wrongly counted to Doug, after the end (002 III.E/F)
        kiosk.play([JudgeAdjustment(t=events[-1].t + 60_000, player=0, points=-10, reason="scoring error")])
        assert kiosk.settled()
        assert wait_for(lambda: desk.store.results()[0].corrected and desk.ingest.idle()), desk.tables.status()
        got = desk.store.results()[0]
        assert got.scores == (441, 345) and got.revision == 2
        rows = json.loads(_get(desk, "results.json"))
        assert len(rows) == 1 and rows[0]["corrected"] and _scores(desk) == [[441, 345]]
        csv = _get(desk, "results.csv").decode().splitlines()
        assert len(csv) == 2 and ",Doug,441,Emely,345,96,1," in csv[1]
        assert _get(desk, "tsh/A.t").decode().splitlines() == ["Doug 0 2; 441", "Emely 0 1; 345"]
        assert desk.tables.tile(1)["final"] == [441, 345] and desk.tables.tile(1)["corrected"]
        # the broker redelivers the correction (the same seq, sent again with the kiosk's credentials)
        item = [i for i in kiosk.pub._items if "/judge/" in i.topic][-1]   # the correction as it was sent
        assert json.loads(item.payload)["event"]["type"] == "judge_adjustment"
        before = desk.tables.duplicates
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="redeliver")
        c.username_pw_set(kiosk_user(1), USERS[kiosk_user(1)])
        c.connect("127.0.0.1", broker.port)
        c.loop_start()
        c.publish(item.topic, item.payload, qos=1).wait_for_publish(5)
        c.loop_stop()
        c.disconnect()
        assert wait_for(lambda: desk.tables.duplicates > before), desk.tables.status()
        got = desk.store.results()[0]
        assert got.scores == (441, 345) and got.revision == 2 and sum(desk.tables.counts.values()) == 0
        assert _scores(desk) == [[441, 345]]
    finally:
        kiosk.stop()
        desk.stop()


def _events_applied(desk: Desk, game_id: str) -> int:
    return len(desk.store.events_of(1, game_id)) if game_id else 0


@needs_shared
def test_a_kiosk_offline_while_its_game_ends_loses_nothing_when_back(broker, tmp_path):
    desk = _desk(tmp_path, broker.port)
    link = _Link(broker.port)
    events = events_from_gcg(DOUG)
    kiosk = _Kiosk(link.port)
    try:
        kiosk.play(events[:10])
        assert kiosk.settled()
        game_id = (kiosk.hub.latest("judge") or {}).get("game_id", "")
        assert wait_for(lambda: _events_applied(desk, game_id) == 10), desk.tables.status()
        link.cut()                                         # the kiosk's network drops ...
        assert wait_for(lambda: desk.tables.tile(1)["flags"]["offline"], 10)    # the broker sent its Last Will
        kiosk.play(events[10:], pace_s=0.02)               # ... while its game goes on and ends
        assert wait_for(kiosk.hub.idle, 10)
        time.sleep(1.0)
        assert kiosk.pub.pending() >= 2 * (len(events) - 10)    # held in the publisher's outbox
        assert _events_applied(desk, game_id) == 10 and desk.store.results() == []
        link.restore()                                     # back after about 3 s
        assert kiosk.settled(30)
        assert wait_for(lambda: len(desk.store.results()) == 1 and desk.ingest.idle(), 30), desk.tables.status()
        assert _events_applied(desk, game_id) == len(events)
        assert desk.store.results()[0].scores == (451, 345) and not desk.store.results()[0].corrected
        assert wait_for(lambda: not desk.tables.tile(1)["flags"]["offline"], 10)
        assert kiosk.pub.connections >= 2 and sum(desk.tables.counts.values()) == 0
        assert _scores(desk) == [[451, 345]]
    finally:
        kiosk.stop()
        link.close()
        desk.stop()


@needs_shared
def test_a_kiosk_restarted_from_its_journal_while_offline_loses_nothing(broker, tmp_path):
    desk = _desk(tmp_path, broker.port)
    link = _Link(broker.port)
    events = events_from_gcg(DOUG)
    journal = tmp_path / "journal.sqlite"
    session = GameSession.open(journal)
    kiosk = _Kiosk(link.port)
    try:
        for ev in events[:10]:
            assert session.apply(ev).accepted
            kiosk.play([ev])
        assert kiosk.settled()
        game_id = (kiosk.hub.latest("judge") or {}).get("game_id", "")
        assert wait_for(lambda: _events_applied(desk, game_id) == 10), desk.tables.status()
        link.cut()
        for ev in events[10:20]:                           # journaled, never delivered
            assert session.apply(ev).accepted
            kiosk.play([ev])
        time.sleep(0.5)
        kiosk.stop(flush_s=0)                              # the kiosk dies: its outbox is gone
        session.close()
        session = GameSession.open(journal)                # restarted: the game rebuilt from the journal
        assert session.in_game and len(session.referee.events) == 20
        kiosk = _Kiosk(link.port, seed=stream_seed(session))   # as kiosk run seeds its stream
        for ev in events[20:]:                             # the game goes on and ends, still offline
            assert session.apply(ev).accepted
            kiosk.play([ev])
        time.sleep(1.0)
        assert desk.store.results() == [] and _events_applied(desk, game_id) == 10
        link.restore()
        assert kiosk.settled(30)
        assert wait_for(lambda: len(desk.store.results()) == 1 and desk.tables.duplicates >= 10 and desk.ingest.idle(),
                     30), desk.tables.status()
        assert _events_applied(desk, game_id) == len(events)
        assert desk.store.results()[0].scores == (451, 345) and desk.store.results()[0].game_id == game_id
        assert desk.tables.duplicates >= 10 and sum(desk.tables.counts.values()) == 0
        assert _scores(desk) == [[451, 345]]
    finally:
        kiosk.stop()
        session.close()
        link.close()
        desk.stop()


@needs_shared
def test_a_kiosk_restarted_after_its_game_ended_offline_still_delivers_the_result(broker, tmp_path):
    """The game ends while the network is down, then the kiosk restarts (still offline): the journal has no
    game in progress, yet the finished game must go out when the network is back."""
    desk = _desk(tmp_path, broker.port)
    link = _Link(broker.port)
    events = events_from_gcg(DOUG)
    journal = tmp_path / "journal.sqlite"
    session = GameSession.open(journal)
    kiosk = _Kiosk(link.port)
    try:
        for ev in events[:10]:
            assert session.apply(ev).accepted
            kiosk.play([ev])
        assert kiosk.settled()
        game_id = (kiosk.hub.latest("judge") or {}).get("game_id", "")
        assert wait_for(lambda: _events_applied(desk, game_id) == 10), desk.tables.status()
        link.cut()
        for ev in events[10:]:                             # the game ends offline
            assert session.apply(ev).accepted
            kiosk.play([ev])
        time.sleep(0.5)
        kiosk.stop(flush_s=0)                              # then the kiosk restarts, still offline
        session.close()
        session = GameSession.open(journal)
        assert not session.in_game
        seed = stream_seed(session)
        assert len(seed) == len(events)
        kiosk = _Kiosk(link.port, seed=seed)
        time.sleep(0.5)
        assert desk.store.results() == []
        link.restore()
        assert kiosk.settled(30)
        assert wait_for(lambda: len(desk.store.results()) == 1 and desk.ingest.idle(), 30), desk.tables.status()
        assert desk.store.results()[0].scores == (451, 345) and _events_applied(desk, game_id) == len(events)
        assert sum(desk.tables.counts.values()) == 0 and _scores(desk) == [[451, 345]]
    finally:
        kiosk.stop()
        session.close()
        link.close()
        desk.stop()


def test_stream_seed_of_a_new_journal_is_empty_and_of_a_game_in_progress_is_that_game(tmp_path):
    from kiosk.referee.simulate import random_game

    session = GameSession.open(tmp_path / "j.sqlite")
    try:
        assert stream_seed(session) == []
        events = random_game(seed=3)
        for ev in events[:5]:
            assert session.apply(ev).accepted
        assert stream_seed(session) == events[:5]
    finally:
        session.close()
