"""Clock-link faults are reported whole, as they happen: every fault and recovery in the log (the kiosk looked at
the health every 5 s, so an unplug of 4 s left no line), each distinct detail of an outage once (a silent,
echoing or wrong device logged its first detail only, never "no answer to HELLO"), errors in words (a regular
file as the port said "Could not configure port: (25, 'Inappropriate ioctl for device')"), a version 1
clock's true reply (the simulator's v1 sent a v2-shaped one, read as a garbled name) and a garbled firmware
name never printed raw."""

from __future__ import annotations

import logging
import struct
import threading
import time
from pathlib import Path

import pytest

from firmware_bridge.firmware import proto
from firmware_bridge.firmware.link import Link
from firmware_bridge.host import SerialClockLink, firmware_name, in_words, wait_until
from firmware_bridge.simulator import FirmwareSimulator

pytestmark = pytest.mark.timeout(60)
LOGGER = "kiosk.devices.clock_link"


class _Clock:
    """Simulated ms: every read of a fake port moves it on by 1 ms."""

    def __init__(self) -> None:
        self.ms = 0
        self.lock = threading.Lock()

    def __call__(self) -> int:
        return self.ms


class _WrongDevice:
    """A port that is no clock: silent (reads nothing), or echoing what the host writes."""

    def __init__(self, clock: _Clock, echo: bool) -> None:
        self.clock, self.echo, self.buf = clock, echo, bytearray()

    @property
    def in_waiting(self) -> int:
        return len(self.buf)

    def read(self, n: int) -> bytes:
        self.clock.ms += 1
        out, self.buf[:] = bytes(self.buf[:n]), self.buf[n:]
        return out

    def write(self, data: bytes) -> int:
        if self.echo:
            self.buf.extend(data)
        return len(data)

    def close(self) -> None:
        pass


def _messages(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == level]


@pytest.mark.parametrize("echo", [False, True], ids=["silent", "echoing"])
def test_a_wrong_device_logs_each_detail_of_its_outage_once(caplog, echo: bool) -> None:
    clock = _Clock()
    opened = []

    def factory(port: str, baud: int) -> _WrongDevice:
        opened.append(port)
        if len(opened) == 1:
            raise OSError(2, "No such file or directory")      # first not there, then a device that is no clock
        return _WrongDevice(clock, echo)

    caplog.set_level(logging.INFO, logger=LOGGER)
    link = SerialClockLink("/dev/ttyACM0", reconnect_ms=20, serial_factory=factory, clock=clock).start()
    try:
        assert wait_until(lambda: len(opened) >= 5, 20)     # four tries of the wrong device
    finally:
        link.close()
    assert _messages(caplog, logging.WARNING) == [
        "clock link down: /dev/ttyACM0 cannot be opened: it is not there (is the clock plugged in?)",
        "clock link down: /dev/ttyACM0: no answer to HELLO (wrong device or firmware?)"]
    assert _messages(caplog, logging.INFO) == []
    assert not any("waiting for the clock's HELLO_REPLY" in r.getMessage() for r in caplog.records)


@pytest.fixture
def sim(tmp_path: Path):
    s = FirmwareSimulator(tmp_path / "clk")
    s.plug()
    yield s
    s.unplug()


def test_a_short_unplug_is_logged_when_it_happens_and_so_is_its_recovery(sim, caplog) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    link = SerialClockLink(str(sim.link_path), reconnect_ms=50).start()
    try:
        assert link.wait_connected(5)
        sim.unplug()
        assert wait_until(lambda: len(_messages(caplog, logging.WARNING)) >= 2, 5)   # while it is out
        time.sleep(1.0)
        sim.plug()
        assert wait_until(lambda: len(_messages(caplog, logging.INFO)) >= 2, 5)
        sim.unplug()                                    # a second outage is logged again
        assert wait_until(lambda: len(_messages(caplog, logging.WARNING)) >= 4, 5)
    finally:
        link.close()
    warnings, infos = _messages(caplog, logging.WARNING), _messages(caplog, logging.INFO)
    port = sim.link_path
    assert warnings[0].startswith(f"clock link down: {port}: the port failed: ")
    assert warnings[1] == f"clock link down: {port} cannot be opened: it is not there (is the clock plugged in?)"
    assert warnings[2].startswith(f"clock link down: {port}: the port failed: ") and warnings[3] == warnings[1]
    boot = f"boot {sim.boot_id:08x}"                   # the simulator's own: random, as the firmware's
    assert infos[0] == f"clock link up: {port}: clockfw-2.0, {boot}"
    assert infos[1].startswith("clock link working again after 1.") and infos[1].endswith(f", {boot}")
    assert not any("closed" in m for m in warnings)     # closing the link is no fault


