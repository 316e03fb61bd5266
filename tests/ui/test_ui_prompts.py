"""Every prompt on screen (issue 18): the clocks on every screen, a way back from the PIN pad (and its
timeout, neither logged against the judge), withdrawing a challenge (002 II.L.8), the exchange counts the
preset allows, device problems shown, rack keys that read as tiles. Screenshots under artifacts/ui/."""

from __future__ import annotations

import pytest
from test_ui_screens import SIZES, end_the_game, enter_racks, shot, touch
from ui_fixtures import display, make_kiosk, play  # noqa: F401 - display: the autouse pygame fixture

from kiosk.control import commands as cmd
from kiosk.control.side import Side
from kiosk.control.words import device_notes
from kiosk.devices.health import DeviceHealth
from kiosk.referee.events import ClockNeutralised
from kiosk.referee.presets import load_preset
from kiosk.referee.simulate import random_game
from kiosk.ui import actions
from kiosk.ui.app import KioskUI
from kiosk.ui.status import clock_text


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_clocks_stay_on_the_hold_challenge_and_pin_screens(tmp_path, size, drawn):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    assert play(k, c, 0, "8D", "QUIRT")
    c.t += 2_000
    touch(ui, "Hold")
    for screen, then in (("hold", "Challenge"), ("ruling", "Acceptable"), ("pin", None)):
        drawn.clear()
        assert ui.draw() == screen
        for p in (0, 1):
            assert clock_text(k.remaining_ms(p)) in drawn, (screen, p, drawn)
        if then:
            touch(ui, then)


