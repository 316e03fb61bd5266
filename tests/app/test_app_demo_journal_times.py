"""A journal whose unfinished game carries times no clock reads (an older demo at an unbounded ``--speed`` wrote
game times of 5.5e16 ms) was resumed and ended 'final: Ada -4344559999298, Bo 227' (the overtime of 2.6e16 ms
charged). The referee refuses an event time beyond 2^53 - 1 ms, and the demo says the journal's game cannot be
played on and how to start afresh, leaving the file as it is."""

from __future__ import annotations

from dataclasses import replace

from kiosk.app.record_demo import BUILTIN_GAME, DemoOptions, run_demo
from kiosk.referee.events import GameStarted
from kiosk.referee.records import events_from_gcg
from kiosk.referee.referee import MAX_T, Referee
from kiosk.rules.gcg import read_gcg
from kiosk.store import Journal

FAR = 55_335_370_002_467_240   # ms: the game_started time the old demo journaled


def _events(shift: int = 0):
    return [replace(e, t=e.t + shift) for e in events_from_gcg(read_gcg(BUILTIN_GAME), "nsf")[:30]]


def test_the_referee_refuses_a_time_no_clock_reads():
    ok = _events(MAX_T - 10_000_000)    # a game ending before the bound replays
    assert Referee.from_events(ok[:5]).state.phase
    first = _events()[0]
    assert isinstance(first, GameStarted)
    res = Referee().apply(replace(first, t=MAX_T + 1))
    assert not res.accepted and "no clock reads that far (at most 2^53 - 1 ms" in res.reason
    late = Referee.from_events(_events()[:5])
    assert not late.apply(replace(_events()[5], t=FAR)).accepted      # a later event too


def test_the_demo_does_not_resume_a_game_of_impossible_times(tmp_path):
    journal = tmp_path / "demo.sqlite"
    evs = _events(FAR)
    with Journal(journal) as j:
        game = j.start_game(evs[0])
        for e in evs[1:]:
            j.append(game, e)
    before = journal.read_bytes()
    lines: list[str] = []
    res = run_demo(DemoOptions(journal=journal, size=(1014, 760)), out=lines.append)
    assert res.code == 2 and len(lines) == 1
    assert "no clock reads that far" in lines[0] and f"remove {journal} to play the record afresh" in lines[0]
    assert "final:" not in lines[0]
    assert journal.read_bytes() == before


def test_a_journal_holding_another_records_game_is_named_by_its_players(tmp_path):
    # it said 'holds another unfinished game (demo:d8a90e56b6978ec2)': an internal id
    journal = tmp_path / "demo.sqlite"
    evs = _events()
    with Journal(journal) as j:
        game = j.start_game(replace(evs[0], game_id="demo:another"))
        for e in evs[1:]:
            j.append(game, e)
    lines: list[str] = []
    assert run_demo(DemoOptions(journal=journal, size=(1014, 760)), out=lines.append).code == 2
    assert lines == [f"error: journal {journal} holds an unfinished game of another record (Ada vs Bo, 30 events), "
                     f"which this demo does not play on or close: give another --journal path, or remove {journal} "
                     "if that game is of no use"]
