"""What every subcommand does with the files it is given: checks an input before the work, writes an output
atomically. Errors are :class:`InputError` (``PATH: REASON``), which :func:`kiosk.cli.main` prints on stderr as
``kiosk COMMAND: PATH: REASON`` with exit code 2. Used by the subcommands and the calibration tools alike.

Every write of a file in the kiosk goes through :func:`replacing` (here :func:`atomic_output` and
:func:`write_atomic`; the lexicon compiler, pictures by ``kiosk.vision.images.write_image``; a test keeps it so): only a regular file, or nothing, is ever replaced at an output path.
A device, FIFO, socket or folder there is refused and left as it is (``kiosk selfplay -o /dev/null`` run as
root once replaced the null device with a file); a symbolic link to a regular file is written through: the
file it points to is replaced, the link kept.

Every text file a person gives the kiosk, the calibration tools or the desk is read through :func:`read_text`
(:func:`read_toml` for TOML; :func:`text_file_bytes` and :func:`decode_text` where the bytes are needed too; a
test keeps it so): a missing, empty, UTF-16 or binary file is refused by name, a UTF-8 byte-order mark (Windows
Notepad writes one) is read past, and a byte that is not UTF-8 is named with its file and line. GCG records are
the one exception: :mod:`kiosk.rules.gcg` reads them game by game in their declared encoding (a mark read past
there too).
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

SNIFF_BYTES = 8192  # how much of a file is looked at to tell text from binary data
BOM = b"\xef\xbb\xbf"   # the UTF-8 byte-order mark Windows Notepad writes at a file's start: read past


class InputError(ValueError):
    """A file or argument the command cannot use; the message names it (``PATH: REASON``). Exit code 2."""


class OutputError(OSError):
    """An output that cannot be written at its path (``filename``): ``str()`` reads ``PATH: REASON``."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


class NotReplaceable(OutputError):
    """Something that is no regular file is at an output path (a folder, a device, a FIFO, a socket, a link to
    one of those or to nothing): it is left as it is, nothing is written."""


def _kind(mode: int) -> str:
    return ("a folder" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode) else "not a regular file")


def replace_target(path: str | Path) -> Path:
    """The file an atomic write to ``path`` replaces: ``path`` itself when nothing or a regular file is there,
    the file a symbolic link there points to (the link is kept).

    Raises:
        NotReplaceable: a folder, device, FIFO or socket is there (or a link leads to one, or to nothing: a
            dangling link is not written through), or the path cannot be looked at (a loop of links).
    """
    p = Path(path)
    try:
        mode = os.lstat(p).st_mode
    except FileNotFoundError:
        return p
    except OSError as exc:
        raise NotReplaceable(exc.errno, f"cannot look at it: {_reason(exc)}", str(p)) from None
    if not stat.S_ISLNK(mode):
        target, link = p, ""
    else:
        target, link = Path(os.path.realpath(p)), "a link to "
        try:
            mode = os.stat(p).st_mode
        except FileNotFoundError:
            raise NotReplaceable(errno.ENOENT, f"is a link to {target}, which does not exist (a link is only "
                                 "written through to a file that is there)", str(p)) from None
        except OSError as exc:
            raise NotReplaceable(exc.errno, f"cannot look at it: {_reason(exc)}", str(p)) from None
    if stat.S_ISREG(mode):
        return target
    raise NotReplaceable(errno.EISDIR if stat.S_ISDIR(mode) else errno.EEXIST,
                         f"is {link}{_kind(mode)}, not a file the kiosk may replace", str(p))


@contextmanager
def replacing(path: str | Path, *, durable: bool = True, mode: int = 0o644) -> Iterator[str]:
    """The one atomic write: yields the name of a new, empty temporary file beside the file :func:`replace_target`
    finds for ``path``; when the block ends without an error that file is flushed to disk (``durable``), given
    ``mode`` (0644, readable by all, unless a secret asks 0600; the temporary file is owner-only until then) and
    renamed over the target (checked again first: nothing planted meanwhile is
    replaced); on any error it is removed, so a failed write leaves nothing behind.

    Raises:
        NotReplaceable: see :func:`replace_target` (before the block runs, or after it: then nothing changed).
        OutputError: the temporary file cannot be made in the folder (no such folder, no permission, ...).
        OSError: from the block, or the rename.
    """
    target = replace_target(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(exc.errno, f"cannot write in {target.parent}: {_reason(exc)}", str(path)) from None
    os.close(fd)
    try:
        yield tmp
        if durable:
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        os.chmod(tmp, mode)   # mkstemp makes it owner-only; outputs are for others to read
        if replace_target(path) != target:
            raise NotReplaceable(errno.EEXIST, "changed while it was written; not replaced", str(path))
        os.replace(tmp, target)
    except BaseException:
        with _ignore_missing():
            os.unlink(tmp)
        raise


def write_atomic(path: str | Path, data: str | bytes, *, durable: bool = True, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8) in one step through :func:`replacing`: readers
    never see half a file, a device, FIFO, socket or folder planted at ``path`` is left as it is, a link to a
    file is written through. ``durable``: flushed to disk first; ``mode``: the file's permissions (0600 for a
    secret). The folder is made when missing.

    Raises:
        OSError: naming the path, when the folder cannot be made or written, or something that is no regular
            file is at ``path`` (:class:`NotReplaceable`, whose ``str()`` reads ``PATH: REASON``).
    """
    raw = data.encode("utf-8") if isinstance(data, str) else data
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with replacing(path, durable=durable, mode=mode) as tmp:
        Path(tmp).write_bytes(raw)


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
        InputError: as check_regular_file, "empty file", UTF-16 text (say to save it as UTF-8), or "binary data, not
            a WHAT".
    """
    p = check_regular_file(path, what)
    with open(p, "rb") as fh:
        head = fh.read(SNIFF_BYTES)
    if not head.removeprefix(BOM).strip():   # (a UTF-8 byte-order mark, as Notepad writes, holds nothing)
        raise InputError(f"{p}: empty file, not a {what}")
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):   # (a UTF-16 byte-order mark: NUL bytes between the letters)
        raise InputError(f"{p}: UTF-16 text (what a Windows editor saves as 'Unicode'), not UTF-8: save it as UTF-8 "
                         f"to read it as a {what}")
    if b"\0" in head:
        raise InputError(f"{p}: binary data, not a {what}")
    return p


