"""The referee's event model: plain, immutable, JSON-serialisable values.

Every event has ``t`` (the kiosk's time in ms, non-decreasing through a game) and a ``type`` string.
``event.to_dict()`` gives ``{"type": ..., "t": ..., ...}``; :func:`event_from_dict` is its inverse and raises
:class:`EventError` naming the bad field. Players are 0-based indexes into ``GameStarted.players``; squares are
``row * 15 + col`` (:mod:`kiosk.rules.board`); tiles follow :mod:`kiosk.rules.tiles` (``"A"`` tile, ``"a"``
designated blank, ``"?"`` blank not yet designated).

Events the app sends (from the clock, the camera, the touchscreen, the judge) and events that
:meth:`kiosk.referee.Referee.tick` produces when a time limit falls due are the same kind of value, so the
journal replays both.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from kiosk.rules.checked import Checker


class EventError(ValueError):
    """A dict is not a valid event (unknown type, missing or mistyped field); the message names the field."""


EVENT_TYPES: dict[str, type[Event]] = {}
"""Every event class by its ``type`` string; each class adds itself when it is defined (:meth:`Event.__init_subclass__`)."""


@dataclass(frozen=True)
class Event:
    """Base of all events. ``t``: kiosk time in ms."""

    type: ClassVar[str] = ""
    t: int

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Register the new event class under its ``type`` (raises ``TypeError`` for a missing or taken type)."""
        super().__init_subclass__(**kwargs)
        if not cls.type or cls.type in EVENT_TYPES:
            raise TypeError(f"event class {cls.__name__}: type {cls.type!r} is missing or already taken")
        EVENT_TYPES[cls.type] = cls

    def to_dict(self) -> dict[str, Any]:
        """``{"type": ..., "t": ..., <fields>}`` with lists for tuples (JSON-ready)."""
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        """Rebuild an event from :meth:`to_dict` output (any type: dispatches on ``data["type"]``).

        Raises:
            EventError: unknown type, unknown/missing/mistyped field, or a type other than ``cls``.
        """
        ev = event_from_dict(data)
        if not isinstance(ev, cls):
            raise EventError(f"expected a '{cls.type}' event, got '{ev.type}'")
        return ev


def _plain(v: Any) -> Any:
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


# ------------------------------------------------------------------------------------------- game set-up


@dataclass(frozen=True)
class GameStarted(Event):
    """A game begins: ``preset`` is the full preset dict (:meth:`Preset.to_dict`) so a journal replays alone.

    ``players``: 2-4 names in turn order starting with ``first``; racks of 7 are drawn at once.
    """

    type: ClassVar[str] = "game_started"
    preset: dict = field(default_factory=dict)  # type: ignore[type-arg]  # from_dict reads the annotation "dict"
    players: tuple[str, ...] = ()
    first: int = 0
    game_id: str = ""


# ------------------------------------------------------------------------------------------ turn events


@dataclass(frozen=True)
class ClockPressed(Event):
    """``player`` pressed his side of the clock: his turn ends at ``t`` and the next player's time runs.

    Optional: the board reading that follows (:class:`Play`, or :class:`Pass` / :class:`Exchange`) says what
    the turn was and may come later; without a press, the turn event's own ``t`` is the press.
    """

    type: ClassVar[str] = "clock_pressed"
    player: int = 0


@dataclass(frozen=True)
class PressWithdrawn(Event):
    """``player``'s clock press is taken back: his turn did not end (e.g. the exchange he pressed for was
    refused: too few tiles in the bag). The time since the press is his, not his opponent's; he is on move."""

    type: ClassVar[str] = "press_withdrawn"
    player: int = 0


@dataclass(frozen=True)
class Play(Event):
    """A board reading accepted at the clock press: ``player`` placed ``tiles`` ((square, tile), ...).

    ``"?"`` marks a blank whose letter is still to be designated (:class:`BlankDesignated`). ``by_judge``: the
    judge's corrections decided the tiles, or all of them are his entry (the camera gave no reading); the referee
    scores it as any play, the journal and the stream keep who saw the tiles (written only when true).
    """

    type: ClassVar[str] = "play"
    player: int = 0
    tiles: tuple[tuple[int, str], ...] = ()
    by_judge: bool = False

    def to_dict(self) -> dict[str, Any]:
        """As :meth:`Event.to_dict`, ``by_judge`` written only when true: a camera-read play is written as before
        the field existed, so an earlier kiosk, desk or journal reader still reads it."""
        out = super().to_dict()
        if not self.by_judge:
            del out["by_judge"]
        return out


@dataclass(frozen=True)
class BlankDesignated(Event):
    """The letter (``"E"``) a blank played at ``square`` stands for; given once, never changed."""

    type: ClassVar[str] = "blank_designated"
    player: int = 0
    square: int = 0
    letter: str = ""


