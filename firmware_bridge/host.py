"""Host side of the clock link: pyserial, handshake, heartbeats, reconnection, press delivery, display updates.

:class:`SerialClockLink` runs one background thread that owns the port. It opens ``port`` (the udev symlink
``/dev/scrabble-clock``), says HELLO, and after the reply streams heartbeats; when the port errors (cable
pulled) or nothing good arrives for ``loss_ms`` (2.5 s; 2-3 s: at least two of the clock's 1 s heartbeats, so a
late heartbeat is no loss, and link loss is declared within 3 s: ``firmware.link.loss_problem``) it closes the port
and keeps trying to reopen it every ``reconnect_ms``. Presses carry the microcontroller's ms, mapped onto the
host's monotonic ms by the smallest (host - MCU) offset of recent heartbeats.

Sessions (protocol v2, see PROTOCOL.md): each handshake carries a fresh 32-bit nonce that the HELLO_REPLY must
echo (a stale or forged reply is ignored); NO_SESSION from the clock (it was reset) starts a new handshake at
once. Presses are checked against the boot id and the press counter: a copy is dropped, a jump ahead is held
back and confirmed by a new handshake (the reply says how far the clock has counted), never let through
blindly and never allowed to block the real presses after it. The press queue is bounded: when the kiosk
does not poll, further presses stay unacknowledged on the clock, which keeps sending them.

Every fault of the link is logged when it happens (logger ``kiosk.devices.clock_link``, a warning), not when the
kiosk next looks at the health: a cable pulled for a second is in the log, with its recovery ("working again
after 1.2 s", info). Within one outage each distinct detail is logged once (a wrong device that never answers
HELLO is retried every few seconds: its "no answer to HELLO" is logged once, not at each try); the steps of a
handshake ("open, waiting for the clock's HELLO_REPLY") are no faults and are not logged. A link back after an
outage reports "degraded" for :data:`RECENT_MS` (its detail says how long it was out and why), so the kiosk,
which looks at the health every 5 s, shows a short outage too. Errors are said in
words (:func:`in_words`): a regular file as the port is "PATH is not a serial device (a regular file)", never
pyserial's ``(25, 'Inappropriate ioctl for device')``; a firmware name that is not printable ASCII is shown in
hex (:func:`firmware_name`).
"""

from __future__ import annotations

import errno
import logging
import os
import re
import secrets
import stat
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Literal

from firmware_bridge.firmware import proto
from firmware_bridge.firmware.link import LOSS_MS, Link, loss_problem
from kiosk.devices.display import faces
from kiosk.devices.health import DeviceHealth, HealthTracker, monotonic_ms
from kiosk.devices.presses import ButtonPress, PressQueue
from kiosk.devices.sevenseg import ClockFace

DEFAULT_PORT = "/dev/scrabble-clock"
HELLO_EVERY_MS = 400
RECENT_MS = 10_000
"""How long a link that came back after an outage reports "degraded" (working; the outage in its detail) before
"ok": longer than the 5 s between the kiosk's looks at the devices' health, so a cable pulled for 4 s between
two looks is still shown (and logged by the kiosk) once."""

log = logging.getLogger("kiosk.devices.clock_link")

_ERRNO = re.compile(r"\[Errno -?\d+\] ")
_TUPLE = re.compile(r"\(-?\d+, ['\"]([^'\"]*)['\"]\)")


def in_words(exc: BaseException) -> str:
    """An exception of pyserial or the OS as words for a sentence: no ``[Errno N]``, no Python tuple
    (``termios.error(25, 'Inappropriate ioctl for device')`` reads "Inappropriate ioctl for device")."""
    args = exc.args
    if len(args) == 2 and isinstance(args[0], int) and isinstance(args[1], str) and not isinstance(exc, OSError):
        text = args[1]                      # termios.error and the like: (errno, text)
    elif isinstance(exc, OSError) and exc.strerror and type(exc).__module__ == "builtins":
        text = exc.strerror                 # OSError(5, 'Input/output error') and its kin: the text alone
    else:
        text = str(exc)
    text = _TUPLE.sub(lambda m: m.group(1), _ERRNO.sub("", text)).strip()
    return text or type(exc).__name__


