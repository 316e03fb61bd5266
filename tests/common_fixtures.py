"""Test doubles and builders shared by the test folders: the settable test clock, the kiosk on a temporary
journal, a headless table's ``kiosk.toml`` and the shipped calibration profiles (``tests/fixtures/profiles``, see its README). The pytest
fixtures (the MQTT broker, ...) are in ``tests/conftest.py``.

Import as ``from common_fixtures import ManualClock, make_kiosk`` (``tests/`` is on ``sys.path`` through its
conftest)."""

from __future__ import annotations

import resource
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

    from kiosk.app.kiosk import Kiosk
    from kiosk.app.vision_worker import VisionWorker

PIN = "2468"                        # the judge's PIN of every test kiosk

SCRIPTED_BUTTONS = '{backend = "scripted", script = []}'


@contextmanager
def file_size_limit(kib: int) -> Iterator[None]:
    """Within the block this process may write files of at most ``kib`` KiB (``ulimit -f``), a write past it
    failing with EFBIG instead of killing the process (SIGXFSZ ignored); both restored after."""
    old = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (kib * 1024, old[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old)
        signal.signal(signal.SIGXFSZ, handler)


def headless_config(tmp: Path, *, buttons: str = SCRIPTED_BUTTONS, display: str = '{backend = "null"}',
                    devices: str = "") -> Path:
    """``tmp/kiosk.toml`` of a table of Ann and Bob (judge PIN :data:`PIN`, journal ``tmp/journal.sqlite``)
    without a camera, with these ``buttons`` and ``display`` values (TOML inline tables) and any further
    ``[devices]`` lines; returns its path."""
    path = tmp / "kiosk.toml"
    path.write_text(f"""[table]
players = ["Ann", "Bob"]
judge_pin = "{PIN}"
journal = "{tmp / 'journal.sqlite'}"
[devices]
buttons = {buttons}
camera = {{backend = "none"}}
display = {display}
{devices}""")
    return path


PROFILES = Path(__file__).resolve().parent / "fixtures" / "profiles"
# calibration profiles of the German ScrabScrap set: from its letter images only, and with the first 5 frames
# of its four games too (glyph and occupancy model); built by tests/fixtures/profiles/build.sh
TEMPLATES_PROFILE = PROFILES / "scrabscrap-templates.json"
GAMES_PROFILE = PROFILES / "scrabscrap-games.json"


class ManualClock:
    """A clock (ms) that moves only when a test sets or advances ``t``; call it for the time now."""

    def __init__(self, t: int = 0) -> None:
        self.t = t

    def __call__(self) -> int:
        return self.t

    def advance(self, ms: int) -> int:
        """Move the time on by ``ms`` (>= 0) and return the new time."""
        if ms < 0:
            raise ValueError(f"a test clock does not go back ({ms} ms)")
        self.t += ms
        return self.t


def make_kiosk(tmp: Path, preset: str = "nsf", *, players: tuple[str, ...] = ("Ann", "Bob"),
               worker: VisionWorker | None = None, clock: ManualClock | None = None,
               start: bool = True) -> tuple[Kiosk, ManualClock]:
    """A kiosk journaling to ``tmp/journal.sqlite`` with the judge's PIN :data:`PIN`, no screen, the vision
    worker ``worker`` (None: no camera) and ``clock`` (default: a new :class:`ManualClock` at 0 ms); with
    ``start`` the game of ``players`` under ``preset`` is started (asserted accepted)."""
    from kiosk.app.kiosk import Kiosk
    from kiosk.app.pin import PinGate
    from kiosk.referee.presets import load_preset
    from kiosk.store import GameSession

    clock = clock or ManualClock()
    session = GameSession.open(tmp / "journal.sqlite")
    kiosk = Kiosk(session, worker, None, PinGate(PIN), clock)
    if start:
        res = kiosk.start_game(load_preset(preset).to_dict(), players)
        assert res.accepted, res.reason
    return kiosk, clock


def refuse_meta_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Journals opened from now on (until ``monkeypatch.undo()``) refuse every write into their ``meta`` table, as
    a write failing there would: SQLite's authorizer denies it ("not authorized"). Journals already open are not
    touched. For the second of two writes failing after the first went through."""
    import sqlite3

    from kiosk.store.journal import Journal

    setup = Journal._setup

    def deny(action: int, table: str | None, *_: object) -> int:
        writes = (sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE)
        return sqlite3.SQLITE_DENY if action in writes and table == "meta" else sqlite3.SQLITE_OK

    def refusing(self: Journal, max_bytes: int | None) -> None:
        setup(self, max_bytes)
        self._conn.set_authorizer(deny)

    monkeypatch.setattr(Journal, "_setup", refusing)


def wait_for(pred: Callable[[], bool], timeout: float = 30.0) -> bool:
    """Whether ``pred()`` came true within ``timeout`` seconds (asked every 50 ms): never a fixed sleep."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def http_get(url: str, timeout: float = 10.0) -> tuple[int, str]:
    """(HTTP status, body text) of a GET of ``url``; an error status is returned, not raised."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
