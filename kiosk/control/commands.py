"""Commands: what a touch on the kiosk's screen asks the kiosk to do, one frozen type per action.

A command names what a person at the table wants (``Hold(player=1)``); the kiosk decides whether it happens
and which referee event records it (:meth:`kiosk.app.kiosk.Kiosk.handle`). Players are indices into the
game's players (0 = the first player); squares are 0..224 (row-major, A1 = 0, O15 = 224); times are taken by
the kiosk when it handles the command, never carried by the command.

Each command has one name, the snake_case of its type (``AcceptOutplay`` -> ``"accept_outplay"``), used in logs,
in messages and by :func:`command_from` (a name plus loose keyword values, as scripts and the simulated players
send them). Commands behind the judge's PIN derive from :class:`JudgeCommand`.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar


@dataclass(frozen=True)
class Command:
    """Base of every command. ``name``: the command's one name (snake_case of the type's name)."""

    name: ClassVar[str] = "command"

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls.name = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()
        if not cls.__name__.startswith("_") and cls.__name__ not in ("JudgeCommand", "JudgeEventCommand"):
            COMMANDS[cls.name] = cls


COMMANDS: dict[str, type[Command]] = {}
"""Every concrete command type by its name."""


class UnknownCommand(LookupError):
    """No command has the name asked for (the message names it)."""


@dataclass(frozen=True)
class JudgeCommand(Command):
    """A command only the judge may give: the kiosk refuses it unless the judge menu is unlocked."""


# -------------------------------------------------------------------------------------------- players


@dataclass(frozen=True)
class Hold(Command):
    """``player`` holds the last play (to look at it before deciding to challenge)."""

    player: int


@dataclass(frozen=True)
class Release(Command):
    """``player`` releases his hold: the last play stands unchallenged."""

    player: int


@dataclass(frozen=True)
class Challenge(Command):
    """``player`` challenges the last play: ``words`` (upper case) or, empty, every word it formed."""

    player: int
    words: tuple[str, ...] = ()


@dataclass(frozen=True)
class WithdrawChallenge(Command):
    """``player`` withdraws his challenge before the ruling, without penalty (002 II.L.8)."""

    player: int


@dataclass(frozen=True)
class CourtesyDraw(Command):
    """``player`` (who made the held play) draws his replacement tiles during a long hold, kept apart."""

    player: int


@dataclass(frozen=True)
class Designate(Command):
    """``player`` says which ``letter`` (one letter of the tile set) the blank on ``square`` stands for."""

    player: int
    square: int
    letter: str


@dataclass(frozen=True)
class Exchange(Command):
    """The player on move will exchange ``count`` tiles when he presses his clock (0 cancels the choice)."""

    count: int


@dataclass(frozen=True)
class AcceptOutplay(Command):
    """``player`` accepts the play that went out (no hold, no challenge): the game ends."""

    player: int


@dataclass(frozen=True)
class Done(Command):
    """``player`` ends his turn on the screen, as a press of his clock button would: the touch "done" of a side
    with no wired button (the third and fourth players or teams at a table of 3-4, seeds 003/004)."""

    player: int


@dataclass(frozen=True)
class Rule(Command):
    """The judge's ruling on the open challenge, given with his ``pin``: the words are ``acceptable`` or not.

    ``invalid``: the failing words (empty: the lexicon's suggestion when unacceptable); ``judge``: who ruled.
    """

    acceptable: bool
    pin: str = ""
    invalid: tuple[str, ...] = ()
    judge: str = "judge"


@dataclass(frozen=True)
class Racks(Command):
    """The tiles left on each player's rack at the end (one string per player, ``"?"`` for a blank)."""

    racks: tuple[str, ...]


@dataclass(frozen=True)
class JudgeUnlock(Command):
    """Open the judge menu with ``pin`` (it stays open 2 minutes)."""

    pin: str = ""


@dataclass(frozen=True)
class JudgeDone(Command):
    """The judge closed his menu: the clocks the table's judge button stopped run again (a pause stays)."""


@dataclass(frozen=True)
class StartGame(Command):
    """Start a new game: ``preset`` (:meth:`kiosk.referee.presets.Preset.to_dict`), ``players`` (names, in
    seat order), ``first`` (the index of the player who moves first), ``game_id`` (empty: a new one)."""

    preset: Mapping[str, Any]
    players: tuple[str, ...]
    first: int = 0
    game_id: str = ""


# -------------------------------------------------------------------------------------------- the judge


@dataclass(frozen=True)
class Correct(JudgeCommand):
    """What the camera should have read on ``square``: ``char`` a letter, ``"?"`` a blank or ``"."`` empty."""

    square: int
    char: str


@dataclass(frozen=True)
class Adjust(JudgeCommand):
    """Add ``points`` (negative: take away) to ``player``'s score, for ``reason``."""

    player: int
    points: int
    reason: str = ""


@dataclass(frozen=True)
class Undo(JudgeCommand):
    """Take back the last turn (a misread move), for ``reason``."""

    reason: str = ""


@dataclass(frozen=True)
class ChangePreset(JudgeCommand):
    """Play under other rules (before the first move only): ``preset`` as :meth:`Preset.to_dict`."""

    preset: Mapping[str, Any] = field(default_factory=dict)
    reason: str = ""


@dataclass(frozen=True)
class CallGame(JudgeCommand):
    """End the game now (time limit, director's decision), for ``reason``: the players enter their racks.

    ``as_it_stands``: the director stops the game with the scores as they stand, no racks and no adjustment
    (seed 002 III.G)."""

    reason: str = ""
    as_it_stands: bool = False


@dataclass(frozen=True)
class JudgeEventCommand(JudgeCommand):
    """A judge's command that one referee event records as it is (:mod:`kiosk.app.table_rulings`)."""


@dataclass(frozen=True)
class AddTime(JudgeEventCommand):
    """Give ``player`` ``ms`` more playing time (the extra minute of seed 002 II.F / II.O), for ``reason``."""

    player: int
    ms: int = 60_000
    reason: str = "extra minute from the judge"


@dataclass(frozen=True)
class Resign(JudgeEventCommand):
    """``player`` resigns: a forfeit loss with the scores as they stand (seed 002 III.G)."""

    player: int
    reason: str = "resigned at the table"


@dataclass(frozen=True)
class LateArrival(JudgeEventCommand):
    """``player`` arrived ``late_ms`` after the start (told before the first move; seed 000 rule 19, 002 I.F)."""

    player: int
    late_ms: int


@dataclass(frozen=True)
class ConfirmRemoved(JudgeCommand):
    """The judge saw a withdrawn play's tiles leave the board (when the camera cannot tell)."""


# -------------------------------------------------------------------------------------------- by name


def _converter(hint: Any) -> Callable[[Any], Any]:
    """How a loose keyword value becomes a field of type ``hint``: int(), str(), bool(), tuple(), dict()."""
    origin = typing.get_origin(hint) or hint
    if origin in (int, str, bool, tuple):
        return typing.cast(Callable[[Any], Any], origin)
    if origin in (Mapping, dict):
        return dict
    raise TypeError(f"no converter for {hint!r}")


def command_from(name: str, values: Mapping[str, Any]) -> Command:
    """The command ``name`` (see :data:`COMMANDS`) built from loose ``values`` (``player="1"`` becomes 1, a
    list of words a tuple); keys the command does not have are ignored, a missing default takes its default.

    Raises:
        UnknownCommand: no command has that name.
        KeyError: a value without a default is missing (the key names the field).
        TypeError, ValueError: a value cannot become its field's type (``int("x")``).
    """
    cls = COMMANDS.get(name)
    if cls is None:
        raise UnknownCommand(f"unknown action {name!r}")
    hints = typing.get_type_hints(cls)
    kw: dict[str, Any] = {}
    for f in fields(cls):
        if f.name in values:
            kw[f.name] = _converter(hints[f.name])(values[f.name])
        elif f.default is MISSING and f.default_factory is MISSING:
            raise KeyError(f.name)
    return cls(**kw)
