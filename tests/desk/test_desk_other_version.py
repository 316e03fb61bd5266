"""A game streamed again with other moves under its game id (a corrected record re-run through ``kiosk
stream-game`` with its ``#id``, a kiosk re-sending another version): the desk keeps that other version beside the
game, shows it with both finals, and the director may take it; the replaced version stays in the store. Real
messages through :class:`Tables` (the HTTP side: tests/desk/test_desk_take_version.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from desk_helpers import ROOT, event_folder, game, messages, snapshot_message, two_versions  # noqa: E402

from kiosk.desk import versions  # noqa: E402
from kiosk.desk.event import load_event  # noqa: E402
from kiosk.desk.games import Game  # noqa: E402
from kiosk.desk.message import Bad, parse  # noqa: E402
from kiosk.desk.store import ResultsStore  # noqa: E402
from kiosk.desk.tables import Tables  # noqa: E402
from kiosk.desk.versions import VersionError, clock_text  # noqa: E402
from kiosk.referee.events import Play  # noqa: E402
from kiosk.stream.records import gcg_text  # noqa: E402

NOW = 1_796_000_000_000   # the desk's wall clock in these tests (ms)
GID = "r1_b1"


def _tables(tmp_path: Path) -> Tables:
    return Tables(load_event(event_folder(tmp_path)), ResultsStore(tmp_path / "desk.sqlite"), now=lambda: NOW)


def _feed(tables: Tables, events: list, boot: str, board: int = 1, gid: str = GID) -> None:
    tables.take_all(parse(ROOT, t, p) for t, p in messages(events, board, game_id=gid, boot=boot))


def _dicts(events: list) -> list[dict]:
    return [e.to_dict() for e in events]


def _fold(events: list) -> Game:
    g = Game(1, GID)
    assert all(g.apply(e.to_dict(), i) is None for i, e in enumerate(events))
    return g


def test_a_game_streamed_again_with_other_moves_is_kept_and_shown_with_both_finals(tmp_path):
    """The second run was counted and dropped: 'the desk keeps the game as it first came and does not take the
    other version', with no way to take it."""
    first, fixed = two_versions()
    tables = _tables(tmp_path)
    _feed(tables, first, "run-1")
    (kept,) = tables.store.results()
    _feed(tables, fixed, "run-2")
    tables.take_all([parse(ROOT, *snapshot_message(fixed, 1, game_id=GID, boot="run-2"))])   # its snapshot too
    st = tables.status()
    assert st["refused"] == {} and tables.duplicates == 10          # events 1-10 of the second run: the same
    (v,) = st["other_versions"]
    assert {k: v[k] for k in ("board", "game_id", "version", "from_event", "from_type", "sender", "received_at",
                              "takeable", "problem")} == {
        "board": 1, "game_id": GID, "version": "1.80", "from_event": 11, "from_type": "judge_adjustment",
        "sender": {"board": 1, "run": "run-2"}, "received_at": NOW, "takeable": True, "problem": None}
    assert v["desk"] == {"players": ["Ann", "Bob"], "scores": [649, 671], "events": 79, "finished": True}
    assert v["other"] == {"players": ["Ann", "Bob"], "scores": [639, 671], "events": 80, "finished": True}
    assert v["sentence"] == (
        "Game r1_b1 at table 1 has another version, which differs from event 11 (the judge's adjustment) on: kiosk "
        f"run 'run-2' sent it on table 1's channel at {clock_text(NOW)}. The desk's version ends Ann 649 - Bob 671; "
        "the other ends Ann 639 - Bob 671. The director can take it on table 1's page.")
    # the game is the desk's as it came; the other version is in the store, whole
    assert tables.tables[1].game.events == _dicts(first) and tables.store.results() == [kept]
    assert tables.tile(1)["flags"]["other_version"] and tables.detail(1)["other_versions"] == [v]
    assert tables.store.pending_versions() == [(1, 1, GID, "run-2", 11, NOW)]
    assert [e for _, e, _ in tables.store.version_events(1)] == _dicts(fixed)


