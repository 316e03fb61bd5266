"""The simulated clock picks a fresh boot id at each start, as the real firmware does at each power-up
(``firmware/main.py``: 32 random bits, never 0). It used boot id 00000001 on every start (a tester's finding):
a host could not tell a restarted simulator from the same boot, and the restarted clock's first press (counter 1
again) was dropped as a copy of the press the host had from the boot before."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from firmware_bridge.host import SerialClockLink, wait_until
from firmware_bridge.simulator import FirmwareSimulator, random_boot_id

pytestmark = pytest.mark.timeout(60)


def test_each_start_and_each_reboot_is_a_new_boot(tmp_path: Path) -> None:
    ids = {FirmwareSimulator(tmp_path / "clk").boot_id for _ in range(20)}
    assert len(ids) == 20 and 0 not in ids and all(0 < i <= 0xFFFF_FFFF for i in ids)
    sim = FirmwareSimulator(tmp_path / "clk", boot_id=0xA5A5_0001)     # a test sets it
    assert sim.boot_id == sim.firmware.boot_id == 0xA5A5_0001
    seen = [sim.boot_id]
    for _ in range(5):
        sim.reboot()
        assert sim.boot_id not in (0, seen[-1])
        seen.append(sim.boot_id)
    sim.reboot(7)
    assert sim.boot_id == 7
    assert all(random_boot_id(last) != last for last in (1, 7, 0xFFFF_FFFF))


def test_a_restarted_simulator_is_another_boot_to_the_host_and_its_first_press_arrives(tmp_path: Path) -> None:
    path = tmp_path / "clk"
    first = FirmwareSimulator(path)
    first.plug()
    link = SerialClockLink(str(path), reconnect_ms=50).start()
    second: FirmwareSimulator | None = None
    try:
        assert link.wait_connected(5), link.health().detail
        assert link.boot_id == first.boot_id
        first.press("left")
        got: list = []
        assert wait_until(lambda: bool(got.extend(link.poll())) or bool(got), 3)
        assert [p.side for p in got] == ["left"]           # press 1 of the first boot
        first.unplug()                                       # the simulator is stopped ...
        assert wait_until(lambda: not link.connected, 3)
        second = FirmwareSimulator(path)                     # ... and started again: a new boot
        second.plug()
        second.press("right")                                # its press 1, made as the host comes back
        assert wait_until(lambda: link.connected and link.boot_id == second.boot_id, 5), link.health().detail
        assert second.boot_id != first.boot_id
        got.clear()
        assert wait_until(lambda: bool(got.extend(link.poll())) or bool(got), 3), link.health().counters
        time.sleep(0.2)
        got += link.poll()
        assert [p.side for p in got] == ["right"]            # taken, not dropped as a copy of the first boot's press 1
        counters = link.health().counters
        assert counters.get("duplicate_presses", 0) == 0 and counters.get("other_boot_presses", 0) == 0
    finally:
        link.close()
        if second is not None:
            second.unplug()
