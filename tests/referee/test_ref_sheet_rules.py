"""Rules that were wrong at the table (issue 18), one test per sheet rule, named after the sheet and the rule.

Sheets: 000 school, 001 club, 002 national federation tournament (nsf), 003 home, 004 team (../shared/seeds).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from kiosk.referee import Referee
from kiosk.referee.events import (
    Challenge,
    ChallengeRuled,
    ClockNeutralised,
    ClockPressed,
    ClockResumed,
    Exchange,
    GameCalled,
    GameStarted,
    Hold,
    HoldReleased,
    JudgeAdjustment,
    LateArrival,
    MoveUndone,
    OutplayAccepted,
    OvertimeCapExceeded,
    OvertimeStarted,
    Pass,
    PressWithdrawn,
    RacksEntered,
    Resigned,
    TilesRemoved,
    TimeAdded,
    WindowClosed,
)
from kiosk.referee.gcg_export import export_gcg
from kiosk.referee.presets import ExchangeRules, load_preset
from kiosk.referee.records import events_from_gcg
from kiosk.referee.simulate import Script, random_game
from kiosk.rules.gcg import EventKind, parse_gcg, read_gcg
from kiosk.rules.replay import replay_game
from shared_data import SHARED, needs_shared

ROOT = Path(__file__).resolve().parents[2]


def test_002_II_L_a_word_named_twice_is_challenged_once():
    s = Script("wespa")  # FIVE_POINT: 5 points for each word challenged
    assert s.play(0, "8D", "QUIRT", 30_000)
    assert s.do(Challenge, 35_000, player=1, words=("QUIRT", "quirt"))
    assert s.state.challenge_words == ("QUIRT",)
    assert s.do(ChallengeRuled, 40_000, acceptable=True)
    assert s.state.scores == (48 + 5, 0)  # one word, one bonus (it paid 10 before)


def test_002_II_L_a_ruling_names_only_challenged_words():
    s = Script("school")  # the ruling names the word that failed
    assert s.play(0, "8D", "QUIRT", 30_000)
    assert s.do(Challenge, 35_000, player=1)
    before = s.state
    res = s.do(ChallengeRuled, 40_000, acceptable=False, invalid=("QUIRT", "ZZZ"))
    assert not res.accepted and res.code == "not_formed" and "ZZZ was not challenged" in res.reason
    assert s.state == before
    res = s.do(ChallengeRuled, 40_000, acceptable=True, invalid=("QUIRT",))
    assert not res.accepted and res.code == "bad_event"
    assert s.do(ChallengeRuled, 40_000, acceptable=False, invalid=("quirt", "QUIRT"))
    assert s.state.ruling == "unacceptable: QUIRT"


def test_002_III_B_time_running_out_on_a_held_out_play_accepts_it():
    p = load_preset("nsf")
    p = replace(p, clock=replace(p.clock, overtime_cap_ms=60_000))
    ref = Referee()
    for ev in random_game("nsf", seed=1):
        if isinstance(ev, GameStarted):
            ev = replace(ev, preset=p.to_dict())
        assert ref.apply(ev)
        if ref.state.phase == "outplay":
            break
    st = ref.state
    assert st.phase == "outplay"
    out, opp = st.last_play.player, 1 - st.last_play.player
    assert ref.apply(Hold(t=st.last_t + 1_000, player=opp))
    left = ref.clock_remaining(opp, st.last_t + 1_000)
    due = ref.tick(st.last_t + 1_000 + left + 61_000)
    cap = [e for e in due if isinstance(e, OvertimeCapExceeded)]
    assert cap and cap[0].player == opp
    for e in due:
        assert ref.apply(e)
    r = ref.state.result
    # the out-play stands: its player gets the 2x rack (it was a forfeit with no rack points before)
    assert r.reason == "out_play" and r.went_out == out and r.forfeit is None
    assert r.rack_adjust[out] > 0 and ref.state.history[-2].kind == "end_rack"
    assert r.time_penalty[opp] == 10  # 60.001 s over: whole seconds count, one started minute


def nsf_with_bag(low: int, high: int) -> Referee:
    ref = Referee()
    for ev in random_game("nsf", seed=11):
        assert ref.apply(ev)
        st = ref.state
        if st.phase == "playing" and st.on_move is not None and low <= st.bag - st.to_draw <= high:
            return ref
    raise AssertionError(f"the scripted game never had {low}-{high} tiles in the bag")


def test_002_II_H_improper_exchange_counts_as_a_pass():
    ref = nsf_with_bag(1, 6)
    st = ref.state
    mover, opp = st.on_move, 1 - st.on_move
    press = st.last_t + 10_000
    assert ref.apply(ClockPressed(t=press, player=mover))
    # the exchange screen is answered 90 s after the press: the turn still ended at the press
    assert ref.apply(Exchange(t=press + 90_000, player=mover, count=7))
    after = ref.state
    assert after.history[-1].kind == "pass" and "improper exchange" in after.history[-1].note
    assert after.on_move == opp and after.clock.running == opp and after.scoreless_run == st.scoreless_run + 1
    assert after.bag == st.bag - st.to_draw and after.racks[mover] == st.racks[mover]
    # the opponent's clock ran from the press: 90 s are his own (he is on move), none is charged twice,
    # and the mover's clock stopped at the press
    assert ref.clock_remaining(mover, press + 90_000) == ref.clock_remaining(mover, press)
    assert ref.state.exchange_counts == ()


def test_002_II_G_exchange_counts_offered_follow_the_preset():
    assert Script("nsf").state.exchange_counts == (1, 2, 3, 4, 5, 6, 7)
    assert Script("team").state.exchange_counts == (1, 7)
    assert ExchangeRules(min_bag=0).counts_allowed(7, 3) == (1, 2, 3)  # school: any turn, the bag limits it
    assert ExchangeRules(min_bag=0).counts_allowed(7, 0) == ()
    assert ExchangeRules(allowed=False).counts_allowed(7, 80) == ()
    assert nsf_with_bag(1, 6).state.exchange_counts == ()


def test_002_III_G_director_stops_the_game_with_the_scores_as_they_stand():
    s = Script("nsf")
    assert s.play(0, "8D", "QUIRT", 30_000)
    assert s.do(GameCalled, 40_000, reason="end of round", as_it_stands=True)
    st = s.state
    r = st.result
    # no rack entry, no rack deduction (it went to rack entry and deducted before)
    assert st.phase == "over" and r.reason == "stopped" and r.final == (48, 0) and r.rack_adjust == (0, 0)
    assert r.wins == (1.0, 0.0) and st.history[-1].kind == "play"
    # a game already waiting for its racks can be stopped as it stands too
    s = Script("nsf")
    assert s.play(0, "8D", "QUIRT", 30_000)
    assert s.do(GameCalled, 40_000, reason="no plays possible")
    assert s.state.phase == "rack_entry"
    assert s.do(GameCalled, 41_000, reason="again").code == "wrong_phase"
    assert s.do(GameCalled, 42_000, reason="racks lost", as_it_stands=True)
    assert s.state.result.final == (48, 0)


def test_002_III_G_a_player_who_leaves_the_game_takes_a_forfeit_loss():
    s = Script("nsf")
    assert s.play(0, "8D", "QUIRT", 30_000)
    assert s.do(Resigned, 40_000, player=0, reason="feels unwell")
    st = s.state
    r = st.result
    assert st.phase == "over" and r.reason == "resigned" and r.forfeit == 0 and r.wins == (0.0, 1.0)
    assert r.final == (48, 0)  # scores as they stand; the win goes to the one who stayed
    assert s.do(Resigned, 41_000, player=1).code == "game_over"


def test_002_III_F_a_scoring_error_is_corrected_after_the_end():
    s = Script("nsf")
    assert s.play(0, "8D", "QUIRT", 30_000)
    assert s.do(GameCalled, 40_000, reason="end of round", as_it_stands=True)
    # "the game is over: 'judge_adjustment' is not allowed" before
    assert s.do(JudgeAdjustment, 60_000, player=1, points=60, reason="recount: 9D scored 60 not 0")
    st = s.state
    assert st.phase == "over" and st.scores == (48, 60) and st.result.final == (48, 60)
    assert st.result.wins == (0.0, 1.0) and st.history[-1].kind == "judge"


def replayed(text: str, preset: str):
    p = load_preset(preset)
    return replay_game(parse_gcg(text, "kiosk.gcg"), rules=p.scoring_rules(), exchange_min_bag=p.exchange.min_bag)


def test_004_challenge_penalties_are_in_the_gcg_totals():
    s = Script("team")
    assert s.play(0, "8D", "QUIRT", 10_000)
    assert s.do(Challenge, 12_000, player=1)
    assert s.do(ChallengeRuled, 14_000, acceptable=True)  # the challenger loses the preset's penalty
    assert s.play(1, "E7", "ZU", 20_000)
    assert s.do(Challenge, 22_000, player=0)
    assert s.do(ChallengeRuled, 24_000, acceptable=False, invalid=("ZU",))  # the phony's side loses it too
    assert s.do(TilesRemoved, 26_000)
    assert s.do(JudgeAdjustment, 27_000, player=0, points=-3, reason="tile knocked off the board")
    assert s.do(GameCalled, 30_000, reason="time", as_it_stands=True)
    st = s.state
    text = export_gcg(st)
    game = parse_gcg(text, "kiosk.gcg")
    last = {}
    for ev in game.events:
        last[ev.nick] = ev.cumulative
    # the file's totals are the kiosk's result (the penalties were notes "not in the GCG totals" before)
    assert tuple(last[n] for n in ("Ann", "Bob")) == st.result.final
    assert [e.kind for e in game.events].count(EventKind.CHALLENGE_BONUS) == 2
    assert any(e.kind is EventKind.ADJUSTMENT and e.score == -3 for e in game.events)
    res = replayed(text, "team")
    assert res.problems == [] and tuple(res.totals) == st.result.final
    # and the record drives a referee to the same scores
    ref = Referee.from_events(events_from_gcg(game, "team"))
    assert ref.state.scores == st.result.final


def test_002_III_F_an_adjustment_after_the_end_is_in_the_gcg():
    s = Script("nsf")
    assert s.play(0, "8D", "QUIRT", 30_000)
    assert s.do(GameCalled, 40_000, reason="end of round", as_it_stands=True)
    assert s.do(JudgeAdjustment, 60_000, player=1, points=7, reason="recount")
    res = replayed(export_gcg(s.state), "nsf")
    assert res.problems == [] and tuple(res.totals) == (48, 7) == s.state.result.final
    # a finished record with a correction after its end lines drives a referee to the corrected result
    st = Referee.from_events(random_game("nsf", seed=1)).state
    text = export_gcg(st) + f">{st.players[1]}: (adjust) +5 {st.result.final[1] + 5}\n#note judge adjustment: recount\n"
    ref = Referee.from_events(events_from_gcg(parse_gcg(text, "fix.gcg"), "nsf"))
    assert ref.state.result.final == (st.result.final[0], st.result.final[1] + 5)
    assert replayed(text, "nsf").problems == []


GCG_HEAD = "#player1 a Ann\n#player2 b Bob\n>a: QUIRTAE 8D QUIRT +48 48\n"


def test_gcg_spec_end_of_game_lines_must_be_complete():
    six = GCG_HEAD + "".join(f">{n}: -  +0 {t}\n" for n, t in (("b", 0), ("a", 48), ("b", 0), ("a", 48), ("b", 0),
                                                                 ("a", 48)))
    res = replay_game(parse_gcg(six + ">a: AE (AE) -2 46\n", "six.gcg"))
    assert res.ended == "six_scoreless"
    assert [p.message for p in res.errors] == ["six scoreless turns end the game but the record has no own-rack "
                                               "line for b"]
    res = replay_game(parse_gcg(six + ">a: AE (AE) -2 46\n>b: EEEEEEE (EEEEEEE) -7 -7\n", "six.gcg"))
    assert res.problems == []


def test_gcg_quackle_one_line_negative_rack_score_is_read():
    six = GCG_HEAD + "".join(f">{n}: -  +0 {t}\n" for n, t in (("b", 0), ("a", 48), ("b", 0), ("a", 48), ("b", 0),
                                                                 ("a", 48)))
    text = six + ">a: AE (AE) +-2 46\n>b: EEEEEEE (EEEEEEE) +-7 -7\n"
    game = parse_gcg(text, "quackle.gcg")
    assert game.errors == [] and [e.score for e in game.events[-2:]] == [-2, -7]
    assert replay_game(game).problems == []


@needs_shared
def test_gcg_spec_an_out_play_needs_its_rack_line_and_a_1x_end_its_minus_line():
    real = SHARED / "corpus" / "gcg" / "real"
    two = (real / "domino14_macondo__gcgio_testdata__doug_v_emely.gcg").read_text(encoding="utf-8")
    assert replay_game(parse_gcg(two, "2x.gcg")).problems == []
    cut = "\n".join(ln for ln in two.splitlines() if "(OPEG)" not in ln)
    res = replay_game(parse_gcg(cut, "2x.gcg"))
    assert res.ended == "out" and [p.message for p in res.errors] == [
        "the game ends with emely's out-play but the record has no end-of-game rack line for it"]
    one = (real / "quackle_quackle__test_positions__fivepoint.gcg").read_text(encoding="latin-1")
    assert replay_game(parse_gcg(one, "1x.gcg")).errors == []
    # Quackle marks this finished game #incomplete (a record that says so is not checked): the pragma goes too
    cut = "\n".join(ln for ln in one.splitlines() if not ln.startswith((">Ganesh: T ", "#incomplete")))
    res = replay_game(parse_gcg(cut, "1x.gcg"))
    assert res.end_style == "1x" and [p.message for p in res.errors] == [
        "a 1x end (the out player adds the rack once) without the minus line of Ganesh"]


def test_000_R19_a_late_team_loses_10_points_per_three_minutes():
    s = Script("school")
    assert s.do(LateArrival, 1_000, player=1, late_ms=7 * 60_000)  # two whole three-minute intervals
    st = s.state
    assert st.scores == (0, -20) and st.history[-1].kind == "judge" and "late" in st.history[-1].note
    assert s.do(LateArrival, 1_500, player=1, late_ms=60_000).code == "already_given"
    assert s.play(0, "8D", "QUIRT", 30_000)
    assert s.do(LateArrival, 31_000, player=0, late_ms=60_000).code == "game_under_way"
    s = Script("school")
    assert s.do(LateArrival, 1_000, player=0, late_ms=15 * 60_000)  # 15 minutes: the game is forfeited
    r = s.state.result
    assert s.state.phase == "over" and r.reason == "late_forfeit" and r.forfeit == 0 and r.wins == (0.0, 1.0)


def test_002_I_F_a_late_player_loses_when_his_25_minutes_run_out():
    s = Script("nsf", first=1)
    assert s.do(LateArrival, 1_000, player=0, late_ms=20 * 60_000)  # his clock ran 20 minutes
    assert s.state.scores == (0, 0) and s.ref.clock_remaining(0, 1_000) == 5 * 60_000
    assert s.play(1, "8D", "QUIRT", 30_000)  # Bob 29 s; Ann's clock runs from 30 s
    due = [e for e in s.ref.tick(30_000 + 5 * 60_000 + 1_000) if isinstance(e, OvertimeStarted)]
    assert due == [OvertimeStarted(t=30_000 + 5 * 60_000, player=0)]
    assert s.ref.apply(due[0])
    r = s.state.result
    # he lost at 0:00 (before, a late player went into overtime like any other)
    assert s.state.phase == "over" and r.reason == "late_forfeit" and r.forfeit == 0 and r.wins == (0.0, 1.0)
    # a player who was on time goes into overtime as before
    s = Script("nsf")
    assert s.ref.apply(s.ref.tick(26 * 60_000)[0]) and s.state.phase == "playing"


def test_002_II_O_the_judge_adds_a_minute_of_playing_time():
    s = Script("nsf")
    assert s.do(TimeAdded, 10_000, player=1, added_ms=60_000, reason=" ").code == "no_reason"
    assert s.do(TimeAdded, 10_000, player=1, added_ms=60_000, reason="three timely objections (II.O)")
    assert s.ref.clock_remaining(1, 10_000) == 26 * 60_000
    assert s.ref.clock_remaining(0, 10_000) == 25 * 60_000 - 10_000
    assert Script("home", players=("A", "B", "C")).do(TimeAdded, 1, player=0, reason="x").code == "no_limit"


def test_002_II_P_five_seconds_to_challenge_after_a_neutralised_period():
    s = Script("nsf")
    assert s.play(0, "8D", "QUIRT", 30_000)  # window until 50 s
    assert s.do(ClockNeutralised, 32_000, reason="Bob leaves the playing area")
    assert not any(isinstance(e, WindowClosed) for e in s.ref.tick(200_000))  # not while he is away
    assert s.do(ClockResumed, 200_000)
    assert s.state.window_until_ms == 205_000
    assert s.do(Challenge, 204_000, player=1)  # refused as 'window closed' before


@pytest.mark.parametrize("preset", ["school", "team"])
def test_presets_add_overtime_penalties_on_school_and_team(preset):
    p = load_preset(preset)
    s = Script(replace(p, clock=replace(p.clock, game_ms=60_000)))
    assert s.play(0, "8D", "QUIRT", 150_000)  # 90 s over: two started minutes
    assert s.do(GameCalled, 151_000, reason="time")
    assert s.do(RacksEntered, 152_000, racks=("AAAAAAA", "EEEEEEE"))
    assert s.state.result.time_penalty == (20, 0)


ADDED = {  # preset -> keys docs/traceability.md lists as added beyond the sheet
    "school": ("game_s", "overtime_penalty_points", "holds", "outplay_window_s", "scoreless_turns", "tie"),
    "club-reading": ("session_limit_s", "turn_limit_action", "outplay_window_s", "scoreless_turns", "tie"),
    "home": ("bingo_bonus", "allowed", "outplay_window_s", "scoreless_turns", "tie"),
    "team": ("game_s", "outplay_window_s", "min_bag", "scoreless_turns"),
}


def test_presets_mark_each_rule_they_add_beyond_their_sheet():
    """Each key the traceability table names as added is said to be the kiosk's in the preset file (a comment
    "silent", "standard", "not stated", "no length" or "not in the sheet" beside it or in the comment above)."""
    folder = ROOT / "kiosk" / "presets"
    marks = ("silent", "standard", "not stated", "no length", "not in the sheet", "names no")
    for preset, keys in ADDED.items():
        lines = (folder / f"{preset}.toml").read_text(encoding="utf-8").splitlines()
        for key in keys:
            i = next(i for i, ln in enumerate(lines) if ln.split("=")[0].strip() == key)
            context = " ".join(lines[max(0, i - 3):i + 1]).lower()
            assert any(m in context for m in marks), f"{preset}.toml: {key} is not marked as added"
    text = (ROOT / "docs" / "traceability.md").read_text(encoding="utf-8")
    added = text.split("## Rules a preset adds")[1]
    for preset in ADDED:
        assert f"| `{preset}` (" in added


@pytest.mark.parametrize("preset,players", [("school", 2), ("club-reading", 2), ("nsf", 2), ("home", 3),
                                            ("team", 2), ("team", 4)])
def test_gcg_export_replays_to_the_kiosks_result(preset, players):
    """kiosk replay --preset P reads the kiosk's own export to its result, end lines complete (3-4 players:
    their end racks were refused as 'not the player's rack' before)."""
    p = load_preset(preset)
    names = ("A", "B", "C", "D")[:players]
    for seed in range(3):
        st = Referee.from_events(random_game(preset, seed, names, pass_rate=0.15 if seed == 0 else 0.05)).state
        res = replay_game(parse_gcg(export_gcg(st), "g.gcg"), rules=p.scoring_rules(),
                          exchange_min_bag=p.exchange.min_bag, out_rack_lines=p.end.out_adjustment != "none",
                          six_rack_lines=p.end.no_out_adjustment != "none")
        assert res.problems == [] and st.result is not None and tuple(res.totals) == st.result.final, seed