def test_the_director_takes_the_other_version_and_the_replaced_one_stays_in_the_store(tmp_path):
    first, fixed = two_versions()
    tables = _tables(tmp_path)
    _feed(tables, first, "run-1")
    (kept,) = tables.store.results()
    _feed(tables, fixed, "run-2")
    game, res = tables.take_version(1, GID, "1.80")
    assert game is tables.tables[1].game and game.events == _dicts(fixed)
    assert res.scores == (639, 671) and (res.round, res.division) == (1, "A")
    assert (res.replaced_ts, res.corrected, res.revision) == (NOW, True, 2)
    assert res.gcg == gcg_text(_fold(fixed).ref.state, game_id=GID, board=1) != kept.gcg
    assert tables.store.results() == [res]
    assert [e for _, e, _ in tables.store.events_of(1, GID)] == _dicts(fixed)
    history = tables.store.version_history(1)
    assert [(h["id"], h["boot"], h["status"], h["from_seq"], h["events"], h["decided_ts"]) for h in history] == [
        (1, "run-2", "taken", 11, 80, NOW), (2, "run-1", "replaced", 11, 79, NOW)]
    assert history[1]["result"]["players"] == [["Ann", 649], ["Bob", 671]] and history[1]["result"]["gcg"] == kept.gcg
    tile = tables.tile(1)
    assert tile["final"] == [639, 671] and tile["replaced_at"] == NOW and not tile["flags"]["other_version"]
    assert tables.status()["other_versions"] == []
    # the runs send again: the taken one's are duplicates, the replaced one's are counted, never a version again
    dup = tables.duplicates
    _feed(tables, fixed, "run-2")
    _feed(tables, first, "run-1")
    assert tables.duplicates == dup + 80 + 10 and dict(tables.counts) == {Bad.STREAMED_AGAIN.value: 69}
    assert tables.status()["other_versions"] == [] and tables.tables[1].game.events == _dicts(fixed)
    # a restarted desk folds the taken version, marked as the director's; the kiosk that sent the replaced one,
    # restarted too, re-sends its game as a run of its own: it is not offered again
    tables.store.close()
    again = _tables(tmp_path)
    again.restore()
    assert again.tables[1].game.events == _dicts(fixed) and again.tile(1)["replaced_at"] == NOW
    assert again.store.results() == [res] and again.status()["other_versions"] == []
    _feed(again, first, "run-1-restarted")
    st = again.status()
    assert st["other_versions"] == [] and st["refused"][Bad.STREAMED_AGAIN.value]["count"] == 69
    assert st["latest_refused"][-1]["detail"] == (
        "board 1 game r1_b1: streamed again with other moves from event 11 (play) on: it is the version the "
        "director replaced, which the desk does not offer again")
    assert again.tables[1].game.events == _dicts(fixed) and again.store.results() == [res]


def test_a_waiting_version_survives_a_desk_restart_and_is_taken_after_it(tmp_path):
    first, fixed = two_versions()
    tables = _tables(tmp_path)
    _feed(tables, first, "run-1")
    _feed(tables, fixed[:50], "run-2")
    tables.store.close()
    again = _tables(tmp_path)
    again.restore()
    (v,) = again.status()["other_versions"]
    assert (v["version"], v["other"]["events"], v["takeable"]) == ("1.50", 50, False)
    _feed(again, fixed, "run-2")   # the run goes on after the restart: its version, not the game, takes it
    (v,) = again.status()["other_versions"]
    assert (v["version"], v["takeable"]) == ("1.80", True) and again.tables[1].game.events == _dicts(first)
    _, res = again.take_version(1, GID, "1.80")
    assert res.scores == (639, 671) and again.store.results() == [res]


def test_a_version_still_streaming_cannot_be_taken_and_a_token_it_outgrew_is_stale(tmp_path):
    first, fixed = two_versions()
    tables = _tables(tmp_path)
    _feed(tables, first, "run-1")
    _feed(tables, fixed[:40], "run-2")
    (v,) = tables.status()["other_versions"]
    assert v["other"]["finished"] is False and v["sentence"].endswith(
        "the other is not finished: Ann 273 - Bob 296 after 40 events. The director can take it once it "
        "has ended.")
    with pytest.raises(VersionError, match=r"^The other version of game r1_b1 at table 1 is not finished \(40 "
                                           r"events so far\): the desk takes another version once its game has "
                                           r"ended\.$") as err:
        tables.take_version(1, GID, "1.40")
    assert err.value.status == 409
    _feed(tables, fixed, "run-2")
    with pytest.raises(VersionError, match=r"^The other version of game r1_b1 at table 1 has changed since the page "
                                           r"showed it: it is now kiosk run 'run-2''s, with 80 events, differing "
                                           r"from event 11 on\. Look at it again before taking it\.$"):
        tables.take_version(1, GID, "1.40")
    assert tables.store.results()[0].scores == (649, 671) and tables.tables[1].game.events == _dicts(first)


