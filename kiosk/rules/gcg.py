"""GCG game records: reading, the event model, and writing.

Format: the GCG spec (Poslfit, v1.2, 2019) as real files use it (``docs/gcg.md``): pragmas ``#player1``/``#player2``
(``#player3``/``#player4`` for multi-player records), ``#title``, ``#description``, ``#id``, ``#lexicon``,
``#note`` (with continuation lines), ``#rack1``/``#rack2``, ``#incomplete``, ``#character-encoding``...; event
lines ``>NICK: fields SCORE CUMULATIVE`` (trailing tokens after the cumulative score — cross-words in old
Quackle files — are ignored). Tokens are separated by spaces or tabs; lines end in LF, CRLF or CR; a byte-order
mark beginning a line inside the file (where two files were joined) is read past with a warning. A score or total
beyond :data:`MAX_POINTS` either way, and a ``#playerN`` past ``#player4`` or with a gap below it, is an error
naming the line. The file is ISO-8859-1 unless line 1 says
``#character-encoding UTF-8``; a file that decodes as UTF-8 without the header is read as UTF-8 (common in
the wild).

Files are read game by game in bounded memory: :func:`iter_gcg` gives every game of a file (a whole event's
games may be one file of several MB), :func:`read_gcg` the one game of a file.

Reading never raises on bad content: :func:`parse_gcg` returns a :class:`GcgGame` whose ``errors`` name file,
line and what is wrong, holding every event before the first bad line (later lines are still read where they
make sense, so one typo does not hide the rest of the game). Only an unreadable file raises
:class:`GcgError` from :func:`read_gcg`.

One parser, many consumers (as python-chess's ``pgn.BaseVisitor`` and ``Game.accept``): a consumer is a
:class:`GcgVisitor`; ``read_gcg(path, visitor)`` / ``parse_gcg(text, name, visitor)`` (or
:meth:`GcgGame.accept` on a game already read) walk the record through it in file order and return its
``result()``. The rules replay (:class:`kiosk.rules.replay.ReplayVisitor`), the referee events of a record
(:mod:`kiosk.referee.records`) and the kiosk's other readers of records are visitors.
"""

from __future__ import annotations

import re
from collections.abc import Generator
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from pathlib import Path
from typing import Generic, TypeVar, overload

from kiosk.rules import gcg_file
from kiosk.rules.board import Coordinate, CoordinateError, parse_coordinate
from kiosk.rules.gcg_file import DECLARED, MAX_LINE_BYTES, GameRecord, game_records, lines_of
from kiosk.rules.names import name_problem, shown_name

MAX_LINE = 512  # longest line GCG engines (MAGPIE) accept; longer lines are reported, not dropped
MAX_POINTS = 100_000
"""The largest score or total a record line may give either way (points): a whole game stays far below it, so a
larger number is a damaged record (and would overflow the desk's and the broadcasts' integers)."""
MAX_PLAYERS = 4  # #player1 .. #player4
_BOM = "\ufeff"
_PRAGMA = re.compile(r"#([^ \t]*)(.*)", re.S)   # keyword, then the value after a space or a tab
ResultT = TypeVar("ResultT")  # what a visitor makes of a record


class EventKind(StrEnum):
    """GCG event kinds (``docs/gcg.md`` table)."""

    PLAY = "play"                    # >Ann: ANTHER? N8 ANoTHER +73 416
    PASS = "pass"                    # >Ann: U - +0 380
    EXCHANGE = "exchange"            # >Ann: EQSSPO? -QO +0 268  or  -2 +0 268
    WITHDRAWN = "withdrawn"          # >Ann: MOULAGD -- -76 354  (phony withdrawn)
    CHALLENGE_BONUS = "challenge"    # >Ann: DROWNUG (challenge) +5 289
    END_RACK = "end_rack"            # >Ann: (G) +4 539  /  >Bob: FWLI (FWLI) -10 426
    TIME_PENALTY = "time"            # >Bob: ISBALI (time) -10 409
    ADJUSTMENT = "adjust"            # >Bob: (adjust) -10 399  (the kiosk's line for a judge's adjustment)


