"""The clock microcontroller's logic, free of hardware so that it runs under CPython in tests and the simulator.

``ClockFirmware.step(now_ms, rx_bytes)`` is one pass of the main loop: it takes the bytes read from USB,
samples the buttons, drives the displays and returns the bytes to write back. ``main.py`` wires it to the
RP2040's pins, I2C and USB CDC; ``firmware_bridge.simulator`` wires it to a pty.
"""

try:
    from firmware_bridge.firmware import proto
    from firmware_bridge.firmware.debounce import Debouncer
    from firmware_bridge.firmware.link import Link
except ImportError:  # on the microcontroller
    import proto
    from debounce import Debouncer
    from link import Link

FIRMWARE_VERSION = "clockfw-2.0"
QUEUE_MAX = 128        # reliable messages kept while the host is away; presses go last
NO_SESSION_EVERY_MS = 100


class ClockFirmware:
    """Firmware core.

    ``read_buttons()`` returns a sequence of 4 bools (left, right, pause, judge; True = pressed);
    ``write_display(side, segments, flags)`` shows 4 segment bytes on side 0/1 and returns True on success
    (False = I2C error). ``boot_id``: a 32-bit random number drawn at each boot (the host re-syncs when it
    changes; every BUTTON carries it, so a press of another boot is never taken for one of this boot).

    Outside a session it acknowledges nothing and answers every host frame but HELLO with NO_SESSION (at most
    every ``NO_SESSION_EVERY_MS``), so a host that missed the reset says HELLO again at once.
    """

    def __init__(self, read_buttons, write_display, boot_id=0, debounce_ms=20, version=proto.PROTOCOL_VERSION):
        self.read_buttons = read_buttons
        self.write_display = write_display
        self.boot_id = boot_id & 0xFFFFFFFF
        self.version = version
        self.link = Link(queue_max=QUEUE_MAX, precious=(proto.BUTTON,))
        self.debouncers = [Debouncer(debounce_ms) for _ in proto.SIDES]
        self.presses = 0       # counter of the last press made in this boot
        self.acked = 0         # counter of the last press the host acknowledged
        self.no_session_ms = None
        self.display_ok = True
        self.i2c_errors = 0
        self.session = False

    def step(self, now_ms, rx=b""):
        """One main-loop pass at ``now_ms`` (MCU clock) with received bytes ``rx``; returns bytes to send."""
        link = self.link
        outside = link.outside_session
        heard = False
        for mtype, body in link.receive(rx, now_ms):
            if mtype == proto.HELLO:
                try:
                    nonce = proto.unpack_hello(body)[1]
                except ValueError:
                    continue
                link.reset_rx()
                link.active = True
                self.session = True
                link.last_hb_ms = now_ms
                if self.version == 1:   # a version 1 clock (simulated): its own reply, as that firmware sent it
                    reply = proto.pack_hello_reply_v1(now_ms, self.boot_id, "clockfw-1.0")
                else:
                    reply = proto.pack_hello_reply(self.version, nonce, now_ms, self.boot_id, self.presses,
                                                   self.acked, FIRMWARE_VERSION)
                link.send_raw(proto.HELLO_REPLY, reply)
                link.send(proto.STATUS, proto.pack_status(self.display_ok, self.i2c_errors))
            elif mtype == proto.DISPLAY:
                self._display(body)
            elif mtype != proto.HELLO_REPLY:
                heard = True
        acked = link.last_acked
        if acked is not None:
            link.last_acked = None
            if acked[0] == proto.BUTTON:
                self.acked = proto.unpack_button(acked[1])[2]
        if not self.session and (heard or link.outside_session != outside) and (
                self.no_session_ms is None or now_ms - self.no_session_ms >= NO_SESSION_EVERY_MS):
            self.no_session_ms = now_ms
            link.send_raw(proto.NO_SESSION, proto.pack_no_session(self.boot_id))
        if self.session and not link.alive(now_ms):
            self.session = False  # host gone: keep the presses queued, stop talking until the next HELLO
            link.active = False
        levels = self.read_buttons()
        for i, deb in enumerate(self.debouncers):
            t = deb.update(levels[i], now_ms)
            if t is not None:
                self.presses = (self.presses + 1) & 0xFFFF
                link.send(proto.BUTTON, proto.pack_button(i, t, self.presses, self.boot_id))
        link.tick(now_ms)
        return link.take_output()

    def _display(self, body):
        try:
            side, segments, flags = proto.unpack_display(body)
        except ValueError:
            return
        ok = bool(self.write_display(side, segments, flags))
        if not ok:
            self.i2c_errors += 1
        if ok != self.display_ok:
            self.display_ok = ok
            self.link.send(proto.STATUS, proto.pack_status(ok, self.i2c_errors))
