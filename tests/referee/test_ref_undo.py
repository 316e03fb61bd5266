"""The judge's undo of the last turn (MoveUndone) and the rules change before the first move (PresetChanged)."""

from __future__ import annotations

import pytest

from kiosk.referee import Referee
from kiosk.referee.events import (
    BlankDesignated,
    Challenge,
    ChallengeRuled,
    ClockPressed,
    Exchange,
    GameCalled,
    JudgeAdjustment,
    LateArrival,
    MoveUndone,
    Pass,
    Play,
    PresetChanged,
    RacksEntered,
    Resigned,
    TilesRemoved,
    TimeAdded,
    event_from_dict,
)
from kiosk.referee.gcg_export import export_gcg
from kiosk.referee.presets import load_preset
from kiosk.referee.simulate import Script, tiles_for
from kiosk.referee.state import CHALLENGED, DESIGNATING, OVER, PLAYING, RACK_ENTRY


def _same_game(a, b) -> None:
    """Board, bag, racks, scores, history, phase and player on move agree (clocks and notes may differ)."""
    for attr in ("board", "bag", "racks", "scores", "history", "phase", "on_move", "turn", "unseen", "last_play",
                 "scoreless_run", "pending_blanks"):
        assert getattr(a, attr) == getattr(b, attr), attr


def test_ref_undo_takes_back_a_misread_play_and_the_replay_scores_the_right_one():
    s = Script("nsf")
    assert s.play(0, "8D", "QUIRT", 30_000)
    before = s.state
    assert s.do(ClockPressed, 50_000, player=1)
    # the camera missed the T of OUT: the kiosk scored OU
    assert s.do(Play, 50_400, player=1, tiles=tiles_for(s.state.board, "E7", "OU"))
    assert s.state.scores == (48, 2)
    res = s.do(MoveUndone, 60_000, reason="camera missed a tile")
    assert res, res
    _same_game(s.state, before)
    assert s.state.on_move == 1 and s.state.phase == PLAYING and s.state.pressed_at is None
    assert any("judge took back play by Bob (+2): camera missed a tile" in n for n in s.state.notes)
    # the clocks keep the time used: Bob's time runs again from the undo
    assert s.state.clock.running == 1 and s.state.clock.since_ms == 60_000
    assert s.state.clock.used_ms[1] == before.clock.used_ms[1] + 20_000
    assert s.do(ClockPressed, 61_000, player=1)
    assert s.do(Play, 61_300, player=1, tiles=tiles_for(s.state.board, "E7", "OUT"))
    assert s.state.scores == (48, 3) and s.state.history[-1].play.word == "OUT"


def test_ref_undo_needs_a_reason_and_a_turn_and_changes_nothing_when_refused():
    s = Script("nsf")
    res = s.do(MoveUndone, 1_000, reason="misread")
    assert not res and res.code == "nothing_to_undo"
    s.play(0, "8D", "QUIRT", 30_000)
    st = s.state
    res = s.do(MoveUndone, 31_000, reason="  ")
    assert not res and res.code == "no_reason"
    assert s.state is st  # nothing changed (same cached snapshot)


def test_ref_undo_repeated_takes_back_turns_one_by_one():
    s = Script("nsf")
    states = [s.state]
    s.play(0, "8D", "QUIRT", 30_000)
    states.append(s.state)
    s.do(Pass, 40_000, player=1)
    states.append(s.state)
    s.do(Exchange, 50_000, player=0, count=3)
    for want in reversed(states):
        assert s.do(MoveUndone, 60_000, reason="take back")
        _same_game(s.state, want)
    assert not s.do(MoveUndone, 60_000, reason="take back")


def test_ref_undo_of_a_blank_play_waiting_for_its_letter_and_after_designation():
    s = Script("nsf")
    before = s.state
    assert s.do(ClockPressed, 10_000, player=0)
    assert s.do(Play, 10_300, player=0, tiles=((112, "C"), (113, "?"), (114, "T")))
    assert s.state.phase == DESIGNATING
    assert s.do(MoveUndone, 11_000, reason="wrong square")
    _same_game(s.state, before)
    assert s.do(ClockPressed, 12_000, player=0)
    assert s.do(Play, 12_300, player=0, tiles=((112, "C"), (113, "?"), (114, "T")))
    assert s.do(BlankDesignated, 13_000, player=0, square=113, letter="A")
    assert s.state.board[113] == "a" and s.state.phase == PLAYING
    assert s.do(MoveUndone, 14_000, reason="blank was meant as U")
    _same_game(s.state, before)


