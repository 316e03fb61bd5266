"""systemd's sd_notify protocol (READY=1, WATCHDOG=1, STATUS=...) over the NOTIFY_SOCKET datagram socket,
and a watchdog that pings only while the main loop proves progress.

Outside systemd (no NOTIFY_SOCKET) every call is a no-op returning False.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Mapping


class SdNotifier:
    """Sends sd_notify messages. ``socket_path`` defaults to $NOTIFY_SOCKET ("@name" = abstract socket)."""

    def __init__(self, socket_path: str | None = None, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        path = socket_path if socket_path is not None else env.get("NOTIFY_SOCKET", "")
        self.address: str | bytes | None = None
        if path:
            self.address = ("\0" + path[1:]) if path.startswith("@") else path
        self._sock: socket.socket | None = None
        self.errors = 0

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def notify(self, *fields: str) -> bool:
        """Send ``fields`` ("KEY=VALUE") as one datagram; True when sent. Failures are counted, not raised."""
        if self.address is None:
            return False
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto("\n".join(fields).encode(), self.address)
            return True
        except OSError:
            self.errors += 1
            return False

    def ready(self, status: str = "") -> bool:
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={text}")

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def watchdog_interval_s(env: Mapping[str, str] | None = None) -> float | None:
    """Half of systemd's WatchdogSec (from $WATCHDOG_USEC, for this process per $WATCHDOG_PID), or None."""
    env = os.environ if env is None else env
    usec = env.get("WATCHDOG_USEC")
    if not usec:
        return None
    pid = env.get("WATCHDOG_PID")
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    return value / 2e6 if value > 0 else None


class Watchdog:
    """Pings systemd's watchdog from a thread, but only while the main loop calls :meth:`progress`.

    Every ``interval_s`` the thread sends WATCHDOG=1 if ``progress()`` was called since the previous ping; a
    hung main loop therefore stops the pings and systemd restarts the service after WatchdogSec.
    """

    def __init__(self, notifier: SdNotifier, interval_s: float) -> None:
        if interval_s <= 0:
            raise ValueError("watchdog interval must be > 0 s")
        self.notifier = notifier
        self.interval_s = interval_s
        self.pings = 0
        self.missed = 0
        self._progress = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def progress(self) -> None:
        """Call once per main-loop iteration."""
        self._progress.set()

    def check(self) -> bool:
        """One watchdog decision: ping if progress was made since the last check. Returns whether it pinged."""
        if self._progress.is_set():
            self._progress.clear()
            self.notifier.watchdog()
            self.pings += 1
            return True
        self.missed += 1
        return False

    def _run(self) -> None:
        next_t = time.monotonic() + self.interval_s
        while not self._stop.wait(max(0.0, next_t - time.monotonic())):
            self.check()
            next_t += self.interval_s

    def start(self) -> Watchdog:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="sd-watchdog", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


def start_watchdog(notifier: SdNotifier | None = None, env: Mapping[str, str] | None = None) -> Watchdog | None:
    """Start a :class:`Watchdog` at half systemd's WatchdogSec when the service has one (else None).

    Typical use in the kiosk's main loop::

        notifier = SdNotifier()
        watchdog = start_watchdog(notifier)
        notifier.ready("devices up")
        while running:
            ...one iteration...
            if watchdog:
                watchdog.progress()
    """
    notifier = notifier or SdNotifier(env=env)
    interval = watchdog_interval_s(env)
    if interval is None or not notifier.enabled:
        return None
    return Watchdog(notifier, interval).start()
