"""The judge's undo at the final table (defect: an undo after a resignation put the previous turn back, dropped
the judge's penalty, and a restart abandoned the reopened game for a new one)."""

from __future__ import annotations

from common_fixtures import PIN, headless_config, make_kiosk

from kiosk.app.config import load_config
from kiosk.app.table import run_table
from kiosk.referee import events as ev
from kiosk.referee.simulate import tiles_for
from kiosk.referee.state import OVER, PLAYING
from kiosk.store import GameSession
from kiosk.store.journal import Journal


def _to_the_final_table(tmp_path):
    """Ann plays CAT; Bob's phony is challenged off; the judge takes 120 from Bob, gives him a minute, and Bob
    resigns (the tester's game)."""
    kiosk, clock = make_kiosk(tmp_path)
    clock.t = 30_000
    assert kiosk.apply(ev.Play(t=clock.t, player=0, tiles=tiles_for(kiosk.state.board, "8G", "CAT")))
    clock.t = 50_000
    assert kiosk.apply(ev.Play(t=clock.t, player=1, tiles=tiles_for(kiosk.state.board, "G7", "XCZ")))
    clock.t = 52_000
    assert kiosk.act("challenge", player=0)
    assert kiosk.act("rule", acceptable=False, pin=PIN)
    assert kiosk.act("judge_unlock", pin=PIN)
    assert kiosk.act("confirm_removed")
    clock.t = 60_000
    assert kiosk.act("adjust", player=1, points=-120, reason="penalty")
    assert kiosk.act("add_time", player=1)
    before = kiosk.state
    assert before.on_move == 0 and before.scores == (10, -120)
    clock.t = 62_000
    assert kiosk.act("resign", player=1)
    assert kiosk.state.phase == OVER
    return kiosk, clock, before


def test_an_undo_at_the_final_table_takes_back_only_the_resignation_and_a_restart_resumes_it(tmp_path, capsys):
    kiosk, clock, before = _to_the_final_table(tmp_path)
    clock.t = 70_000
    res = kiosk.act("undo", reason="resigned by mistake")
    assert res.accepted, res.reason
    st = kiosk.state
    assert st.phase == PLAYING and st.on_move == 0 and st.scores == (10, -120) and st.history == before.history
    assert kiosk.view.message == "The judge took back the end of the game: it goes on, Ann to move."
    kiosk.session.close()  # (a kill -9 here loses nothing: every event is journaled)
    with Journal(tmp_path / "journal.sqlite", readonly=True) as journal:
        assert [g.finished_ms for g in journal.games()] == [None]  # journaled as unfinished again
    assert run_table(load_config(headless_config(tmp_path)), headless=True, max_seconds=0.3) == 0
    assert "new game" not in capsys.readouterr().out
    again = GameSession.open(tmp_path / "journal.sqlite")
    assert again.game == 1 and [g.id for g in again.journal.games()] == [1]  # resumed, no second game
    assert again.state.phase == PLAYING and again.state.scores == (10, -120) and again.state.on_move == 0
    assert again.referee.events[-1].type == "kiosk_resumed"
    again.close()


def test_a_game_ended_again_after_the_undo_is_finished_in_the_journal(tmp_path):
    kiosk, clock, _ = _to_the_final_table(tmp_path)
    clock.t = 70_000
    assert kiosk.act("undo", reason="resigned by mistake")
    clock.t = 80_000
    assert kiosk.act("call_game", reason="round over", as_it_stands=True)
    kiosk.session.close()
    again = GameSession.open(tmp_path / "journal.sqlite")
    assert not again.in_game and again.journal.games()[0].finished_ms == 80_000
    again.close()
