"""The desk subscriber survives any payload (issue 19): schema-checked, bad messages counted and logged,
bounded memory; one malformed message no longer kills its paho thread (nor, redelivered, the next start)."""

from __future__ import annotations

import json
import random
import time
import tracemalloc

import paho.mqtt.client as mqtt
import pytest

from kiosk.stream.broker import LocalBroker, mosquitto_path
from kiosk.stream.envelope import encode, envelope
from kiosk.stream.subscriber import MAX_BAD_KEPT, MAX_GAMES, DeskSubscriber, Follower, check_message


def event(seq: int, game: str = "g1", board: int = 3, **over) -> dict:
    msg = envelope("event", "judge", game_id=game, board=board, boot="b1", n=seq, seq=seq, ts=1, event={
        "type": "pass", "t": 5, "player": 0})
    msg.update(over)
    return msg


def hostile_payloads() -> list[bytes]:
    """Every shape of bad payload: not JSON, wrong JSON types, each envelope field missing or mistyped."""
    good = event(1)
    out = [b"", b"\xff\xfe", b"null", b"[]", b"1e999", b'"event"', b'{"kind":"event"}', b"[" * 100_000,
           b'{"kind":"event","v":1}', json.dumps({**good, "event": None}).encode(),
           json.dumps({**good, "event": {"type": "no-such"}}).encode(), b"x" * 300_000]
    for key in good:
        out.append(json.dumps({k: v for k, v in good.items() if k != key}).encode())
        for bad in (None, True, -1, 2**64, "x" * 300, [], {}, 1.5):
            out.append(json.dumps({**good, key: bad}).encode())
    for kind in ("snapshot", "tick", "presence"):
        out.append(json.dumps({**good, "kind": kind}).encode())
    rng = random.Random(19)
    text = encode(good)
    for _ in range(300):  # bit flips and cuts of a good message
        b = bytearray(text)
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        out.append(bytes(b[: rng.randrange(1, len(b) + 1)]))
    return out


def test_any_payload_is_counted_and_none_raises() -> None:
    f = Follower()
    payloads = hostile_payloads()
    statuses = [f.feed_payload(p) for p in payloads]
    assert statuses.count("bad") == f.bad_count >= 150
    assert len(f.bad) == MAX_BAD_KEPT
    assert f.feed_payload(encode(event(1, game="after"))) == "new"
    assert sum(len(v) for v in f.events.values()) <= 1 + statuses.count("new") + statuses.count("gap")
    for msg in (event(1), event(1, game="x")):
        assert check_message(msg) is None


def test_event_without_fields_is_bad_not_a_crash() -> None:
    f = Follower()
    assert f.feed({"kind": "event"}) == "bad"              # raised KeyError 'board' in paho's thread
    assert f.feed_payload(b'{"kind":"event"}') == "bad"
    assert f.bad_count == 2 and "v:" in f.bad[0]


def test_memory_stays_bounded_whatever_the_seq_and_game_ids() -> None:
    f = Follower()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        assert f.feed(event(1)) == "new"
        assert f.feed(event(300_000)) == "bad"                 # cost 21 MB of placeholders
        assert f.feed(event(100_000)) == "gap"                  # the largest seq allowed: no placeholders
        for g in range(MAX_GAMES + 50):                         # hostile game ids
            f.feed(event(1, game=f"game-{g}"))
        used = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert used < 3_000_000, used
    assert len(f.events) == MAX_GAMES and f.bad_count == 1 + 51
    assert f.gaps == [(3, "judge", "g1", 2, 100_000)]
    assert f.feed(event(50)) == "new" and f.feed(event(50)) == "duplicate"  # a late gap filler, once


def test_events_kept_over_all_games_are_capped(monkeypatch) -> None:
    import kiosk.stream.subscriber as sub

    monkeypatch.setattr(sub, "MAX_EVENTS", 100)
    f = Follower()
    statuses = [f.feed(event(seq, game=f"g{g}")) for g in range(5) for seq in range(1, 31)]
    assert statuses.count("new") == 100 and statuses.count("bad") == 50 and f.bad_count == 50


