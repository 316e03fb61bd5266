"""The event folder: ``DIR/event.toml`` describes divisions, rounds, players and pairings.

Format (TOML)::

    name = "Spring Open"
    rounds = 7
    director_pin = "2468"              # optional: lets the desk page assign pairings (4-8 digits, in quotes)

    [[division]]
    name = "A"
    tfile = "a.t"                      # optional: the division's tsh data file, relative to DIR
    players = [
      { name = "Ann Lee", number = 1, rating = 1850 },   # number: tsh player number (default: position)
      { name = "Bob Brown" },                            # rating optional (default 0)
    ]

    [[pairing]]                        # board N of round R -> two players of one division
    round = 1
    board = 3
    players = ["Ann Lee", "Bob Brown"]

    [[bye]]                            # optional: a player without a game in round R, and what it counts
    round = 2
    player = "Ann Lee"
    spread = 50                        # optional: tsh's bye score (default 50, a win by 50); -50: a forfeit loss

A player of a division who is in no pairing of a round in which the division has results has a bye there (tsh
writes opponent 0 and the spread as the score): the ``[[bye]]``'s spread, or :data:`BYE_SPREAD` when none is
recorded. The standings and the ``.t`` export count it alike. A bye the division's tfile holds already counts
its score there (:func:`kiosk.desk.tsh.add_tfile_byes`; a ``[[bye]]`` of another spread is refused).

Names are matched ignoring case, repeated spaces and the order ``Last, First`` (tsh's form) vs ``First Last``.
Every problem raises :class:`EventFileError` naming the file and the entry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from kiosk.files import InputError, read_toml
from kiosk.rules.names import name_problem, shown_name
from kiosk.settings.pins import check_pin
from kiosk.stream.subscriber import MAX_BOARD

BYE_SPREAD = 50   #: the score of a bye not recorded otherwise: tsh's default ``bye_spread`` (a win by 50)


class EventFileError(ValueError):
    """The event folder or its ``event.toml`` is unusable (message: ``PATH: problem``)."""


def name_key(name: str) -> str:
    """Matching key of a player name: ``"Lee, Ann"``, ``"ann  LEE"`` and ``"Ann Lee"`` -> ``"ann lee"``."""
    text = " ".join(str(name).split())
    if text.count(",") == 1:
        last, first = (p.strip() for p in text.split(","))
        text = f"{first} {last}".strip()
    return text.casefold()


@dataclass(frozen=True)
class Player:
    """A registered player: ``number`` is the tsh player number (1-based line of the division's ``.t``
    file), ``rating`` the pre-event rating (0: unrated)."""

    name: str
    division: str
    number: int
    rating: int = 0


@dataclass(frozen=True)
class Division:
    """A division: its players (in tsh number order) and, optionally, its tsh ``.t`` file."""

    name: str
    players: tuple[Player, ...]
    tfile: Path | None = None


@dataclass(frozen=True)
class Pairing:
    """Board ``board`` of round ``round``: ``players`` (two names, as in the event file) of ``division``."""

    round: int
    board: int
    division: str
    players: tuple[str, str]


@dataclass
class EventConfig:
    """The loaded event (see module doc). ``pairings`` is keyed by (round, board)."""

    folder: Path
    name: str
    rounds: int
    divisions: dict[str, Division]
    pairings: dict[tuple[int, int], Pairing] = field(default_factory=dict)
    director_pin: str | None = None
    byes: dict[tuple[int, str], int] = field(default_factory=dict)   #: (round, name_key) -> spread ([[bye]])
    _players: dict[str, Player] = field(default_factory=dict)

    def player(self, name: str) -> Player | None:
        """The registered player of that name (see :func:`name_key`), or None."""
        return self._players.get(name_key(name))

    def pairing_for(self, board: int, names: tuple[str, ...] | list[str],
                    taken: Callable[[int], bool] = lambda rnd: False) -> Pairing | None:
        """The pairing of ``board`` whose two players are ``names`` (in either order): the earliest round not
        ``taken`` (a round whose board already holds another game - a rematch is the next round's); None when
        no such round pairs these players on that board."""
        want = sorted(name_key(n) for n in names)
        for (r, b), p in sorted(self.pairings.items()):
            if b == board and sorted(name_key(n) for n in p.players) == want and not taken(r):
                return p
        return None

    def next_pairing(self, board: int, done: Callable[[int], bool]) -> Pairing | None:
        """The pairing of ``board`` in the earliest round not ``done`` (no game recorded there yet), or None."""
        for (r, b), p in sorted(self.pairings.items()):
            if b == board and not done(r):
                return p
        return None

    def byes_in(self, division: str, rnd: int, played: set[str]) -> list[tuple[Player, int]]:
        """The byes of ``division`` in round ``rnd`` with their spread: every player not in ``played`` (name keys
        of the players with a result that round) whom no pairing of the round seats - a recorded ``[[bye]]``'s
        spread or :data:`BYE_SPREAD`; a player paired that round has a game still to come, no bye."""
        seated = {name_key(n) for p in self.round_pairings(rnd) for n in p.players}
        out = []
        for p in self.divisions[division].players:
            key = name_key(p.name)
            if key in played:
                continue
            if (rnd, key) in self.byes:
                out.append((p, self.byes[(rnd, key)]))
            elif key not in seated:
                out.append((p, BYE_SPREAD))
        return out

    def round_pairings(self, rnd: int) -> list[Pairing]:
        """Pairings of round ``rnd`` by board."""
        return [p for (r, _), p in sorted(self.pairings.items()) if r == rnd]

    def assign(self, rnd: int, board: int, names: tuple[str, str]) -> Pairing:
        """Set (or replace) the pairing of board ``board`` in round ``rnd`` (the director at the desk).

        Raises :class:`EventFileError` (path ``desk``) for an unknown player, two divisions, a player already
        paired on another board of that round, or a round outside 1..rounds."""
        p = self._check_pairing(Path("desk"), f"round {shown(rnd)} board {shown(board)}", rnd, board, list(names),
                                {k: v for k, v in self.pairings.items() if k != (rnd, board)})
        self.pairings[(rnd, board)] = p
        return p

    def _check_pairing(self, path: Path, where: str, rnd: Any, board: Any, names: Any,
                       others: dict[tuple[int, int], Pairing]) -> Pairing:
        if not _whole(rnd) or not 1 <= rnd <= self.rounds:
            raise EventFileError(f"{path}: {where}: round {shown(rnd)} is not a round of the event (1-{self.rounds})")
        if not _whole(board) or not 0 <= board <= MAX_BOARD:   # beyond it no kiosk's message is taken
            raise EventFileError(f"{path}: {where}: board {shown(board)} must be a whole number 0-{MAX_BOARD}")
        if not isinstance(names, list) or len(names) != 2 or not all(isinstance(n, str) for n in names):
            raise EventFileError(f"{path}: {where}: players must be a list of two names")
        found = []
        for n in names:
            pl = self.player(n)
            if pl is None:
                raise EventFileError(f"{path}: {where}: {n!r} is not a registered player")
            found.append(pl)
        if found[0] == found[1]:
            raise EventFileError(f"{path}: {where}: {names[0]!r} cannot play themself")
        if found[0].division != found[1].division:
            raise EventFileError(f"{path}: {where}: {names[0]!r} (division {found[0].division}) and {names[1]!r} "
                                 f"(division {found[1].division}) are in different divisions")
        for (r, b), other in others.items():
            if r == rnd and b != board:
                busy = {name_key(x) for x in other.players}
                seated = [pl.name for pl in found if name_key(pl.name) in busy]   # as registered, not the key
                if seated:
                    raise EventFileError(f"{path}: {where}: {seated[0]!r} already plays on board {b} "
                                         f"in round {rnd}")
        if (rnd, board) in others:
            raise EventFileError(f"{path}: {where}: board {board} of round {rnd} is paired twice")
        bye = next((pl.name for pl in found if (rnd, name_key(pl.name)) in self.byes), None)
        if bye is not None:
            raise EventFileError(f"{path}: {where}: {bye!r} has a bye in round {rnd} (a [[bye]] of event.toml)")
        return Pairing(rnd, board, found[0].division, (found[0].name, found[1].name))


def shown(value: Any) -> str:
    """A value as the director wrote it (JSON / TOML spelling: ``true``, ``"3"``, ``[1, 2]``, never Python's
    ``True``), cut to 20 characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 20 else text[:19] + "…"


def _whole(x: Any) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def load_event(folder: str | Path) -> EventConfig:
    """Read ``folder/event.toml``. Raises :class:`EventFileError` naming the file and the problem."""
    folder = Path(folder)
    path = folder / "event.toml"
    if not folder.is_dir():
        raise EventFileError(f"{folder}: not a folder (expected the event folder holding event.toml)")
    if not path.exists() and not path.is_symlink():
        raise EventFileError(f"{path}: no such file (the event folder needs an event.toml)")
    try:
        data = read_toml(path, "event file")
    except InputError as exc:
        raise EventFileError(str(exc)) from None
    unknown = set(data) - {"name", "rounds", "director_pin", "division", "pairing", "bye"}
    if unknown:  # a typo ('director_pn', 'pairings') would otherwise be dropped without a word
        raise EventFileError(f"{path}: unknown key {sorted(unknown)[0]!r} (known: name, rounds, director_pin, "
                             f"[[division]], [[pairing]], [[bye]])")
    rounds = data.get("rounds")
    if not _whole(rounds) or rounds < 1:
        raise EventFileError(f"{path}: rounds = {shown(rounds)}: need a whole number >= 1")
    pin = data.get("director_pin")
    if pin is not None:
        try:   # the kiosk's own rule for a PIN (4 to 8 digits, text in quotes): the director types it on a pad
            check_pin(pin, "director_pin")
        except ValueError as exc:
            raise EventFileError(f"{path}: {exc}") from None
    cfg = EventConfig(folder=folder, name=str(data.get("name", folder.name)), rounds=rounds, divisions={},
                      director_pin=pin)
    divs = data.get("division")
    if not isinstance(divs, list) or not divs:
        raise EventFileError(f"{path}: no [[division]] tables (at least one division with players is needed)")
    for i, d in enumerate(divs, 1):
        _load_division(cfg, path, i, d)
    pairs = data.get("pairing", [])
    if not isinstance(pairs, list):
        raise EventFileError(f"{path}: pairing must be [[pairing]] tables")
    for i, p in enumerate(pairs, 1):
        if not isinstance(p, dict):
            raise EventFileError(f"{path}: pairing {i}: not a table")
        unknown = set(p) - {"round", "board", "players"}
        if unknown:
            raise EventFileError(f"{path}: pairing {i}: unknown key {sorted(unknown)[0]!r}")
        pr = cfg._check_pairing(path, f"pairing {i}", p.get("round"), p.get("board"), p.get("players"),
                                cfg.pairings)
        cfg.pairings[(pr.round, pr.board)] = pr
    _load_byes(cfg, path, data.get("bye", []))
    return cfg


def _load_byes(cfg: EventConfig, path: Path, byes: Any) -> None:
    """The ``[[bye]]`` tables (see module doc) into ``cfg.byes``. Raises :class:`EventFileError` naming the entry."""
    if not isinstance(byes, list):
        raise EventFileError(f"{path}: bye must be [[bye]] tables")
    for i, b in enumerate(byes, 1):
        where = f"{path}: bye {i}"
        if not isinstance(b, dict):
            raise EventFileError(f"{where}: not a table")
        unknown = set(b) - {"round", "player", "spread"}
        if unknown:
            raise EventFileError(f"{where}: unknown key {sorted(unknown)[0]!r} (known: round, player, spread)")
        rnd, name, spread = b.get("round"), b.get("player"), b.get("spread", BYE_SPREAD)
        if not _whole(rnd) or not 1 <= rnd <= cfg.rounds:
            raise EventFileError(f"{where}: round {shown(rnd)} is not a round of the event (1-{cfg.rounds})")
        player = cfg.player(name) if isinstance(name, str) else None
        if player is None:
            raise EventFileError(f"{where}: player {shown(name)} is not a registered player")
        if not _whole(spread) or abs(spread) > 1000:
            raise EventFileError(f"{where}: spread {shown(spread)} must be a whole number of points, -1000 to 1000")
        key = (rnd, name_key(player.name))
        if key in cfg.byes:
            raise EventFileError(f"{where}: {player.name!r} has two byes in round {rnd}")
        board = next((p.board for p in cfg.round_pairings(rnd) if key[1] in map(name_key, p.players)), None)
        if board is not None:
            raise EventFileError(f"{where}: {player.name!r} plays on board {board} in round {rnd}, so has no bye")
        cfg.byes[key] = spread


def _load_division(cfg: EventConfig, path: Path, i: int, d: Any) -> None:
    if not isinstance(d, dict):
        raise EventFileError(f"{path}: division {i}: not a table")
    name = d.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", name):
        raise EventFileError(f"{path}: division {i}: name {name!r} must be 1-32 letters, digits, - or _")
    if name in cfg.divisions:
        raise EventFileError(f"{path}: division {name!r} is given twice")
    unknown = set(d) - {"name", "tfile", "players"}
    if unknown:  # e.g. a [[pairing]]'s key written under [[division]], or 'tfiel'
        raise EventFileError(f"{path}: division {name}: unknown key {sorted(unknown)[0]!r} (known: name, tfile, "
                             f"players)")
    tfile = d.get("tfile")
    tpath = None
    if tfile is not None:
        if not isinstance(tfile, str) or not tfile.endswith(".t"):
            raise EventFileError(f"{path}: division {name}: tfile {tfile!r} must name a tsh .t file")
        tpath = (cfg.folder / tfile)
        if not tpath.is_file():
            raise EventFileError(f"{path}: division {name}: tfile {tpath} does not exist")
    raw = d.get("players")
    if not isinstance(raw, list) or not raw:
        raise EventFileError(f"{path}: division {name}: players must be a non-empty list")
    players: list[Player] = []
    numbers: set[int] = set()
    for j, p in enumerate(raw, 1):
        where = f"{path}: division {name}: player {j}"
        if isinstance(p, str):
            p = {"name": p}
        if not isinstance(p, dict):
            raise EventFileError(f"{where}: expected a name or {{ name = ..., number = ..., rating = ... }}")
        unknown = set(p) - {"name", "number", "rating"}
        if unknown:
            raise EventFileError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        pname = p.get("name")
        if not isinstance(pname, str) or not pname.strip():
            raise EventFileError(f"{where}: name missing or empty")
        if (why := name_problem(pname)) is not None:   # a line break would add lines to the .t, GCG and CSV exports
            raise EventFileError(f"{where}: name {shown_name(pname)} {why}")
        number, rating = p.get("number", j), p.get("rating", 0)
        if not _whole(number) or number < 1:
            raise EventFileError(f"{where} ({pname}): number {shown(number)} must be a whole number >= 1")
        if number in numbers:
            raise EventFileError(f"{where} ({pname}): number {number} is used twice in division {name}")
        if not _whole(rating) or rating < 0:
            raise EventFileError(f"{where} ({pname}): rating {shown(rating)} must be a whole number >= 0")
        key = name_key(pname)
        if key in cfg._players:
            raise EventFileError(f"{where}: {shown_name(pname)} is registered twice")
        pl = Player(" ".join(pname.split()), name, number, rating)
        numbers.add(number)
        players.append(pl)
        cfg._players[key] = pl
    cfg.divisions[name] = Division(name, tuple(sorted(players, key=lambda x: x.number)), tpath)
