"""A clock microcontroller simulated on a pty pair: the real firmware core (:class:`ClockFirmware`) behind a
pseudo-terminal, so the real pyserial host code talks to it end to end.

The simulator makes ``link_path`` a symlink to the pty's slave, as udev does for the real board. ``unplug()``
closes the pty and removes the symlink (the host's reads fail, as on a pulled cable); ``plug()`` makes a new
pty; ``hang()`` keeps the port but stops answering (link loss by heartbeat timeout); ``press(side)`` holds a
button for ``hold_ms``; ``inject(data)`` sends raw bytes (garbage) to the host.

Run ``python -m firmware_bridge.simulator /tmp/scrabble-clock`` for an interactive clock: type l, r, p or j
and Enter to press; the displays are printed when they change.
"""

from __future__ import annotations

import argparse
import os
import select
import sys
import threading
import time
import tty
from pathlib import Path

from firmware_bridge.firmware import proto
from firmware_bridge.firmware.app import ClockFirmware

SEG_TO_CHAR = {0x3F: "0", 0x06: "1", 0x5B: "2", 0x4F: "3", 0x66: "4", 0x6D: "5", 0x7D: "6", 0x07: "7",
               0x7F: "8", 0x6F: "9", 0x40: "-", 0x00: " "}


def segments_text(segments: bytes, flags: int) -> str:
    """Read 4 segment bytes back as text, e.g. "25:00" or "-1:05." (decimal point = overtime flag)."""
    chars = "".join(SEG_TO_CHAR.get(b & 0x7F, "?") for b in segments)
    text = f"{chars[:2]}:{chars[2:]}" if flags & proto.DISPLAY_COLON else chars
    return text + ("." if segments and segments[-1] & 0x80 else "")


class FirmwareSimulator:
    """``link_path``: where the udev-like symlink goes; ``boot_id``; ``mcu_epoch_ms``: the MCU clock's value at
    start (differs from the host's clock, as a real one does); ``debounce_ms``; ``version``: protocol version
    the firmware claims."""

    def __init__(self, link_path: str | Path, boot_id: int = 1, mcu_epoch_ms: int = 100_000,
                 debounce_ms: int = 20, version: int = proto.PROTOCOL_VERSION) -> None:
        self.link_path = Path(link_path)
        self.levels = [False] * len(proto.SIDES)
        self.displays: dict[int, tuple[bytes, int]] = {}
        self.display_writes = 0
        self.display_fails = False
        self.firmware = ClockFirmware(self._read, self._write, boot_id, debounce_ms, version)
        self._t0 = time.monotonic()
        self._epoch = mcu_epoch_ms
        self._releases: list[tuple[int, int]] = []
        self._lock = threading.Lock()
        self._master: int | None = None
        self._slave: int | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._hung = False
        self.sent = 0

    # ---- the MCU's world ----
    def now_ms(self) -> int:
        """The simulated MCU's clock (ms)."""
        return self._epoch + int((time.monotonic() - self._t0) * 1000)

    def _read(self) -> list[bool]:
        return list(self.levels)

    def _write(self, side: int, segments: bytes, flags: int) -> bool:
        if self.display_fails:
            return False
        self.displays[side] = (bytes(segments), flags)
        self.display_writes += 1
        return True

    def display_text(self, side: int) -> str | None:
        """What side 0 (left) / 1 (right) shows now, or None before the first DISPLAY."""
        d = self.displays.get(side)
        return None if d is None else segments_text(*d)

    def press(self, side: str, hold_ms: int = 80) -> int:
        """Hold ``side``'s button for ``hold_ms``; returns the MCU ms of the press edge."""
        i = proto.SIDES.index(side)
        with self._lock:
            t = self.now_ms()
            self.levels[i] = True
            self._releases.append((t + hold_ms, i))
        return t

    def reboot(self, boot_id: int) -> None:
        with self._lock:
            self.firmware = ClockFirmware(self._read, self._write, boot_id, self.firmware.debouncers[0].debounce_ms,
                                          self.firmware.version)

    # ---- the cable ----
    def plug(self) -> None:
        """Create the pty and the symlink and start answering."""
        if self._master is not None:
            return
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.link_path.with_name(self.link_path.name + ".new")
        if tmp.is_symlink() or tmp.exists():
            tmp.unlink()
        tmp.symlink_to(os.ttyname(slave))
        os.replace(tmp, self.link_path)
        self._hung = False
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="fw-sim", daemon=True)
        self._thread.start()

    start = plug

    def unplug(self) -> None:
        """Pull the cable: stop, close the pty, remove the symlink."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        if self.link_path.is_symlink():
            self.link_path.unlink()

    close = unplug

    def hang(self, hung: bool = True) -> None:
        """Stop (or resume) reading and answering while the port stays open."""
        self._hung = hung

    def inject(self, data: bytes) -> None:
        """Send raw bytes to the host (noise on the line)."""
        if self._master is not None:
            os.write(self._master, data)

    def _run(self) -> None:
        master = self._master
        assert master is not None
        while not self._stop.is_set():
            r, _, _ = select.select([master], [], [], 0.002)
            rx = b""
            if r and not self._hung:
                try:
                    rx = os.read(master, 4096)
                except BlockingIOError:
                    rx = b""
                except OSError:
                    rx = b""
            if self._hung:
                time.sleep(0.005)
                continue
            with self._lock:
                now = self.now_ms()
                for item in [x for x in self._releases if x[0] <= now]:
                    self.levels[item[1]] = False
                    self._releases.remove(item)
                out = self.firmware.step(now, rx)
            if out:
                try:
                    os.write(master, out)
                    self.sent += len(out)
                except (BlockingIOError, OSError):
                    pass  # host not reading: the USB buffer overflows and bytes are lost, as on the real board


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Simulated clock microcontroller on a pty")
    parser.add_argument("link", help="symlink path to create, e.g. /tmp/scrabble-clock")
    args = parser.parse_args(argv)
    sim = FirmwareSimulator(args.link)
    sim.plug()
    print(f"clock simulator on {args.link} -> {os.readlink(args.link)}; type l/r/p/j + Enter, q to quit")
    keys = {"l": "left", "r": "right", "p": "pause", "j": "judge"}
    shown: dict[int, str | None] = {}
    try:
        while True:
            if select.select([sys.stdin], [], [], 0.2)[0]:
                line = sys.stdin.readline().strip().lower()
                if line in ("q", ""):
                    break
                if line in keys:
                    sim.press(keys[line])
            for side in (0, 1):
                text = sim.display_text(side)
                if text != shown.get(side):
                    shown[side] = text
                    print(f"{'left ' if side == 0 else 'right'} display: {text}")
    finally:
        sim.unplug()
    return 0


if __name__ == "__main__":
    sys.exit(main())