class GcgError(ValueError):
    """A GCG problem at a place: ``file:line: message``."""

    def __init__(self, file: str, line: int, message: str) -> None:
        self.file, self.line, self.message = file, line, message
        super().__init__(f"{file}:{line}: {message}" if line else f"{file}: {message}")


@dataclass
class Player:
    nick: str
    name: str


@dataclass
class GcgEvent:
    """One event line.

    Attributes:
        kind: the :class:`EventKind`.
        nick: the player's nickname.
        rack: the rack token (``"?AEINRT"``), ``""`` when the line gives none.
        score: the signed score field (points), e.g. ``+73`` -> 73, ``-76`` -> -76.
        cumulative: that player's recorded running total after the event.
        line: 1-based line number in the file (0 for events built in code).
        coordinate: start of the main word (PLAY).
        word: the whole word in the file's notation normalised to: upper-case letter = a tile placed or
            written out, lower-case = a blank, ``.`` = a square already covered; parenthesised letters
            (played-through) are stored in ``through`` positions.
        through: indices into ``word`` that the file marked as played-through with parentheses.
        tiles: exchanged tiles (EXCHANGE, may be ``""`` with ``count`` set) or the rack in parentheses (END_RACK).
        count: number of tiles exchanged (EXCHANGE).
        notes: ``#note`` texts that follow this event.
        trailing: tokens after the cumulative score (ignored; kept for round trips).
    """

    kind: EventKind
    nick: str
    rack: str = ""
    score: int = 0
    cumulative: int = 0
    line: int = 0
    coordinate: Coordinate | None = None
    word: str = ""
    through: tuple[int, ...] = ()
    tiles: str = ""
    count: int = 0
    notes: list[str] = field(default_factory=list)
    trailing: tuple[str, ...] = ()


