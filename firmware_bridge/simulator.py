"""A clock microcontroller simulated on a pty pair: the real firmware core (:class:`ClockFirmware`) behind a
pseudo-terminal, so the real pyserial host code talks to it end to end.

The simulator makes ``link_path`` a symlink to the pty's slave, as udev does for the real board. Nothing else
is ever replaced or removed there: a path that holds anything but such a link (a file, a folder, a link to
anything but a pty: :func:`check_link_path`), or whose folder is missing, is refused with a sentence
(:class:`LinkPathError`) before anything is made; the link left by a killed simulator (to a pty) is taken over.
``unplug()`` closes the pty and removes the symlink it made (the host's reads fail, as on a pulled cable); ``plug()`` makes a new
pty; ``hang()`` keeps the port but stops answering (link loss by heartbeat timeout); ``press(side)`` holds a
button for ``hold_ms``; ``inject(data)`` sends raw bytes (garbage) to the host; ``reboot()`` resets the
controller. Every start (a new simulator) and every reboot is a new boot with a fresh random boot id, as the
real firmware draws one at each power-up (``firmware/main.py``), so the host tells a restarted clock from the
same boot (a fixed id made a restarted simulator's first press a copy of the last boot's, dropped); tests
may give the id (``boot_id``).

Run ``python -m firmware_bridge.simulator /tmp/scrabble-clock`` for an interactive clock: type l, r, p or j
and Enter to press, q (or end of input) to quit; the displays are printed when they change. Its first line
names its boot id. A path it may not use is refused in a sentence, exit 2.
"""

from __future__ import annotations

import argparse
import os
import secrets
import select
import signal
import stat
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


class LinkPathError(ValueError):
    """A path the simulator may not make its link (the message is a sentence naming the path and why)."""


def _is_pty_link(path: Path) -> bool:
    """Whether ``path`` is a symbolic link to a pseudo-terminal (``/dev/pts/N``; ``/dev/ttysN`` on macOS): the
    link a simulator makes, left behind by one that was killed."""
    try:
        target = os.readlink(path)
    except OSError:
        return False
    return target.startswith(("/dev/pts/", "/dev/ttys"))


