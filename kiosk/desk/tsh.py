"""tsh division data files (``.t``): read, merge a round's results into a copy, write.

A player line (tsh's documentation, "Configuring tsh", and every tsh-reading tool) is::

    Lee, Ann           1850  3 5 0; 420 390 50; board 1 2 3; p12 1 2 1

the name (no digits: tsh reads up to the first digit), the rating, the opponents' player numbers by round (0 = bye:
the score is then the spread the bye counts, tsh's ``bye_spread`` 50 a win, -50 a forfeit loss), then ``;`` and the player's scores by
round, then optional ``; key values`` fields (``board``, ``p12``: 1 went first, 2 second ...). A player's
number is the position of the line among the file's player lines (1-based); blank lines and ``#`` comments
are kept as they are.

:func:`merge_round` never touches the director's file: it returns new text, which the desk serves and saves
in its own folder. Problems raise :class:`TshError` naming the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kiosk.desk.event import Division, EventConfig, EventFileError, name_key
from kiosk.files import InputError, read_text
from kiosk.rules.counts import counted

_LINE = re.compile(r"^(?P<name>[^\d;]*[^\d\s;])\s+(?P<rating>\d+)(?P<opps>(?:\s+\d+)*)\s*(?:;(?P<scores>[^;]*))?(?P<rest>(?:;.*)?)$")


class TshError(ValueError):
    """A ``.t`` file cannot be read or merged (message: ``FILE:LINE: problem``)."""


@dataclass
class PlayerLine:
    """One player line. ``extra``: the ``; key values`` fields after the scores, as [key, [values]]."""

    name: str
    rating: int
    opponents: list[int]
    scores: list[int]
    extra: list[tuple[str, list[str]]] = field(default_factory=list)
    line: int = 0

    def render(self) -> str:
        """The line as tsh writes it: ``name rating opponents; scores; key values ...``."""
        text = f"{self.name} {self.rating}"
        if self.opponents:
            text += " " + " ".join(map(str, self.opponents))
        text += ("; " + " ".join(map(str, self.scores))).rstrip()
        for key, values in self.extra:
            text += f"; {key} {' '.join(values)}".rstrip()
        return text


def parse_t(text: str, path: str = "<.t>") -> list[PlayerLine | str]:
    """Lines of a ``.t`` file: :class:`PlayerLine` for players, the raw string for blank and comment lines."""
    out: list[PlayerLine | str] = []
    for i, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s or s.startswith("#"):
            out.append(raw)
            continue
        m = _LINE.match(s)
        if m is None:
            raise TshError(f"{path}:{i}: not a tsh player line (name, rating, opponents; scores): {s[:60]!r}")
        try:
            scores = [int(x) for x in (m["scores"] or "").split()]
        except ValueError:
            raise TshError(f"{path}:{i}: scores must be whole numbers: {m['scores']!r}") from None
        extra = []
        for seg in (m["rest"] or "").split(";")[1:]:
            words = seg.split()
            if words:
                extra.append((words[0], words[1:]))
        out.append(PlayerLine(m["name"].strip(), int(m["rating"]), [int(x) for x in m["opps"].split()], scores,
                              extra, i))
    return out


def render_t(lines: list[PlayerLine | str]) -> str:
    """The file text (LF line ends, final newline)."""
    return "".join((x.render() if isinstance(x, PlayerLine) else x) + "\n" for x in lines)


def players_of(lines: list[PlayerLine | str]) -> list[PlayerLine]:
    """Player lines in number order (number = index + 1)."""
    return [x for x in lines if isinstance(x, PlayerLine)]


def blank_t(division: Division) -> list[PlayerLine | str]:
    """A fresh ``.t`` for a division without a file: its players by number, with their ratings, no games.
    Raises :class:`TshError` when the numbers are not 1..n without a hole (tsh numbers lines by position)."""
    nums = [p.number for p in division.players]
    if nums != list(range(1, len(nums) + 1)):
        raise TshError(f"division {division.name}: player numbers {nums} are not 1..{len(nums)}; "
                       "give the division a tfile or number its players without holes")
    for p in division.players:
        if any(c.isdigit() or c == ";" for c in p.name):
            raise TshError(f"division {division.name}: player {p.number} {p.name!r}: a tsh name cannot hold digits "
                           "or ';' (tsh reads the rating from the first digit)")
    return [PlayerLine(p.name, p.rating, [], [], [], 0) for p in division.players]


@dataclass(frozen=True)
class Game:
    """A result to merge: players ``a`` and ``b`` by tsh number with their scores (points), the board, and
    whether ``a`` went first."""

    a: int
    score_a: int
    b: int
    score_b: int
    board: int
    a_first: bool = True


def merge_round(lines: list[PlayerLine | str], rnd: int, games: list[Game], division: Division,
                path: str = "<.t>", byes: Sequence[tuple[int, int]] = (), fresh: bool = False) -> list[PlayerLine | str]:
    """A copy of ``lines`` with round ``rnd``'s ``games`` entered. Rounds before must be entered already; a
    round already paired must pair the same opponents; a score already entered is replaced (a correction).
    ``board`` and ``p12`` fields present on a line are updated too. ``byes``: (player number, spread) of the
    players without a game that round, entered as tsh writes a bye (opponent 0, the spread as the score, board
    and p12 0) unless the line has the round already. ``fresh``: the lines are the desk's own (no tfile), so a
    round missing is said to be missing at the desk, not in a file. Raises :class:`TshError`."""
    out = [x if isinstance(x, str) else PlayerLine(x.name, x.rating, list(x.opponents), list(x.scores),
                                                   [(k, list(v)) for k, v in x.extra], x.line) for x in lines]
    players = players_of(out)
    by_number = {p.number: p for p in division.players}
    for n, pl in enumerate(players, 1):
        reg = by_number.get(n)
        if reg is not None and name_key(reg.name) != name_key(pl.name):
            raise TshError(f"{path}:{pl.line}: player {n} is {pl.name!r} in the file but {reg.name!r} in "
                           f"event.toml (division {division.name})")
    entries: list[tuple[int, int, int, bool | None, int]] = [(me, opp, score, first, g.board) for g in games
               for me, opp, score, first in ((g.a, g.b, g.score_a, g.a_first), (g.b, g.a, g.score_b, not g.a_first))]
    entries += [(me, 0, spread, None, 0) for me, spread in byes]
    for me, opp, score, first, board in entries:
        if not 1 <= me <= len(players):
            raise TshError(f"{path}: player number {me} is not in the file ({counted(len(players), 'player')})")
        pl = players[me - 1]
        where = f"{path}:{pl.line or me}: {pl.name}: round {rnd}"
        if len(pl.opponents) >= rnd:
            if opp == 0:
                continue   # the file has this round of a player the desk saw no game of: the file's stands
            if pl.opponents[rnd - 1] != opp:
                raise TshError(f"{where}: the file pairs opponent {pl.opponents[rnd - 1]}, the desk {opp}")
        elif len(pl.opponents) == rnd - 1:
            pl.opponents.append(opp)
        elif fresh:
            raise TshError(f"{path}: {pl.name}: round {rnd}: the desk has recorded no game or bye of theirs in rounds "
                           f"{len(pl.opponents) + 1}-{rnd - 1} yet")
        else:
            raise TshError(f"{where}: rounds {len(pl.opponents) + 1}-{rnd - 1} are not paired in the file")
        if len(pl.scores) >= rnd:
            pl.scores[rnd - 1] = score
        elif len(pl.scores) == rnd - 1:
            pl.scores.append(score)
        else:
            raise TshError(f"{where}: scores of rounds {len(pl.scores) + 1}-{rnd - 1} are missing in the file")
        _set_fields(pl, rnd, board, first)
    return out


def _set_fields(pl: PlayerLine, rnd: int, board: int, first: bool | None) -> None:
    """Round ``rnd``'s ``board`` and ``p12`` values on a line that has those fields (a bye: 0 and 0)."""
    for key, values in pl.extra:
        value = {"board": str(board), "p12": "0" if first is None else "1" if first else "2"}.get(key)
        if value is None:
            continue
        if len(values) >= rnd:
            values[rnd - 1] = value
        elif len(values) == rnd - 1:
            values.append(value)