def test_ref_undo_after_a_phony_was_withdrawn_returns_the_play_and_the_challenge():
    s = Script("nsf")
    s.play(0, "8D", "QUIRT", 30_000)
    before = s.state
    assert s.play(1, "E7", "OUZ", 50_000)
    assert s.do(Challenge, 55_000, player=0)
    assert s.do(ChallengeRuled, 60_000, acceptable=False, invalid=("OUZ",), judge="J")
    assert s.state.history[-1].kind == "withdrawn"
    assert s.do(MoveUndone, 70_000, reason="ruling entered on the wrong play")
    _same_game(s.state, before)


def test_ref_undo_replays_from_the_journal_and_is_exported_as_a_note():
    s = Script("nsf")
    s.play(0, "8D", "QUIRT", 30_000)
    s.play(1, "E7", "OU", 50_000)
    s.do(MoveUndone, 60_000, reason="misread")
    s.play(1, "E7", "OUT", 61_000)
    again = Referee.from_events(event_from_dict(e.to_dict()) for e in s.ref.events)
    assert again.state == s.state
    gcg = export_gcg(s.state)
    assert "OUT" in gcg and " OU " not in gcg.replace("OUT", "")
    assert "judge took back play by Bob (+2): misread" in gcg


def test_ref_undo_of_the_turn_that_ended_the_game_reopens_it():
    s = Script("nsf")
    s.play(0, "8D", "QUIRT", 30_000)
    before = s.state
    for i, t in enumerate(range(40_000, 100_000, 10_000)):  # six scoreless turns end the game
        s.do(Pass, t, player=(1 + i) % 2)
    assert s.state.phase == RACK_ENTRY
    pool = "".join(t * n for t, n in s.state.unseen)
    assert s.do(RacksEntered, 100_000, racks=(pool[:7], pool[7:14]))
    assert s.state.result is not None and s.state.phase == OVER
    assert s.do(MoveUndone, 200_000, reason="the last pass was a misread play")
    assert s.state.result is None and s.state.phase == PLAYING and len(s.state.history) == len(before.history) + 5


def test_ref_preset_change_before_the_first_move_only():
    s = Script("nsf")
    res = s.do(PresetChanged, 1_000, preset=load_preset("wespa").to_dict(), reason="wrong event rules")
    assert res, res
    assert s.state.preset == "wespa" and s.state.on_move == 0 and s.state.racks == (7, 7)
    assert any("changed the rules to 'wespa'" in n for n in s.state.notes)
    # a preset of another tile set cannot apply to drawn racks
    german = [n for n in ("club-reading",) if load_preset(n).tile_set != "english"]
    for name in german:
        assert not s.do(PresetChanged, 1_500, preset=load_preset(name).to_dict())
    assert not s.do(PresetChanged, 1_600, preset={"name": "broken"})
    assert s.do(ClockPressed, 2_000, player=0)
    res = s.do(PresetChanged, 3_000, preset=load_preset("nsf").to_dict())
    assert not res and res.code == "game_under_way"
    assert s.do(Pass, 3_500, player=0)
    again = Referee.from_events(event_from_dict(e.to_dict()) for e in s.ref.events)
    assert again.state == s.state and again.preset.name == "wespa"


def _phony_then_penalty() -> Script:
    """Ann plays CAT; Bob's phony is challenged off (Ann on move); the judge takes 120 from Bob and gives him a
    minute: the tester's game before the end."""
    s = Script("nsf")
    assert s.play(0, "8G", "CAT", 30_000)
    assert s.do(ClockPressed, 50_000, player=1)
    assert s.do(Play, 50_300, player=1, tiles=tiles_for(s.state.board, "G7", "XCZ"))
    assert s.do(Challenge, 52_000, player=0)
    assert s.do(ChallengeRuled, 55_000, acceptable=False, invalid=("XCZ",), judge="J")
    assert s.do(TilesRemoved, 56_000)
    assert s.do(JudgeAdjustment, 60_000, player=1, points=-120, reason="penalty")
    assert s.do(TimeAdded, 61_000, player=1, added_ms=60_000, reason="extra minute")
    assert s.state.on_move == 0 and s.state.scores == (10, -120)
    return s


