"""The desk's core without a broker: the event file, message checks, the SQLite store, folding tables."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import ROOT, event_folder, game, messages  # noqa: E402

from kiosk.desk.event import EventFileError, load_event, name_key  # noqa: E402
from kiosk.desk.message import Bad, Message, Refused, Topic, parse  # noqa: E402
from kiosk.desk.store import Recorded, Result, ResultsStore, StoreError  # noqa: E402
from kiosk.desk.tables import MAX_TABLES, MAX_WAITING, Tables  # noqa: E402
from kiosk.referee.referee import Referee  # noqa: E402


def _tables(tmp_path: Path) -> Tables:
    return Tables(load_event(event_folder(tmp_path)), ResultsStore(tmp_path / "desk.sqlite"))


def _feed(tables: Tables, msgs: list[tuple[str, bytes]]) -> None:
    tables.take_all(parse(ROOT, t, p) for t, p in msgs)


# ------------------------------------------------------------------------------------------ event file
def test_event_file_loads_divisions_players_and_pairings(tmp_path):
    cfg = load_event(event_folder(tmp_path))
    assert cfg.rounds == 2 and list(cfg.divisions) == ["A"]
    assert [(p.name, p.number, p.rating) for p in cfg.divisions["A"].players][:2] == [("Ann", 1, 1800), ("Bob", 2, 1700)]
    assert cfg.pairing_for(1, ("bob", "ANN")).round == 1
    assert cfg.pairing_for(2, ("Ann", "Bob")) is None
    assert name_key("Lee,  Ann") == name_key("ann lee")


@pytest.mark.parametrize("text, problem", [
    ("rounds = 0\n", "rounds = 0"),
    ("rounds = 1\n", "no [[division]]"),
    ("rounds = [\n", "not valid TOML"),
    ('rounds = 1\n[[division]]\nname = "A"\nplayers = ["X", "x"]\n', "registered twice"),
    ('rounds = 1\n[[division]]\nname = "A"\nplayers = ["X", "Y"]\n[[pairing]]\nround = 1\nboard = 1\n'
     'players = ["X", "Z"]\n', "'Z' is not a registered player"),
    ('rounds = 1\n[[division]]\nname = "A"\nplayers = ["X", "Y"]\n[[division]]\nname = "B"\nplayers = ["Z"]\n'
     '[[pairing]]\nround = 1\nboard = 1\nplayers = ["X", "Z"]\n', "different divisions"),
    ('rounds = 1\n[[division]]\nname = "A"\nplayers = ["X", "Y", "Z", "W"]\n[[pairing]]\nround = 1\nboard = 1\n'
     'players = ["X", "Y"]\n[[pairing]]\nround = 1\nboard = 2\nplayers = ["Z", "X"]\n', "already plays on board 1"),
    ('rounds = 1\n[[division]]\nname = "A"\nplayers = ["X", "Y"]\n[[pairing]]\nround = 2\nboard = 1\n'
     'players = ["X", "Y"]\n', "round 2 is not a round"),
    ('rounds = 1\n[[division]]\nname = "A"\ntfile = "a.t"\nplayers = ["X"]\n', "does not exist"),
    # typos were dropped without a word: the director's PIN (no pairing from the page), a division's tfile, and
    # a pairing's keys written under the [[division]] above it (the pairing silently missing)
    ('rounds = 1\ndirector_pn = "2468"\n[[division]]\nname = "A"\nplayers = ["X", "Y"]\n', "unknown key 'director_pn'"),
    ('rounds = 1\n[[division]]\nname = "A"\ntfiel = "a.t"\nplayers = ["X", "Y"]\n', "division A: unknown key 'tfiel'"),
    ('rounds = 1\n[[division]]\nname = "A"\nplayers = ["X", "Y"]\nround = 1\nboard = 1\n', "division A: unknown key"),
    # a name of 5,000 characters is refused in a line, not printed whole
    ('rounds = 1\n[[division]]\nname = "A"\nplayers = ["' + "X" * 5000 + '", "Y"]\n', "name 'XXXXXXXXXXXXXXXXXXXX'... has"),
])
def test_event_file_problems_name_the_file_and_the_entry(tmp_path, text, problem):
    folder = event_folder(tmp_path, text)
    with pytest.raises(EventFileError) as e:
        load_event(folder)
    assert str(folder / "event.toml") in str(e.value) and problem in str(e.value) and len(str(e.value)) < 600


_PIN_RULE = 'director_pin: expected 4 to 8 digits 0-9, e.g. "2468"'


@pytest.mark.parametrize(("line", "said"), [
    ("director_pin = 12", 'director_pin = 12: a PIN is text, so write it in quotes: director_pin = "12" (a number '
                          "would lose its leading zeros); and it must be 4 to 8 digits 0-9"),
    ("director_pin = 2468", 'director_pin = 2468: a PIN is text, so write it in quotes: director_pin = "2468" (a '
                            "number would lose its leading zeros)"),
    ('director_pin = "  "', _PIN_RULE),
    ("director_pin = true", _PIN_RULE),
    ("director_pin = 24.68", _PIN_RULE),
    # the kiosk's rule for a PIN (kiosk.app.pin.check_pin): "1" and "abc" were taken as the director's PIN
    ('director_pin = "1"', _PIN_RULE),
    ('director_pin = "abc"', _PIN_RULE),
    ('director_pin = "123456789"', _PIN_RULE),
])
def test_a_director_pin_that_is_not_text_is_refused_naming_file_and_key(tmp_path, line, said):
    """director_pin = 12 (a TOML number) was taken as the PIN "12": a PIN is text (0012 would lose its zeros),
    so a number is refused with the quoted form shown; a PIN must be 4-8 digits, as the kiosk's judge PIN."""
    folder = event_folder(tmp_path, f'rounds = 1\n{line}\n[[division]]\nname = "A"\nplayers = ["X", "Y"]\n')
    with pytest.raises(EventFileError) as e:
        load_event(folder)
    assert str(e.value) == f"{folder / 'event.toml'}: {said}"
    (tmp_path / "ok").mkdir()
    ok = event_folder(tmp_path / "ok", 'rounds = 1\ndirector_pin = "0012"\n[[division]]\nname = "A"\nplayers = ["X", "Y"]\n')
    assert load_event(ok).director_pin == "0012"