def _kind(mode: int) -> str:
    return ("a folder" if stat.S_ISDIR(mode) else "a file" if stat.S_ISREG(mode)
            else "a symbolic link" if stat.S_ISLNK(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "something")


def check_link_path(path: str | Path) -> None:
    """Refuse (:class:`LinkPathError`) a path the simulator may not make its link: its folder missing (or no
    folder), or anything there but the link a simulator makes (a link to a pty)."""
    p = Path(path)
    folder = p.parent
    if not folder.is_dir():
        where = "does not exist" if not folder.exists() else "is not a folder"
        raise LinkPathError(f"cannot make the clock's link {p}: its folder {folder} {where}")
    try:
        mode = os.lstat(p).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise LinkPathError(f"cannot make the clock's link {p}: cannot look at it ({exc.strerror})") from None
    if stat.S_ISLNK(mode) and _is_pty_link(p):
        return
    what = _kind(mode)
    if stat.S_ISLNK(mode):
        what += f" to {os.readlink(p)}"
    raise LinkPathError(f"{p} is already there ({what}): the simulator replaces only a link to a pty that a "
                        "simulator made; give a path where nothing is, e.g. /tmp/scrabble-clock")


def random_boot_id(last: int | None = None) -> int:
    """A fresh boot id as the firmware draws one at power-up (``main.py``: 32 random bits, never 0): random,
    non-zero and never ``last``, the boot before (a reset must not repeat it)."""
    while True:
        boot_id = secrets.randbits(32)
        if boot_id and boot_id != last:
            return boot_id


class FirmwareSimulator:
    """``link_path``: where the udev-like symlink goes; ``boot_id``: this boot's id (default: a fresh random one,
    as the real firmware draws at each power-up, so a restarted simulator is another boot to the host; a test
    may set it); ``mcu_epoch_ms``: the MCU clock's value at start (differs from the host's clock, as a real one
    does); ``debounce_ms``; ``version``: protocol version the firmware claims."""

    def __init__(self, link_path: str | Path, boot_id: int | None = None, mcu_epoch_ms: int = 100_000,
                 debounce_ms: int = 20, version: int = proto.PROTOCOL_VERSION) -> None:
        self.link_path = Path(link_path)
        self.levels = [False] * len(proto.SIDES)
        self.displays: dict[int, tuple[bytes, int]] = {}
        self.display_writes = 0
        self.display_fails = False
        boot = random_boot_id() if boot_id is None else boot_id
        self.firmware = ClockFirmware(self._read, self._write, boot, debounce_ms, version)
        self._t0 = time.monotonic()
        self._epoch = mcu_epoch_ms
        self._releases: list[tuple[int, int]] = []
        self._lock = threading.Lock()
        self._master: int | None = None
        self._slave: int | None = None
        self._pty_name: str | None = None
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

    @property
    def boot_id(self) -> int:
        """This boot's id, as the clock sends it (HELLO_REPLY, every BUTTON)."""
        return int(self.firmware.boot_id)

    def reboot(self, boot_id: int | None = None) -> None:
        """Reset the controller: a new boot (``boot_id``, default a fresh random one), its session and its
        queued messages gone, its press counter from 0."""
        with self._lock:
            boot = random_boot_id(self.boot_id) if boot_id is None else boot_id
            self.firmware = ClockFirmware(self._read, self._write, boot, self.firmware.debouncers[0].debounce_ms,
                                          self.firmware.version)

    # ---- the cable ----
    def plug(self) -> None:
        """Create the pty and the symlink and start answering. Raises :class:`LinkPathError` (nothing made, nothing
        replaced) for a path the simulator may not use (:func:`check_link_path`)."""
        if self._master is not None:
            return
        check_link_path(self.link_path)
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        name = os.ttyname(slave)
        self._master, self._slave = master, slave
        try:
            self._link_to(name)
        except LinkPathError:
            os.close(master)
            os.close(slave)
            self._master = self._slave = None
            raise
        self._hung = False
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="fw-sim", daemon=True)
        self._thread.start()

    start = plug

    def _link_to(self, pty_name: str) -> None:
        """Point ``link_path`` at ``pty_name`` in one step: a new link under a name of its own beside it, renamed
        over the path (only a pty link or nothing is there: checked); the new link is removed if that fails."""
        while True:
            tmp = self.link_path.with_name(f".{self.link_path.name}.{secrets.token_hex(4)}.new")
            try:
                os.symlink(pty_name, tmp)
                break
            except FileExistsError:
                continue
            except OSError as exc:
                raise LinkPathError(f"cannot make the clock's link {self.link_path}: {exc.strerror}") from None
        try:
            os.replace(tmp, self.link_path)
        except OSError as exc:
            os.unlink(tmp)
            raise LinkPathError(f"cannot make the clock's link {self.link_path}: {exc.strerror}") from None
        self._pty_name = pty_name   # ours from here: unplug() removes it

    def unplug(self) -> None:
        """Pull the cable: stop, close the pty, remove the symlink it made (only that: a link to its own pty)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        name, self._pty_name = self._pty_name, None
        try:
            if name is not None and os.readlink(self.link_path) == name:
                os.unlink(self.link_path)
        except OSError:
            pass  # gone already, or no link: nothing of ours to remove

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


def _quit(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


HINT = "type l, r, p or j and Enter to press left, right, pause or judge; q to quit"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge.simulator",
                                     description="Simulated clock microcontroller on a pty")
    parser.add_argument("link", help="symlink path to create, e.g. /tmp/scrabble-clock (nothing may be there but "
                                     "a link a simulator left)")
    args = parser.parse_args(argv)
    sim = FirmwareSimulator(args.link)
    previous = signal.signal(signal.SIGTERM, _quit)   # a killed simulator removes its link too
    keys = {"l": "left", "r": "right", "p": "pause", "j": "judge"}
    shown: dict[int, str | None] = {}
    try:
        try:
            sim.plug()
        except LinkPathError as exc:
            print(f"{parser.prog}: {exc}", file=sys.stderr)
            return 2
        print(f"clock simulator on {args.link} -> {os.readlink(args.link)}, boot {sim.boot_id:08x}; {HINT}",
              flush=True)
        while True:
            if select.select([sys.stdin], [], [], 0.2)[0]:
                raw = sys.stdin.readline()
                line = raw.strip().lower()
                if raw == "" or line == "q":   # end of input, or q
                    break
                if line in keys:
                    sim.press(keys[line])
                elif line:
                    print(f"{line!r}: not a key; {HINT}", flush=True)
            for side in (0, 1):
                text = sim.display_text(side)
                if text != shown.get(side):
                    shown[side] = text
                    print(f"{'left ' if side == 0 else 'right'} display: {text}", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        sim.unplug()
        signal.signal(signal.SIGTERM, previous)
    return 0


if __name__ == "__main__":
    sys.exit(main())