def test_ref_undo_at_the_final_table_takes_back_only_a_resignation():
    s = _phony_then_penalty()
    before = s.state
    assert s.do(Resigned, 62_000, player=1, reason="resigned")
    assert s.state.phase == OVER
    res = s.do(MoveUndone, 90_000, reason="resigned by mistake")
    assert res, res
    st = s.state
    # the resignation alone is taken back: the penalty and the turn stay; the extra minute too
    assert st.phase == PLAYING and st.result is None and st.on_move == 0 and st.scores == (10, -120)
    _same_game(st, before)
    assert st.clock.used_ms == before.clock.used_ms[:0] + tuple(
        u + (1_000 if i == 0 else 0) for i, u in enumerate(before.clock.used_ms))  # Ann's time ran up to the end
    assert st.clock.running == 0 and st.clock.since_ms == 90_000  # the time the game stood over is nobody's
    assert any("judge took back the end of the game (resigned): resigned by mistake" in n for n in st.notes)
    again = Referee.from_events(event_from_dict(e.to_dict()) for e in s.ref.events)
    assert again.state == st
    # a second undo takes back the last turn (Bob's withdrawn phony) and still keeps the judge's penalty
    assert s.do(MoveUndone, 91_000, reason="the phony's ruling was wrong")
    assert s.state.on_move == 1 and s.state.scores == (10, -120) and s.state.history[-1].kind == "judge"


@pytest.mark.parametrize("how", ["stopped", "called", "called_racks"])
def test_ref_undo_at_the_final_table_takes_back_only_a_called_or_stopped_game(how):
    s = _phony_then_penalty()
    before = s.state
    assert s.do(GameCalled, 62_000, reason="round over", as_it_stands=how == "stopped")
    if how == "called_racks":
        pool = "".join(t * n for t, n in s.state.unseen)
        assert s.do(RacksEntered, 63_000, racks=(pool[:7], pool[7:14]))
    assert s.state.phase == (RACK_ENTRY if how == "called" else OVER)
    assert s.do(MoveUndone, 70_000, reason="called by mistake")
    _same_game(s.state, before)
    assert s.state.scores == (10, -120) and s.state.on_move == 0 and s.state.clock.running == 0


def test_ref_undo_at_the_final_table_keeps_the_adjustments_made_after_the_end():
    s = _phony_then_penalty()
    assert s.do(Resigned, 62_000, player=1)
    assert s.do(JudgeAdjustment, 63_000, player=0, points=5, reason="recount")
    assert s.state.result.final == (15, -120)
    assert s.do(MoveUndone, 64_000, reason="resigned by mistake")
    assert s.state.phase == PLAYING and s.state.scores == (15, -120)


def test_ref_undo_of_a_turn_keeps_the_judges_adjustment_made_after_it():
    s = Script("nsf")
    assert s.play(0, "8G", "CAT", 30_000)
    before = s.state
    assert s.play(1, "G7", "ACT", 50_000)
    assert s.do(JudgeAdjustment, 52_000, player=0, points=-10, reason="penalty")
    assert s.do(MoveUndone, 53_000, reason="misread")
    assert s.state.on_move == 1 and s.state.board == before.board
    assert s.state.scores == (before.scores[0] - 10, 0) and s.state.history[-1].note == "penalty"
    assert any("took back play by Bob" in n for n in s.state.notes)


def test_ref_undo_of_a_resignation_during_a_challenge_returns_to_the_challenge():
    s = Script("nsf")
    assert s.play(0, "8G", "CAT", 30_000)
    assert s.do(Challenge, 32_000, player=1)
    assert s.do(Resigned, 40_000, player=0)
    assert s.do(MoveUndone, 50_000, reason="wrong player resigned")
    assert s.state.phase == CHALLENGED and s.state.clock.running is None
    assert s.do(ChallengeRuled, 51_000, acceptable=True, judge="J")
    assert s.state.phase == PLAYING and s.state.on_move == 1


def test_ref_undo_of_a_late_forfeit_takes_back_the_late_arrival_alone():
    s = Script("school")
    before = s.state
    assert s.do(LateArrival, 1_000, player=1, late_ms=16 * 60_000)
    assert s.state.phase == OVER and s.state.result.forfeit == 1
    assert s.do(MoveUndone, 2_000, reason="wrong player")
    _same_game(s.state, before)
    assert s.state.on_move == 0 and s.state.clock.running == 0
    assert s.do(LateArrival, 3_000, player=0, late_ms=4 * 60_000)  # the right one, told again
    assert s.state.scores == (-10, 0)


def test_ref_undo_of_a_call_during_an_out_play_returns_to_the_out_play():
    s = Script("nsf")
    assert s.play(0, "8G", "CAT", 30_000)
    g = s.ref._model  # noqa: SLF001 - a bag emptied for the test: Bob's play goes out
    g.bag, g.racks[1] = 0, 2
    assert s.play(1, "G7", "ACT", 50_000) and s.state.phase == "outplay"
    assert s.do(GameCalled, 51_000, reason="round over")
    assert s.state.phase == OVER and s.state.result.went_out == 1
    assert s.do(MoveUndone, 60_000, reason="called by mistake")
    assert s.state.phase == "outplay" and s.state.result is None and s.state.clock.running is None
    assert s.state.window_until_ms == 50_000 + 5_000 + 9_000  # the time it stood over is added to the window