def test_missing_event_file_is_named(tmp_path):
    with pytest.raises(EventFileError, match="event.toml: no such file"):
        load_event(tmp_path)


# ------------------------------------------------------------------------------------------ messages
def test_message_checks_refuse_bad_and_forged_messages():
    (topic, payload), = messages(game()[:1], 3)
    assert isinstance(parse(ROOT, topic, payload), Message)
    body = json.loads(payload)
    cases = {
        Bad.NOT_JSON: (topic, b"\xff{not json"),
        Bad.NOT_OBJECT: (topic, b"[1, 2]"),
        Bad.TOPIC: (f"{ROOT}/judge/board/x/event/play", payload),
        Bad.TOO_LARGE: (topic, b" " * 70_000),
        Bad.FORGED: (topic.replace("/board/3/", "/board/4/"), payload),        # another table's message
        Bad.FIELDS: (topic, json.dumps({**body, "seq": "1"}).encode()),
    }
    for bad, (t, p) in cases.items():
        got = parse(ROOT, t, p)
        assert isinstance(got, Refused) and got.bad is bad, (bad, got)
        assert got.bad.sentence.endswith(".")
    wrong_type = topic.rsplit("/", 1)[0] + "/play"
    assert parse(ROOT, wrong_type, payload).bad is Bad.FORGED
    status = parse(ROOT, f"{ROOT}/board/3/status", json.dumps({"kind": "presence", "board": 3, "online": False}).encode())
    assert isinstance(status, Message) and status.topic is Topic.STATUS


