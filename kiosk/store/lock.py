"""One process per file: an exclusive ``flock`` on a ``.lock`` file beside it, which names the holder's pid.

Used by the journal (``<journal>.lock``, :mod:`kiosk.store.journal`) and by the desk's database
(``desk.sqlite.lock``, :mod:`kiosk.desk.store`): a second process is refused with :class:`LockHeld` naming the
first one's pid. The lock drops when its file descriptor is closed or the process ends (a crash too).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


class LockHeld(Exception):
    """Another process holds the lock; ``holder``: its pid as the lock file says ("?" if unknown)."""

    def __init__(self, holder: str) -> None:
        super().__init__(holder)
        self.holder = holder


def take_lock(lock_file: Path, *, create: bool) -> int | None:
    """Take the exclusive lock on ``lock_file``; returns its file descriptor (the caller writes its pid with
    :func:`write_pid` and closes it to release), or None when ``create`` is False and no lock file exists.
    Raises :class:`LockHeld`, or OSError when the file cannot be opened or made (FileNotFoundError: its folder
    cannot hold one)."""
    try:
        fd = os.open(lock_file, os.O_RDWR | os.O_CREAT if create else os.O_RDONLY, 0o644)
    except FileNotFoundError:
        if create:
            raise
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            holder = (os.pread(fd, 64, 0).decode(errors="replace").splitlines() or ["?"])[0].strip() or "?"
        finally:
            os.close(fd)
        raise LockHeld(holder) from None
    except OSError:
        os.close(fd)
        raise
    return fd


def write_pid(fd: int, *more: str) -> None:
    """The lock file's content: this process's pid, then ``more`` lines."""
    os.ftruncate(fd, 0)
    os.pwrite(fd, "".join(f"{line}\n" for line in (str(os.getpid()), *more)).encode(), 0)