def test_a_later_run_supersedes_the_waiting_version(tmp_path):
    """Only the latest run's version waits (one per game in memory); the earlier stays in the store, superseded,
    its later messages counted; the director's request naming it is stale."""
    first, fixed = two_versions()
    _, fixed5 = two_versions(points=-5)
    tables = _tables(tmp_path)
    _feed(tables, first, "run-1")
    _feed(tables, fixed, "run-2")
    _feed(tables, fixed5, "run-3")
    (v,) = tables.status()["other_versions"]
    assert (v["version"], v["sender"]["run"], v["other"]["scores"]) == ("2.80", "run-3", [644, 671])
    with pytest.raises(VersionError, match="has changed since the page showed it: it is now kiosk run 'run-3''s"):
        tables.take_version(1, GID, "1.80")
    tables.take_all(parse(ROOT, t, p) for t, p in messages(fixed, 1, game_id=GID, boot="run-2")[10:])
    assert dict(tables.counts) == {Bad.STREAMED_AGAIN.value: 70}
    assert [(h["id"], h["status"]) for h in tables.store.version_history(1)] == [(1, "superseded"), (2, "pending")]
    assert tables.store.results()[0].scores == (649, 671)


def test_a_version_whose_event_the_referee_refuses_cannot_be_taken(tmp_path):
    first, fixed = two_versions()
    bad = fixed[:30] + [Play(t=fixed[29].t + 1, player=1, tiles=((0, "Q"), (1, "Q")))] + fixed[30:]
    tables = _tables(tmp_path)
    _feed(tables, first, "run-1")
    _feed(tables, bad, "run-2")
    (v,) = tables.status()["other_versions"]
    assert v["takeable"] is False and v["other"]["events"] == 30 and v["problem"].startswith(
        "its event 31 (play) was refused by the referee: ")
    assert tables.counts[Bad.REFUSED.value] == 1 and tables.counts[Bad.STREAMED_AGAIN.value] == len(bad) - 31
    with pytest.raises(VersionError, match=r"^The other version of game r1_b1 at table 1 cannot be taken: its event 31 "
                                           r"\(play\) was refused by the referee: "):
        tables.take_version(1, GID, "1.30")
    assert tables.store.results()[0].scores == (649, 671)


def test_one_differing_event_without_a_new_start_stays_a_conflict_and_is_no_version(tmp_path):
    """An event that differs from the recorded one under the same number with no start sent again before it (a
    forgery with the table's login, or the kiosk's own after one) is a conflict, from the kiosk's own run as from
    another: never a version the director could take, and the kiosk's game goes on."""
    first, _ = two_versions()
    tables = _tables(tmp_path)
    msgs = messages(first, 1, game_id=GID, boot="kiosk")
    tables.take_all(parse(ROOT, t, p) for t, p in msgs[:20])
    for boot in ("kiosk", "forger"):
        forged = json.loads(msgs[9][1])
        forged["event"]["t"] += 1
        forged["boot"] = boot
        tables.take_all([parse(ROOT, msgs[9][0], json.dumps(forged).encode())])
    tables.take_all(parse(ROOT, t, p) for t, p in msgs[20:])
    assert dict(tables.counts) == {Bad.CONFLICT.value: 2}
    assert tables.status()["other_versions"] == [] and tables.store.pending_versions() == []
    assert tables.store.version_history(1) == [] and not tables.tile(1)["flags"]["other_version"]
    assert tables.tables[1].game.events == _dicts(first) and tables.store.results()[0].scores == (649, 671)