def test_a_port_that_is_no_serial_device_is_said_in_words(tmp_path: Path) -> None:
    regular = tmp_path / "regular"
    regular.write_text("x")
    cases = {regular: f"{regular} is not a serial device (a regular file)",
             tmp_path: f"{tmp_path} is not a serial device (a folder)",
             Path("/dev/null"): "/dev/null is not a serial device (it takes no serial settings: Inappropriate ioctl "
                                "for device)"}
    for port, detail in cases.items():
        link = SerialClockLink(str(port), reconnect_ms=50).start()
        try:
            assert wait_until(lambda lk=link, d=detail: lk.health().detail == d, 3), link.health().detail
        finally:
            link.close()


def test_errors_in_words_never_a_tuple_or_errno() -> None:
    import termios

    import serial

    assert in_words(termios.error(25, "Inappropriate ioctl for device")) == "Inappropriate ioctl for device"
    assert in_words(serial.SerialException("Could not configure port: (25, 'Inappropriate ioctl for device')")) \
        == "Could not configure port: Inappropriate ioctl for device"
    assert in_words(serial.SerialException("read failed: [Errno 5] Input/output error")) \
        == "read failed: Input/output error"
    assert in_words(OSError(5, "Input/output error")) == "Input/output error"


def test_the_simulators_version_1_clock_sends_a_true_version_1_reply(tmp_path: Path) -> None:
    sim = FirmwareSimulator(tmp_path / "clk", version=1)
    sim.plug()
    link = SerialClockLink(str(tmp_path / "clk"), reconnect_ms=50).start()
    try:
        expected = (f"{tmp_path / 'clk'}: clock firmware 'clockfw-1.0' speaks protocol v1, this kiosk speaks v2: "
                    "update the firmware")
        assert wait_until(lambda: link.health().detail == expected, 5), link.health().detail
    finally:
        link.close()
        sim.unplug()


def test_a_garbled_firmware_name_is_shown_in_hex() -> None:
    assert firmware_name(b"clockfw-2.0") == "clockfw-2.0"
    assert firmware_name(b"\xfdx\x00\x01") == "<unreadable name, hex fd 78 00 01>"
    assert firmware_name(b"") == "<no name>"
    link = SerialClockLink("/dev/null-never-opened")
    link._stop.set()  # no 5 s back-off in a test
    assert link._reply(Link(), struct.pack(">BIH", 1, 1000, 0xBEEF) + b"\xfdx\x00clockfw", 0) is False
    detail = link.health().detail
    assert "clock firmware '<unreadable name, hex fd 78 00 63 6c 6f 63 6b 66 77>' speaks protocol v1" in detail
    assert "\ufffd" not in detail and "\\x" not in detail
    link = SerialClockLink("/dev/null-never-opened")
    link._nonce = 7
    reply = proto.pack_hello_reply(proto.PROTOCOL_VERSION, 7, 1000, 0xBEEF, 0, 0, "clock\x01fw")
    assert link._reply(Link(), reply, 0) is True
    assert link.health().detail == "/dev/null-never-opened: <unreadable name, hex 63 6c 6f 63 6b 01 66 77>, boot 0000beef"


def test_a_short_outage_between_two_looks_at_the_health_is_still_shown(caplog) -> None:
    """The kiosk looks at the devices' health every 5 s: a link lost at 8 s and back at 9 s showed "ok" at both
    looks (5 s and 10 s). It now reports "degraded" for 10 s after it is back, naming the outage."""
    from fw_rig import Rig

    caplog.set_level(logging.INFO, logger=LOGGER)
    rig = Rig()
    looks: list = []
    for ms in range(5_000, 30_001, 5_000):
        rig.at(ms, lambda r: looks.append((r.now, r.link.health())))
    rig.at(5_500, lambda r: setattr(r, "wire_up", False))    # the cable pulled for 3.5 s between two looks
    rig.at(9_000, lambda r: setattr(r, "wire_up", True))
    rig.run_until(30_500)
    rig.close()
    states = [(ms, h.state) for ms, h in looks]
    assert states[0] == (5_000, "ok") and states[1] == (10_000, "degraded") and states[-1] == (30_000, "ok"), states
    detail = looks[1][1].detail
    assert detail.startswith("rig: clockfw-2.0, boot 12345678; working again after ")
    assert detail.endswith(" s out (rig: link lost (no heartbeat for 2500 ms))")
    assert _messages(caplog, logging.WARNING) == ["clock link down: rig: link lost (no heartbeat for 2500 ms)"]
    assert _messages(caplog, logging.INFO)[-1].startswith("clock link working again after ")