class PortError(OSError):
    """The port cannot be a clock's: ``str()`` is the whole sentence, naming the port."""

    def __str__(self) -> str:
        return str(self.strerror)


def _kind(mode: int) -> str:
    return ("a folder" if stat.S_ISDIR(mode) else "a regular file" if stat.S_ISREG(mode)
            else "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a block device" if stat.S_ISBLK(mode) else "not a terminal")


def firmware_name(raw: bytes) -> str:
    """A firmware's name as the clock sent it, for a sentence: the text when it is printable ASCII, else its
    bytes in hex (a garbled or foreign reply is never printed raw)."""
    if raw and all(0x20 <= b < 0x7F for b in raw):
        return raw.decode("ascii")
    return f"<unreadable name, hex {raw.hex(' ')}>" if raw else "<no name>"


class OffsetEstimator:
    """Maps the clock microcontroller's ms (a u32 that wraps every 49.7 days) onto the host's monotonic ms: the
    least-delayed of the last ``window`` (host ms, MCU ms) samples wins (the window follows crystal drift). Each
    sample is taken as ``host + (mcu_ms - sample's mcu)``, that difference read modulo 2**32, so a press stamped
    after the MCU's count wrapped maps next to the samples from before it (as ``host - mcu`` offsets it was
    placed 49.7 days back, and the kiosk charged that turn nothing)."""

    def __init__(self, window: int = 8) -> None:
        self.samples: deque[tuple[int, int]] = deque(maxlen=window)

    def add(self, host_ms: int, mcu_ms: int) -> None:
        """A sample: the host's monotonic ms when an MCU message stamped ``mcu_ms`` arrived."""
        self.samples.append((host_ms, mcu_ms))

    def to_host(self, mcu_ms: int, host_now: int) -> int:
        """``mcu_ms`` on the host's monotonic clock, never after ``host_now`` (no sample yet: ``host_now``)."""
        if not self.samples:
            return host_now
        return min(min(host + _u32_diff(mcu_ms, mcu) for host, mcu in self.samples), host_now)

    def clear(self) -> None:
        self.samples.clear()


def _u32_diff(a: int, b: int) -> int:
    """``a - b`` for two u32 counters that may have wrapped, as a signed difference (|d| < 2**31)."""
    return (a - b + 0x8000_0000) % 0x1_0000_0000 - 0x8000_0000