@dataclass(frozen=True)
class Pass(Event):
    """``player`` passes (clock press with no change on the board)."""

    type: ClassVar[str] = "pass"
    player: int = 0


@dataclass(frozen=True)
class Exchange(Event):
    """``player`` exchanges ``count`` tiles (the bag size does not change)."""

    type: ClassVar[str] = "exchange"
    player: int = 0
    count: int = 0


@dataclass(frozen=True)
class Drew(Event):
    """The player who just played has drawn replacement tiles (closes the hold window where the preset says)."""

    type: ClassVar[str] = "drew"
    player: int = 0


# ------------------------------------------------------------------------------------- holds, challenges


@dataclass(frozen=True)
class Hold(Event):
    """``player`` calls "hold" on the last play (considering a challenge)."""

    type: ClassVar[str] = "hold"
    player: int = 0


@dataclass(frozen=True)
class HoldReleased(Event):
    """``player`` releases his hold: the play stands."""

    type: ClassVar[str] = "hold_released"
    player: int = 0


@dataclass(frozen=True)
class CourtesyNotice(Event):
    """Due event: the hold has lasted the courtesy time; the player who played may draw tiles kept apart."""

    type: ClassVar[str] = "courtesy_notice"


@dataclass(frozen=True)
class CourtesyDraw(Event):
    """The held player drew his replacement tiles and keeps them apart from his rack."""

    type: ClassVar[str] = "courtesy_draw"
    player: int = 0


@dataclass(frozen=True)
class Challenge(Event):
    """``player`` challenges the last play; ``words`` are the challenged words (empty = every word formed)."""

    type: ClassVar[str] = "challenge"
    player: int = 0
    words: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChallengeRuled(Event):
    """The ruling on the open challenge (lexicon, confirmed by the judge ``judge``).

    ``acceptable``: every challenged word is good (and the play may stand). ``invalid``: the failing words
    (shown only where the preset lets the ruling name them).
    """

    type: ClassVar[str] = "challenge_ruled"
    acceptable: bool = True
    invalid: tuple[str, ...] = ()
    judge: str = ""


@dataclass(frozen=True)
class ChallengeWithdrawn(Event):
    """The challenger withdraws his challenge before the ruling (nsf: misunderstood blank), without penalty."""

    type: ClassVar[str] = "challenge_withdrawn"
    player: int = 0


@dataclass(frozen=True)
class TilesRemoved(Event):
    """The board reading shows the tiles of a withdrawn play gone; play resumes."""

    type: ClassVar[str] = "tiles_removed"


@dataclass(frozen=True)
class OutplayAccepted(Event):
    """The opponent accepts the out-play (no challenge): the game ends."""

    type: ClassVar[str] = "outplay_accepted"
    player: int = 0


@dataclass(frozen=True)
class WindowClosed(Event):
    """Due event: the hold/challenge window (or the out-play window) ran out."""

    type: ClassVar[str] = "window_closed"


# ---------------------------------------------------------------------------------------------- time


@dataclass(frozen=True)
class TimeWarning(Event):
    """Due event: ``kind`` "turn" or "session" time has ``remaining_ms`` left."""

    type: ClassVar[str] = "time_warning"
    kind: str = "session"
    remaining_ms: int = 0
    player: int = -1


@dataclass(frozen=True)
class TurnTimeExpired(Event):
    """Due event: ``player`` used the whole per-turn limit."""

    type: ClassVar[str] = "turn_time_expired"
    player: int = 0


@dataclass(frozen=True)
class OvertimeStarted(Event):
    """Due event: ``player``'s game time ran out; overtime penalties now accrue."""

    type: ClassVar[str] = "overtime_started"
    player: int = 0


@dataclass(frozen=True)
class OvertimeCapExceeded(Event):
    """Due event: ``player`` went past the preset's overtime cap and loses the game."""

    type: ClassVar[str] = "overtime_cap_exceeded"
    player: int = 0


@dataclass(frozen=True)
class SessionTimeUp(Event):
    """Due event: the session time limit is reached; the game is called (players enter racks)."""

    type: ClassVar[str] = "session_time_up"


# ---------------------------------------------------------------------------------------- judge, end


@dataclass(frozen=True)
class ClockNeutralised(Event):
    """The clock is stopped for ``reason`` (judge call, recount); nobody's time runs."""

    type: ClassVar[str] = "clock_neutralised"
    reason: str = ""


