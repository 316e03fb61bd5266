"""A local Mosquitto broker for tests, benchmarks and bench rigs: ``LocalBroker().start()``.

Runs ``mosquitto -c CONFIG`` bound to 127.0.0.1 on a free port, with a temporary config and (optionally)
persistence in a temporary folder, so a :meth:`LocalBroker.restart` keeps subscribers' sessions and their
queued QoS 1 messages - like a tournament broker that is restarted. Needs the Debian package ``mosquitto``.
"""

from __future__ import annotations

import getpass
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


class BrokerError(RuntimeError):
    """Mosquitto is missing or did not start (message includes its log)."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mosquitto_path() -> str | None:
    """Path of the mosquitto binary (PATH, then /usr/sbin), or None."""
    return shutil.which("mosquitto") or next((p for p in ("/usr/sbin/mosquitto",) if Path(p).exists()), None)


class LocalBroker:
    """A mosquitto process on 127.0.0.1:``port``. ``persistence``: keep sessions across :meth:`restart`.

    Extra config lines (``password_file ...``, TLS ``listener`` options) may be passed in ``extra``.
    """

    def __init__(self, port: int | None = None, *, persistence: bool = True, extra: tuple[str, ...] = ()) -> None:
        exe = mosquitto_path()
        if exe is None:
            raise BrokerError("mosquitto is not installed (Debian package 'mosquitto')")
        self.exe = exe
        self.port = port or free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="kiosk-mosquitto-"))
        # run as the current user: as root, mosquitto would switch to user "mosquitto", who cannot read our
        # private temporary folder (log, persistence, password file)
        lines = [f"user {getpass.getuser()}", f"listener {self.port} 127.0.0.1", "allow_anonymous true", "max_queued_messages 0",
                 "max_inflight_messages 0", f"log_dest file {self.dir / 'mosquitto.log'}"]
        if persistence:
            lines += ["persistence true", f"persistence_location {self.dir}/", "autosave_interval 1800"]
        lines += list(extra)
        self.config = self.dir / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 10.0) -> LocalBroker:
        """Start mosquitto and wait until it accepts connections. Raises :class:`BrokerError`."""
        self.proc = subprocess.Popen([self.exe, "-c", str(self.config)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise BrokerError(f"mosquitto exited with {self.proc.returncode}: {err.strip()} {self.log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise BrokerError(f"mosquitto did not listen on 127.0.0.1:{self.port} within {timeout_s} s: {self.log()}")

    def stop(self) -> None:
        """Stop mosquitto (SIGTERM: it saves its persistence file), waiting for it to exit."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc is not None and self.proc.stderr:
            self.proc.stderr.close()
        self.proc = None

    def restart(self, down_s: float = 0.0) -> None:
        """Stop, stay down ``down_s`` seconds, start again on the same port."""
        self.stop()
        time.sleep(down_s)
        self.start()

    def log(self) -> str:
        p = self.dir / "mosquitto.log"
        return p.read_text(errors="replace")[-2000:] if p.exists() else ""

    def close(self) -> None:
        """Stop and remove the temporary folder."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> LocalBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
