"""Clock faces, segment encoding and the HT16K33 driver checked against recorded I2C writes."""

from __future__ import annotations

import sys

import pytest
from dev_fakes import RecordingSMBus

from kiosk.devices.display import NullDisplay, SimulatedDisplay
from kiosk.devices.ht16k33 import HT16K33Display
from kiosk.devices.sevenseg import clock_face, text_face


@pytest.mark.parametrize("ms,ot,text", [
    (25 * 60_000, False, "25:00"),
    (9 * 60_000 + 59_001, False, "10:00"),   # rounded up: 9:59.001 left shows 10:00
    (59_999, False, " 1:00"),
    (1, False, " 0:01"),
    (0, False, " 0:00"),
    (0, True, "-0:00."),
    (-1, False, "-0:00."),
    (-65_999, False, "-1:05."),
    (-599_999, True, "-9:59."),
    (-600_000, True, "-10 ."),
    (-200 * 60_000, True, "-99 ."),
    (200 * 60_000, False, "99:59"),
])
def test_clock_faces(ms: int, ot: bool, text: str) -> None:
    assert str(clock_face(ms, ot)) == text


def test_segments_follow_the_datasheet_bits() -> None:
    # 12:34 -> 1 = b,c ; 2 = a,b,d,e,g ; 3 = a,b,c,d,g ; 4 = b,c,f,g
    assert clock_face(12 * 60_000 + 34_000).segments() == bytes([0x06, 0x5B, 0x4F, 0x66])
    assert clock_face(-61_000).segments() == bytes([0x40, 0x06, 0x3F, 0x06 | 0x80])  # "-1:01" + flag dp


def test_bad_times_and_text() -> None:
    with pytest.raises(ValueError, match="int ms"):
        clock_face(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="glyph"):
        text_face("WXYZ")
    assert text_face("Err").text == "Err "


def make(**kw) -> tuple[HT16K33Display, RecordingSMBus]:
    bus = RecordingSMBus(**kw)
    disp = HT16K33Display({"left": 0x70, "right": 0x72}, bus=1, brightness=8, bus_factory=lambda n: bus)
    return disp, bus


def test_init_sequence_then_blank_ram() -> None:
    disp, bus = make()
    assert bus.writes[:5] == [("byte", 0x70, 0x21), ("byte", 0x70, 0xE8), ("byte", 0x70, 0x81),
                              ("block", 0x70, 0x00, [0] * 16), ("byte", 0x70, 0x81)]
    assert bus.writes[5:8] == [("byte", 0x72, 0x21), ("byte", 0x72, 0xE8), ("byte", 0x72, 0x81)]
    assert disp.health().state == "ok"


def test_show_writes_digit_addresses_and_colon_only_on_change() -> None:
    disp, bus = make()
    bus.writes.clear()
    disp.show(12 * 60_000 + 34_000, -5_000, False, True)
    assert bus.writes == [
        ("block", 0x70, 0x00, [0x06, 0, 0x5B, 0, 0x02, 0, 0x4F, 0, 0x66, 0, 0, 0, 0, 0, 0, 0]),
        ("byte", 0x70, 0x81),
        ("block", 0x72, 0x00, [0x40, 0, 0x3F, 0, 0x02, 0, 0x3F, 0, 0x6D | 0x80, 0, 0, 0, 0, 0, 0, 0]),
        ("byte", 0x72, 0x81),
    ]
    bus.writes.clear()
    disp.show(12 * 60_000 + 33_500, -5_400, False, True)  # same faces: nothing to write
    assert bus.writes == []


def test_i2c_error_is_retried_with_reinit() -> None:
    disp, bus = make()
    bus.writes.clear()
    bus.fail_next = 1
    disp.show(60_000, 60_000)
    assert bus.writes[0] == ("byte", 0x70, 0x21)  # the retry re-initialises the chip
    assert ("block", 0x70, 0x00, [0, 0, 0x06, 0, 0x02, 0, 0x3F, 0, 0x3F, 0, 0, 0, 0, 0, 0, 0]) in bus.writes
    h = disp.health()
    assert h.state == "degraded" and h.counters["i2c_errors"] == 1


def test_persistent_i2c_error_is_reported_not_raised_and_recovers() -> None:
    disp, bus = make()
    bus.fail_next, bus.fail_addr = 100, 0x72
    disp.show(60_000, 60_000)
    h = disp.health()
    assert h.state == "down" and "0x72" in h.detail and h.counters["failed_updates"] == 1
    bus.fail_next = 0
    disp.show(60_000, 60_000)  # unchanged faces, but the failed side is written again
    assert disp.health().state == "ok"
    assert bus.writes[-2][:2] == ("block", 0x72)


def test_missing_bus_is_down(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_bus(n: int) -> RecordingSMBus:
        raise FileNotFoundError(2, "No such file or directory: '/dev/i2c-1'")

    disp = HT16K33Display(bus_factory=no_bus)
    assert disp.health().state == "down" and "I2C bus 1" in disp.health().detail
    disp.show(1000, 1000)


def test_default_factory_imports_smbus2_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    fake = types.ModuleType("smbus2")
    made: list[RecordingSMBus] = []
    fake.SMBus = lambda n: made.append(RecordingSMBus(n)) or made[-1]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "smbus2", fake)
    HT16K33Display(bus=3)
    assert made[0].bus == 3 and made[0].writes


@pytest.mark.parametrize("kw,match", [({"addresses": {"left": 0x70}}, "exactly"),
                                      ({"addresses": {"left": 0x20, "right": 0x71}}, "0x70..0x77"),
                                      ({"brightness": 16}, "0..15")])
def test_bad_display_config(kw: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        HT16K33Display(bus_factory=RecordingSMBus, **kw)


def test_null_and_simulated_displays() -> None:
    null = NullDisplay()
    null.show(1, 2)
    assert null.health().state == "absent"
    sim = SimulatedDisplay()
    sim.show(90_000, -3_000)
    assert sim.text == (" 1:30", "-0:03.")
    with pytest.raises(ValueError, match="right_ms"):
        sim.show(1, "x")  # type: ignore[arg-type]