def read_t(path: Path) -> list[PlayerLine | str]:
    """Read (:func:`kiosk.files.read_text`: UTF-8, a byte-order mark read past) and parse a ``.t`` file.

    Raises:
        TshError: naming the file (and the line): missing, empty, binary, not UTF-8, a line that is no player.
    """
    try:
        text = read_text(path, "tsh .t file")
    except InputError as exc:
        raise TshError(str(exc)) from None
    return parse_t(text, str(path))


def add_tfile_byes(cfg: EventConfig) -> None:
    """The byes the divisions' tfiles hold already (opponent 0: the score is the bye's spread, tsh's way) into
    ``cfg.byes``, so the standings count them as the ``.t`` export does (the file's stand). A ``[[bye]]`` of
    another spread for the same player and round is refused naming both (:class:`EventFileError`); a tfile that
    cannot be read is left to the export, which names its problem; a player the event pairs that round too is
    left to the export as well (it refuses the clash)."""
    for div in cfg.divisions.values():
        if div.tfile is None:
            continue
        try:
            lines = players_of(read_t(div.tfile))
        except TshError:
            continue
        for pl in lines:
            player = cfg.player(pl.name)
            if player is None or player.division != div.name:
                continue
            for rnd, (opp, score) in enumerate(zip(pl.opponents, pl.scores), 1):
                key = (rnd, name_key(player.name))
                if opp != 0 or any(key[1] in map(name_key, p.players) for p in cfg.round_pairings(rnd)):
                    continue
                if key in cfg.byes and cfg.byes[key] != score:
                    raise EventFileError(f"{cfg.folder / 'event.toml'}: {player.name!r} has a bye of spread "
                                         f"{cfg.byes[key]} in round {rnd} ([[bye]]), but {score} in {div.tfile} "
                                         f"line {pl.line}: give one")
                cfg.byes[key] = score
