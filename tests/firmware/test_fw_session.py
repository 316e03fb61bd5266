"""Clock link sessions under controller resets and hostile frames (issue 19), on the simulated-time rig: the
real host thread against the real firmware core. Every press made on the clock arrives exactly once; no
forged, stale or replayed frame becomes a press; a reset is recovered within 3 s."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from firmware_bridge.firmware import proto
from firmware_bridge.firmware.app import ClockFirmware
from firmware_bridge.firmware.link import Link
from kiosk.devices.display import faces
from kiosk.devices.presses import PRESS_QUEUE_MAX
from tests.firmware.fw_rig import Rig

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[2]


def running_clock(rig: Rig, until_ms: int) -> None:
    """The kiosk shows the clocks every second (a running game): a DISPLAY per second."""
    for t in range(500, until_ms, 1000):
        rig.at(t, lambda r, t=t: r.link.show_faces(*faces(600_000 - t, 600_000, False, False)))


def presses_every(rig: Rig, start: int, end: int, step: int = 1500) -> None:
    for i, t in enumerate(range(start, end, step)):
        rig.at(t, lambda r, i=i: r.press(i % 2))


def recovery_ms(rig: Rig, reset_at: int) -> int:
    back = [t for t in rig.connected_at if t > reset_at]
    assert back, rig.connected_at
    return back[0] - reset_at


@pytest.mark.parametrize("running", [True, False], ids=["clock-running", "clock-paused"])
def test_controller_reset_is_recovered_within_3_s_and_no_press_is_lost(running: bool) -> None:
    rig = Rig(boot_id=0x1111_2222)
    if running:
        running_clock(rig, 40_000)
    rig.at(2000, lambda r: r.press(0))
    rig.at(5000, lambda r: r.reset(0x3333_4444))
    presses_every(rig, 5100, 35_000)
    got = rig.run_until(38_000)
    counters = rig.link.health().counters
    rig.close()
    assert len(got) == rig.pressed == 21, (len(got), rig.link.health().counters)  # was 1 of 21: 25 s and more
    assert [p.side for p in got] == ["left"] + [("left", "right")[i % 2] for i in range(20)]
    assert recovery_ms(rig, 5000) < 3000
    assert rig.link.boot_id == 0x3333_4444
    assert counters["opens"] == 1 and counters["rehandshakes"] == 1   # said HELLO again on the open port
    assert counters.get("link_losses", 0) == 0


def test_repeated_boot_id_loses_no_press() -> None:
    rig = Rig(boot_id=0xBEEF)
    running_clock(rig, 30_000)
    presses_every(rig, 1000, 4000, 500)            # 6 presses: the host's press counter is at 6
    rig.at(4500, lambda r: r.reset(0xBEEF))         # the new boot happens to draw the same id
    presses_every(rig, 4600, 25_000)                # 14 presses counted from 1 again
    got = rig.run_until(28_000)
    rig.close()
    assert len(got) == rig.pressed == 20, rig.link.health().counters  # 12 of 14 were dropped as copies


def test_counter_jump_is_not_delivered_and_does_not_block_later_presses() -> None:
    rig = Rig(boot_id=0x0102_0304)
    presses_every(rig, 500, 2000, 500)              # counters 1..3
    forged = proto.encode_frame(proto.BUTTON, 77, proto.pack_button(0, 1234, 3 + 0x7FFF, 0x0102_0304))
    rig.at(2500, lambda r: r.inject(forged))
    presses_every(rig, 3000, 12_000)                # 6 real presses after it
    got = rig.run_until(14_000)
    rig.close()
    counters = rig.link.health().counters
    assert len(got) == rig.pressed == 9, counters   # the jump blocked the next 6 real presses
    assert counters["implausible_presses"] == 1 and counters["counter_jumps"] == 1


def test_forged_hello_reply_and_replayed_presses_are_refused() -> None:
    rig = Rig(boot_id=0x5555_0001)
    presses_every(rig, 500, 3000, 500)              # 5 real presses, counters 1..5
    old = [proto.encode_frame(proto.BUTTON, 10 + i, proto.pack_button(1, 100 * i, i + 1, 0x5555_0001))
           for i in range(4)]
    reply = proto.encode_frame(proto.HELLO_REPLY, 0, proto.pack_hello_reply(
        proto.PROTOCOL_VERSION, 0x1234, 0, 0x6666_0002, 0, 0, "clockfw-2.0"))
    rig.at(4000, lambda r: r.inject(reply + b"".join(old)))   # a "new boot", then the old presses again
    stale = [proto.encode_frame(proto.BUTTON, 20 + i, proto.pack_button(0, 0, i + 1, 0x7777_0003)) for i in range(4)]
    rig.at(5000, lambda r: r.inject(b"".join(stale)))         # presses of another boot
    presses_every(rig, 6000, 9000)
    got = rig.run_until(10_000)
    rig.close()
    counters = rig.link.health().counters
    assert len(got) == rig.pressed == 7, counters   # the forged reply let 4 replayed presses through
    assert counters["stray_replies"] >= 1 and counters["other_boot_presses"] == 4
    assert counters["duplicate_presses"] == 4


def test_press_queue_is_bounded_and_loses_nothing_when_the_kiosk_does_not_poll() -> None:
    rig = Rig(boot_id=0x0A0B_0C0D)
    presses_every(rig, 500, 500 + 300 * 100, 100)   # 300 presses, more than the host's queue holds
    rig.link.start()
    from firmware_bridge.host import wait_until

    assert wait_until(lambda: rig.now >= 32_000, 60, 0.01)
    assert len(rig.link._presses) == PRESS_QUEUE_MAX        # bounded; the rest wait on the clock
    assert rig.link.health().counters["refused"] > 0
    got = rig.run_until(45_000)
    flood = [proto.encode_frame(proto.BUTTON, i & 0xFF, proto.pack_button(0, i, (301 + i) & 0xFFFF, 0x0A0B_0C0D))
             for i in range(20_000)]
    rig.at(rig.now + 10, lambda r: r.inject(b"".join(flood)))  # 20,000 frames of plausible presses
    rig.run_until(rig.now + 3000)
    rig.close()
    assert len(got) == rig.pressed == 300
    assert [p.source_ms for p in got] == sorted(p.source_ms for p in got)
    assert len(rig.link._presses) <= PRESS_QUEUE_MAX


def test_firmware_acknowledges_nothing_outside_a_session_and_says_so() -> None:
    fw = ClockFirmware(lambda: [False] * 4, lambda s, g, f: True, boot_id=0xCAFE_F00D)
    display = proto.encode_frame(proto.DISPLAY, 3, proto.pack_display(0, bytes(4), 0))
    frames = proto.FrameDecoder().feed(fw.step(10, display))
    assert [f[0] for f in frames] == [proto.NO_SESSION]       # no ACK: the host cannot take it for a session
    assert frames[0][2] == proto.pack_no_session(0xCAFE_F00D)
    assert fw.step(20, display) == b""                          # at most one NO_SESSION per 100 ms
    hb = proto.encode_frame(proto.HEARTBEAT, 0, proto.pack_heartbeat(5))
    assert [f[0] for f in proto.FrameDecoder().feed(fw.step(200, hb))] == [proto.NO_SESSION]


def test_firmware_queue_keeps_presses_over_status() -> None:
    link = Link(queue_max=4, precious=(proto.BUTTON,))
    link.send(proto.BUTTON, b"1")
    for _ in range(3):
        link.send(proto.STATUS, b"s")
    link.send(proto.BUTTON, b"2")
    link.send(proto.BUTTON, b"3")
    assert [b for t, b in link.pending if t == proto.BUTTON] == [b"1", b"2", b"3"]
    assert link.counters["queue_overflow"] == 2


def test_no_private_import_and_press_queue_has_a_cycle_free_home() -> None:
    for path in [*sorted((ROOT / "firmware_bridge").rglob("*.py")), *sorted((ROOT / "kiosk" / "devices").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ("kiosk",
                                                                                                 "firmware_bridge"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{path.name} imports private {private} from {node.module}"
    tree = ast.parse((ROOT / "kiosk" / "devices" / "presses.py").read_text())
    mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | \
        {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not {m for m in mods if m and m.split(".")[0] in ("kiosk", "firmware_bridge")}, mods


def test_presses_lost_on_a_full_clock_queue_are_counted_and_the_rest_delivered() -> None:
    rig = Rig(boot_id=0x0D0E_0F10)
    rig.at(300, lambda r: setattr(r, "wire_up", False))        # the host is away (cable in, nobody reading)
    presses_every(rig, 500, 500 + 140 * 100, 100)              # 140 presses: more than the clock's queue
    rig.at(15_000, lambda r: setattr(r, "wire_up", True))
    got = rig.run_until(40_000)
    rig.close()
    counters = rig.link.health().counters
    lost = counters.get("presses_lost_on_clock", 0)
    assert 0 < lost <= 140 - 128 and len(got) + lost == rig.pressed == 140, counters
    assert counters.get("implausible_presses", 0) == 0
    assert [p.source_ms for p in got] == sorted(p.source_ms for p in got)


def test_a_version_1_clock_is_named_and_refused() -> None:
    import struct

    from firmware_bridge.host import SerialClockLink

    link = SerialClockLink("/dev/null-never-opened")
    link._stop.set()  # no 5 s back-off in a test
    v1_reply = struct.pack(">BIH", 1, 1000, 0xBEEF) + b"clockfw-1.0"
    assert link._reply(Link(), v1_reply, 0) is False
    assert "clock firmware 'clockfw-1.0' speaks protocol v1, this kiosk speaks v2" in link.health().detail
    assert not link.connected