def decode_text(raw: bytes, name: str | Path, what: str = "file", *, fallback: str | None = None,
                secret: bool = False) -> str:
    """The text of a file's bytes ``raw`` (``name``: the file, named in the error): UTF-8, a byte-order mark at its
    start (as Windows Notepad writes) read past; with ``fallback`` (a codec: a word list's ``"latin-1"``) bytes that
    are not UTF-8 are read in it instead. Pure: no I/O (the rules core reads word lists' bytes with it).

    Raises:
        InputError: ``NAME:LINE: not UTF-8 text (byte 0xe9): save it as UTF-8 to read it as a WHAT`` (the byte
            left out for a ``secret``: a password file's).
    """
    body = raw.removeprefix(BOM)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as exc:
        if fallback is not None:
            return body.decode(fallback)
        line = body.count(b"\n", 0, exc.start) + 1
        byte = "" if secret else f" (byte 0x{body[exc.start]:02x})"
        raise InputError(f"{name}:{line}: not UTF-8 text{byte}: save it as UTF-8 to read it as a {what}") from None


def text_file_bytes(path: str | Path, what: str = "file") -> bytes:
    """The bytes of the text file a person gave at ``path``, once :func:`check_text_file` has taken it (missing, a
    folder, a FIFO or device, empty, UTF-16, binary data: refused by name); for a reader that needs them as well as
    the text (a word list's checksum), which it then gets from :func:`decode_text`, as :func:`read_text` does.

    Raises:
        InputError: as check_text_file, or ``PATH: cannot read the WHAT: REASON``.
    """
    p = check_text_file(path, what)
    try:
        return p.read_bytes()
    except OSError as exc:
        raise InputError(f"{p}: cannot read the {what}: {_reason(exc)}") from None


def read_text(path: str | Path, what: str = "file", *, fallback: str | None = None, secret: bool = False) -> str:
    """The text of the file a person gave at ``path``: the one reader of every text file the kiosk, the calibration
    tools and the desk take from a person (config, presets, tile sets, event files, tsh ``.t`` files, word lists,
    corners, layouts, passwords, profiles, a recording's ``game.ini`` and ``game.csv``; a test keeps it so). It is
    checked first (:func:`text_file_bytes`: missing, a folder, a FIFO or device, empty, UTF-16, binary data are
    refused by name), then read as :func:`decode_text` reads it (UTF-8, a byte-order mark read past; ``fallback``
    and ``secret`` as there).

    Raises:
        InputError: as text_file_bytes and decode_text.
    """
    return decode_text(text_file_bytes(path, what), Path(path), what, fallback=fallback, secret=secret)


def read_toml(path: str | Path, what: str = "config file") -> dict[str, Any]:
    """The TOML file at ``path`` as a dict, read by :func:`read_text` (missing, a folder, empty, UTF-16, binary data,
    not UTF-8: refused by name; a UTF-8 byte-order mark is read past): the one reader of the kiosk's TOML files (the
    config for ``python -m kiosk.devices.check`` and ``kiosk run``, presets, tile sets, the desk's event file).

    Raises:
        InputError: as read_text, ``PATH: not valid TOML: ...``.
    """
    import tomllib

    text = read_text(path, what)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from None


def check_output(path: str | Path, what: str = "output file") -> Path:
    """``path`` once it can be written: its folder exists, and nothing or a regular file (or a link to one) is
    there: a folder, device, FIFO or socket is refused and left as it is. Checked before the work (a game
    generated for a path that cannot be written is time lost).

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
    try:
        target = replace_target(p)
    except NotReplaceable as exc:
        raise InputError(f"{exc}; give a file name for the {what}") from None
    try:   # the one sure test (root may write anywhere by permission, and still not in /proc)
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise InputError(f"{p}: cannot write in {target.parent}: {_reason(exc)}") from None
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
    """A file object for writing ``path`` atomically (:func:`replacing`): the data goes to a temporary file in
    the same folder, which is flushed to disk and renamed over ``path`` (or over the file a link there points
    to) when the block ends without an error; on an error it is removed, so a failed write leaves nothing behind
    (neither a partial file nor the temporary one).

    Raises:
        InputError: as :func:`check_output` (a device, FIFO, socket or folder at ``path`` is left as it is), or
            the temporary file cannot be created there (the path is named).
    """
    p = check_output(path, what)
    try:
        with replacing(p) as tmp, open(tmp, mode, encoding=None if "b" in mode else "utf-8") as fh:
            yield fh
    except NotReplaceable as exc:
        raise InputError(f"{exc}; give a file name for the {what}") from None
    except OutputError as exc:
        raise InputError(str(exc)) from None


@contextmanager
def _ignore_missing() -> Iterator[None]:
    try:
        yield
    except FileNotFoundError:
        pass
