"""The judge PIN: right PIN opens, wrong ones are counted, logged and rate-limited."""

import logging

import pytest

from kiosk.app.pin import PinGate


def test_right_pin_opens_and_resets_the_count():
    g = PinGate("2468")
    assert g.check("1111", 0)[0] is False
    assert g.check("2468", 10) == (True, "PIN accepted")
    assert g.wrong_in_row == 0 and g.wrong_total == 1


def test_wrong_pins_lock_the_gate_even_for_the_right_pin(caplog):
    g = PinGate("2468", free_tries=3, lockout_ms=30_000)
    with caplog.at_level(logging.WARNING, logger="kiosk.judge"):
        for i in range(3):
            ok, msg = g.check("0000", i)
            assert not ok
    assert "locked for 30 s" in msg
    assert sum("wrong judge PIN" in r.message for r in caplog.records) == 3
    ok, msg = g.check("2468", 1_000)
    assert not ok and "wait" in msg
    assert g.check("2468", 40_000)[0]


def test_lockout_doubles_and_is_capped():
    g = PinGate("1", free_tries=1, lockout_ms=1_000, max_lockout_ms=3_000)
    g.check("2", 0)
    assert g.locked(0) == 1_000
    g.check("2", 1_000)
    assert g.locked(1_000) == 2_000
    g.check("2", 3_000)
    assert g.locked(3_000) == 3_000


@pytest.mark.parametrize("pin", ["", "12a4"])
def test_pin_must_be_digits(pin):
    with pytest.raises(ValueError, match="digits"):
        PinGate(pin)
