"""A desk that joins a game already under way, against a real Mosquitto with the shipped passwords and ACL: a
desk started after the game began, and a desk restarted mid-game (the broker kept its session, or forgot it).
Each must show the game as it stands at once (from the kiosk's retained judge snapshot), then follow the live
events, storing every event once and the result once."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import (  # noqa: E402
    ROOT,
    acl_broker,
    event_folder,
    game,
    messages,
    snapshot_message,
    start_desk,
    wait_for,
)

from kiosk.desk.acl import kiosk_user  # noqa: E402
from kiosk.desk.event import load_event
from kiosk.desk.message import MAX_SNAPSHOT_PAYLOAD, Bad, Message, Refused, Topic, parse
from kiosk.desk.service import Desk
from kiosk.desk.store import ResultsStore
from kiosk.desk.tables import Tables
from kiosk.referee.events import Event
from kiosk.referee.referee import Referee
from kiosk.stream.hub import StreamHub
from kiosk.stream.mqtt import MqttConfig, MqttPublisher

USERS = {"desk": "desk-pw", kiosk_user(1): "k1-pw"}


@pytest.fixture
def broker(tmp_path, start_broker):
    return acl_broker(tmp_path, start_broker, USERS, [1])


class _Kiosk:
    """Table 1's stream as ``kiosk run`` makes it: a hub feeding the real MQTT publisher."""

    def __init__(self, port: int) -> None:
        self.now = {"t": 0}
        self.hub = StreamHub(1, delay_ms=0, now_ms=lambda: self.now["t"])
        self.pub = MqttPublisher(MqttConfig(host="127.0.0.1", port=port, board=1, root=ROOT,
                                            username=kiosk_user(1), password=USERS[kiosk_user(1)]))
        self.hub.add_sink(self.pub)
        self.hub.start()
        self.pub.start()

    def play(self, events: list[Event]) -> None:
        for ev in events:
            self.now["t"] = ev.t
            self.hub.publish(ev)
        assert wait_for(self.hub.idle) and self.pub.wait_acked(20)

    def stop(self) -> None:
        self.hub.stop()
        self.pub.stop(flush_s=0.5)


def _desk(tmp_path: Path, port: int, data: str, client_id: str) -> Desk:
    return start_desk(tmp_path, port, USERS["desk"], client_id, data_dir=tmp_path / data)


def _table(desk: Desk) -> dict:
    """The desk's /table/1.json ({} while the desk has heard nothing of table 1)."""
    try:
        with urllib.request.urlopen(desk.url + "table/1.json", timeout=10) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return {}
        raise


def _shows(desk: Desk, kiosk: _Kiosk) -> bool:
    """The desk's /table/1.json shows the kiosk's game as it stands: same game, move, scores, board."""
    want = kiosk.hub.latest("judge") or {}
    st = want.get("state", {})
    got = _table(desk)
    return (got.get("game_id") == want.get("game_id") and got.get("move") == len(st.get("history", ())) and
            got.get("scores") == st.get("scores") and got.get("rows") == st.get("board"))


def _finishes(desk: Desk, kiosk: _Kiosk, events: list[Event]) -> None:
    """The rest of the game is followed: every event stored once, the result once, nothing refused."""
    gid = (kiosk.hub.latest("judge") or {})["game_id"]
    final = kiosk.hub.state("judge").result.final
    assert wait_for(lambda: len(desk.store.results()) == 1 and desk.ingest.idle()), desk.tables.status()
    assert desk.store.results()[0].scores == tuple(final)
    assert [s for s, _, _ in desk.store.events_of(1, gid)] == list(range(1, len(events) + 1))
    assert [e for _, e, _ in desk.store.events_of(1, gid)] == [ev.to_dict() for ev in events]
    assert desk.tables.duplicates == 0 and sum(desk.tables.counts.values()) == 0, desk.tables.status()
    assert _shows(desk, kiosk) and _table(desk)["final"] == list(final)


def test_a_desk_started_after_the_game_began_shows_it_at_once_and_follows_it(broker, tmp_path):
    events = game(seed=5)
    half = len(events) // 2
    kiosk = _Kiosk(broker.port)
    desk = None
    try:
        kiosk.play(events[:half])
        desk = _desk(tmp_path, broker.port, "fresh", "desk-late")
        assert wait_for(lambda: _shows(desk, kiosk)), _table(desk)
        assert _table(desk)["phase"] == kiosk.hub.state("judge").phase
        kiosk.play(events[half:])
        _finishes(desk, kiosk, events)
    finally:
        kiosk.stop()
        if desk is not None:
            desk.stop()


@pytest.mark.parametrize("fresh_data, same_client", [(False, True), (False, False), (True, True)],
                         ids=["session-kept", "session-lost", "fresh-data"])
def test_a_desk_restarted_mid_game_shows_it_at_once_and_follows_it(broker, tmp_path, fresh_data, same_client):
    """session-kept: the broker queued what the desk missed; session-lost: another client id (as after a
    broker restart without persistence) - the gap must be filled from the retained snapshot; fresh-data: a new
    --data folder, so the desk knows nothing of the game's start."""
    events = game(seed=6)
    a, b = len(events) // 3, 2 * len(events) // 3
    kiosk = _Kiosk(broker.port)
    desk = _desk(tmp_path, broker.port, "d1", "desk-1")
    try:
        assert wait_for(lambda: _table(desk).get("online")), "the desk never subscribed"   # the retained presence
        kiosk.play(events[:a])
        assert wait_for(lambda: _shows(desk, kiosk)), _table(desk)
        desk.stop()
        kiosk.play(events[a:b])
        desk = _desk(tmp_path, broker.port, "d2" if fresh_data else "d1", "desk-1" if same_client else "desk-2")
        assert wait_for(lambda: _shows(desk, kiosk)), _table(desk)
        kiosk.play(events[b:])
        _finishes(desk, kiosk, events)
    finally:
        kiosk.stop()
        desk.stop()


