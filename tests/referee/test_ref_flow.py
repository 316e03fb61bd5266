"""Turn flow, refusals that change nothing, tile tracking and determinism."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

import pytest

from kiosk.referee import Referee, Result
from kiosk.referee.events import (
    BlankDesignated,
    Challenge,
    Exchange,
    GameStarted,
    Hold,
    Pass,
    Play,
    WindowClosed,
    event_from_dict,
)
from kiosk.referee.presets import load_preset
from kiosk.referee.simulate import Script, random_game
from kiosk.rules.board import CENTRE
from kiosk.rules.tiles import ENGLISH


def refused_without_change(s: Script, act: Callable[[], Result], code: str) -> Result:
    """Run ``act`` (one event applied to ``s``) and check it was refused with ``code`` and a reason, and changed
    nothing: the same state, pending prompts, event log and due events as before. Returns the refusal."""
    before, prompts, events = s.state, s.ref.pending_prompts(), list(s.ref.events)
    due = s.ref.tick(before.last_t + 3_600_000)
    res = act()
    assert not res.accepted and res.code == code, res
    assert res.reason
    assert s.state == before, "the refusal changed the game state"
    assert s.ref.pending_prompts() == prompts, "the refusal changed the prompts"
    assert list(s.ref.events) == events, "the refusal changed the event log"
    assert s.ref.tick(before.last_t + 3_600_000) == due, "the refusal changed the events falling due"
    return res


def test_ref_refused_without_change_fails_on_a_refusal_that_changed_something():
    """The helper itself: a refusal with the right code that came with a change (here a play accepted just
    before it) is caught."""
    s = Script("nsf")

    def play_then_refused_pass() -> Result:
        assert s.play(0, "8D", "QUIRT", 30_000)
        return s.do(Pass, 9_000, player=1)

    with pytest.raises(AssertionError, match="the refusal changed the game state"):
        refused_without_change(s, play_then_refused_pass, "time_order")


def test_ref_play_scores_and_tracks_tiles():
    s = Script("nsf")
    assert s.play(0, "8D", "QUIRT", 30_000)
    st = s.state
    assert st.scores == (48, 0) and st.on_move == 1 and st.turn == 1
    assert st.racks == (2, 7) and st.bag == 86 and st.to_draw == 5  # drawing waits for the window
    assert st.window_open and st.window_until_ms == 50_000
    assert [p.kind for p in s.ref.pending_prompts()] == ["challenge_window"]
    unseen = Counter(dict(st.unseen))
    assert unseen == ENGLISH.full_bag() - Counter("QUIRT")
    # the window closes 20 s after the clock start: the draw happens
    due = s.ref.tick(60_000)
    assert due == [WindowClosed(t=50_000)]
    assert s.ref.apply(due[0])
    st = s.state
    assert st.racks == (7, 7) and st.bag == 81 and st.to_draw == 0 and not st.window_open
    assert s.ref.pending_prompts() == []


def test_ref_next_move_closes_the_window_and_draws():
    s = Script("nsf")
    s.play(0, "8D", "QUIRT", 30_000)
    assert s.play(1, "E7", "OU", 45_000)  # Bob moves inside the window: Ann's play stands, she draws
    st = s.state
    assert st.racks == (7, 6) and st.bag == 81 and st.to_draw == 1 and st.scores == (48, 2)


def test_ref_challenge_after_window_closed_is_refused_and_changes_nothing():
    s = Script("nsf")
    s.play(0, "8D", "QUIRT", 30_000)
    before, n = s.state, len(s.ref.events)
    res = refused_without_change(s, lambda: s.do(Challenge, 50_001, player=1), "window_closed")
    assert "window closed" in res.reason
    assert s.state == before and len(s.ref.events) == n
    refused_without_change(s, lambda: s.do(Hold, 51_000, player=1), "window_closed")


def test_ref_wrong_player_and_time_order_refused():
    s = Script("nsf")
    res = refused_without_change(s, lambda: s.play(1, "8D", "QUIRT", 10_000), "wrong_player")
    assert "Ann's turn" in res.reason
    s.play(0, "8D", "QUIRT", 10_000)
    refused_without_change(s, lambda: s.do(Pass, 9_000, player=1), "time_order")
    refused_without_change(s, lambda: s.do(Pass, 20_000, player=7), "bad_player")
    refused_without_change(s, lambda: s.ref.apply(GameStarted(t=30_000, preset=load_preset("nsf").to_dict(),
                                                              players=("X", "Y"))), "already_started")
    assert Referee().apply(Pass(t=0, player=0)).code == "not_started"


def test_ref_bad_game_start_refused():
    p = load_preset("nsf").to_dict()
    assert Referee().apply(GameStarted(t=0, preset=p, players=("A", "B", "C"))).code == "bad_players"
    assert Referee().apply(GameStarted(t=0, preset=p, players=("A", "A"))).code == "bad_players"
    assert Referee().apply(GameStarted(t=0, preset={"name": "x"}, players=("A", "B"))).code == "bad_preset"
    assert Referee().apply(GameStarted(t=0, preset=p, players=("A", "B"), first=2)).code == "bad_players"


@pytest.mark.parametrize("preset", ["nsf", "home"])
def test_ref_exchange_with_fewer_than_seven_in_bag_refused_or_a_pass(preset):
    events = random_game(preset, seed=11)
    ref = Referee()
    for ev in events:
        assert ref.apply(ev)
        st = ref.state
        if st.phase == "playing" and st.on_move is not None and 0 < st.bag - st.to_draw < 7:
            break
    else:
        pytest.fail("the scripted game never had 1-6 tiles in the bag")
    before = ref.state
    assert before.exchange_counts == ()  # the exchange screen offers none
    res = ref.apply(Exchange(t=before.last_t + 1_000, player=before.on_move, count=1))
    if preset == "nsf":  # seed 002 II.H: an improper exchange counts as a pass
        assert res.accepted and ref.state.history[-1].kind == "pass"
        return
    assert not res.accepted and res.code == "bag_too_small" and "needs at least 7" in res.reason
    assert ref.state == before
    assert ref.apply(Pass(t=before.last_t + 1_000, player=before.on_move))


def test_ref_exchange_keeps_bag_size_and_counts_scoreless():
    s = Script("nsf")
    assert s.do(Exchange, 10_000, player=0, count=3)
    st = s.state
    assert st.bag == 86 and st.racks == (7, 7) and st.scoreless_run == 1 and st.on_move == 1
    refused_without_change(s, lambda: s.do(Exchange, 11_000, player=1, count=8), "bad_count")
    refused_without_change(s, lambda: s.do(Exchange, 11_000, player=1, count=0), "bad_count")


def test_ref_team_exchange_one_or_all():
    s = Script("team")
    refused_without_change(s, lambda: s.do(Exchange, 10_000, player=0, count=3), "bad_count")
    assert s.do(Exchange, 10_000, player=0, count=7)
    assert s.do(Exchange, 11_000, player=1, count=1)


def test_ref_blank_designation_once_only():
    s = Script("nsf")
    assert s.play(0, "8G", "C?T", 10_000)
    st = s.state
    assert st.phase == "designating" and st.pending_blanks == (CENTRE,)
    assert st.clock.running is None  # neutralised until the blank is designated
    assert [p.kind for p in s.ref.pending_prompts()] == ["designate_blank"]
    refused_without_change(s, lambda: s.do(BlankDesignated, 11_000, player=0, square=CENTRE, letter="1"),
                           "bad_letter")
    refused_without_change(s, lambda: s.do(BlankDesignated, 11_000, player=0, square=CENTRE + 1, letter="A"),
                           "already_designated")
    assert s.do(BlankDesignated, 12_000, player=0, square=CENTRE, letter="a")
    st = s.state
    assert st.phase == "playing" and st.board[CENTRE] == "a" and st.scores == (8, 0)  # (C3 + blank 0 + T1) x2, H8 DWS
    assert st.last_play.word == "CaT"
    res = refused_without_change(s, lambda: s.do(BlankDesignated, 13_000, player=0, square=CENTRE, letter="O"),
                                 "already_designated")
    assert "never changes" in res.reason


def test_ref_tiles_that_cannot_exist_are_refused_for_the_judge():
    s = Script("nsf")
    s.play(0, "8G", "ZAX", 10_000)
    res = s.play(1, "I6", "ZAX", 20_000)  # a second Z (I6) cannot exist: a misread
    assert not res.accepted and res.code == "impossible_tiles" and res.judge
    assert "no Z left" in res.reason and res.squares
    s2 = Script("nsf")
    res = s2.ref.apply(Play(t=1, player=0, tiles=tuple((105 + i, "E") for i in range(8))))
    assert not res.accepted and res.code == "impossible_tiles" and "rack holds only 7" in res.reason


def test_ref_illegal_placement_refused_with_code_and_squares():
    s = Script("nsf")
    res = s.ref.apply(Play(t=1, player=0, tiles=((CENTRE, "A"), (CENTRE + 2, "T"))))
    assert not res.accepted and res.code == "gap" and res.judge and res.squares == (CENTRE + 1,)
    res = Script("school").ref.apply(Play(t=1, player=0, tiles=((0, "A"), (1, "T"))))
    assert not res.accepted and res.code == "first_not_centre" and res.squares == (0, 1)
    res = Script("team").ref.apply(Play(t=1, player=0, tiles=((CENTRE, "A"),)))
    assert not res.accepted and res.code == "first_too_short"


def test_ref_same_events_give_same_state_and_survive_json():
    for preset in ("nsf", "team", "club-reading", "casual"):
        events = random_game(preset, seed=5)
        a = Referee.from_events(events)
        b = Referee.from_events(event_from_dict(json.loads(json.dumps(e.to_dict()))) for e in events)
        assert a.state == b.state
        assert a.events == tuple(events)


@pytest.mark.parametrize("preset", ["nsf", "school", "home", "team", "casual", "club-reading"])
def test_ref_tiles_are_conserved_at_every_step(preset):
    for seed in range(4):
        players = ("A", "B", "C") if preset in ("home", "team", "casual") and seed % 2 else ("A", "B")
        ref = Referee()
        for ev in random_game(preset, seed, players):
            assert ref.apply(ev)
            st = ref.state
            if st.phase == "designating":
                continue
            board = sum(1 for c in st.board if c)
            assert st.bag + sum(st.racks) + st.kept_apart + board == 100, (ev, st.phase)
            assert all(0 <= r <= 7 for r in st.racks) and st.bag >= 0
            assert sum(v for _, v in st.unseen) == 100 - board


def test_ref_clock_press_then_board_reading():
    from kiosk.referee.events import ClockPressed

    s = Script("nsf")
    assert s.do(ClockPressed, 30_000, player=0)
    assert s.state.clock.running == 1 and s.state.pressed_at == 30_000
    assert [p.kind for p in s.ref.pending_prompts()] == ["read_board"]
    assert s.do(ClockPressed, 30_500, player=0).code == "already_pressed"
    assert s.play(1, "8D", "QUIRT", 31_000).code == "wrong_player"
    assert s.play(0, "8D", "QUIRT", 31_500)  # the reading arrives 1.5 s after the press
    st = s.state
    assert st.window_until_ms == 50_000 and st.pressed_at is None  # the window runs from the press
    assert s.ref.clock_remaining(0, 40_000) == 25 * 60_000 - 30_000
    assert s.ref.clock_remaining(1, 40_000) == 25 * 60_000 - 10_000
    assert s.do(ClockPressed, 45_000, player=1)
    assert s.do(Pass, 46_000, player=1)
    assert s.ref.clock_remaining(1, 60_000) == 25 * 60_000 - 15_000


def test_ref_school_exchange_any_turn_even_with_few_tiles_in_the_bag():
    ref = Referee()
    for ev in random_game("school", seed=3):
        assert ref.apply(ev)
        st = ref.state
        if st.phase == "playing" and st.on_move is not None and 0 < st.bag - st.to_draw < 7 and st.racks[st.on_move]:
            break
    else:
        pytest.fail("no position with 1-6 tiles in the bag")
    res = ref.apply(Exchange(t=st.last_t + 1, player=st.on_move, count=1))
    assert res.accepted and ref.state.bag == st.bag - st.to_draw


def test_ref_team_refuses_a_plural_s():
    s = Script("team")
    s.play(0, "8G", "CAT", 1_000)
    res = s.play(1, "8G", "CATS", 2_000)
    assert not res.accepted and res.code == "plural_s" and res.squares == (CENTRE + 2,)
    assert s.play(1, "8G", "CATE", 2_000)


def test_ref_corrected_reading_replaces_a_play_waiting_for_its_blank():
    s = Script("nsf")
    s.play(0, "8G", "C?T", 10_000)
    assert s.state.phase == "designating"
    assert s.play(1, "8G", "CAT", 11_000).code == "wrong_phase"
    assert s.play(0, "8G", "CAT", 12_000)  # the camera misread the A as a blank
    st = s.state
    assert st.phase == "playing" and st.board[CENTRE] == "A" and st.scores == (10, 0)