class SerialClockLink:
    """The clock microcontroller over USB serial.

    ``port``: device path (udev symlink); ``serial_factory(port, baudrate) -> pyserial-like`` (default
    ``serial.Serial``); ``clock``: monotonic ms. Use :meth:`buttons` and :meth:`display` for the kiosk's
    ButtonSource / ClockDisplay views, :meth:`health` for the link itself.
    """

    def __init__(self, port: str = DEFAULT_PORT, baudrate: int = 115200, loss_ms: int = LOSS_MS,
                 reconnect_ms: int = 500, serial_factory: Callable[[str, int], Any] | None = None,
                 clock: Callable[[], int] = monotonic_ms) -> None:
        problem = loss_problem(loss_ms)  # the clock's heartbeat interval bounds it (firmware/link.py)
        if problem is not None:
            raise ValueError(f"clock link loss_ms {problem}")
        self.port = port
        self.baudrate = baudrate
        self.loss_ms = loss_ms
        self.reconnect_ms = reconnect_ms
        self._factory = serial_factory or _pyserial
        self._clock = clock
        self._lock = threading.Lock()
        self._presses = PressQueue()
        self._faces: list[ClockFace | None] = [None, None]
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ser: Any = None
        self._link: Link | None = None
        self.connected = False
        self.firmware = ""
        self.boot_id: int | None = None
        self._last_counter: int | None = None
        self._rehandshaking = False
        self._hs_fresh = False
        self._nonce: int | None = None          # the open handshake's nonce (None: no handshake open)
        self._clock_counter: int | None = None  # the clock's last press counter, from the last HELLO_REPLY
        self._jump: int | None = None           # a jumped press counter waiting for the next reply's word
        self._rehandshake: str | None = None     # why to say HELLO again after this read
        self._offset = OffsetEstimator()
        self.display_ok: bool | None = None
        self.totals: dict[str, int] = {}
        self._health = HealthTracker("clock-link", "serial", "down", f"{port} not opened yet")
        self._connected_evt = threading.Event()
        self._logged: set[str] = set()          # the fault details logged in this outage
        self._fault_ms: int | None = None       # when this outage's first fault was logged
        self._first_fault = ""                  # ... and its detail
        self._was_up = False
        self._recent_until: int | None = None   # reporting "degraded" after an outage until then (monotonic ms)
        self._ok_detail = ""

    # ---- public ----
    def start(self) -> SerialClockLink:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="clock-link", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._close_port("closed", step=True)

    def wait_connected(self, timeout_s: float) -> bool:
        """Block until the handshake is done (True) or ``timeout_s`` passes (False)."""
        return self._connected_evt.wait(timeout_s)

    def poll(self) -> list[ButtonPress]:
        return self._presses.drain()

    def show_faces(self, left: ClockFace, right: ClockFace) -> None:
        """Show two faces; sent now if connected (replacing a queued older one), else on reconnect."""
        with self._lock:
            for side, face in enumerate((left, right)):
                if self._faces[side] == face:
                    continue
                self._faces[side] = face
                if self.connected and self._link is not None:
                    self._queue_display(self._link, side, face)

    def health(self) -> DeviceHealth:
        with self._lock:
            self._health.set_counters(self._counters())
            if self._recent_until is not None and self._clock() >= self._recent_until:
                self._recent_until = None
                if self.connected:     # the outage is long enough past: "ok" again
                    self._health.set("ok", self._ok_detail)
        return self._health.snapshot()

    def buttons(self) -> SerialButtons:
        return SerialButtons(self)

    def display(self) -> SerialDisplay:
        return SerialDisplay(self)

    # ---- thread ----
    def _bump(self, name: str, by: int = 1) -> None:
        self.totals[name] = self.totals.get(name, 0) + by

    def _counters(self) -> dict[str, int]:
        c = dict(self.totals)
        if self._link is not None:
            for k, v in self._link.counters.items():
                c[k] = c.get(k, 0) + v
            for k, v in self._link.dropped().items():
                c["dropped_" + k] = c.get("dropped_" + k, 0) + v
        return c

    def _fold_counters(self) -> None:
        if self._link is not None:
            self.totals = self._counters()

    def _close_port(self, why: str, step: bool = False) -> None:
        with self._lock:  # "not connected" and health "down" become visible together
            was = self.connected or self._rehandshaking
            self._nonce = None
            self._rehandshaking = False
            self.connected = False
            self._connected_evt.clear()
            self._fold_counters()
            self._link = None
            ser, self._ser = self._ser, None
            if was:
                self.totals["link_losses"] = self.totals.get("link_losses", 0) + 1
            self._set_health("down", why, step)
        if ser is not None:
            try:
                ser.close()
            except Exception:  # closing a dead port can fail in several ways; it is gone either way
                pass

    def _set_health(self, state: Literal["ok", "down"], detail: str, step: bool = False) -> None:
        """Record the link's health and log it as it happens (see the module docstring): a fault (``step``
        False) the first time its detail comes in this outage, a recovery always, with how long it was out."""
        if state == "ok":
            now = self._clock()
            if self._fault_ms is not None and self._was_up:
                out = f"working again after {(now - self._fault_ms) / 1000:.1f} s out ({self._first_fault})"
                log.info("clock link %s: %s", out, detail)
                self._health.set("degraded", f"{detail}; {out}")   # shown for RECENT_MS: see health()
                self._recent_until, self._ok_detail = now + RECENT_MS, detail
            else:
                log.info("clock link up: %s", detail)
                self._health.set("ok", detail)
            self._logged.clear()
            self._fault_ms = None
            self._was_up = True
            return
        self._recent_until = None
        self._health.set(state, detail)
        if not step and detail not in self._logged:
            if self._fault_ms is None:
                self._fault_ms, self._first_fault = self._clock(), detail
            self._logged.add(detail)
            log.warning("clock link down: %s", detail)

    def _open_port(self) -> bool:
        try:
            ser = self._factory(self.port, self.baudrate)
        except PortError as exc:
            self._set_health("down", str(exc))
            return False
        except Exception as exc:  # pyserial raises SerialException/OSError/ValueError for a missing device
            number = getattr(exc, "errno", None)
            why = os.strerror(number).lower() if isinstance(number, int) and number > 0 else in_words(exc)
            if number == errno.ENOENT:
                why = "it is not there (is the clock plugged in?)"
            elif number == errno.EACCES:
                why += " (the kiosk's user needs the dialout group)"
            self._set_health("down", f"{self.port} cannot be opened: {why}")
            return False
        with self._lock:
            self._ser = ser
            self._link = Link(loss_ms=self.loss_ms, dedup=False, accept=self._accept)
            self._nonce = None
            self.totals["opens"] = self.totals.get("opens", 0) + 1
        last = self._health.snapshot().detail if self.totals.get("opens", 0) > 1 else ""
        self._set_health("down", f"{self.port} open, waiting for the clock's HELLO_REPLY"
                         + (f" (last: {last})" if last else ""), step=True)
        return True

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._ser is None and not self._open_port():
                self._stop.wait(self.reconnect_ms / 1000)
                continue
            try:
                self._session()
            except Exception as exc:  # SerialException / OSError when unplugged; anything else is logged as such
                self._close_port(f"{self.port}: the port failed: {in_words(exc)}")
                self._stop.wait(self.reconnect_ms / 1000)

    def _accept(self, mtype: int, body: bytes) -> bool:
        """Whether to acknowledge a reliable frame (under ``_lock``). A BUTTON is left unacknowledged, so the
        clock keeps it and sends it again, while the press queue is full (back-pressure) and when its counter
        jumps ahead further than the clock said it had counted at the last handshake: the host then says HELLO
        again and takes the press when it comes again if the reply confirms the clock counted that far (a
        forged or corrupted frame is never sent again, a real one is)."""
        if mtype != proto.BUTTON:
            return True
        if self._presses.full():
            return False
        try:
            _, _, counter, boot_id = proto.unpack_button(body)
        except ValueError:
            return True  # acknowledged and counted as malformed: sending it again would not mend it
        last = self._last_counter
        if boot_id != self.boot_id or last is None:
            return True  # dropped as another boot's press
        ahead = (counter - last) & 0xFFFF
        if ahead <= 1 or ahead >= 0x8000:
            return True  # the next press, or a copy
        told = self._clock_counter
        if told is not None and 0 < (told - last) & 0xFFFF < 0x8000 and (told - last) & 0xFFFF >= ahead:
            return True  # the clock said it counted this far: presses in between were lost on the clock
        if self._jump is None:
            self._jump = counter
            self._bump("counter_jumps")
            self._rehandshake = f"press counter jumped from {last} to {counter}"
        return False

    def _start_handshake(self, link: Link, why: str | None) -> None:
        """Leave the session (nothing is acknowledged until the reply) and say HELLO with a fresh nonce."""
        with self._lock:
            link.active = False
            self._nonce = secrets.randbits(32)
            self._hs_fresh = True
            if self.connected:
                self.connected = False
                self._rehandshaking = True
                self._connected_evt.clear()
                self._bump("rehandshakes")
                self._set_health("down", f"{self.port}: {why}; saying HELLO again")

    def _session(self) -> None:
        ser, link = self._ser, self._link
        assert ser is not None and link is not None
        opened = self._clock()
        last_hello: int | None = None
        while not self._stop.is_set():
            now = self._clock()
            if not self.connected:
                if self._nonce is None:
                    self._start_handshake(link, None)
                if self._hs_fresh:  # a new handshake (first, or after NO_SESSION / a counter jump): HELLO now
                    self._hs_fresh = False
                    opened, last_hello = now, None
                if now - opened > self.loss_ms * 2:
                    self._close_port(f"{self.port}: no answer to HELLO (wrong device or firmware?)")
                    self._stop.wait(self.reconnect_ms / 1000)
                    return
                if last_hello is None or now - last_hello >= HELLO_EVERY_MS:
                    last_hello = now
                    link.send_raw(proto.HELLO, proto.pack_hello(self._nonce or 0))
            n = ser.in_waiting
            data = ser.read(n if n else 1)
            now = self._clock()
            if data:
                with self._lock:
                    messages = link.receive(data, now)
                for mtype, body in messages:
                    if self._handle(link, mtype, body, now) is False:
                        return
                if self._rehandshake is not None and self.connected:
                    self._start_handshake(link, self._rehandshake)
                self._rehandshake = None
            if self.connected and not link.alive(now):
                self._close_port(f"{self.port}: link lost (no heartbeat for {self.loss_ms} ms)")
                return
            with self._lock:
                link.tick(now)
                out = link.take_output()
            if out:
                ser.write(out)

    def _handle(self, link: Link, mtype: int, body: bytes, now: int) -> bool:
        if mtype == proto.HELLO_REPLY:
            return self._reply(link, body, now)
        if mtype == proto.NO_SESSION:
            if self.connected:
                self._start_handshake(link, "the clock has no session (it was reset)")
        elif mtype == proto.HEARTBEAT and len(body) == 4 and self.connected:
            self._offset.add(now, int.from_bytes(body, "big"))
        elif mtype == proto.BUTTON and self.connected:
            try:
                side, mcu_ms, counter, boot_id = proto.unpack_button(body)
            except ValueError:
                self._bump("malformed")
                return True
            if boot_id != self.boot_id:
                self._bump("other_boot_presses")  # a stale or forged press of another boot
                return True
            self._press(link, side, mcu_ms, counter, now)
        elif mtype == proto.STATUS:
            try:
                self.display_ok, errors = proto.unpack_status(body)
            except ValueError:
                self._bump("malformed")
                return True
            self.totals["mcu_i2c_errors"] = errors
        return True

    def _press(self, link: Link, side: int, mcu_ms: int, counter: int, now: int) -> None:
        last = self._last_counter if self._last_counter is not None else 0
        ahead = (counter - last) & 0xFFFF
        if ahead == 0 or ahead >= 0x8000:
            self._bump("duplicate_presses")
        else:  # the next press, or one after presses lost on the clock (confirmed by _accept)
            if ahead > 1:
                self._bump("presses_lost_on_clock", ahead - 1)
            self._deliver(side, mcu_ms, counter, now)

    def _deliver(self, side: int, mcu_ms: int, counter: int, now: int) -> None:
        self._last_counter = counter
        self._presses.put(ButtonPress(proto.SIDES[side], self._offset.to_host(mcu_ms, now), mcu_ms))

    def _reply(self, link: Link, body: bytes, now: int) -> bool:
        try:
            version = proto.reply_version(body)
            if version == proto.PROTOCOL_VERSION:
                _, nonce, mcu_ms, boot_id, presses, acked, firmware = proto.unpack_hello_reply(body)
        except ValueError:
            self._bump("malformed")
            return True
        if version != proto.PROTOCOL_VERSION:   # a v1 reply: u8 version, u32 ms, u16 boot id, firmware
            name = firmware_name(bytes(body[7 if version == 1 else proto.REPLY_FIXED:]))
            self._close_port(f"{self.port}: clock firmware '{name}' speaks protocol v{version}, "
                             f"this kiosk speaks v{proto.PROTOCOL_VERSION}: update the firmware")
            self._stop.wait(5)
            return False
        if self.connected or nonce != self._nonce:
            self._bump("stray_replies")  # a late copy, or a reply to a HELLO this host did not send
            return True
        with self._lock:
            last = self._last_counter
            fresh = (boot_id != self.boot_id or last is None
                     or (presses - last) & 0xFFFF >= 0x8000)  # the clock counts behind us: another boot
            if fresh:
                self._last_counter = acked
                self._offset.clear()
            self.boot_id, self.firmware = boot_id, firmware_name(bytes(body[proto.REPLY_FIXED:]))
            self._offset.add(now, mcu_ms)
            self._clock_counter = presses
            jump, self._jump = self._jump, None
            base = self._last_counter or 0
            if jump is not None and not fresh and not 0 < (jump - base) & 0xFFFF <= (presses - base) & 0xFFFF:
                self._bump("implausible_presses")  # the clock never counted that far: not its press
            link.drop_pending()
            link.active = True
            self._nonce = None
            self._rehandshaking = False
            self.connected = True  # ... visible together with health "ok"
            self._set_health("ok", f"{self.port}: {self.firmware}, boot {boot_id:08x}")
            for side, face in enumerate(self._faces):
                if face is not None:
                    self._queue_display(link, side, face)
        self._connected_evt.set()
        return True

    def _queue_display(self, link: Link, side: int, face: ClockFace) -> None:
        link.pending = [(t, b) for (t, b) in link.pending if not (t == proto.DISPLAY and b[0] == side)]
        flags = proto.DISPLAY_COLON if face.colon else 0
        link.send(proto.DISPLAY, proto.pack_display(side, face.segments(), flags))