# ------------------------------------------------------------------------------------------ without a broker
def _tables(tmp_path: Path) -> Tables:
    return Tables(load_event(event_folder(tmp_path)), ResultsStore(tmp_path / "desk.sqlite"))


def _feed(tables: Tables, msgs: list[tuple[str, bytes]]) -> None:
    tables.take_all(parse(ROOT, t, p) for t, p in msgs)


def test_snapshot_messages_are_checked_and_may_be_larger_than_an_event():
    evs = game(seed=7)
    topic, payload = snapshot_message(evs, 2)
    got = parse(ROOT, topic, payload)
    assert isinstance(got, Message) and got.topic is Topic.SNAPSHOT and len(got.body["events"]) == len(evs)
    big = json.loads(payload)
    big["state"] = {"pad": "x" * 100_000}                 # over the 64 KB of an event message, under the cap
    assert isinstance(parse(ROOT, topic, json.dumps(big).encode()), Message)
    big["state"] = {"pad": "x" * MAX_SNAPSHOT_PAYLOAD}
    assert parse(ROOT, topic, json.dumps(big).encode()) == Refused(Bad.TOO_LARGE, f"{topic}: "
                                                                   f"{len(json.dumps(big))} bytes")
    for change in ({"events": json.loads(payload)["events"][:-1]}, {"events": {}}, {"channel": "public"},
                   {"events": [{"ts": 1, "event": {"type": "pass", "t": 1}}] * len(evs)}):
        bad = parse(ROOT, topic, json.dumps({**json.loads(payload), **change}).encode())
        assert isinstance(bad, Refused) and bad.bad in (Bad.FIELDS, Bad.FORGED), (change, bad)
    old = {k: v for k, v in json.loads(payload).items() if k != "events"}     # a kiosk of an earlier version
    assert parse(ROOT, topic, json.dumps(old).encode()).body["events"] == []


def test_live_events_queued_behind_a_snapshot_are_no_duplicates_but_a_live_event_twice_is(tmp_path):
    """A desk gets a kiosk's retained snapshot and its live events in either order, and a desk restarted with its
    broker session kept gets again what it had not acknowledged: a live copy of an event taken from a snapshot or
    from the store at start is no one's fault (a loaded run restarted the desk before it acknowledged the live
    events it had taken from the snapshot, and counted 33 duplicates); a live event delivered twice is one."""
    evs = game(seed=8)
    live = messages(evs, 1, ts0=1_000)
    tables = _tables(tmp_path)
    _feed(tables, live[:10])
    _feed(tables, [snapshot_message(evs[:25], 1)])        # the retained snapshot first: 11-25 caught up
    _feed(tables, live[10:30])                            # then the queued live events 11-30
    assert tables.tables[1].game.applied == 30 and tables.duplicates == 0 and sum(tables.counts.values()) == 0
    _feed(tables, [live[3], live[27], live[12]])          # a live event had live before, delivered again
    assert tables.duplicates == 3                         # (12 first from the snapshot, then live, now again)
    again = _tables(tmp_path)                             # the desk restarted on its store: 1-30 restored,
    assert again.restore() == 30
    _feed(again, live[:35])                               # then what the broker redelivers, and 31-35
    assert again.tables[1].game.applied == 35 and again.duplicates == 0
    _feed(again, [live[32]])
    assert again.duplicates == 1


def test_a_snapshot_fills_what_the_desk_lacks_in_any_order_and_counts_nothing_twice(tmp_path):
    evs = game(seed=8)
    final = Referee.from_events(evs).state.result.final
    live = messages(evs, 1, ts0=1_000)
    tables = _tables(tmp_path)
    _feed(tables, live[20:25])                            # live events of a game joined late: held apart
    assert tables.tile(1)["game_id"] is None
    tables.take_pending()
    _feed(tables, [snapshot_message(evs[:22], 1)])        # the retained snapshot, delivered after them
    assert tables.tile(1)["game_id"] == "g1" and tables.tables[1].game.applied == 25
    # caught up: a change for the page as of now, not one delivered late since the kiosk's ts (1 s after 1970)
    assert [since > 10**12 for _, since, _ in tables.take_pending()] == [True] and not tables.delays
    _feed(tables, [snapshot_message(evs[:25], 1, n=2)] + live[25:])
    (res,) = tables.store.results()
    assert res.scores == final and tables.duplicates == 0 and sum(tables.counts.values()) == 0
    assert [e for _, e, _ in tables.store.events_of(1, "g1")] == [e.to_dict() for e in evs]
    # the snapshot of an older game (its first event earlier) never replaces the game in play
    nxt = game(seed=9)
    _feed(tables, messages(nxt, 1, game_id="g2", ts0=900_000)[:3])
    _feed(tables, [snapshot_message(evs, 1, n=3)])
    assert tables.tile(1)["game_id"] == "g2" and sum(tables.counts.values()) == 0
    # a snapshot contradicting what the desk recorded is refused once, as a conflict, never applied
    other = game(seed=10)
    assert other[2].to_dict() != nxt[2].to_dict()
    _feed(tables, [snapshot_message(nxt[:2] + other[2:6], 1, game_id="g2", n=4)])
    assert tables.counts == {"conflict": 1} and tables.tables[1].game.applied == 3