def test_002_II_L_8_the_challenger_withdraws_his_challenge_by_touch(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    assert play(k, c, 0, "8D", "QUIRT")
    c.t += 2_000
    touch(ui, "Challenge")
    assert k.state.phase == "challenged" and k.state.challenge_by == 1
    touch(ui, "Withdraw the challenge")
    assert k.state.phase == "playing" and k.state.scores == (48, 0)
    assert k.session.referee.events[-1].type == "challenge_withdrawn"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_pin_pad_has_a_way_back_and_times_out_without_blaming_the_judge(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    touch(ui, "Judge")
    touch(ui, "1")
    shot(ui, "21-pin-cancel", "pin")
    touch(ui, "Cancel")
    assert ui.draw() == "main" and k.pin.wrong_total == 0
    touch(ui, "Judge")
    c.t += actions.PIN_TIMEOUT_MS - 1
    assert ui.draw() == "pin"
    touch(ui, "2")  # a touch keeps it open
    c.t += actions.PIN_TIMEOUT_MS - 1
    assert ui.draw() == "pin"
    c.t += 1
    assert ui.draw() == "main" and k.pin.wrong_total == 0 and ui.pin_buffer == ""


def _team_kiosk_with_a_small_bag(tmp_path):
    """A team game (seed 004) played by the simulator until the bag holds 1-6 tiles, the player on move to move."""
    k, c = make_kiosk(tmp_path, preset="team", start=False)
    for e in random_game("team", seed=11):
        assert k.apply(e)
        st = k.state
        if st.phase == "playing" and st.on_move is not None and 1 <= st.bag - st.to_draw <= 6:
            break
    c.t = k.state.last_t
    return k, c


def _offered(ui: KioskUI) -> list[int]:
    return sorted(b.kw["count"] for b in ui.buttons if b.action == "exchange" and b.kw["count"])


def test_the_exchange_screen_offers_what_the_referee_allows_now(tmp_path):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    touch(ui, "Exchange")
    assert ui.draw() == "exchange" and _offered(ui) == list(k.state.exchange_counts) == [1, 2, 3, 4, 5, 6, 7]
    k2, c2 = _team_kiosk_with_a_small_bag(tmp_path / "team")
    ui2 = KioskUI(k2, (800, 480))
    ui2.draw()
    allowed = k2.state.exchange_counts  # 004: one or all, and only what the bag can give back
    assert all(n <= k2.state.bag - k2.state.to_draw for n in allowed)
    if allowed:
        touch(ui2, "Exchange")
        assert _offered(ui2) == list(allowed)
    else:
        assert not any(b.action == "exchange_open" and b.enabled for b in ui2.buttons)


def test_004_a_refused_exchange_at_the_press_takes_the_press_back_and_charges_the_mover(tmp_path):
    k, c = _team_kiosk_with_a_small_bag(tmp_path)
    st = k.state
    mover, opp = st.on_move, 1 - st.on_move
    count = st.racks[mover]  # "all": the count team allows, more than the bag holds
    assert count not in st.exchange_counts
    assert k.handle(cmd.Exchange(count))
    c.t += 10_000
    press = c.t
    opp_left, mover_left = k.remaining_ms(opp), k.remaining_ms(mover)
    k.press(Side(mover))
    assert [e.type for e in k.session.referee.events[-2:]] == ["clock_pressed", "press_withdrawn"]
    assert k.state.on_move == mover and k.state.pressed_at is None and k.state.clock.running == mover
    assert "bag" in k.view.message and "_" not in k.view.message  # a sentence, not the refusal's code
    c.t = press + 90_000
    k.press(Side(mover))  # no camera: a pass, 90 s after the first press
    assert k.session.referee.events[-1].type == "pass"
    assert k.remaining_ms(opp) == opp_left  # the opponent lost nothing for the refused exchange
    assert k.session.referee.clock_remaining(mover, press + 90_000) == mover_left - 90_000


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_team_exchange_screen_shows_one_or_all(tmp_path, size):
    k, c = make_kiosk(tmp_path, preset="team")
    ui = KioskUI(k, size)
    touch(ui, "Exchange")
    shot(ui, "22-exchange-team", "exchange")
    assert sorted(b.kw["count"] for b in ui.buttons if b.action == "exchange" and b.kw["count"]) == [1, 7]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_device_that_is_down_is_shown_on_every_screen(tmp_path, size, drawn):
    k, c = make_kiosk(tmp_path)
    k.view.devices = device_notes([
        DeviceHealth("camera", "picamera2", "down", "no sensor"),
        DeviceHealth("display", "ht16k33", "degraded", "retried"),
        DeviceHealth("buttons", "gpio", "ok")])
    assert k.view.devices == ("Camera not working.", "Clock display having trouble.")
    ui = KioskUI(k, size)
    shot(ui, "23-devices-main", "main")
    assert "Camera not working. Clock display having trouble." in drawn
    touch(ui, "Judge")
    drawn.clear()
    shot(ui, "24-devices-pin", "pin")
    assert "Camera not working. Clock display having trouble." in drawn
    assert device_notes([DeviceHealth("camera", "none", "absent")]) == ("No camera: the judge enters each move.",)
    assert device_notes([DeviceHealth("display", "null", "absent")]) == ()


def test_rack_keys_show_the_letter_its_points_and_how_many_are_left_apart(tmp_path, drawn):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, (800, 480))
    end_the_game(ui)
    drawn.clear()
    assert ui.draw() == "racks"
    keys = {b.kw["letter"]: b.label for b in ui.buttons if b.action == "rack_letter"}
    assert keys["A"] == "A" and keys["?"] == "blank"  # no "A9": the count is apart, in its corner
    assert "x9" in drawn and "10" in drawn  # nine As left to enter; the Q's 10 points


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_001_club_turn_countdown_warning_session_warnings_and_the_reading_bonus_on_screen(tmp_path, size, drawn):
    k, c = make_kiosk(tmp_path, preset="club-reading")
    ui = KioskUI(k, size)
    c.t += 1_000
    k.poll()
    shot(ui, "25-club-turn-countdown", "main")
    assert any(t.startswith("Turn: 2:59 left") and "Session: 49:59 left" in t for t in drawn), drawn
    c.t += 125_000  # 2:06 into the turn: the 1-minute warning (rule 5: 3 minutes a turn)
    k.poll()
    drawn.clear()
    shot(ui, "26-club-turn-warning", "main")
    assert any(t.startswith("Turn: 0:54 left (warning: 1 minute)") for t in drawn), drawn
    assert play(k, c, 0, "8D", "READING", dt=10_000)  # rule: READING scores triple, once a game
    drawn.clear()
    shot(ui, "27-club-reading-bonus", "main")
    assert any(t.startswith("READING! Triple score: +") for t in drawn), drawn
    c.t += 1_000
    assert k.apply(ClockNeutralised(t=c.t, reason="judge call"))  # no turn runs out meanwhile
    c.t = k.state.started_t + 3000_000 - 170_000  # 2:50 before the call: both session warnings given
    k.poll()
    drawn.clear()
    shot(ui, "28-club-session-warning", "main")
    assert any("Session: 2:50 left (3 minutes warning)" in t for t in drawn), drawn
    touch(ui, "Judge")
    drawn.clear()
    shot(ui, "29-club-pin-timers", "pin")
    assert any("Session: 2:50 left" in t for t in drawn)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_004_rows_are_lettered_A_to_O_on_the_team_board(tmp_path, size, drawn):
    from kiosk.referee.presets import PresetError, parse_preset
    from kiosk.ui.board_view import square_label

    assert load_preset("team").board.rows == "letters" and load_preset("nsf").board.rows == "numbers"
    assert square_label(3, "letters") == "A4" and square_label(3) == "D1" and square_label(112, "letters") == "H8"
    k, c = make_kiosk(tmp_path, preset="team")
    ui = KioskUI(k, size)
    touch(ui, "Judge")
    for d in "2468":
        touch(ui, d)
    touch(ui, "OK")
    touch(ui, "Correct a square")
    touch(ui, "square", square=3)  # row 1, column 4
    drawn.clear()
    shot(ui, "30-team-row-letters", "judge_correct")
    assert "A4 is:" in drawn
    with pytest.raises(PresetError, match="board.rows"):
        parse_preset({"name": "x", "board": {"rows": "roman"}}, "x.toml")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_new_game_screen_over_a_final_table_has_a_way_back(tmp_path, size):
    k, c = make_kiosk(tmp_path)
    ui = KioskUI(k, size)
    end_the_game(ui)
    enter_racks(ui, k)
    touch(ui, "New game")
    shot(ui, "31-new-game-cancel", "new_game")
    touch(ui, "Cancel")
    assert ui.draw() == "over" and k.state.phase == "over"  # the final table stays
