"""The RP2040 entry point (firmware/main.py) run under CPython against fake MicroPython hardware modules
(machine, micropython, select, time, sys): pins, I2C writes to the HT16K33 backpacks and USB bytes are the
code's real wiring, checked against the protocol."""

from __future__ import annotations

import builtins
import types
from pathlib import Path
from typing import Any

from firmware_bridge.firmware import app as fw_app
from firmware_bridge.firmware import proto
from firmware_bridge.firmware.link import Link

MAIN = Path(__file__).resolve().parents[2] / "firmware_bridge" / "firmware" / "main.py"


class Stop(Exception):
    pass


class Board:
    """The fake hardware: a ms clock advanced by sleep_ms, pin levels, recorded I2C and USB traffic."""

    def __init__(self, until_ms: int, events: dict[int, Any]) -> None:
        self.now = 0
        self.until = until_ms
        self.events = events              # ms -> callable(board) run when the clock passes it
        self.levels = {2: 1, 3: 1, 4: 1, 5: 1}
        self.i2c: list[tuple[int, bytes]] = []
        self.i2c_fail = False
        self.rx = bytearray()
        self.tx = bytearray()
        self.kbd_intr: list[int] = []
        self.host = Link()               # the Pi's end, answering over the fake USB
        self.host.active = True
        self.got: list[tuple[int, bytes]] = []
        self._seen = 0

    def modules(self) -> dict[str, types.ModuleType]:
        board = self
        machine = types.ModuleType("machine")

        class Pin:
            IN, OUT, PULL_UP = 0, 1, 2

            def __init__(self, num: int, mode: int = 0, pull: int | None = None) -> None:
                self.num = num

            def value(self) -> int:
                return board.levels.get(self.num, 1)

        class I2C:
            def __init__(self, bus: int, sda: Any = None, scl: Any = None, freq: int = 0) -> None:
                pass

            def writeto(self, addr: int, data: bytes) -> None:
                if board.i2c_fail:
                    raise OSError(5, "EIO")
                board.i2c.append((addr, bytes(data)))

        machine.Pin, machine.I2C = Pin, I2C
        micropython = types.ModuleType("micropython")
        micropython.kbd_intr = board.kbd_intr.append
        select = types.ModuleType("select")
        select.POLLIN = 1

        class Poll:
            def register(self, stream: Any, flags: int) -> None:
                pass

            def poll(self, timeout: int) -> list:
                return [(None, 1)] if board.rx else []

        select.poll = Poll
        time = types.ModuleType("time")
        time.ticks_ms = lambda: board.now
        time.ticks_diff = lambda a, b: a - b
        time.ticks_cpu = lambda: 0xBEEF

        def sleep_ms(ms: int) -> None:
            for t in [t for t in board.events if board.now < t <= board.now + ms]:
                board.events.pop(t)(board)
            board.now += ms
            board.got += board.host.receive(bytes(board.tx[board._seen:]), board.now)
            board._seen = len(board.tx)
            board.host.tick(board.now)
            board.rx.extend(board.host.take_output())
            if board.now >= board.until:
                raise Stop

        time.sleep_ms = sleep_ms
        sys_mod = types.ModuleType("sys")

        class In:
            def read(self, n: int) -> bytes:
                data = bytes(board.rx[:n])
                del board.rx[:n]
                return data

        class Out:
            def write(self, data: bytes) -> int:
                board.tx.extend(data)
                return len(data)

        sys_mod.stdin = types.SimpleNamespace(buffer=In())
        sys_mod.stdout = types.SimpleNamespace(buffer=Out())
        app = types.ModuleType("app")
        app.ClockFirmware = fw_app.ClockFirmware
        return {"machine": machine, "micropython": micropython, "select": select, "time": time, "sys": sys_mod,
                "app": app}

    def run(self) -> None:
        fakes = self.modules()
        real_import = builtins.__import__

        def imp(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
            if name in fakes:
                return fakes[name]
            return real_import(name, globals, locals, fromlist, level)

        namespace = {"__name__": "__main__", "__builtins__": {**builtins.__dict__, "__import__": imp}}
        try:
            exec(compile(MAIN.read_text(), str(MAIN), "exec"), namespace)
        except Stop:
            pass


def hello(board: Board) -> None:
    board.host.send_raw(proto.HELLO, proto.pack_hello(0xC0FFEE))


def test_board_wiring_end_to_end() -> None:
    display = proto.pack_display(1, bytes([0x06, 0x5B, 0x4F, 0x66]), proto.DISPLAY_COLON)
    events = {
        10: hello,
        100: lambda b: b.levels.__setitem__(3, 0),    # right button (GP3) down, active low
        180: lambda b: b.levels.__setitem__(3, 1),
        300: lambda b: b.host.send(proto.DISPLAY, display),
    }
    board = Board(1300, events)  # past the first 1 Hz heartbeat
    board.run()
    assert board.kbd_intr == [-1]  # Ctrl-C bytes are data on this link
    # both backpacks initialised as the datasheet says: oscillator on, display on, full brightness
    for addr in (0x70, 0x71):
        assert [d for a, d in board.i2c[:6] if a == addr] == [b"\x21", b"\x81", b"\xef"]
    # the host's heartbeat before its HELLO is answered NO_SESSION, never acknowledged
    assert board.got[0][0] == proto.NO_SESSION
    got = [m for m in board.got if m[0] != proto.NO_SESSION]
    kinds = [t for t, _ in got]
    assert kinds[0] == proto.HELLO_REPLY
    version, nonce, _, boot_id, _, _, firmware = proto.unpack_hello_reply(got[0][1])
    assert version == proto.PROTOCOL_VERSION and nonce == 0xC0FFEE and firmware.startswith("clockfw")
    assert boot_id != 0xBEEF  # not ticks_cpu() (16 bits, often repeated after a reset): os.urandom's 32 bits
    assert all(proto.unpack_button(b)[3] == boot_id for t, b in got if t == proto.BUTTON)
    presses = [proto.unpack_button(b) for t, b in got if t == proto.BUTTON]
    assert len(presses) == 1 and presses[0][0] == 1 and 100 <= presses[0][1] <= 103
    # the DISPLAY for the right side went to 0x71: digits at RAM 0, 2, 6, 8, colon bit at 4
    ram_writes = [d for a, d in board.i2c if a == 0x71 and len(d) == 17]
    assert ram_writes, board.i2c
    ram = ram_writes[-1]
    assert ram[0] == 0x00 and ram[1] == 0x06 and ram[3] == 0x5B and ram[5] == 0x02 and ram[7] == 0x4F \
        and ram[9] == 0x66
    assert board.host.inflight is None and not board.host.pending  # the DISPLAY was acknowledged
    assert proto.HEARTBEAT in kinds


def test_i2c_failure_is_reported_to_the_host() -> None:
    display = proto.pack_display(0, bytes(4), 0)
    events = {10: hello, 50: lambda b: setattr(b, "i2c_fail", True), 100: lambda b: b.host.send(proto.DISPLAY, display)}
    board = Board(400, events)
    board.run()
    statuses = [proto.unpack_status(b) for t, b in board.got if t == proto.STATUS]
    assert statuses == [(True, 0), (False, 1)]