def test_004_a_press_taken_back_after_a_refused_exchange_charges_the_mover():
    ref = Referee()
    for ev in random_game("team", seed=11):
        assert ref.apply(ev)
        st = ref.state
        if st.phase == "playing" and st.on_move is not None and 1 <= st.bag - st.to_draw <= 6:
            break
    st = ref.state
    mover, opp = st.on_move, 1 - st.on_move
    press = st.last_t + 10_000
    mover_left, opp_left = ref.clock_remaining(mover, press), ref.clock_remaining(opp, st.last_t)
    assert ref.apply(ClockPressed(t=press, player=mover))
    res = ref.apply(Exchange(t=press + 2_000, player=mover, count=7))
    assert not res.accepted and res.code == "bag_too_small"  # team: 7 in the bag (refused, not a pass)
    assert ref.apply(PressWithdrawn(t=press + 2_000, player=mover))
    assert ref.state.clock.running == mover and ref.state.pressed_at is None
    assert ref.apply(Pass(t=press + 90_000, player=mover))
    # the 90 s since the press are the mover's; the opponent's clock lost nothing (it lost them before)
    assert ref.clock_remaining(opp, press + 90_000) == opp_left
    assert ref.clock_remaining(mover, press + 90_000) == mover_left - 90_000


@pytest.mark.parametrize("taken_back", [False, True, "undo"])
def test_002_II_K_a_press_awaiting_its_reading_keeps_the_opponents_clock_through_a_pause(taken_back):
    """Seed 002 II.K: the press ends the turn and starts the opponent's clock; the clocks are stopped (a pause, a
    judge call) before the board is read and resumed later. The clock that ran (the opponent's) runs again. Was:
    the presser's clock restarted, so a press then taken back (a board problem) left the 2 s between the press and
    the pause on the opponent's clock, and a play recorded after the resume charged the presser. The judge's undo of
    the press alone charges as a press withdrawn (was: the opponent kept the time since the press)."""
    ref = Referee()
    for ev in random_game("nsf", seed=3):
        assert ref.apply(ev)
        st = ref.state
        if st.phase == "playing" and st.on_move is not None and len(st.history) >= 4 and st.pressed_at is None:
            break
    st = ref.state
    mover, opp = st.on_move, 1 - st.on_move
    press = st.last_t + 10_000
    mover_left, opp_left = ref.clock_remaining(mover, press), ref.clock_remaining(opp, press)
    assert ref.apply(ClockPressed(t=press, player=mover))
    assert ref.apply(ClockNeutralised(t=press + 2_000, reason="paused at the table"))
    assert ref.apply(ClockResumed(t=press + 60_000))
    assert ref.state.clock.running == opp and ref.state.pressed_at == press
    end = press + 60_500
    if taken_back:   # withdrawn (a board problem), or the judge's undo of the press alone (the same time)
        assert ref.apply(PressWithdrawn(t=end, player=mover) if taken_back is True else
                         MoveUndone(t=end, reason="the press taken back"))
        assert ref.state.clock.running == mover
        # the 2 s before the pause and the 0.5 s after it are the presser's; the pause is nobody's
        assert ref.clock_remaining(mover, end) == mover_left - 2_500
        assert ref.clock_remaining(opp, end) == opp_left
    else:
        assert ref.apply(Pass(t=end, player=mover))
        assert ref.state.clock.running == opp
        assert ref.clock_remaining(mover, end) == mover_left
        assert ref.clock_remaining(opp, end) == opp_left - 2_500