def _pyserial(port: str, baudrate: int) -> Any:
    """pyserial's port; raises :class:`PortError` in words for a path that is no serial device (a regular file,
    a folder, /dev/null: pyserial said "Could not configure port: (25, 'Inappropriate ioctl for device')")."""
    import serial

    try:
        mode = os.stat(port).st_mode
    except OSError:
        mode = None     # missing or unreadable: pyserial says so, with its errno
    if mode is not None and not stat.S_ISCHR(mode):
        raise PortError(errno.ENOTTY, f"{port} is not a serial device ({_kind(mode)})")
    try:
        return serial.Serial(port, baudrate, timeout=0.005, write_timeout=0.5)
    except serial.SerialException as exc:
        if str(exc).startswith("Could not configure port"):
            raise PortError(errno.ENOTTY, f"{port} is not a serial device (it takes no serial settings: "
                                          f"{in_words(exc).removeprefix('Could not configure port: ')})") from None
        raise


class SerialButtons:
    """ButtonSource view of a :class:`SerialClockLink` (starts it)."""

    def __init__(self, link: SerialClockLink) -> None:
        self.link = link.start()

    def poll(self) -> list[ButtonPress]:
        return self.link.poll()

    def health(self) -> DeviceHealth:
        h = self.link.health()
        return DeviceHealth("buttons", "serial", h.state, h.detail, h.since_ms, h.counters)

    def close(self) -> None:
        self.link.close()


class SerialDisplay:
    """ClockDisplay view of a :class:`SerialClockLink` (starts it). ``blink_overtime`` is done by the MCU."""

    def __init__(self, link: SerialClockLink) -> None:
        self.link = link.start()

    def show(self, left_ms: int, right_ms: int, left_overtime: bool = False, right_overtime: bool = False) -> None:
        left, right = faces(left_ms, right_ms, left_overtime, right_overtime)
        self.link.show_faces(left, right)

    def health(self) -> DeviceHealth:
        h = self.link.health()
        state, detail = h.state, h.detail
        if state in ("ok", "degraded") and self.link.display_ok is False:
            state, detail = "down", "the clock reports its display's I2C failing"
        return DeviceHealth("display", "serial", state, detail, h.since_ms, h.counters)

    def close(self) -> None:
        self.link.close()


def wait_until(pred: Callable[[], bool], timeout_s: float, step_s: float = 0.01) -> bool:
    """Poll ``pred`` until true or ``timeout_s``; returns its last value (tests and tools)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step_s)
    return pred()
