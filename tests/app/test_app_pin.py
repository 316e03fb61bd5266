"""The judge PIN: right PIN opens, wrong ones are counted, logged and slowed down - per screen, for seconds only,
remembered across a restart - and the director's code always opens. PINs are 4-8 ASCII digits."""

import logging

import pytest

from kiosk.app.config import ConfigError, load_config
from kiosk.app.pin import PinGate


def test_right_pin_opens_and_resets_the_count():
    g = PinGate("2468")
    assert g.check("1111", 0)[0] is False
    assert g.check("2468", 10) == (True, "The PIN is accepted.")
    assert g.wrong_in_row == 0 and g.wrong_total == 1


def test_wrong_pins_slow_the_screen_even_for_the_right_pin(caplog):
    g = PinGate("2468", free_tries=3, base_ms=2_000)
    with caplog.at_level(logging.WARNING, logger="kiosk.judge"):
        for i in range(3):
            ok, msg = g.check("0000", i, "judge menu")
            assert not ok
    assert msg == "Wrong PIN. Wait 2 seconds, then try again."
    assert sum("wrong judge PIN" in r.message for r in caplog.records) == 3
    ok, msg = g.check("2468", 1_000, "judge menu")
    assert not ok and msg == "Too many wrong PINs. Wait 2 seconds, then try again."   # 1002 ms, rounded up
    assert g.check("2468", 2, "judge menu") == (False, "Too many wrong PINs. Wait 2 seconds, then try again.")  # not 3
    assert g.check("2468", 2_100, "judge menu")[0]


def test_a_player_cannot_lock_the_judge_out():
    """Before: three wrong PINs locked every screen, the right PIN too, for up to 600 s per further try."""
    g = PinGate("2468")
    t = 0
    for _ in range(200):  # a player hammering the ruling screen, one wrong PIN a second for 200 s
        g.check("1111", t, "challenge ruling")
        t += 1_000
    assert g.check("2468", t, "judge menu")[0]  # another screen is not affected at all
    assert g.locked(t, "challenge ruling") <= 8_000  # and this one waits seconds, not minutes
    assert g.check("2468", t + 8_000, "challenge ruling")[0]


def test_the_wait_doubles_and_is_capped_at_seconds():
    g = PinGate("2468", free_tries=1, base_ms=1_000, max_lockout_ms=3_000)
    g.check("1111", 0)
    assert g.locked(0) == 1_000
    g.check("1111", 1_000)
    assert g.locked(1_000) == 2_000
    g.check("1111", 3_000)
    assert g.locked(3_000) == 3_000
    assert g.locked(-10**9) == 3_000  # a clock that went back does not make it longer


def test_the_directors_code_opens_and_clears_every_wait(caplog):
    g = PinGate("2468", recovery_code="90817263")
    for t in range(10):
        g.check("1111", t, "judge menu")
        g.check("1111", t, "challenge ruling")
    with caplog.at_level(logging.WARNING, logger="kiosk.judge"):
        assert g.check("90817263", 20, "judge menu") == (True, "The director's code is accepted: every PIN wait is cleared.")
    assert "recovery code used" in caplog.text
    assert g.locked(20, "judge menu") == 0 and g.locked(20, "challenge ruling") == 0
    assert g.check("2468", 21, "challenge ruling")[0]


def test_the_waits_survive_a_restart(tmp_path):
    state = tmp_path / "journal.sqlite.pin.json"
    g = PinGate("2468", state_path=state)
    for t in range(3):
        g.check("1111", t, "judge menu")
    assert g.locked(10, "judge menu") > 0
    again = PinGate("2468", state_path=state)  # the kiosk restarted: no fresh tries
    assert again.locked(10, "judge menu") == g.locked(10, "judge menu") and again.wrong_total == 3
    assert not again.check("1111", 5_000, "judge menu")[0] and again.locked(5_000, "judge menu") == 2_000
    assert again.check("2468", 7_000, "judge menu")[0]
    assert PinGate("2468", state_path=state).wrong_in_row == 0
    state.write_text("{not json")
    assert PinGate("2468", state_path=state).check("2468", 0)[0]  # unreadable: logged, the gate still works


@pytest.mark.parametrize("pin", ["", "1", "123", "123456789", "12a4", "١٢٣٤", "²²²²", " 1234", "1234\n"])
def test_pin_must_be_4_to_8_ascii_digits(pin):
    with pytest.raises(ValueError, match="4 to 8 digits 0-9"):
        PinGate(pin)


@pytest.mark.parametrize("pin", ["0000", "2468", "12345678"])
def test_good_pins_are_taken(pin):
    assert PinGate(pin).check(pin, 0)[0]


def _config(tmp_path, table: str):
    p = tmp_path / "kiosk.toml"
    p.write_text(f"[table]\n{table}\n", encoding="utf-8")
    return p


@pytest.mark.parametrize("pin", ["1", "123456789", "١٢٣٤", "12 34"])
def test_config_refuses_a_bad_pin_by_name(tmp_path, pin):
    with pytest.raises(ConfigError, match=r"table.judge_pin: expected 4 to 8 digits 0-9"):
        load_config(_config(tmp_path, f'judge_pin = "{pin}"'))


@pytest.mark.parametrize(("line", "said"), [
    ("judge_pin = 2468", 'table.judge_pin = 2468: a PIN is text, so write it in quotes: judge_pin = "2468" (a number '
                         "would lose its leading zeros)"),
    ("judge_pin = 12", 'table.judge_pin = 12: a PIN is text, so write it in quotes: judge_pin = "12" (a number would '
                       "lose its leading zeros); and it must be 4 to 8 digits 0-9"),
    ('judge_pin = "2468"\ndirector_code = 90817263',
     'table.director_code = 90817263: a PIN is text, so write it in quotes: director_code = "90817263" (a number '
     "would lose its leading zeros)"),
])
def test_config_refuses_a_pin_given_as_a_number_showing_it_in_quotes(tmp_path, line, said):
    """A TOML number for a PIN (judge_pin = 2468) was refused as 'expected a string' (judge_pin) or 'expected 4 to
    8 digits' (director_code): the sentence now names file and key and shows the quoted form."""
    path = _config(tmp_path, line)
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert str(e.value) == f"{path}: {said}"


@pytest.mark.parametrize(("code", "why"), [("12345", "6 to 8 digits"), ("2468", "6 to 8 digits"),
                                           ("123456789", "6 to 8 digits"),
                                           ("24682468", "must differ from the judge PIN"), ("12345٦", "6 to 8")])
def test_config_checks_the_directors_code(tmp_path, code, why):
    with pytest.raises(ConfigError, match=f"table.director_code: .*{why}"):
        load_config(_config(tmp_path, f'judge_pin = "24682468"\ndirector_code = "{code}"'))
    cfg = load_config(_config(tmp_path, 'judge_pin = "2468"\ndirector_code = "90817263"'))
    assert cfg.judge_pin == "2468" and cfg.director_code == "90817263"


def test_the_pin_state_is_never_read_from_or_written_over_a_fifo(tmp_path, caplog):
    # a FIFO at the state's path would block the kiosk's start on reading, and be replaced on saving
    import os
    state = tmp_path / "journal.sqlite.pin.json"
    os.mkfifo(state)
    with caplog.at_level(logging.ERROR, logger="kiosk.judge"):
        g = PinGate("2468", state_path=state)      # returns at once: the FIFO is not opened
        assert not g.check("1111", 0, "judge menu")[0]
    assert state.is_fifo()
    assert "not a regular file" in caplog.text and "not a file the kiosk may replace" in caplog.text