# ------------------------------------------------------------------------------------------ store
def test_store_is_idempotent_on_event_identity_and_marks_corrections(tmp_path):
    s = ResultsStore(tmp_path / "d.sqlite")
    rows = [(1, "g", i, {"type": "x", "t": i}, i) for i in range(1, 4)]
    assert s.add_events(rows) == 3 and s.add_events(rows) == 0
    r = Result(1, "g", 1, "A", (("Ann", 400), ("Bob", 350)), "nsf", "out", "#player1 Ann\n", 3, 10)
    assert s.record_result(r) is Recorded.NEW
    assert s.record_result(r) is Recorded.SAME
    fixed = Result(1, "g", 1, "A", (("Ann", 390), ("Bob", 350)), "nsf", "out", "#player1 Ann\n", 4, 10)
    assert s.record_result(fixed) is Recorded.CORRECTED
    s.close()
    again = ResultsStore(tmp_path / "d.sqlite")     # a desk restart
    (got,) = again.results()
    assert got.scores == (390, 350) and got.corrected and got.revision == 2
    assert [seq for seq, _, _ in again.events_of(1, "g")] == [1, 2, 3]


# ------------------------------------------------------------------------------------------ tables
def test_a_game_is_folded_and_recorded_once_despite_redelivery_and_a_republish(tmp_path):
    evs = game(seed=3)
    final = Referee.from_events(evs).state.result.final
    tables = _tables(tmp_path)
    msgs = messages(evs, 1)
    _feed(tables, msgs)
    _feed(tables, msgs[5:9])                                    # QoS 1 redelivery
    _feed(tables, messages(evs, 1, boot="boot2"))               # the kiosk restarted and re-published its game
    (res,) = tables.store.results()
    assert res.scores == final and res.round == 1 and res.division == "A" and not res.corrected
    assert res.gcg.startswith("#") and "#player1" in res.gcg
    assert tables.duplicates == 4 + len(evs) and sum(tables.counts.values()) == 0
    tile = tables.tile(1)
    assert tile["phase"] == "over" and tile["final"] == list(final) and len(tile["rows"]) == 15


