"""End to end: the real pyserial host code against the firmware core running behind a pty pair."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.firmware import proto
from firmware_bridge.host import SerialClockLink, wait_until
from firmware_bridge.simulator import FirmwareSimulator
from kiosk.devices.health import monotonic_ms

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[FirmwareSimulator, SerialClockLink]]:
    sim = FirmwareSimulator(tmp_path / "scrabble-clock")
    sim.plug()
    link = SerialClockLink(str(tmp_path / "scrabble-clock"), reconnect_ms=100).start()
    assert link.wait_connected(5), link.health().detail
    yield sim, link
    link.close()
    sim.unplug()


def test_press_arrives_once_with_host_timestamp_and_display_updates(rig) -> None:
    sim, link = rig
    buttons, display = link.buttons(), link.display()
    assert link.health().state == "ok" and "clockfw" in link.health().detail
    before = monotonic_ms()
    sim.press("right", hold_ms=300)  # held 300 ms: still one press
    presses: list = []
    assert wait_until(lambda: bool(presses.extend(buttons.poll()) or presses), 3)
    assert wait_until(lambda: sim.levels[1] is False, 2)
    time.sleep(0.2)
    presses += buttons.poll()
    assert [p.side for p in presses] == ["right"]
    assert before - 5 <= presses[0].timestamp_ms <= before + 150  # mapped onto the host clock, not the MCU's
    assert presses[0].source_ms is not None and presses[0].source_ms >= 100_000
    assert buttons.poll() == []
    display.show(25 * 60_000, -65_000, False, True)
    assert wait_until(lambda: sim.display_text(1) == "-1:05.", 2), sim.display_text(1)
    assert sim.display_text(0) == "25:00"
    assert display.health().state == "ok"


def test_pulled_cable_is_detected_and_recovered(rig) -> None:
    sim, link = rig
    display = link.display()
    display.show(60_000, 120_000)
    assert wait_until(lambda: sim.display_text(0) == " 1:00", 2)
    sim.unplug()
    assert wait_until(lambda: not link.connected, 1.0)
    assert link.health().state == "down"
    display.show(59_000, 120_000)  # while unplugged: kept, sent after reconnecting
    time.sleep(0.3)
    sim.plug()
    assert wait_until(lambda: link.connected, 3), link.health().detail
    assert wait_until(lambda: sim.display_text(0) == " 0:59", 2)
    sim.press("left")
    assert wait_until(lambda: bool(link.poll()), 2)
    assert link.health().counters["link_losses"] == 1


def test_silent_clock_is_declared_lost_within_3_s_and_recovers(rig) -> None:
    sim, link = rig
    sim.hang()
    t0 = time.monotonic()
    assert wait_until(lambda: not link.connected, 3.5)
    lost_after = time.monotonic() - t0
    assert lost_after < 3.0, lost_after
    assert "link lost" in link.health().detail or "waiting" in link.health().detail
    sim.hang(False)
    assert wait_until(lambda: link.connected, 3)


def test_garbage_on_the_line_makes_no_phantom_press(rig) -> None:
    sim, link = rig
    import random

    rng = random.Random(7)
    for _ in range(50):  # 50 runs of noise, each ended by a delimiter: each is a frame to drop
        sim.inject(bytes(rng.randint(1, 255) for _ in range(rng.randint(1, 80))) + b"\x00")
    good = proto.encode_frame(proto.BUTTON, 200, proto.pack_button(0, 1, 999))
    sim.inject(good[:-4] + b"\x00")                     # truncated press
    bad = bytearray(good)
    bad[3] ^= 0x10
    sim.inject(bytes(bad))                              # corrupted press
    time.sleep(0.5)
    assert link.poll() == []
    counters = link.health().counters
    assert sum(v for k, v in counters.items() if k.startswith("dropped_")) >= 50
    assert link.connected
    sim.press("judge")
    assert wait_until(lambda: bool(link.poll()), 2)


def test_protocol_version_mismatch_is_reported(tmp_path: Path) -> None:
    sim = FirmwareSimulator(tmp_path / "clk", version=proto.PROTOCOL_VERSION + 1)
    sim.plug()
    link = SerialClockLink(str(tmp_path / "clk")).start()
    try:
        assert wait_until(lambda: f"protocol v{proto.PROTOCOL_VERSION + 1}" in link.health().detail, 3), link.health().detail
        assert not link.connected and link.health().state == "down"
    finally:
        link.close()
        sim.unplug()


def test_missing_device_is_down_not_fatal(tmp_path: Path) -> None:
    link = SerialClockLink(str(tmp_path / "nothing-here"), reconnect_ms=50).start()
    try:
        assert wait_until(lambda: "cannot be opened" in link.health().detail, 2)
        assert link.buttons().poll() == []
        link.display().show(1000, 1000)  # no exception
    finally:
        link.close()


def test_duplicate_press_counter_across_reconnect_is_dropped() -> None:
    link = SerialClockLink("/dev/null-never-opened")
    from firmware_bridge.firmware.link import Link

    lk = Link()
    link.connected = True
    link.boot_id, link._last_counter = 0xABCD0123, 41
    body = proto.pack_button(1, 500, 42, 0xABCD0123)
    link._handle(lk, proto.BUTTON, body, 1000)
    link._handle(lk, proto.BUTTON, body, 1010)  # the same press re-sent after a lost ACK and a reconnect
    assert [p.side for p in link.poll()] == ["right"]
    assert link.totals["duplicate_presses"] == 1


def test_controller_reset_while_the_clock_runs_is_recovered_on_the_real_port(rig) -> None:
    sim, link = rig
    display = link.display()
    display.show(600_000, 600_000)
    assert wait_until(lambda: sim.display_text(0) == "10:00", 2)
    sim.reboot(0xA5A5_0001)                      # the controller resets: its session is gone
    t0 = time.monotonic()
    ms = 600_000
    while time.monotonic() - t0 < 3 and not (link.connected and link.boot_id == 0xA5A5_0001):
        ms -= 100
        display.show(ms, 600_000)                # the clock runs: a new face every 100 ms
        time.sleep(0.1)
    recovered = time.monotonic() - t0
    assert link.boot_id == 0xA5A5_0001 and link.connected and recovered < 3.0, (recovered, link.health())
    sim.press("right")
    got: list = []
    assert wait_until(lambda: bool(got.extend(link.poll())) or bool(got), 2)
    assert [p.side for p in got] == ["right"]
    assert link.health().counters["rehandshakes"] == 1
