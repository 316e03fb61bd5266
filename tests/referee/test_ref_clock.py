"""The chess clock charges time between event timestamps; overtime penalty as seed 002 III.C.2 states."""

from __future__ import annotations

import pytest

from kiosk.referee.clock import ChessClock, overtime_penalty


def test_ref_clock_charges_the_running_player_only():
    c = ChessClock(2, 25 * 60_000)
    c.start(0, 1_000)
    c.start(1, 31_000)      # player 0 used 30 s
    c.stop(41_000)          # player 1 used 10 s, then neutralised
    c.start(1, 100_000, new_turn=False)
    assert c.remaining(0, 200_000) == 25 * 60_000 - 30_000
    assert c.remaining(1, 160_000) == 25 * 60_000 - 10_000 - 60_000
    assert c.turn_used_at(160_000) == 70_000


def test_ref_clock_skip_charges_nobody():
    c = ChessClock(2, 60_000)
    c.start(0, 0)
    c.advance(10_000)
    c.skip(500_000)         # kiosk down
    assert c.remaining(0, 510_000) == 60_000 - 20_000


def test_ref_clock_refuses_time_going_backwards():
    c = ChessClock(2, 60_000)
    c.start(0, 5_000)
    with pytest.raises(ValueError, match="backwards"):
        c.start(1, 4_000)


def test_ref_clock_without_chess_clock_has_no_remaining_time():
    c = ChessClock(3, None)
    c.start(2, 0)
    assert c.remaining(2, 10_000) is None
    assert c.turn_used_at(10_000) == 10_000


@pytest.mark.parametrize("over_ms, points", [
    (0, 0), (999, 0),            # "-0:00" is not overtime
    (1_000, 10), (60_000, 10),   # a minute or part of one: 10
    (60_999, 10), (61_000, 20), (120_000, 20), (121_000, 30),
    (-5_000, 0),
])
def test_ref_overtime_penalty_per_started_minute(over_ms, points):
    assert overtime_penalty(over_ms, 10, 60_000) == points
