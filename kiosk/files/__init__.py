"""What every subcommand does with the files it is given: checks an input before the work, writes an output
atomically. Errors are :class:`InputError` (``PATH: REASON``), which :func:`kiosk.cli.main` prints on stderr as
``kiosk COMMAND: PATH: REASON`` with exit code 2. Used by the subcommands and the calibration tools alike.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

SNIFF_BYTES = 8192  # how much of a file is looked at to tell text from binary data


class InputError(ValueError):
    """A file or argument the command cannot use; the message names it (``PATH: REASON``). Exit code 2."""


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def describe_os_error(exc: BaseException) -> str:
    """``PATH: REASON`` for an OSError (``PATH: REASON -> PATH2`` for a rename), ``REASON`` when it names no
    file; a UnicodeDecodeError reads "not UTF-8 text"."""
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start}: {exc.object[exc.start:exc.start + 1]!r})"
    if not isinstance(exc, OSError):
        return str(exc)
    reason = _reason(exc)
    if exc.filename is None:
        return reason
    return f"{exc.filename}: {reason}" + (f" -> {exc.filename2}" if exc.filename2 is not None else "")


def check_regular_file(path: str | Path, what: str = "file") -> Path:
    """``path`` as a Path, once it is known to be a regular file that can be opened for reading.

    Raises:
        InputError: missing ("no such WHAT"), a folder, a FIFO or device ("not a regular file"), no permission.
    """
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise InputError(f"{p}: no such {what}") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot open: {_reason(exc)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{p}: is a folder, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{p}: not a regular file")
    try:
        with open(p, "rb"):
            pass
    except OSError as exc:
        raise InputError(f"{p}: cannot open: {_reason(exc)}") from None
    return p


def check_text_file(path: str | Path, what: str = "file") -> Path:
    """As :func:`check_regular_file`, the file holds something (a /proc file reads as text of size 0), and its
    start holds no NUL byte (binary data is refused by name instead of being read as lines of garbage).

    Raises:
        InputError: as check_regular_file, "empty file", or "binary data, not a WHAT".
    """
    p = check_regular_file(path, what)
    with open(p, "rb") as fh:
        head = fh.read(SNIFF_BYTES)
    if not head.strip():
        raise InputError(f"{p}: empty file, not a {what}")
    if b"\0" in head:
        raise InputError(f"{p}: binary data, not a {what}")
    return p


def check_output(path: str | Path, what: str = "output file") -> Path:
    """``path`` once it can be written: its folder exists and it is not a folder itself. Checked before the
    work (a game generated for a path that cannot be written is time lost).

    Raises:
        InputError: naming the path and why it cannot be written.
    """
    p = Path(path)
    if str(path) == "" or p.name in ("", ".", ".."):
        raise InputError(f"{str(path)!r}: not a file name for the {what}")   # a Path: not PosixPath(...)
    if p.is_dir():
        raise InputError(f"{p}: is a folder; give a file name for the {what}")
    parent = p.parent
    if not parent.exists():
        raise InputError(f"{p}: the folder {parent} does not exist")
    if not parent.is_dir():
        raise InputError(f"{p}: {parent} is not a folder")
    try:   # the one sure test (root may write anywhere by permission, and still not in /proc)
        fd, probe = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise InputError(f"{p}: cannot write in {parent}: {_reason(exc)}") from None
    os.close(fd)
    os.unlink(probe)
    return p


def check_output_folder(path: str | Path, what: str = "output folder") -> Path:
    """``path`` once it is a folder files can be written in: made (with its parents) when missing. Checked
    before the work, so a folder that cannot be written is said once, not after (or for) every file.

    Raises:
        InputError: naming the path and why no file can be written there (a file in the way, no permission,
        a read-only or pseudo file system).
    """
    p = Path(path)
    if str(path) == "":
        raise InputError(f"give a folder name for the {what}")
    if p.exists() and not p.is_dir():
        raise InputError(f"{p}: is a file, not a folder (the {what})")
    try:
        p.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe.", suffix=".tmp", dir=p)
    except OSError as exc:   # a file where a parent folder belongs, no permission, /proc ...
        raise InputError(f"{p}: cannot write the {what} there: {_reason(exc)}") from None
    os.close(fd)
    os.unlink(probe)
    return p


@contextmanager
def atomic_output(path: str | Path, mode: str = "w", what: str = "output file") -> Iterator[IO]:
    """A file object for writing ``path`` atomically: the data goes to a temporary file in the same folder,
    which is flushed to disk and renamed over ``path`` when the block ends without an error; on an error it
    is removed, so a failed write leaves nothing behind (neither a partial file nor the temporary one).

    Raises:
        InputError: the temporary file cannot be created there (the path is named).
    """
    p = check_output(path, what)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as exc:
        raise InputError(f"{p}: cannot write in {p.parent}: {_reason(exc)}") from None
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, p)
    except BaseException:
        with _ignore_missing():
            os.unlink(tmp)
        raise


@contextmanager
def _ignore_missing() -> Iterator[None]:
    try:
        yield
    except FileNotFoundError:
        pass
