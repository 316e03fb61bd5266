"""A recording folder's own files (the ScrabScrap format: ``game.ini``, ``game.csv``, ``image-N.jpg``): the parsed
form (:class:`Recording`, one :class:`Press` per ``game.csv`` row) and the checks that name a file that cannot be
read with its line (:func:`kiosk.app.recording.read_recording` parses a folder with them)."""

from __future__ import annotations

import configparser
import contextlib
import csv
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


class RecordingError(ValueError):
    """The folder is not a readable recording; the message names the file and line."""


@dataclass(frozen=True)
class Press:
    """One ``game.csv`` row."""

    line: int
    move: int
    button: str
    state: str
    coord: str
    word: str
    points: int
    scores: tuple[int, int]


@dataclass
class Recording:
    """A parsed recording folder."""

    folder: Path
    names: tuple[str, str]
    corners: np.ndarray | None
    presses: list[Press]
    blanks: dict[int, str] = field(default_factory=dict)  # line of game.csv -> blank letters in word order
    gcg_problem: str | None = None   # why game.gcg, there, cannot be used (gcg_problem): it is left out

    def frame_path(self, move: int) -> Path | None:
        p = self.folder / f"image-{move}.jpg"
        return p if p.exists() else None

    def frame_name(self, move: int) -> Path:
        """Where the frame of move ``move`` should be (``image-N.jpg``), whether it is there or not."""
        return self.folder / f"image-{move}.jpg"


def check_recording_file(p: Path) -> None:
    """``p`` is there and a regular file; else RecordingError saying what is there instead."""
    from kiosk.files import InputError, check_regular_file

    if not p.exists() and not p.is_symlink():
        raise RecordingError(f"{p}: missing (a recording folder holds game.ini, game.csv and image-N.jpg)")
    try:
        check_regular_file(p, "file of the recording")
    except InputError as exc:
        raise RecordingError(str(exc)) from None


def recording_text(p: Path) -> str:
    """The text of the recording's file ``p`` (:func:`kiosk.files.read_text`: UTF-8, a byte-order mark read past).

    Raises:
        RecordingError: naming the file (and the line of the first byte that is not UTF-8): empty, binary,
            UTF-16, not UTF-8, unreadable.
    """
    from kiosk.files import InputError, read_text

    try:
        return read_text(p, f"recording's {p.name}")
    except InputError as exc:
        raise RecordingError(str(exc)) from None


_WHOSE = {"name1": "the first player's", "name2": "the second player's"}


def player_names(ini_path: Path, section: configparser.SectionProxy) -> tuple[str, str]:
    """``name1`` and ``name2`` of ``game.ini``'s [default] section (a key not there: "Player 1", "Player 2"), as
    the kiosk takes every player's name: not empty, no control character, at most 100 characters
    (:func:`kiosk.rules.names.name_problem`, the rule of the config, GCG records, selfplay and the desk), the two
    distinct on a scoresheet ('Ann' and 'ann' are not: :func:`kiosk.rules.names.clash`).

    Raises:
        RecordingError: naming the file, the key(s) and what to write there.
    """
    from kiosk.rules.names import clash, name_problem, shown_name

    names = {key: section.get(key, default).strip() for key, default in (("name1", "Player 1"), ("name2", "Player 2"))}
    for key, name in names.items():
        if not name:
            raise RecordingError(f"{ini_path}: [default] {key} is empty: write {_WHOSE[key]} name there "
                                 f"({key} = NAME), or leave the line out for 'Player {key[-1]}'")
        if (why := name_problem(name)) is not None:   # shown raw it would garble the terminal, the screen, the journal
            raise RecordingError(f"{ini_path}: [default] {key}: the name {shown_name(name)} {why}: write "
                                 f"{_WHOSE[key]} name as plain text ({key} = NAME)")
    if (same := clash((names["name1"], names["name2"]))) is not None:   # 'Ann' and 'ann' too: one on a scoresheet
        raise RecordingError(f"{ini_path}: [default] name1 and name2 {same[2]}: the players need distinct names; "
                             "write each player's own (name1 = NAME1, name2 = NAME2)")
    return names["name1"], names["name2"]


def read_ini(ini_path: Path) -> tuple[tuple[str, str], np.ndarray | None]:
    """``game.ini``'s player names (:func:`player_names`) and the grid's corners (None: not given, the reader finds
    the board), read as written (:func:`kiosk.vision.scrabscrap.read_game_ini`: a '%' is a '%').

    Raises:
        RecordingError: naming the file, the line or the key: no INI file, no [default] section, a bad name or
            bad corners.
    """
    from kiosk.vision.scrabscrap import GameIniError, corners_in, read_game_ini

    try:
        ini = read_game_ini(ini_path)
        if not ini.has_section("default"):
            raise RecordingError(f"{ini_path}: has no [default] section (it holds name1, name2 and, when the "
                                 "recording system found the board itself, warp-coord)")
        return player_names(ini_path, ini["default"]), corners_in(ini, ini_path, required=False)
    except GameIniError as exc:   # the corners none: the reader finds the board
        raise RecordingError(str(exc)) from None


def csv_problem(exc: csv.Error) -> str:
    text = str(exc)
    if "field larger than field limit" in text:
        return f"a field longer than {csv.field_size_limit():,} characters"
    if "NUL" in text or "null byte" in text:
        return "it holds a NUL byte"
    return text


TEMPORARY_JOURNAL = "journal: a temporary one, removed at the end (--journal PATH keeps it)"
"""How the first line names the journal when no ``--journal`` was given."""


@contextlib.contextmanager
def journal_path(journal: Path | None) -> Iterator[Path]:
    """``journal``; None: a journal in a new temporary folder, the folder removed with all in it when the block
    ends, however it ends."""
    if journal is not None:
        yield journal
        return
    folder = Path(tempfile.mkdtemp(prefix="kiosk-recording-"))
    try:
        yield folder / "journal.sqlite"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0e-\x19\x1b-\x1f\x7f]")
"""Bytes no text holds, in any encoding a GCG file may be written in (Latin-1, cp1252, UTF-8): NUL and the
control characters but tab, line breaks, form feed and a DOS end-of-file mark."""


def gcg_problem(p: Path) -> str | None:
    """Why the recording's optional ``game.gcg`` at ``p`` cannot be used, a sentence naming the file (and the line
    for binary data or a byte invalid in its encoding); None when it is not there or is a GCG record. Not UTF-8 alone
    is no fault: GCG files are Latin-1 unless they declare another encoding (the real recordings' are)."""
    from kiosk.files import InputError, check_regular_file
    from kiosk.rules.gcg import GcgError, read_gcg
    from kiosk.rules.gcg_file import MAX_RECORD_BYTES

    if not p.exists() and not p.is_symlink():
        return None
    try:
        check_regular_file(p, "GCG record")
        with open(p, "rb") as fh:
            head = fh.read(MAX_RECORD_BYTES + 1)
    except InputError as exc:
        return str(exc)
    except OSError as exc:
        return f"{p}: cannot be read ({exc.strerror or exc})"
    bad = _CONTROL.search(head)
    if bad is not None:
        what = "a NUL byte" if bad.group() == b"\0" else f"the control byte 0x{bad.group()[0]:02x}"
        line = head.count(b"\n", 0, bad.start()) + 1
        return f"{p}:{line}: binary data ({what}), not a GCG record"
    try:
        read_gcg(p)
    except GcgError as exc:
        return str(exc)
    return None