@dataclass
class GcgGame:
    """A parsed GCG file.

    Attributes:
        players: in turn order (player 1 moves first).
        events: the event lines that parsed, in file order.
        pragmas: other pragmas, keyword -> list of values (``title``, ``lexicon``, ``id``, ...).
        racks: ``#rackN`` pragmas, player index (0-based) -> rack.
        errors: problems found while reading (each names file and line).
        warnings: tolerated oddities (each names file and line).
        notes: notes written before the first event.
        first_line: the file's line this game starts at (1 but in a file of several games).
        skipped: the game could not be read at all (too large, or a byte invalid in its encoding): ``errors``
            say why; it has no players and no moves.
    """

    name: str = ""
    players: list[Player] = field(default_factory=list)
    events: list[GcgEvent] = field(default_factory=list)
    pragmas: dict[str, list[str]] = field(default_factory=dict)
    racks: dict[int, str] = field(default_factory=dict)
    rack_lines: dict[int, int] = field(default_factory=dict)
    errors: list[GcgError] = field(default_factory=list)
    warnings: list[GcgError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    incomplete: bool = False
    encoding: str = "UTF-8"
    first_line: int = 1
    skipped: bool = False

    @property
    def lexicon(self) -> str | None:
        v = self.pragmas.get("lexicon")
        return v[-1] if v else None

    @property
    def title(self) -> str | None:
        v = self.pragmas.get("title")
        return v[-1] if v else None

    def player_index(self, nick: str) -> int:
        """The 0-based seat of ``nick`` (the first, when two players share it), -1 when nobody has it."""
        for i, p in enumerate(self.players):
            if p is not None and p.nick == nick:  # a seat left empty (a gap in #playerN) while reading
                return i
        return -1

    def accept(self, visitor: GcgVisitor[ResultT]) -> ResultT:
        """Walk this game through ``visitor`` (see :class:`GcgVisitor`) and return its ``result()``."""
        visitor.begin_game(self)
        for ev in self.events:
            if visitor.visit_event(ev) is Walk.STOP:
                break
        visitor.end_game()
        return visitor.result()


class Walk(Enum):
    """What a visitor's :meth:`GcgVisitor.visit_event` asks of the walk."""

    CONTINUE = "continue"
    STOP = "stop"  # no further events: the walk goes on to ``end_game``


class GcgVisitor(Generic[ResultT]):
    """A consumer of GCG records (python-chess's ``pgn.BaseVisitor`` for GCG).

    The walk calls :meth:`begin_game` with the game as read (players, pragmas, ``#rack`` lines, errors and
    warnings are known then: GCG puts them before or after the moves, and some are only known at the end of
    the file), :meth:`visit_event` for each event line in file order until one returns :attr:`Walk.STOP`,
    :meth:`end_game`, and hands back :meth:`result`. Subclasses override what they need.
    """

    def begin_game(self, game: GcgGame) -> None:
        """Called once, before the first event."""

    def visit_event(self, event: GcgEvent) -> Walk | None:
        """Called for each event line in file order; return :attr:`Walk.STOP` to skip the rest."""
        return None

    def end_game(self) -> None:
        """Called once, after the last event visited."""

    def result(self) -> ResultT:
        """What the visitor made of the record."""
        raise NotImplementedError


class GameBuilder(GcgVisitor[GcgGame]):
    """The visitor that keeps the game itself (what :func:`parse_gcg` returns without a visitor)."""

    def __init__(self) -> None:
        self.game: GcgGame | None = None

    def begin_game(self, game: GcgGame) -> None:
        self.game = game

    def result(self) -> GcgGame:
        assert self.game is not None, "result() before a game was visited"
        return self.game


_SIGNED = re.compile(r"^(?:[+-]|\+-)\d+$")  # Quackle writes a negative end-rack score as "+-6"
_UNSIGNED = re.compile(r"^\d+$")
_CUMUL = re.compile(r"^-?\d+$")


class _RackPattern:
    """Upper-case letters of any alphabet (Ä, Ł, ...) and ``?``."""

    @staticmethod
    def match(tok: str) -> bool:
        letters = tok.replace("?", "")
        return not letters or (letters.isalpha() and letters.isupper())


class _WordPattern:
    """Letters of any alphabet (either case), ``.`` and parentheses."""

    @staticmethod
    def match(tok: str) -> bool:
        letters = tok.replace(".", "").replace("(", "").replace(")", "")
        return not letters or letters.isalpha()


_RACK = _RackPattern()
_WORD_CHARS = _WordPattern()
_ENCODINGS = {"UTF-8": "utf-8", "UTF8": "utf-8", "ISO-8859-1": "latin-1", "ISO8859-1": "latin-1", "LATIN-1": "latin-1",
              "ASCII": "ascii", "US-ASCII": "ascii"}


def decode_gcg(raw: bytes, name: str = "<gcg>") -> tuple[str, str, list[GcgError]]:
    """Decode GCG bytes; returns (text, encoding name, warnings). Raises :class:`GcgError` for an unsupported
    ``#character-encoding`` or bytes invalid in the declared encoding."""
    warnings: list[GcgError] = []
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    first = raw.split(b"\n", 1)[0].strip()
    m = re.match(rb"#character-encoding\s+(\S+)", first)
    if m:
        declared = m.group(1).decode("ascii", "replace").upper()
        codec = _ENCODINGS.get(declared)
        if codec is None:
            raise GcgError(name, 1, f"unsupported character encoding '{declared}' (UTF-8, ISO-8859-1 or ASCII)")
        try:
            return raw.decode(codec), declared, warnings
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise GcgError(name, line, f"invalid {declared} byte 0x{raw[exc.start]:02x}") from None
    try:
        return raw.decode("utf-8"), "UTF-8", warnings
    except UnicodeDecodeError:
        return raw.decode("latin-1"), "ISO-8859-1", warnings


@overload
def read_gcg(path: str | Path, visitor: None = None) -> GcgGame: ...
@overload
def read_gcg(path: str | Path, visitor: GcgVisitor[ResultT]) -> ResultT: ...
def read_gcg(path: str | Path, visitor: GcgVisitor[ResultT] | None = None) -> GcgGame | ResultT:
    """Read and parse a GCG file's game: the :class:`GcgGame`, or ``visitor``'s result when one is given.

    The file is read game by game with bounded memory (:func:`first_game`): a second game
    in the file is an error of the game at its line (``kiosk replay`` reads every game of a file with
    :func:`iter_gcg`).

    Raises :class:`GcgError` only if the file cannot be read or decoded or its game is over
    :data:`kiosk.rules.gcg_file.MAX_RECORD_BYTES`; content problems are in the game's ``errors`` (and reach
    the visitor with the game in ``begin_game``)."""
    game = first_game(path)
    if game.skipped:
        raise game.errors[0]
    return game if visitor is None else game.accept(visitor)


# ---------------------------------------------------------------------------------------------- files
# A file is read game record by game record (kiosk.rules.gcg_file cuts it): never whole.

def _decode_record(rec: GameRecord, name: str, inherited: str | None) -> tuple[str, str]:
    """The record's text and encoding name. ``inherited``: the file's declared encoding (its first line), for a
    record without its own. Raises :class:`GcgError` naming the file's line of a byte invalid in it."""
    raw = b"\n".join(rec.lines)
    try:
        if inherited is not None and not DECLARED.match(raw):
            try:
                return raw.decode(_ENCODINGS[inherited]), inherited
            except UnicodeDecodeError as exc:
                line = raw[: exc.start].count(b"\n") + 1
                raise GcgError(name, line, f"invalid {inherited} byte 0x{raw[exc.start]:02x}") from None
        text, enc, _ = decode_gcg(raw, name)
        return text, enc
    except GcgError as exc:
        raise GcgError(name, exc.line + rec.start - 1 if exc.line else rec.start, exc.message) from None


def iter_gcg(path: str | Path) -> Generator[GcgGame, None, None]:
    """Every game of the GCG file ``path``, one at a time, in file order, in bounded memory (the file is cut
    into game records by :mod:`kiosk.rules.gcg_file`). A game that could not be read (a record over
    :data:`kiosk.rules.gcg_file.MAX_RECORD_BYTES`, a byte invalid in its encoding) comes as a game with no
    players and no moves, ``skipped`` set, whose ``errors`` say why, naming file and line.

    Raises:
        GcgError: the file cannot be opened or read (``file: cannot read: reason``).
    """
    name = str(path)
    try:
        with Path(path).open("rb") as fh:
            inherited: str | None = None
            for i, rec in enumerate(game_records(lines_of(fh))):
                if i == 0 and rec.lines and (m := DECLARED.match(rec.lines[0])):
                    declared = m.group(1).decode("ascii", "replace").upper()
                    inherited = declared if declared in _ENCODINGS else None
                yield _record_game(rec, name, inherited)
    except OSError as exc:
        raise GcgError(name, 0, f"cannot read: {exc.strerror or exc}") from None


def _record_game(rec: GameRecord, name: str, inherited: str | None) -> GcgGame:
    if rec.too_large:
        game = GcgGame(name=name, first_line=rec.start, skipped=True)
        limit_mb = gcg_file.MAX_RECORD_BYTES // (1024 * 1024)
        game.errors.append(GcgError(name, rec.start, f"the game record starting here is over {limit_mb} MB "
                                    f"({rec.size:,} bytes); a game record is a few KB, so this one was not read"))
        return game
    try:
        text, enc = _decode_record(rec, name, inherited)
    except GcgError as exc:
        game = GcgGame(name=name, first_line=rec.start, skipped=True)
        game.errors.append(exc)
        return game
    game = parse_gcg(text, name, first_line=rec.start)
    game.encoding = enc
    return game


def first_game(path: str | Path) -> GcgGame:
    """The first game of ``path`` (what a command taking one game reads). When another game follows, the game
    gets an error at that line (a file of several games is read whole by ``kiosk replay``). Raises
    :class:`GcgError` when the file cannot be read."""
    games = iter_gcg(path)
    try:
        game = next(games)
        more = next(games, None)
    finally:
        games.close()
    if more is not None:
        game.errors.append(GcgError(str(path), more.first_line, "a second game begins here: give one game per "
                                    "file (kiosk replay reads every game of a file)"))
    return game


def _parse_word(tok: str) -> tuple[str, tuple[int, ...]] | None:
    if not _WORD_CHARS.match(tok):
        return None
    word: list[str] = []
    through: list[int] = []
    depth = 0
    for ch in tok:
        if ch == "(":
            if depth:
                return None
            depth = 1
        elif ch == ")":
            if not depth:
                return None
            depth = 0
        else:
            if depth:
                through.append(len(word))
            word.append(ch)
    if depth or not word:
        return None
    return "".join(word), tuple(through)


def _is_coordinate(tok: str) -> bool:
    try:
        parse_coordinate(tok)
    except CoordinateError:
        return False
    return True


def parse_event(text: str, name: str = "<gcg>", line: int = 0) -> GcgEvent:
    """Parse one event line (starting with ``>``). Raises :class:`GcgError` naming the line and the fault."""
    body = text[1:]
    nick, sep, rest = body.partition(":")
    nick = nick.strip()
    if not sep or not nick or any(ch.isspace() for ch in nick):
        raise GcgError(name, line, f"event line has no '>NICK:' prefix: {text.strip()[:60]!r}")
    toks = rest.split()
    k = next((i for i in range(len(toks) - 1) if _SIGNED.match(toks[i]) and _CUMUL.match(toks[i + 1])), None)
    if k is None:  # some recorders write the score without its sign ("-OOU 0 0")
        k = next((i for i in range(1, len(toks) - 1) if _UNSIGNED.match(toks[i]) and _CUMUL.match(toks[i + 1])), None)
    if k is None:
        raise GcgError(name, line, f"no score and cumulative total found in {rest.strip()[:60]!r}")
    pre, trailing = toks[:k], tuple(toks[k + 2:])
    score = _points(toks[k].replace("+-", "-"), "score", name, line)
    cumulative = _points(toks[k + 1], "total", name, line)
    ev = GcgEvent(EventKind.PASS, nick, score=score, cumulative=cumulative, line=line, trailing=trailing)

    def take_rack(tokens: list[str], n_after: int) -> list[str]:
        # tokens = [RACK?] + n_after fields
        if len(tokens) == n_after:
            return tokens
        if len(tokens) == n_after + 1:
            rack = tokens[0]
            if not _RACK.match(rack) or len(rack) > 7:
                raise GcgError(name, line, f"malformed rack '{rack}' (up to 7 letters or '?')")
            ev.rack = rack
            return tokens[1:]
        raise GcgError(name, line, f"cannot read event fields {' '.join(tokens)!r}")

    last = pre[-1] if pre else ""
    if last == "(challenge)":
        take_rack(pre, 1)
        ev.kind = EventKind.CHALLENGE_BONUS
    elif last == "(time)":
        take_rack(pre, 1)
        ev.kind = EventKind.TIME_PENALTY
    elif last == "(adjust)":
        take_rack(pre, 1)
        ev.kind = EventKind.ADJUSTMENT
    elif last.startswith("(") and last.endswith(")") and not (len(pre) >= 2 and _is_coordinate(pre[-2])):
        take_rack(pre, 1)
        tiles = last[1:-1]
        if not _RACK.match(tiles) or not tiles:
            raise GcgError(name, line, f"malformed end-of-game rack '{last}'")
        ev.kind, ev.tiles = EventKind.END_RACK, tiles
    elif last == "--":
        take_rack(pre, 1)
        ev.kind = EventKind.WITHDRAWN
    elif last == "-":
        take_rack(pre, 1)
        ev.kind = EventKind.PASS
    elif last.startswith("-") and len(pre) <= 2:
        take_rack(pre, 1)
        ev.kind = EventKind.EXCHANGE
        spec = last[1:]
        if spec.isascii() and spec.isdigit():
            ev.count = int(spec)
        elif _RACK.match(spec) and spec:
            ev.tiles, ev.count = spec, len(spec)
        else:
            raise GcgError(name, line, f"malformed exchange '{last}'")
        if not 1 <= ev.count <= 7:
            raise GcgError(name, line, f"malformed exchange '{last}': 1 to 7 tiles")
    else:
        fields_ = take_rack(pre, 2) if len(pre) in (2, 3) else None
        if fields_ is None:
            raise GcgError(name, line, f"cannot read event fields {' '.join(pre)!r} (expected RACK COORD WORD)")
        coord_tok, word_tok = fields_
        try:
            ev.coordinate = parse_coordinate(coord_tok)
        except CoordinateError as exc:
            if len(pre) == 2 and _RACK.match(coord_tok):
                raise GcgError(name, line, f"no coordinate before word '{word_tok}'") from None
            raise GcgError(name, line, f"invalid coordinate: {exc}") from None
        parsed = _parse_word(word_tok)
        if parsed is None:
            raise GcgError(name, line, f"malformed word '{word_tok}'")
        ev.kind = EventKind.PLAY
        ev.word, ev.through = parsed
    return ev


def _points(tok: str, what: str, name: str, line: int) -> int:
    """A score or total token as points; raises :class:`GcgError` for a number beyond :data:`MAX_POINTS`."""
    digits = tok.lstrip("+-")
    value = int(tok) if len(digits) <= 9 else None   # never converts a line's worth of digits
    if value is None or abs(value) > MAX_POINTS:
        shown = tok if len(tok) <= 24 else f"{tok[:12]}...({len(digits):,} digits)"
        raise GcgError(name, line, f"a {what} of {shown} points: no game has such a number (at most "
                                   f"{MAX_POINTS:,} either way); the record is damaged")
    return value


@overload
def parse_gcg(text: str, name: str = "<gcg>", visitor: None = None, *, first_line: int = 1) -> GcgGame: ...
@overload
def parse_gcg(text: str, name: str, visitor: GcgVisitor[ResultT], *, first_line: int = 1) -> ResultT: ...
def parse_gcg(text: str, name: str = "<gcg>", visitor: GcgVisitor[ResultT] | None = None, *,
              first_line: int = 1) -> GcgGame | ResultT:
    """Parse GCG text (already decoded): the :class:`GcgGame`, or ``visitor``'s result when one is given.
    ``first_line``: the file's line number of the text's first line (a game of a file of several). Never
    raises on content; see module docstring."""
    game = _parse(text, name, first_line)
    return game if visitor is None else game.accept(visitor)


def _parse(text: str, name: str, first_line: int = 1) -> GcgGame:
    game = GcgGame(name=name, first_line=first_line)
    last_note_target: list[str] | None = None
    seen_event = False
    nicks_seen: set[str] = set()
    player_lines: dict[int, int] = {}  # seat (0-based) -> the line of its #playerN
    for i, raw in enumerate(re.split(r"\r\n|\r|\n", text), start=first_line):
        if raw.startswith(_BOM):   # a file's own BOM is gone already (decode_gcg): this one is where files were joined
            raw = raw.lstrip(_BOM)
            game.warnings.append(GcgError(name, i, "a byte-order mark (U+FEFF, as at the start of a file) begins this "
                                                   "line, as where two files were joined: read without it"))
        line = raw.rstrip()
        if len(raw) > MAX_LINE:
            if len(raw.encode("utf-8", "surrogateescape")) >= MAX_LINE_BYTES:   # the file reader cut it there
                why = (f"a line of {MAX_LINE_BYTES:,} bytes or more (GCG readers accept {MAX_LINE} characters): only "
                       f"its first {MAX_LINE_BYTES:,} bytes were read")
            else:
                why = f"a line of {len(raw):,} characters (GCG readers accept {MAX_LINE}); kept"
            game.warnings.append(GcgError(name, i, why))
        if not line.strip():
            last_note_target = None if not line else last_note_target
            continue
        if line.startswith("#"):
            last_note_target = _pragma(game, i, line, seen_event, nicks_seen, player_lines)
            continue
        if line.startswith(">"):
            last_note_target = None
            seen_event = True
            _event_line(game, i, line)
            continue
        if last_note_target is not None:
            last_note_target[-1] += "\n" + line
            continue
        game.warnings.append(GcgError(name, i, f"line ignored (neither pragma nor event): {line[:40]!r}"))
    _player_gap(game, player_lines)
    return game


def _player_gap(game: GcgGame, player_lines: dict[int, int]) -> None:
    """A missing ``#playerN`` below a given one (``#player1`` and ``#player3`` only): an error at the line of
    the first pragma past the gap (the seats, hence the turn order, are unknown); the players kept are the
    ones named, in their order."""
    missing = [i for i, p in enumerate(game.players) if p is None]
    if not missing:
        return
    gap = missing[0]
    after = min(i for i in player_lines if i > gap)
    game.errors.append(GcgError(game.name, player_lines[after], f"#player{after + 1} without #player{gap + 1}: "
                                "players are numbered from 1 without gaps (#player1, #player2 ...)"))
    game.players = [p for p in game.players if p]


def _pragma(game: GcgGame, i: int, line: str, seen_event: bool, nicks_seen: set[str],
            player_lines: dict[int, int]) -> list[str] | None:
    """Take the pragma ``line`` (line ``i``) into ``game``; returns the note list a continuation line extends
    (after ``#note``), else None. ``player_lines``: seat -> line of its ``#playerN``, filled in."""
    name = game.name
    kw, val = _split_pragma(line)
    if (seat := re.fullmatch(r"player(\d+)", kw)) and kw not in ("player1", "player2", "player3", "player4"):
        game.errors.append(GcgError(name, i, _player_number_problem(kw, int(seat[1]))))
    elif kw in ("player1", "player2", "player3", "player4"):
        if _player(game, i, kw, val, seen_event, nicks_seen):
            player_lines[int(kw[-1]) - 1] = i
    elif kw == "note":
        target = game.events[-1].notes if game.events else game.notes
        target.append(val)
        return target
    elif kw in ("rack1", "rack2", "rack3", "rack4"):
        rack = re.sub(r"\s", "", val)
        if not _RACK.match(rack) or len(rack) > 7:
            game.errors.append(GcgError(name, i, f"malformed #{kw} '{val}'"))
        else:
            game.racks[int(kw[-1]) - 1] = rack
            game.rack_lines[int(kw[-1]) - 1] = i
    elif kw == "incomplete":
        game.incomplete = True
    elif kw == "character-encoding":
        if i != game.first_line:
            game.warnings.append(GcgError(name, i, "#character-encoding must be the first line; ignored here"))
    else:
        game.pragmas.setdefault(kw, []).append(val)
    return None


def _player_number_problem(kw: str, n: int) -> str:
    """Why pragma ``#kw`` (``player`` and digits, not one of ``player1`` .. ``player4``; ``n`` its number) names no
    seat: #player0, #player5, or a number written with a leading zero or other digits (#player02, #player٢)."""
    if n == 0:
        return f"#{kw}: players are numbered from 1 (#player1 to #player{MAX_PLAYERS})"
    if n > MAX_PLAYERS:
        return f"#{kw}: a game has at most {MAX_PLAYERS} players (#player1 to #player{MAX_PLAYERS})"
    return f"#{kw}: write #player{n}"


def _split_pragma(line: str) -> tuple[str, str]:
    """A pragma line's keyword (lower case) and value: separated by a space or a tab, as GCG tokens are
    (``docs/gcg.md``)."""
    m = _PRAGMA.match(line)
    assert m is not None   # any line starting with "#"
    return m.group(1).strip().lower(), m.group(2).strip()


def _player(game: GcgGame, i: int, kw: str, val: str, seen_event: bool, nicks_seen: set[str]) -> bool:
    """A ``#playerN`` pragma (``kw`` "player1" .. "player4") at line ``i``; True when it named the seat."""
    name = game.name
    idx = int(kw[-1]) - 1
    parts = val.split(None, 1)
    if not parts:
        game.errors.append(GcgError(name, i, f"#{kw} needs a nickname"))
        return False
    if seen_event:
        game.errors.append(GcgError(name, i, f"#{kw} after the first move: players must be named before any move"))
    if idx < len(game.players) and game.players[idx] is not None:
        game.errors.append(GcgError(name, i, f"#{kw} given twice"))
        return False
    for what, text in (("nickname", parts[0]), ("name", parts[1] if len(parts) > 1 else "")):
        if (why := name_problem(text)) is not None:   # a tab is whitespace here: a bell, escape, NUL ...
            # (seated: no errors after)
            game.errors.append(GcgError(name, i, f"#{kw}: the {what} {shown_name(text)} {why}"))
    if parts[0] in nicks_seen:
        game.warnings.append(GcgError(name, i, f"duplicate nickname '{parts[0]}': its moves are assigned by turn order"))
    while len(game.players) <= idx:
        game.players.append(None)  # type: ignore[arg-type]
    game.players[idx] = Player(parts[0], parts[1] if len(parts) > 1 else parts[0])
    nicks_seen.add(parts[0])
    return True


def _event_line(game: GcgGame, i: int, line: str) -> None:
    """An event line (``>NICK: ...``) at line ``i``: the event, or an error naming the line."""
    name = game.name
    if game.racks:
        game.errors.append(GcgError(name, i, "event after the #rack pragma (a #rack line ends the record)"))
    try:
        ev = parse_event(line, name, i)
    except GcgError as exc:
        game.errors.append(exc)
        return
    if len([p for p in game.players if p]) < 2:
        game.errors.append(GcgError(name, i, "move before both players are named (#player1, #player2)"))
        return
    if game.player_index(ev.nick) < 0:
        game.errors.append(GcgError(name, i, f"player '{ev.nick}' does not exist (players: {', '.join(p.nick for p in game.players if p)})"))
        return
    game.events.append(ev)


# ---------------------------------------------------------------------------------------------- writing

def format_event(ev: GcgEvent) -> str:
    """One event as a GCG line (without notes)."""
    rack = ev.rack
    sc = f"{ev.score:+d}"
    if ev.kind is EventKind.PLAY:
        assert ev.coordinate is not None
        word = "".join(f"({ch})" if i in ev.through else ch for i, ch in enumerate(ev.word)).replace(")(", "")
        body = f"{rack} {ev.coordinate} {word}"
    elif ev.kind is EventKind.PASS:
        body = f"{rack} -"
    elif ev.kind is EventKind.EXCHANGE:
        body = f"{rack} -{ev.tiles or ev.count}"
    elif ev.kind is EventKind.WITHDRAWN:
        body = f"{rack} --"
    elif ev.kind is EventKind.CHALLENGE_BONUS:
        body = f"{rack} (challenge)"
    elif ev.kind is EventKind.END_RACK:
        body = f"{rack} ({ev.tiles})"
    elif ev.kind is EventKind.ADJUSTMENT:
        body = f"{rack} (adjust)"
    else:
        body = f"{rack} (time)"
    return f">{ev.nick}: {body.strip()} {sc} {ev.cumulative}"


def write_gcg(game: GcgGame) -> str:
    """The game as GCG text (UTF-8 with its header line, LF line ends). ``parse_gcg(write_gcg(g))`` gives back
    the same players, pragmas, events and notes."""
    out = ["#character-encoding UTF-8"]
    for i, p in enumerate(game.players, start=1):
        out.append(f"#player{i} {p.nick} {p.name}".rstrip())
    for kw, values in game.pragmas.items():
        for v in values:
            out.append(f"#{kw} {v}".rstrip())
    for n in game.notes:
        out.append(f"#note {n}")
    for ev in game.events:
        out.append(format_event(ev))
        for n in ev.notes:
            out.append(f"#note {n}")
    for idx, rack in sorted(game.racks.items()):
        out.append(f"#rack{idx + 1} {rack}")
    if game.incomplete:
        out.append("#incomplete")
    return "\n".join(out) + "\n"

