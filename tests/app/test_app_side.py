"""Clock sides as a type (kiosk.control.side.Side), numbered by seat: "left"/"right" at a two-player clock,
any seat of a game with more players."""

from __future__ import annotations

import pytest
from app_fixtures import make_kiosk, settle
from common_fixtures import make_kiosk as make_kiosk_without_camera

from kiosk.control.side import LEFT, RIGHT, Side


def test_side_names_and_seats():
    assert (LEFT.seat, RIGHT.seat) == (0, 1) and (LEFT.name, RIGHT.name) == ("left", "right")
    assert Side.named("right") == RIGHT and Side(2).name == "seat 3" and Side.named("seat 4") == Side(3)
    assert [s.name for s in sorted([Side(2), RIGHT, LEFT])] == ["left", "right", "seat 3"]
    for bad in ("middle", "seat 2", "seat x", ""):
        with pytest.raises(ValueError, match="unknown side"):
            Side.named(bad)
    with pytest.raises(ValueError, match="not a seat number"):
        Side(-1)


def test_a_press_by_side_is_the_press_by_its_name(tmp_path):
    kiosk, table, clock, worker = make_kiosk(tmp_path)
    clock.t = 5_000
    assert kiosk.press(LEFT) == "reading"
    settle(kiosk, worker)
    assert kiosk.state.history[-1].kind == "pass" and kiosk.state.on_move == 1
    assert "Bob's turn" in kiosk.press(LEFT)
    events = kiosk.state.events
    assert kiosk.press(Side(2)) == "unknown side 'seat 3': 2 players"
    assert kiosk.press("middle") == "unknown side 'middle'"
    assert kiosk.state.events == events and kiosk.pending is None


def test_the_third_seat_presses_its_own_side(tmp_path):
    kiosk, clock = make_kiosk_without_camera(tmp_path, "home", players=("Ann", "Bob", "Cy"))
    for seat in range(3):
        clock.t += 1_000
        assert kiosk.press(Side(seat)) == "pass", seat
    assert [h.player for h in kiosk.state.history] == [0, 1, 2] and kiosk.state.on_move == 0
