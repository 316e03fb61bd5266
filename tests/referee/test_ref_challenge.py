"""Challenges and holds under every challenge rule the presets use."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kiosk.referee.events import (
    Challenge,
    ChallengeRuled,
    ChallengeWithdrawn,
    CourtesyDraw,
    CourtesyNotice,
    Drew,
    Hold,
    HoldReleased,
    Pass,
    TilesRemoved,
)
from kiosk.referee.presets import load_preset
from kiosk.referee.simulate import Script
from kiosk.rules.board import CENTRE


def nsf_after_quirt(preset="nsf") -> Script:
    s = Script(preset)
    assert s.play(0, "8D", "QUIRT", 30_000)  # 48 points
    return s


def test_ref_nsf_phony_challenged_off():
    s = nsf_after_quirt()
    assert s.do(Challenge, 35_000, player=1)
    st = s.state
    assert st.phase == "challenged" and st.clock.running is None and st.challenge_words == ("QUIRT",)
    assert s.do(ChallengeRuled, 50_000, acceptable=False, invalid=("QUIRT",), judge="J1")
    st = s.state
    assert st.phase == "removing" and st.scores == (0, 0) and st.racks == (7, 7) and st.bag == 86
    assert st.ruling == "unacceptable"  # nsf: the judge does not say which word failed
    assert st.scoreless_run == 1 and st.on_move == 1 and st.last_play.withdrawn
    assert not any(st.board)  # the referee's board no longer has the tiles
    assert [p.kind for p in s.ref.pending_prompts()] == ["remove_tiles"]
    res = s.play(1, "8D", "QUIRT", 51_000)
    assert not res.accepted and res.code == "wrong_phase"  # wait until the tiles are gone
    assert s.do(TilesRemoved, 55_000)
    st = s.state
    assert st.phase == "playing" and st.clock.running == 1
    # Bob's clock ran 30-35 s (before the challenge) and runs again from 55 s; the adjudication is neutral
    assert s.ref.clock_remaining(1, 60_000) == 25 * 60_000 - 5_000 - 5_000
    assert [h.kind for h in st.history] == ["play", "withdrawn"]


def test_ref_nsf_valid_play_challenged_gives_ten_and_challenger_keeps_turn():
    s = nsf_after_quirt()
    s.do(Challenge, 35_000, player=1)
    assert s.do(ChallengeRuled, 50_000, acceptable=True)
    st = s.state
    assert st.scores == (58, 0) and st.on_move == 1 and st.phase == "playing"
    assert st.racks == (7, 7) and st.bag == 81 and st.clock.running == 1
    assert st.history[-1].kind == "challenge_bonus" and st.history[-1].points == 10
    # no second challenge of the same play
    assert s.do(Challenge, 51_000, player=1).code == "window_closed"


@pytest.mark.parametrize("preset", ["school", "club-reading", "home"])
def test_ref_double_challenger_loses_next_turn(preset):
    s = nsf_after_quirt(preset)
    s.do(Challenge, 35_000, player=1)
    assert s.do(ChallengeRuled, 40_000, acceptable=True)
    st = s.state
    assert st.on_move == 0 and st.scores == (48, 0) and st.scoreless_run == 1
    assert st.history[-1].kind == "lost_turn" and st.history[-1].player == 1
    assert s.play(0, "H8", "TO", 50_000)  # Ann plays again


def test_ref_school_phony_ruling_names_the_word():
    s = nsf_after_quirt("school")
    s.do(Challenge, 35_000, player=1)
    s.do(ChallengeRuled, 40_000, acceptable=False, invalid=("QUIRT",))
    assert s.state.ruling == "unacceptable: QUIRT"


def test_ref_team_penalties_both_ways():
    s = nsf_after_quirt("team")
    s.do(Challenge, 35_000, player=1)
    s.do(ChallengeRuled, 40_000, acceptable=False)
    assert s.state.scores == (-10, 0)  # play removed and a penalty deducted from the challenged side
    s.do(TilesRemoved, 41_000)
    assert s.play(1, "8D", "QUIRT", 50_000)
    s.do(Challenge, 55_000, player=0)
    s.do(ChallengeRuled, 60_000, acceptable=True)
    st = s.state
    assert st.scores == (-20, 48) and st.on_move == 0  # the challenger pays; no turn lost


def test_ref_five_point_per_play_and_per_word():
    for preset, bonus in (("naspa", 5), ("wespa", 10)):
        s = Script(preset)
        s.play(0, "8D", "QUIRT", 30_000)
        s.play(1, "9C", "AXE", 40_000)  # forms AXE and the cross words XU... two words at least
        words = s.state.last_play.words
        assert len(words) >= 2
        s.do(Challenge, 45_000, player=0, words=words[:2])
        s.do(ChallengeRuled, 50_000, acceptable=True)
        assert s.state.history[-1].points == bonus, preset


def test_ref_fixed_penalty_for_a_wrong_challenge():
    p = load_preset("nsf")
    german = replace(p, name="german-club", challenge=replace(p.challenge, rule="custom", wrong_bonus=0,
                                                             wrong_penalty=10))
    s = Script(german)
    s.play(0, "8D", "QUIRT", 30_000)
    s.do(Challenge, 35_000, player=1)
    s.do(ChallengeRuled, 40_000, acceptable=True)
    assert s.state.scores == (48, -10) and s.state.on_move == 1


def test_ref_triple_loses_the_game():
    p = load_preset("nsf")
    triple = replace(p, name="triple", challenge=replace(p.challenge, rule="triple", wrong_bonus=0,
                                                        wrong_loses_game=True, phony_loses_game=True))
    s = Script(triple)
    s.play(0, "8D", "QUIRT", 30_000)
    s.do(Challenge, 35_000, player=1)
    s.do(ChallengeRuled, 40_000, acceptable=True)
    r = s.state.result
    assert s.state.phase == "over" and r.reason == "challenge_loses" and r.forfeit == 1 and r.wins == (1.0, 0.0)
    s = Script(triple)
    s.play(0, "8D", "QUIRT", 30_000)
    s.do(Challenge, 35_000, player=1)
    s.do(ChallengeRuled, 40_000, acceptable=False)
    assert s.state.result.reason == "phony_loses" and s.state.result.wins == (0.0, 1.0)


def test_ref_void_refuses_phonies_before_the_play_stands():
    s = Script("casual")
    assert s.play(0, "8D", "QUIRT", 30_000)
    st = s.state
    assert st.phase == "challenged" and st.challenge_by is None
    assert s.do(Challenge, 31_000, player=1).code == "wrong_phase"
    s.do(ChallengeRuled, 31_000, acceptable=False, invalid=("QUIRT",))
    assert s.state.ruling == "unacceptable: QUIRT"
    s.do(TilesRemoved, 32_000)
    st = s.state
    assert st.on_move == 0 and st.scores == (0, 0) and st.history == () and st.scoreless_run == 0
    assert s.play(0, "8D", "QUIRE", 40_000)
    s.do(ChallengeRuled, 40_500, acceptable=True)
    st = s.state
    assert st.on_move == 1 and st.scores[0] > 0 and [h.kind for h in st.history] == ["play"]
    assert s.do(Challenge, 41_000, player=1).code == "no_challenges"


def test_ref_nsf_off_centre_first_play():
    s = Script("nsf")
    assert s.play(0, "7D", "QUIRT", 30_000)  # row 7 misses H8
    st = s.state
    assert st.last_play.off_centre_first and st.scores == (15, 0)  # Q10 U1 I1 R1x2 (G7 DLS) T1, no DWS
    s.do(Challenge, 35_000, player=1)
    # the words are good, but a first play missing the centre comes off when challenged
    assert s.ref.challenge_ruling({"QUIRT"}, 36_000).acceptable is False
    assert s.do(ChallengeRuled, 36_000, acceptable=True).code == "off_centre"
    assert s.do(ChallengeRuled, 36_000, acceptable=False)
    # not challenged: it stands without the DWS and the centre stays live
    s = Script("nsf")
    s.play(0, "7D", "QUIRT", 30_000)
    assert s.play(1, "H7", "TO", 60_000)  # O on H8 doubles this word
    assert s.state.scores[1] == 2 * (1 + 1)


def test_ref_lexicon_suggests_the_ruling():
    s = nsf_after_quirt()
    assert s.ref.challenge_ruling({"QUIRT"}, 1) is None  # no challenge open
    s.do(Challenge, 35_000, player=1)
    assert s.ref.challenge_ruling({"QUIRT"}, 40_000).acceptable
    bad = s.ref.challenge_ruling(set(), 40_000)
    assert not bad.acceptable and bad.invalid == ("QUIRT",)


def test_ref_challenge_refusals():
    s = nsf_after_quirt()
    assert s.do(Challenge, 35_000, player=0).code == "wrong_player"  # own play
    assert s.do(Challenge, 35_000, player=1, words=("QUIRTS",)).code == "not_formed"
    s2 = Script("nsf")
    assert s2.do(Challenge, 1_000, player=1).code == "window_closed"  # nothing played yet


def test_ref_challenge_withdrawn_without_penalty():
    s = nsf_after_quirt()
    s.do(Challenge, 35_000, player=1)
    assert s.do(ChallengeWithdrawn, 36_000, player=1)
    st = s.state
    assert st.scores == (48, 0) and st.on_move == 1 and st.phase == "playing" and st.racks == (7, 7)


def test_ref_hold_then_release():
    s = nsf_after_quirt()
    assert s.do(Hold, 45_000, player=1)
    st = s.state
    assert st.hold_by == 1 and st.to_draw == 5 and st.clock.running == 1  # the holder's clock keeps running
    assert s.do(Drew, 46_000, player=0).code == "held"
    assert s.ref.tick(80_000) == []  # a held window does not expire
    assert s.do(HoldReleased, 80_000, player=1)
    st = s.state
    assert st.hold_by is None and st.racks == (7, 7) and not st.window_open
    assert s.do(Challenge, 81_000, player=1).code == "window_closed"


def test_ref_hold_window_is_twenty_seconds():
    s = nsf_after_quirt()
    assert s.do(Hold, 50_001, player=1).code == "window_closed"
    s = nsf_after_quirt()
    assert s.do(Hold, 50_000, player=1)


def test_ref_courtesy_draw_after_a_minute_goes_back_on_a_successful_challenge():
    s = nsf_after_quirt()
    s.do(Hold, 40_000, player=1)
    assert s.do(CourtesyDraw, 70_000, player=0).code == "too_early"
    assert s.do(CourtesyNotice, 99_999).code == "too_early"
    due = s.ref.tick(120_000)
    assert due == [CourtesyNotice(t=100_000)]
    s.ref.apply(due[0])
    assert "courtesy_draw" in [p.kind for p in s.ref.pending_prompts()]
    assert s.do(CourtesyDraw, 101_000, player=0)
    st = s.state
    assert st.bag == 81 and st.kept_apart == 5 and st.racks == (2, 7)
    s.do(Challenge, 110_000, player=1)
    s.do(ChallengeRuled, 115_000, acceptable=False)
    st = s.state
    assert st.bag == 86 and st.kept_apart == 0 and st.racks == (7, 7)


def test_ref_courtesy_tiles_join_the_rack_when_the_hold_is_released():
    s = nsf_after_quirt()
    s.do(Hold, 40_000, player=1)
    s.ref.apply(s.ref.tick(100_000)[0])
    s.do(CourtesyDraw, 101_000, player=0)
    s.do(HoldReleased, 102_000, player=1)
    st = s.state
    assert st.bag == 81 and st.racks == (7, 7) and st.kept_apart == 0
    assert s.do(Pass, 103_000, player=1)


def test_ref_single_tile_centre_rule_unaffected():
    s = Script("nsf")
    assert s.play(0, "8G", "AT", 1_000)
    assert s.state.board[CENTRE] == "T"


@pytest.mark.parametrize("preset", ["school", "club-reading", "home"])
def test_ref_phony_comes_off_with_no_points_and_the_turn_lost(preset):
    s = nsf_after_quirt(preset)
    s.do(Challenge, 35_000, player=1)
    s.do(ChallengeRuled, 40_000, acceptable=False)
    st = s.state
    assert st.scores == (0, 0) and st.racks == (7, 7) and st.on_move == 1 and st.phase == "removing"


def test_ref_school_challenge_until_the_next_turn_starts():
    s = nsf_after_quirt("school")
    assert s.state.window_until_ms is None and s.ref.tick(1_000_000) == []
    assert s.do(Challenge, 600_000, player=1)  # ten minutes later: still before Bob's turn ended
    s = nsf_after_quirt("school")
    s.do(Pass, 40_000, player=1)
    assert s.do(Challenge, 41_000, player=0).code == "window_closed"


def test_ref_single_no_penalty_for_a_failed_challenge():
    p = load_preset("nsf")
    single = replace(p, name="single", challenge=replace(p.challenge, rule="single", wrong_bonus=0))
    s = Script(single)
    s.play(0, "8D", "QUIRT", 30_000)
    s.do(Challenge, 35_000, player=1)
    s.do(ChallengeRuled, 40_000, acceptable=True)
    st = s.state
    assert st.scores == (48, 0) and st.on_move == 1 and st.history[-1].kind == "play"