def test_desk_survives_a_malformed_message_live_and_redelivered(tmp_path) -> None:
    if mosquitto_path() is None:
        pytest.fail("mosquitto is not installed")
    with LocalBroker() as broker:
        root = "scrabble/poison"
        pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="poisoner")
        pub.connect("127.0.0.1", broker.port)
        pub.loop_start()
        desk = DeskSubscriber("127.0.0.1", broker.port, [f"{root}/#"], client_id="poison-desk")
        try:
            for p in (b'{"kind":"event"}', b"not json", encode(event(1))):
                pub.publish(f"{root}/judge/board/3/event/pass", p, qos=1).wait_for_publish(5)
            assert desk.wait_for(lambda f: f.count(3) == 1, 10), desk.follower.bad
            assert desk.follower.bad_count == 2 and desk.client.is_connected()
        finally:
            desk.close()
        # while the desk is away, a poison message is queued for its persistent session; it is redelivered
        pub.publish(f"{root}/judge/board/3/event/pass", b'{"kind":"event"}', qos=1).wait_for_publish(5)
        pub.publish(f"{root}/judge/board/3/event/pass", encode(event(2)), qos=1).wait_for_publish(5)
        time.sleep(0.2)
        desk = DeskSubscriber("127.0.0.1", broker.port, [f"{root}/#"], client_id="poison-desk")
        try:
            assert desk.wait_for(lambda f: f.count(3) == 1 and f.bad_count == 1, 10), desk.follower.bad
            pub.publish(f"{root}/judge/board/3/event/pass", encode(event(3)), qos=1).wait_for_publish(5)
            assert desk.wait_for(lambda f: f.count(3) == 2, 10)
        finally:
            desk.close()
            pub.loop_stop()
            pub.disconnect()



def _snapshot(seq: int, channel: str = "judge", n: int = 100, with_events: bool = True) -> dict:
    body: dict = {"state": {"phase": "playing"}}
    if with_events:
        body["events"] = [{"ts": 1, "event": {"type": "game_started" if s == 1 else "pass", "t": 5 + s}}
                          for s in range(1, seq + 1)]
    return envelope("snapshot", channel, game_id="g1", board=3, boot="b1", n=n, seq=seq, ts=1, **body)


def test_a_late_subscriber_takes_the_game_from_the_retained_snapshot_then_follows_it() -> None:
    """Joining after event 5: the judge snapshot's events 1-5 are taken, live events 6.. follow with no gap and
    nothing twice; a public snapshot (no events) starts the game at its seq, so event 6 is no gap either."""
    f = Follower()
    assert f.feed(_snapshot(5)) == "new" and f.count(3) == 5
    assert [f.feed(event(s)) for s in (5, 6, 7)] == ["duplicate", "new", "new"]
    assert f.feed(_snapshot(7, n=101)) == "new"            # a later snapshot adds nothing it has
    got = f.events[(3, "judge", "g1")]
    assert f.count(3) == 7 and f.gaps == [] and [e["t"] for e in got[:5]] == [6, 7, 8, 9, 10]
    assert f.feed(_snapshot(5, channel="public", with_events=False)) == "new"
    pub = envelope("event", "public", game_id="g1", board=3, boot="b1", n=1, seq=6, ts=1,
                   event={"type": "pass", "t": 11, "player": 0})
    assert f.feed(pub) == "new" and f.gaps == []
    # a subscriber that lost events 3-4 (a gap) gets them from the next snapshot
    g = Follower()
    assert [g.feed(event(s)) for s in (1, 2, 5)] == ["new", "new", "gap"]
    assert g.feed(_snapshot(5)) == "new" and g.count(3) == 5
    bad = _snapshot(3)
    bad["events"] = bad["events"][:2]
    assert g.feed(bad) == "bad" and "events" in g.bad[-1]
