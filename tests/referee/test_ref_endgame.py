"""Game end: out-play window, rack adjustments per preset, six scoreless turns, overtime, ties, time limits."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from kiosk.referee import Referee
from kiosk.referee.events import (
    Challenge,
    ChallengeRuled,
    ClockNeutralised,
    ClockResumed,
    GameCalled,
    Hold,
    HoldReleased,
    JudgeAdjustment,
    KioskResumed,
    OutplayAccepted,
    OvertimeCapExceeded,
    OvertimeStarted,
    Pass,
    RacksEntered,
    SessionTimeUp,
    TilesRemoved,
    TimeWarning,
    TurnTimeExpired,
    WindowClosed,
)
from kiosk.referee.presets import load_preset
from kiosk.referee.simulate import Script, random_game
from kiosk.rules.tiles import ENGLISH


def at_outplay(preset: str, seed: int = 1, players=("Ann", "Bob")) -> Referee:
    ref = Referee()
    for ev in random_game(preset, seed, players):
        assert ref.apply(ev)
        if ref.state.phase == "outplay":
            return ref
        if ref.state.phase == "rack_entry" and len(players) > 2:
            return ref
    pytest.fail(f"{preset}/{seed}: no out-play in the scripted game")


def unseen_str(st) -> str:
    return "".join(sorted(Counter(dict(st.unseen)).elements()))


def test_ref_outplay_window_then_double_rack_under_nsf():
    ref = at_outplay("nsf")
    st = ref.state
    out, opp = st.last_play.player, 1 - st.last_play.player
    assert st.clock.running is None and st.bag == 0 and st.racks[out] == 0
    prompt = ref.pending_prompts()[0]
    # 5 s from when the kiosk shows the out-play (its reading, here 800 ms after the clock press)
    shown = ref.events[-1].t
    assert shown > st.last_play.t
    assert prompt.kind == "outplay_window" and prompt.player == opp and prompt.until_ms == shown + 5_000
    rack_value = ENGLISH.rack_value(unseen_str(st))
    before = st.scores
    assert ref.apply(Pass(t=st.last_t + 1_000, player=opp)).code == "wrong_phase"  # only accept or challenge
    due = ref.tick(st.last_t + 6_000)
    assert due == [WindowClosed(t=shown + 5_000)]
    ref.apply(due[0])
    r = ref.state.result
    assert ref.state.phase == "over" and r.reason == "out_play" and r.went_out == out
    assert sorted(r.racks[opp]) == sorted(unseen_str(st))  # the opponent's rack is exactly the unseen tiles
    assert r.final[out] == before[out] + 2 * rack_value and r.final[opp] == before[opp]
    assert ref.state.history[-1].kind == "end_rack"


def test_ref_outplay_challenged_off_puts_the_game_back_in_play():
    ref = at_outplay("nsf")
    st = ref.state
    out, opp = st.last_play.player, 1 - st.last_play.player
    assert ref.apply(Challenge(t=st.last_t + 3_000, player=opp))
    assert ref.apply(ChallengeRuled(t=st.last_t + 9_000, acceptable=False))
    assert ref.apply(TilesRemoved(t=st.last_t + 12_000))
    st2 = ref.state
    assert st2.phase == "playing" and st2.on_move == opp and st2.result is None
    assert st2.racks[out] == len(st.last_play.tiles) and st2.clock.running == opp


def test_ref_outplay_failed_challenge_ends_with_bonus():
    ref = at_outplay("nsf")
    st = ref.state
    opp = 1 - st.last_play.player
    ref.apply(Challenge(t=st.last_t + 3_000, player=opp))
    ref.apply(ChallengeRuled(t=st.last_t + 9_000, acceptable=True))
    kinds = [h.kind for h in ref.state.history[-2:]]
    assert ref.state.phase == "over" and kinds == ["challenge_bonus", "end_rack"]


def test_ref_outplay_hold_runs_the_holders_clock_until_release():
    ref = at_outplay("nsf")
    st = ref.state
    opp = 1 - st.last_play.player
    assert ref.apply(Hold(t=st.last_t + 4_000, player=opp))
    assert ref.state.clock.running == opp and ref.tick(st.last_t + 60_000) == []
    assert ref.apply(HoldReleased(t=st.last_t + 30_000, player=opp))
    assert ref.state.phase == "over"
    assert ref.state.clock.used_ms[opp] - st.clock.used_ms[opp] == 26_000


def test_ref_outplay_accepted_by_the_opponent_only():
    ref = at_outplay("nsf")
    st = ref.state
    out = st.last_play.player
    assert ref.apply(OutplayAccepted(t=st.last_t + 1_000, player=out)).code == "wrong_player"
    assert ref.apply(OutplayAccepted(t=st.last_t + 1_000, player=1 - out))
    assert ref.state.phase == "over"


@pytest.mark.parametrize("preset, out_gain, opp_change", [
    ("wespa", 1, -1), ("school", 1, -1), ("home", 0, -1), ("club-reading", 0, 0), ("naspa", 2, 0),
])
def test_ref_end_adjustment_per_preset(preset, out_gain, opp_change):
    ref = at_outplay(preset, seed=2)
    st = ref.state
    out, opp = st.last_play.player, 1 - st.last_play.player
    value = ENGLISH.rack_value(unseen_str(st))
    ref.apply(OutplayAccepted(t=st.last_t + 1_000, player=opp))
    r = ref.state.result
    assert r.final[out] == st.scores[out] + out_gain * value
    assert r.final[opp] == st.scores[opp] + opp_change * value


def six_passes(s: Script, start: int, t0: int) -> None:
    p = start
    for i in range(6):
        assert s.do(Pass, t0 + i * 1_000, player=p)
        p = 1 - p


def test_ref_six_scoreless_turns_end_the_game_and_each_loses_own_rack():
    s = Script("nsf")
    s.play(0, "8D", "QUIRT", 10_000)
    six_passes(s, 1, 20_000)
    st = s.state
    assert st.phase == "rack_entry" and st.scoreless_run == 6 and st.clock.running is None
    assert [p.kind for p in s.ref.pending_prompts()] == ["rack_entry"]
    assert st.racks == (7, 7)
    bad = s.do(RacksEntered, 30_000, racks=("AEEIOU", "BCDFGHJ"))
    assert not bad.accepted and "Ann's rack has 6 tiles but the game tracked 7" in bad.reason
    bad = s.do(RacksEntered, 30_000, racks=("QAEEIOU", "BCDFGHJ"))
    assert not bad.accepted and "unseen tiles" in bad.reason  # the only Q is on the board
    bad = s.do(RacksEntered, 30_000, racks=("AEEIOU1", "BCDFGHJ"))
    assert not bad.accepted and "'1' is not a tile" in bad.reason
    assert s.do(RacksEntered, 30_000, racks=("AEEIOU?", "BCDFGHJ"))
    r = s.state.result
    assert r.reason == "six_scoreless" and r.final == (48 - 6, 0 - (3 + 3 + 2 + 4 + 2 + 4 + 8))
    assert [h.kind for h in s.state.history[-2:]] == ["own_rack", "own_rack"]
    over = [p for p in s.ref.pending_prompts() if p.kind == "game_over"]
    assert over and over[0].text == ("Game over: the scoreless turns in a row that end a game were played. "
                                     "Final scores: Ann 42, Bob -26. Ann wins.")


def test_every_end_reason_reads_as_a_sentence_for_players():
    """The screen says why the game ended in words (it showed "game over (six_scoreless)")."""
    from kiosk.referee.kinds import EndReason
    from kiosk.referee.prompts import END_SENTENCES, end_sentence

    assert set(END_SENTENCES) == set(EndReason)
    for reason in EndReason:
        said = end_sentence(reason)
        assert "_" not in said and said[0].islower() and len(said.split()) >= 3, said
    assert end_sentence("out_play") == "a player went out"


def test_ref_nsf_six_zeros_at_nil_nil_do_not_end_but_school_does():
    s = Script("nsf")
    six_passes(s, 0, 1_000)
    assert s.state.phase == "playing"
    s = Script("school")
    six_passes(s, 0, 1_000)
    assert s.state.phase == "rack_entry"


def test_ref_a_tile_play_scoring_zero_is_not_scoreless():
    s = Script("nsf")
    s.play(0, "8G", "ab", 1_000)  # two designated blanks: 0 points
    assert s.state.scores == (0, 0) and s.state.scoreless_run == 0


def short_clock(preset="nsf", game_ms=60_000, cap=None):
    p = load_preset(preset)
    return replace(p, clock=replace(p.clock, game_ms=game_ms, overtime_cap_ms=cap))


def test_ref_overtime_penalty_at_the_end():
    s = Script(short_clock())
    assert s.ref.tick(59_999) == []
    due = s.ref.tick(70_000)
    assert due == [OvertimeStarted(t=60_000, player=0)]
    s.ref.apply(due[0])
    assert s.ref.clock_remaining(0, 70_000) == -10_000
    s.play(0, "8D", "QUIRT", 150_000)  # 90 s over: two started minutes
    s.do(GameCalled, 151_000, reason="director ends the round")
    s.do(RacksEntered, 152_000, racks=("AAAAAAA", "EEEEEEE"))
    r = s.state.result
    assert r.time_penalty == (20, 0) and r.final == (48 - 7 - 20, -7)
    assert s.state.history[-1].kind == "time_penalty"


def test_ref_overtime_cap_loses_the_game():
    s = Script(short_clock(cap=10_000))
    due = s.ref.tick(75_000)
    assert [type(e) for e in due] == [OvertimeStarted, OvertimeCapExceeded]
    for e in due:
        assert s.ref.apply(e)
    r = s.state.result
    assert r.reason == "overtime_cap" and r.forfeit == 0 and r.wins == (0.0, 1.0)


def test_ref_tie_rules():
    for preset, wins in (("team", (1.0, 0.0)), ("nsf", (0.5, 0.5))):
        s = Script(preset)
        s.play(0, "8D", "QUIRT", 10_000)
        s.do(JudgeAdjustment, 11_000, player=1, points=47, reason="scoresheet correction")
        s.do(GameCalled, 12_000, reason="time limit")
        s.do(RacksEntered, 13_000, racks=("EEEEEED", "AAAAAAA"))
        r = s.state.result
        assert r.final == (40, 40) and r.before_racks == (48, 47)
        assert r.wins == wins, preset


def test_ref_judge_adjustment_needs_a_reason():
    s = Script("nsf")
    assert s.do(JudgeAdjustment, 1, player=0, points=5, reason=" ").code == "no_reason"
    assert s.do(JudgeAdjustment, 1, player=0, points=0, reason="x").code == "no_points"


def test_ref_three_players_take_turns_without_a_chess_clock():
    s = Script("home", players=("Ann", "Bob", "Cy"))
    assert s.state.clock.game_ms is None and s.ref.clock_remaining(0, 10_000) is None
    s.play(0, "8D", "QUIRT", 10_000)
    assert s.state.on_move == 1
    s.do(Pass, 20_000, player=1)
    assert s.state.on_move == 2 and s.state.racks == (7, 7, 7) and s.state.bag == 100 - 21 - 5


def test_ref_four_players_out_play_needs_rack_entry():
    ref = at_outplay("team", seed=4, players=("A", "B", "C", "D"))
    st = ref.state
    while st.phase == "outplay":  # every opponent accepts (seed 004)
        assert ref.apply(OutplayAccepted(t=st.last_t + 1, player=st.outplay_waiting_for[0]))
        st = ref.state
    st = ref.state
    assert st.phase == "rack_entry" and st.bag == 0
    out = st.last_play.player
    pool = sorted(Counter(dict(st.unseen)).elements())
    racks, i = [], 0
    for n in st.racks:
        racks.append("".join(pool[i:i + n]))
        i += n
    wrong = list(racks)
    j = next(k for k, n in enumerate(st.racks) if n)
    wrong[j] = "Z" * st.racks[j] if "Z" not in pool else "Q" * st.racks[j]
    assert not ref.apply(RacksEntered(t=st.last_t + 2, racks=tuple(wrong))).accepted
    assert ref.apply(RacksEntered(t=st.last_t + 2, racks=tuple(racks)))
    r = ref.state.result
    others = sum(ENGLISH.rack_value(x) for k, x in enumerate(racks) if k != out)
    assert r.rack_adjust[out] == others  # the side that went out adds all opponents' racks


def test_ref_club_reading_turn_limit_and_session_warnings():
    s = Script("club-reading")
    due = s.ref.tick(200_000)
    assert due == [TimeWarning(t=120_000, kind="turn", remaining_ms=60_000, player=0),
                   TurnTimeExpired(t=180_000, player=0)]
    for e in due:
        assert s.ref.apply(e)
    st = s.state
    assert st.on_move == 1 and st.history[-1].kind == "lost_turn" and st.scoreless_run == 1
    # session: warnings 6 and 3 minutes before the call at 50:00, then the game is called
    # (without the turn limit here, so that six lost turns do not end the game first)
    club = load_preset("club-reading")
    s = Script(replace(club, clock=replace(club.clock, turn_limit_ms=None)))
    s.play(0, "8D", "QUIRT", 190_000)
    limit = 50 * 60_000
    seen = []
    now = 190_000
    while s.state.phase == "playing" and now < limit + 1:
        now += 30_000
        for e in s.ref.tick(now):
            if isinstance(e, (TimeWarning, SessionTimeUp)):
                seen.append(e)
            s.ref.apply(e)
    sess = [e for e in seen if isinstance(e, SessionTimeUp) or e.kind == "session"]
    assert [e.t for e in sess] == [limit - 360_000, limit - 180_000, limit]
    assert s.state.phase == "rack_entry"
    s.do(RacksEntered, limit + 1_000, racks=("AAAAAAA", "EEEEEEE"))
    assert s.state.result.rack_adjust == (0, 0)  # club-reading: no rack adjustment


def test_ref_game_word_scores_triple_once():
    s = Script("club-reading")
    assert s.play(0, "8B", "READING", 10_000)
    lp = s.state.last_play
    assert lp.game_word_bonus > 0 and s.state.scores[0] == lp.score
    assert not s.state.game_word_available
    # challenged off: the bonus is available again
    s.do(Challenge, 11_000, player=1)
    s.do(ChallengeRuled, 12_000, acceptable=False)
    assert s.state.game_word_available


def test_ref_kiosk_downtime_is_charged_to_nobody():
    s = Script("nsf")
    s.play(0, "8D", "QUIRT", 10_000)        # Bob's clock from 10 s, window until 30 s
    assert s.do(KioskResumed, 300_000, down_since=5_000).code == "time_order"
    assert s.do(KioskResumed, 300_000, down_since=15_000)
    st = s.state
    assert st.downtime_ms == 285_000 and st.window_until_ms == 30_000 + 285_000
    assert s.ref.clock_remaining(1, 310_000) == 25 * 60_000 - 5_000 - 10_000
    assert any("charged to nobody" in n for n in st.notes)


def test_ref_judge_neutralises_the_clock():
    s = Script("nsf")
    assert s.do(ClockNeutralised, 10_000, reason="judge call")
    assert s.play(0, "8D", "QUIRT", 20_000).code == "neutralised"
    assert s.do(ClockResumed, 70_000)
    assert s.ref.clock_remaining(0, 80_000) == 25 * 60_000 - 20_000


def test_ref_outplay_window_is_not_eaten_by_a_judge_fixing_the_reading():
    """The opponent cannot challenge an out-play before the kiosk shows it: when the judge needed 30 s to fix
    the reading after the press, the 5 s window still runs from the accepted play."""
    probe = at_outplay("nsf")
    events = list(probe.events)
    play = events[-1]
    assert play.type == "play"
    ref = Referee.from_events(events[:-1])
    late = type(play)(t=play.t + 30_000, player=play.player, tiles=play.tiles)
    assert ref.apply(late)
    assert ref.state.phase == "outplay" and ref.tick(late.t + 4_000) == []
    assert [e.type for e in ref.tick(late.t + 5_000)] == ["window_closed"]