def test_an_older_game_streamed_again_keeps_the_board_s_current_game(tmp_path):
    """A game two games back (no longer in the desk's memory) streamed again became the board's current game: the
    game being played vanished from the page, and the run's events were folded as a new game over the stored one."""
    first, fixed = two_versions()
    tables = _tables(tmp_path)
    _feed(tables, first, "run-1")
    _feed(tables, game(5, ("Cid", "Dee")), "kiosk", gid="g2")
    _feed(tables, game(6, ("Cid", "Dee"))[:30], "kiosk", gid="g3")   # being played
    _feed(tables, fixed, "run-2")
    assert tables.tile(1)["game_id"] == "g3" and tables.tables[1].game.applied == 30
    (v,) = tables.status()["other_versions"]
    assert (v["game_id"], v["from_event"], v["takeable"]) == (GID, 11, True) and tables.tile(1)["flags"]["other_version"]
    assert dict(tables.counts) == {} and [r.game_id for r in tables.store.results()] == [GID, "g2"]
    tables.store.close()
    again = _tables(tmp_path)   # restarted: the older game comes back with its waiting version
    again.restore()
    assert again.tile(1)["game_id"] == "g3" and again.status()["other_versions"][0]["version"] == "1.80"
    _, res = again.take_version(1, GID, "1.80")
    assert res.scores == (639, 671) and again.tile(1)["game_id"] == "g3"
    assert {r.game_id: r.scores for r in again.store.results()}[GID] == (639, 671)


def test_a_waiting_version_stays_while_the_table_plays_on(tmp_path):
    """The table's next two games start before the director decides: the game with a version waiting leaves the
    table's latest two but stays in memory (among the reopened, bounded), shown and takeable."""
    first, fixed = two_versions()
    tables = _tables(tmp_path)
    _feed(tables, first, "run-1")
    _feed(tables, fixed, "run-2")
    _feed(tables, game(5, ("Cid", "Dee")), "kiosk", gid="g2")
    _feed(tables, game(6, ("Cid", "Dee"))[:30], "kiosk", gid="g3")
    assert (tables.tables[1].game.game_id, tables.tables[1].previous.game_id) == ("g3", "g2")
    assert list(tables.tables[1].reopened) == [GID] and tables.status()["other_versions"][0]["version"] == "1.80"
    _, res = tables.take_version(1, GID, "1.80")
    assert res.scores == (639, 671) and tables.tables[1].reopened[GID].events == _dicts(fixed)
    assert tables.tile(1)["game_id"] == "g3" and not tables.tile(1)["flags"]["other_version"]


def test_the_versions_kept_are_bounded(tmp_path, monkeypatch):
    """One waiting version per game in memory; at most MAX_VERSIONS kept per game in the store (counted beyond,
    across desk restarts too); at most MAX_VERSION_EVENTS events in one."""
    first, _ = two_versions()
    tables = _tables(tmp_path)
    _feed(tables, first, "run-0")
    for n in range(1, versions.MAX_VERSIONS + 1):
        _feed(tables, two_versions(points=-n)[1], f"run-{n}")
        assert tables.tables[1].game.other.boot == f"run-{n}" and len(tables.versions.waiting) == 1
    assert [h["status"] for h in tables.store.version_history(1)] == ["superseded"] * 7 + ["pending"]
    tables.store.close()
    tables = _tables(tmp_path)
    tables.restore()
    _feed(tables, two_versions(points=-20)[1], "run-20")
    st = tables.status()
    assert st["latest_refused"][-1]["detail"] == (
        "board 1 game r1_b1: streamed again with other moves from event 11 (judge_adjustment) on: the desk keeps 8 "
        "other versions of a game and does not keep this one")
    assert st["refused"][Bad.STREAMED_AGAIN.value]["count"] == 70 and st["other_versions"][0]["sender"]["run"] == "run-8"
    assert len(tables.store.version_history(1)) == 8
    monkeypatch.setattr(versions, "MAX_VERSION_EVENTS", 50)
    (tmp_path / "b").mkdir()
    other = _tables(tmp_path / "b")
    _feed(other, first, "run-1")
    _feed(other, two_versions()[1], "run-2")
    (v,) = other.status()["other_versions"]
    assert (v["problem"], v["other"]["events"], v["takeable"]) == ("it has more than 50 events", 50, False)