@dataclass(frozen=True)
class ClockResumed(Event):
    """The neutralised clock restarts: the clock that ran when it stopped. That is the player on move's, except
    after his clock press whose board reading is still awaited: the press had started the opponent's clock, which
    runs again (a press taken back later, :class:`PressWithdrawn`, then charges the presser all of it)."""

    type: ClassVar[str] = "clock_resumed"


@dataclass(frozen=True)
class JudgeAdjustment(Event):
    """The judge adds ``points`` (may be negative) to ``player`` for ``reason``."""

    type: ClassVar[str] = "judge_adjustment"
    player: int = 0
    points: int = 0
    reason: str = ""


@dataclass(frozen=True)
class MoveUndone(Event):
    """The judge takes back the last turn (play, pass or exchange, with everything that followed it: blank
    letters, hold, challenge, window): board, bag, racks, scores and history return to just before that turn's
    clock press, and its player is on move again (e.g. after the camera misread his tiles). Time used
    meanwhile stays used, except that a clock press not yet scored, taken back alone, gives its player the time
    the opponent's clock ran since it (as :class:`PressWithdrawn`). ``reason`` is required; repeated, it takes
    back earlier turns one by one."""

    type: ClassVar[str] = "move_undone"
    reason: str = ""


@dataclass(frozen=True)
class PresetChanged(Event):
    """The judge changes the rules (``preset``: :meth:`Preset.to_dict`) of a game in which nobody has moved
    yet; players, first player and tile set stay (the tile set must not change: the racks are drawn)."""

    type: ClassVar[str] = "preset_changed"
    preset: dict = field(default_factory=dict)  # type: ignore[type-arg]  # from_dict reads the annotation "dict"
    reason: str = ""


@dataclass(frozen=True)
class GameCalled(Event):
    """The game is ended by the judge / captain (no plays possible, time called); racks are entered next.

    ``as_it_stands``: the director stops the game with the scores standing as they are, without racks or
    any adjustment (seed 002 III.G, "stop such games at that point with the scores standing as is"); it may
    also stop a game whose racks are not entered yet.
    """

    type: ClassVar[str] = "game_called"
    reason: str = ""
    as_it_stands: bool = False


@dataclass(frozen=True)
class LateArrival(Event):
    """``player`` arrived ``late_ms`` after the start of the round (told by the judge before the first move).

    What it costs is the preset's (:class:`~kiosk.referee.presets.ClockRules` ``late_*``): points per whole
    unit absent and a forfeit past a limit (seed 000 rule 19), or the time off his clock (seed 002 I.F).
    """

    type: ClassVar[str] = "late_arrival"
    player: int = 0
    late_ms: int = 0


@dataclass(frozen=True)
class TimeAdded(Event):
    """The judge gives ``player`` ``added_ms`` more game time (seed 002 II.F, II.O: an extra minute after three
    timely objections)."""

    type: ClassVar[str] = "time_added"
    player: int = 0
    added_ms: int = 60_000
    reason: str = ""


@dataclass(frozen=True)
class Resigned(Event):
    """``player`` resigns (leaves the game in progress): he takes a forfeit loss with the scores as they stand
    (seed 002 III.G, "if you must leave a game in progress ... you receive a forfeit loss")."""

    type: ClassVar[str] = "resigned"
    player: int = 0
    reason: str = ""


@dataclass(frozen=True)
class RacksEntered(Event):
    """Players' remaining racks at the end (``racks[i]`` for player i; ``"?"`` for a blank)."""

    type: ClassVar[str] = "racks_entered"
    racks: tuple[str, ...] = ()


@dataclass(frozen=True)
class KioskResumed(Event):
    """The kiosk went on at ``t`` after a gap since ``down_since``, charged to nobody: a restart from its journal,
    a journal pause, or the wall clock set forward (NTP) while it ran."""

    type: ClassVar[str] = "kiosk_resumed"
    down_since: int = 0




_CHECK = Checker(error=EventError, words={tuple[tuple[int, str], ...]: "a list of [square, tile] pairs"},
                 missing="{path}: missing field (time in ms)")
"""Events' wording: ``"<type>.<field>: expected a whole number, got 'x'"`` (:mod:`kiosk.rules.checked`)."""


def event_from_dict(data: Any) -> Event:
    """Rebuild an event from :meth:`Event.to_dict` output (e.g. a journal row or a stream message).

    Raises:
        EventError: not a dict, unknown ``type``, unknown/missing/mistyped field (named in the message).
    """
    if not isinstance(data, dict):
        raise EventError(f"an event is an object with a 'type', got {type(data).__name__}")
    kind = data.get("type")
    cls = EVENT_TYPES.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise EventError(f"unknown event type {kind!r} (known: {', '.join(sorted(EVENT_TYPES))})")
    return _CHECK.build(cls, data, str(kind), ignore=("type",), required=("t",))
