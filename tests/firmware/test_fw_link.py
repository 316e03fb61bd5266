"""Link layer and firmware core without any port: two ends wired through a lossy in-memory channel."""

from __future__ import annotations

import random

from firmware_bridge.firmware import proto
from firmware_bridge.firmware.app import ClockFirmware
from firmware_bridge.firmware.link import Link


def test_reliable_message_survives_loss_and_duplicates_are_not_delivered_twice() -> None:
    rng = random.Random(1)
    a, b = Link(), Link()
    a.active = b.active = True
    for i in range(20):
        a.send(proto.BUTTON, proto.pack_button(0, i, i + 1))
    delivered = []
    for now in range(0, 20_000, 10):
        a.tick(now)
        out = a.take_output()
        if out and rng.random() > 0.3:          # 30 % of A's writes are lost
            delivered += [m for m in b.receive(out, now) if m[0] == proto.BUTTON]
            if rng.random() < 0.3:              # and some arrive twice
                delivered += [m for m in b.receive(out, now) if m[0] == proto.BUTTON]
        back = b.take_output()
        b.tick(now)
        back += b.take_output()
        if back and rng.random() > 0.3:         # 30 % of ACK writes are lost
            a.receive(back, now)
    counters = [proto.unpack_button(body)[2] for _, body in delivered]
    assert counters == list(range(1, 21))
    assert a.counters["retransmits"] > 0
    assert b.counters["duplicates"] > 0


def test_heartbeat_every_second_and_loss_after_silence() -> None:
    a = Link()
    a.active = True
    beats = 0
    for now in range(0, 5000, 10):
        a.tick(now)
        beats += sum(1 for f in proto.FrameDecoder().feed(a.take_output()) if f[0] == proto.HEARTBEAT)
    assert beats == 5
    a.receive(proto.encode_frame(proto.HEARTBEAT, 0, proto.pack_heartbeat(0)), 1000)
    assert a.alive(3000) and not a.alive(3500)


class Wire:
    def __init__(self) -> None:
        self.levels = [False] * 4
        self.shown: dict[int, tuple[bytes, int]] = {}
        self.fail = False

    def read(self) -> list[bool]:
        return list(self.levels)

    def write(self, side: int, seg: bytes, flags: int) -> bool:
        if self.fail:
            return False
        self.shown[side] = (seg, flags)
        return True


def test_firmware_core_handshake_press_display_status() -> None:
    wire = Wire()
    fw = ClockFirmware(wire.read, wire.write, boot_id=7)
    host = Link()
    host.active = True
    out = fw.step(0, proto.encode_frame(proto.HELLO, 0, proto.pack_hello(99)))
    msgs = host.receive(out, 0)
    assert msgs[0][0] == proto.HELLO_REPLY
    assert proto.unpack_hello_reply(msgs[0][1])[:4] == (proto.PROTOCOL_VERSION, 99, 0, 7)
    host.active = True
    wire.levels[1] = True
    got = msgs
    for now in range(1, 200):
        if now == 100:
            wire.levels[1] = False
        host.tick(now)
        got += host.receive(fw.step(now, host.take_output()), now)
    presses = [proto.unpack_button(b) for t, b in got if t == proto.BUTTON]
    assert presses == [(1, 1, 1, 7)]
    assert any(t == proto.STATUS for t, _ in got)
    host.send(proto.DISPLAY, proto.pack_display(0, b"\x06\x5b\x4f\x66", proto.DISPLAY_COLON))
    wire.fail = True
    for now in range(200, 260):
        host.tick(now)
        got += host.receive(fw.step(now, host.take_output()), now)
    status = [proto.unpack_status(b) for t, b in got if t == proto.STATUS]
    assert status[-1] == (False, 1)  # the MCU reports its display failing
    wire.fail = False
    host.send(proto.DISPLAY, proto.pack_display(0, b"\x06\x5b\x4f\x66", proto.DISPLAY_COLON))
    for now in range(260, 300):
        host.tick(now)
        got += host.receive(fw.step(now, host.take_output()), now)
    assert wire.shown[0] == (b"\x06\x5b\x4f\x66", proto.DISPLAY_COLON)


def test_firmware_ignores_garbage_and_keeps_presses_while_host_is_away() -> None:
    wire = Wire()
    fw = ClockFirmware(wire.read, wire.write)
    rng = random.Random(3)
    for now in range(0, 50):
        assert fw.step(now, bytes(rng.getrandbits(8) for _ in range(16))) == b""  # no session: silent
    wire.levels[0] = True
    for now in range(50, 120):
        fw.step(now)
    wire.levels[0] = False
    host = Link()
    out = fw.step(200, proto.encode_frame(proto.HELLO, 0, proto.pack_hello(5)))
    host.active = True
    got = host.receive(out, 200)
    for now in range(201, 260):
        host.tick(now)
        got += host.receive(fw.step(now, host.take_output()), now)
    assert [proto.unpack_button(b) for t, b in got if t == proto.BUTTON] == [(0, 50, 1, 0)]