@needs_shared
def test_gcg_spec_a_record_read_up_to_a_bad_line_keeps_its_read_error():
    path = SHARED / "corpus" / "gcg" / "fixtures" / "jvc56_MAGPIE-DATA__testdata_gcgs__end_points_rack_malformed.gcg"
    res = replay_game(read_gcg(path))
    assert [p.message for p in res.errors] == ["malformed end-of-game rack '(#)'"]


def at_outplay(preset, players: tuple[str, ...]) -> Referee:
    """A scripted game under ``preset`` stopped in its out-play window (the first seed that has one)."""
    for seed in range(1, 40):
        ref = Referee()
        for ev in random_game(preset, seed, players):
            if not ref.apply(ev).accepted:
                break
            if ref.state.phase == "outplay":
                return ref
    pytest.fail(f"{preset}: no out-play in 40 scripted games")


@pytest.mark.parametrize("preset, players", [("home", ("Ann", "Bob", "Cy")), ("team", ("A", "B", "C", "D"))])
def test_003_004_the_game_ends_once_every_opponent_accepts_the_out_play(preset, players):
    # 003/004: 2-4 players or teams; any opponent may challenge a play, so an out-play stands once each has
    # accepted it (the first Accept used to end the game)
    ref = at_outplay(preset, players)
    st = ref.state
    out, t, n = st.last_play.player, st.last_t, len(players)
    waiting = tuple((out + k) % n for k in range(1, n))
    assert st.outplay_waiting_for == waiting and st.outplay_accepted_by == ()
    assert ref.apply(OutplayAccepted(t=t + 1, player=waiting[0]))
    st = ref.state
    assert st.phase == "outplay" and st.outplay_accepted_by == waiting[:1] and st.outplay_waiting_for == waiting[1:]
    (prompt,) = [p for p in ref.pending_prompts() if p.kind == "outplay_window"]
    assert prompt.player == waiting[1]
    assert prompt.text == (f"{players[out]} went out: accept or challenge. Still to accept: "
                           f"{', '.join(players[p] for p in waiting[1:])}.")
    assert ref.apply(OutplayAccepted(t=t + 2, player=waiting[0])).code == "already_accepted"
    assert ref.apply(OutplayAccepted(t=t + 2, player=out)).code == "wrong_player"
    for k, p in enumerate(waiting[1:]):
        assert ref.state.phase == "outplay"
        assert ref.apply(OutplayAccepted(t=t + 3 + k, player=p))
    st = ref.state
    assert st.phase == "rack_entry" and st.outplay_waiting_for == () and st.bag == 0