def test_events_out_of_order_wait_for_the_gap_and_give_the_same_final(tmp_path):
    evs = game(seed=4)
    msgs = messages(evs, 2, game_id="g2")
    rnd = random.Random(1)
    shuffled = msgs[1:]
    rnd.shuffle(shuffled)
    shuffled.insert(3, msgs[0])           # the game's start arrives fourth
    tables = _tables(tmp_path)
    _feed(tables, shuffled[: len(shuffled) // 2])
    assert tables.store.results() == [] and tables.tile(2)["flags"]["waiting"] is True
    _feed(tables, shuffled[len(shuffled) // 2:])
    (res,) = tables.store.results()
    assert res.scores == Referee.from_events(evs).state.result.final
    assert not tables.tile(2)["flags"]["waiting"]


def test_forged_conflicting_and_refused_events_are_counted_never_fatal(tmp_path):
    evs = game(seed=5)
    msgs = messages(evs, 1)
    tables = _tables(tmp_path)
    _feed(tables, msgs[:4])
    forged = json.loads(msgs[3][1])
    forged["event"]["t"] += 1                                  # same identity, other content
    _feed(tables, [(msgs[3][0], json.dumps(forged).encode())])
    assert tables.counts[Bad.CONFLICT] == 1
    bogus = json.loads(msgs[4][1])
    bogus["event"] = {"type": bogus["event"]["type"], "t": 5, "player": 7}   # the referee refuses it
    _feed(tables, [(msgs[4][0], json.dumps(bogus).encode())])
    assert tables.counts[Bad.REFUSED] == 1
    _feed(tables, [("scrabble/test/judge/board/1/event/play", b"garbage")] * 3)
    assert tables.counts[Bad.NOT_JSON] == 3
    _feed(tables, msgs[4:])                                    # the real events still fold
    assert tables.store.results()[0].scores == Referee.from_events(evs).state.result.final
    st = tables.status()
    assert st["refused_total"] == 5 and len(st["latest_refused"]) == 5


def test_memory_stays_bounded(tmp_path):
    tables = _tables(tmp_path)
    evs = game(seed=6)
    first = messages(evs[:1], 1)
    _feed(tables, first)
    body = json.loads(first[0][1])
    many = []
    for seq in range(3, MAX_WAITING + 200):                     # a gap that never fills: seq 2 is missing
        m = dict(body, seq=seq, event={"type": "pass", "t": seq})
        many.append(("scrabble/test/judge/board/1/event/pass", json.dumps(m).encode()))
    _feed(tables, many)
    assert len(tables.tables[1].game.waiting) == MAX_WAITING
    assert len(tables.refused) <= 50 and tables.counts[Bad.FIELDS] == (MAX_WAITING + 197) - MAX_WAITING
    for g in range(5):                                         # five games on one board: two are kept in memory
        _feed(tables, messages(game(seed=10 + g)[:3], 1, game_id=f"x{g}"))
    assert tables.tables[1].game.game_id == "x4" and tables.tables[1].previous.game_id == "x3"


def test_messages_from_more_boards_than_an_event_has_are_refused_not_kept(tmp_path):
    tables = _tables(tmp_path)
    started = game(seed=6)[:1]
    for board in range(1, MAX_TABLES + 301):                   # a flood from boards that do not exist
        _feed(tables, messages(started, board))
    assert len(tables.tables) == MAX_TABLES
    assert tables.counts[Bad.FIELDS] == 300
    assert any(f"the desk already follows {MAX_TABLES} tables" in detail for _, _, detail in tables.refused)
    _feed(tables, messages(game(seed=6)[1:3], 1)[1:])        # a board it follows goes on as before
    assert tables.tables[1].game is not None


def test_desk_restart_restores_every_table_from_sqlite(tmp_path):
    evs = game(seed=7)
    tables = _tables(tmp_path)
    _feed(tables, messages(evs[:20], 1))
    before = tables.tile(1)
    tables.store.close()
    again = _tables(tmp_path)
    assert again.restore() == 20
    after = again.tile(1)
    assert (after["scores"], after["rows"], after["move"]) == (before["scores"], before["rows"], before["move"])
    _feed(again, messages(evs, 1))                             # the rest arrives after the restart
    assert again.store.results()[0].scores == Referee.from_events(evs).state.result.final


def test_events_of_a_game_not_started_never_push_the_game_in_play_aside(tmp_path):
    evs = game(seed=8)
    msgs = messages(evs, 1)
    tables = _tables(tmp_path)
    _feed(tables, msgs[:10])
    for k in range(5):                                         # later events of five other, unstarted games
        stray = json.loads(msgs[12][1])
        stray["game_id"] = f"stray{k}"
        _feed(tables, [(msgs[12][0], json.dumps(stray).encode())] * 2)
    t = tables.tables[1]
    assert t.game.game_id == "g1" and t.previous is None and len(t.orphans) == 2
    assert tables.counts[Bad.FIELDS] == 3                      # three strays dropped, counted
    _feed(tables, msgs[10:])
    assert tables.store.results()[0].scores == Referee.from_events(evs).state.result.final
    late = messages(game(seed=9, players=("Cid", "Dee"))[:2], 1, game_id="next")
    _feed(tables, late[1:])                                    # the next game's second event, then its start
    assert t.game.game_id == "g1"
    _feed(tables, late[:1])
    assert t.game.game_id == "next" and t.game.applied == 2 and t.previous.game_id == "g1"


def test_a_rematch_on_the_same_board_is_the_next_round(tmp_path):
    folder = event_folder(tmp_path)
    text = (folder / "event.toml").read_text() + '[[pairing]]\nround = 2\nboard = 1\nplayers = ["Bob", "Ann"]\n'
    (folder / "event.toml").write_text(text)
    tables = Tables(load_event(folder), ResultsStore(tmp_path / "desk.sqlite"))
    _feed(tables, messages(game(seed=3), 1, game_id="first"))
    _feed(tables, messages(game(seed=11), 1, game_id="rematch"))
    assert [(r.round, r.game_id) for r in tables.store.results()] == [(1, "first"), (2, "rematch")]


def test_a_change_pushed_late_reports_its_oldest_kiosk_time(tmp_path):
    tables = _tables(tmp_path)
    now = tables.now()
    presence = json.dumps({"kind": "presence", "board": 1, "online": True}).encode()
    _feed(tables, [("scrabble/test/board/1/status", presence)])                    # the kiosk is back ...
    _feed(tables, messages(game(seed=12)[:3], 1, ts0=now - 5000))                   # ... with events 5 s old
    ((board, since, recv),) = tables.take_pending()
    assert board == 1 and since <= now - 4990 and recv >= now


def test_the_tile_clock_follows_each_event_at_once_and_each_tick(tmp_path):
    evs = game(seed=13)
    tables = _tables(tmp_path)
    msgs = messages(evs, 1)
    _feed(tables, msgs[:1])
    for k in range(2, 12):
        _feed(tables, msgs[k - 1:k])
        want = Referee.from_events(evs[:k]).state
        tile = tables.tile(1)
        assert tile["clock"]["running"] == want.clock.running, (k, evs[k - 1].type)
        assert tile["clock"]["remaining_ms"] == [want.clock.remaining_ms(i, want.last_t) for i in range(2)]
    tick = json.loads(messages(evs[:1], 1)[0][1])
    tick.update(kind="tick", clock={"running": 1, "remaining_ms": [1000, 2000]})
    tick.pop("event")
    _feed(tables, [("scrabble/test/judge/board/1/tick", json.dumps(tick).encode())])
    assert tables.tile(1)["clock"] == {"running": 1, "remaining_ms": [1000, 2000]}


def test_a_stale_last_will_does_not_mark_a_restarted_kiosk_offline(tmp_path):
    tables = _tables(tmp_path)

    def presence(boot: str, ts: int, online: bool) -> tuple[str, bytes]:
        return ("scrabble/test/board/1/status", json.dumps({"kind": "presence", "board": 1, "boot": boot, "n": 1,
                                                             "ts": ts, "online": online}).encode())

    _feed(tables, [presence("old", 1000, True)])
    _feed(tables, [presence("new", 5000, True), presence("old", 900, False)])   # old run's will comes late
    assert tables.tile(1)["flags"]["offline"] is False
    _feed(tables, [presence("new", 4900, False)])                               # the new run dies: its will
    assert tables.tile(1)["flags"]["offline"] is True


def test_a_full_disk_keeps_the_events_until_they_can_be_stored(tmp_path, monkeypatch):
    import sqlite3
    evs = game(seed=14)
    tables = _tables(tmp_path)
    real = tables.store.add_events
    fails = {"n": 2}

    def add_events(rows):
        if fails["n"]:
            fails["n"] -= 1
            raise sqlite3.OperationalError("database or disk is full")
        return real(rows)

    monkeypatch.setattr(tables.store, "add_events", add_events)
    msgs = messages(evs, 1)
    for part in (msgs[:10], msgs[10:]):
        with pytest.raises(sqlite3.OperationalError):        # the flush fails: nothing is lost
            tables.take_all(parse(ROOT, t, p) for t, p in part)
    assert fails["n"] == 0 and tables.store.results() == []
    tables.flush()
    assert [s for s, _, _ in tables.store.events_of(1, "g1")] == list(range(1, len(evs) + 1))
    assert tables.store.results()[0].scores == Referee.from_events(evs).state.result.final


def test_a_desk_folder_that_is_a_file_is_named(tmp_path):
    """`kiosk desk --data FILE` said 'cannot open the desk database: [Errno 17] File exists: FILE'."""
    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("x\n")
    for path in (not_a_folder / "desk.sqlite", not_a_folder / "deeper" / "desk.sqlite"):
        with pytest.raises(StoreError, match=f"{not_a_folder} is a file, not a folder"):
            ResultsStore(path)
    (tmp_path / "d.sqlite").mkdir()
    with pytest.raises(StoreError, match="d.sqlite: cannot open the desk database: it is a folder"):
        ResultsStore(tmp_path / "d.sqlite")
    assert not_a_folder.read_text() == "x\n"