def test_003_an_opponent_who_has_not_accepted_may_still_challenge_the_out_play():
    ref = at_outplay("home", ("Ann", "Bob", "Cy"))
    st = ref.state
    out, t = st.last_play.player, st.last_t
    first, second = (out + 1) % 3, (out + 2) % 3
    assert ref.apply(OutplayAccepted(t=t + 1, player=first))
    assert ref.apply(Challenge(t=t + 2, player=second))
    assert ref.state.phase == "challenged" and ref.state.challenge_by == second


def test_ref_two_players_one_accept_still_ends_the_out_play():
    ref = at_outplay("nsf", ("Ann", "Bob"))
    st = ref.state
    assert st.outplay_waiting_for == ((st.last_play.player + 1) % 2,)
    assert ref.apply(OutplayAccepted(t=st.last_t + 1, player=st.outplay_waiting_for[0]))
    assert ref.state.phase == "over"


def test_003_a_hold_released_on_an_out_play_is_that_opponents_accept():
    p = load_preset("home")  # home has no holds: a variant with them, three players
    ref = at_outplay(replace(p, challenge=replace(p.challenge, holds=True)), ("Ann", "Bob", "Cy"))
    st = ref.state
    out, t = st.last_play.player, st.last_t
    first, second = (out + 1) % 3, (out + 2) % 3
    assert ref.apply(Hold(t=t + 1, player=second))
    assert ref.apply(HoldReleased(t=t + 2_000, player=second))
    st = ref.state
    assert st.phase == "outplay" and st.hold_by is None and st.outplay_accepted_by == (second,)
    assert st.outplay_waiting_for == (first,)
    assert ref.apply(OutplayAccepted(t=t + 2_500, player=first))
    assert ref.state.phase == "rack_entry"
