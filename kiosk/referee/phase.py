"""The referee's phases and the one table of which events each phase allows.

:data:`ALLOWED` answers "what may happen while CHALLENGED?" without reading a handler: the dispatcher
(:mod:`kiosk.referee.referee`) refuses an event whose phase is not in its row before anything else is checked.
A handler then checks only what the phase cannot say (whose turn, whether a window is open, the tiles ...).
``docs/phases.md`` is rendered from this table (:func:`phases_markdown`; a test keeps it current).
"""

from __future__ import annotations

from enum import StrEnum

from kiosk.referee.events import (
    BlankDesignated,
    Challenge,
    ChallengeRuled,
    ChallengeWithdrawn,
    ClockNeutralised,
    ClockPressed,
    ClockResumed,
    CourtesyDraw,
    CourtesyNotice,
    Drew,
    Event,
    Exchange,
    GameCalled,
    GameStarted,
    Hold,
    HoldReleased,
    JudgeAdjustment,
    KioskResumed,
    MoveUndone,
    OutplayAccepted,
    OvertimeCapExceeded,
    OvertimeStarted,
    Pass,
    Play,
    PresetChanged,
    RacksEntered,
    SessionTimeUp,
    TilesRemoved,
    TimeWarning,
    TurnTimeExpired,
    WindowClosed,
)


class Phase(StrEnum):
    """Where the game stands; the values are the strings of :attr:`GameState.phase` and the stream."""

    NOT_STARTED = "not_started"  # no game yet: only game_started
    PLAYING = "playing"          # a player is on move (a challenge window on the previous play may be open)
    DESIGNATING = "designating"  # a play waits for its blanks' letters (clock stopped)
    CHALLENGED = "challenged"    # a challenge waits for its ruling (clock stopped)
    REMOVING = "removing"        # a withdrawn play's tiles must come off the board before play resumes
    OUTPLAY = "outplay"          # the out-play window: the opponent may only accept, hold or challenge
    RACK_ENTRY = "rack_entry"    # the game ended without an out-play: players enter their racks
    OVER = "over"                # the result stands; only the judge's undo and a kiosk restart


_P = Phase
IN_GAME = frozenset({_P.PLAYING, _P.DESIGNATING, _P.CHALLENGED, _P.REMOVING, _P.OUTPLAY, _P.RACK_ENTRY})
"""Every phase of a game that is started and not over."""
ANY_STARTED = IN_GAME | {_P.OVER}
"""Every phase once a game has started."""
_CAN_END = frozenset({_P.PLAYING, _P.REMOVING, _P.OUTPLAY})

ALLOWED: dict[type[Event], frozenset[Phase]] = {
    GameStarted: frozenset({_P.NOT_STARTED}),
    # turns
    ClockPressed: frozenset({_P.PLAYING}),
    Play: frozenset({_P.PLAYING, _P.DESIGNATING}),  # DESIGNATING: a corrected reading by the same player
    BlankDesignated: frozenset({_P.DESIGNATING}),
    Pass: frozenset({_P.PLAYING}),
    Exchange: frozenset({_P.PLAYING}),
    Drew: IN_GAME,
    # holds, challenges, the out-play
    Hold: frozenset({_P.PLAYING, _P.OUTPLAY}),
    HoldReleased: frozenset({_P.PLAYING, _P.OUTPLAY}),
    CourtesyNotice: frozenset({_P.PLAYING}),
    CourtesyDraw: IN_GAME,
    Challenge: frozenset({_P.PLAYING, _P.OUTPLAY}),
    ChallengeRuled: frozenset({_P.CHALLENGED}),
    ChallengeWithdrawn: frozenset({_P.CHALLENGED}),
    TilesRemoved: frozenset({_P.REMOVING}),
    OutplayAccepted: frozenset({_P.OUTPLAY}),
    WindowClosed: frozenset({_P.PLAYING, _P.OUTPLAY}),
    # time
    TimeWarning: IN_GAME,
    TurnTimeExpired: frozenset({_P.PLAYING}),
    OvertimeStarted: IN_GAME,
    OvertimeCapExceeded: IN_GAME,
    SessionTimeUp: _CAN_END,
    # judge, end
    ClockNeutralised: frozenset({_P.PLAYING}),
    ClockResumed: IN_GAME,
    JudgeAdjustment: IN_GAME,
    MoveUndone: ANY_STARTED,
    PresetChanged: frozenset({_P.PLAYING}),
    GameCalled: _CAN_END,
    RacksEntered: frozenset({_P.RACK_ENTRY}),
    KioskResumed: ANY_STARTED,
}
"""Event class -> the phases in which it may be applied. Every event class has a row."""


def allowed_in(phase: Phase) -> tuple[type[Event], ...]:
    """The event classes ``phase`` allows, in the order of :data:`ALLOWED`."""
    return tuple(cls for cls, phases in ALLOWED.items() if phase in phases)


def in_order(phases: frozenset[Phase]) -> tuple[Phase, ...]:
    """``phases`` in the order :class:`Phase` declares them (for messages and docs)."""
    return tuple(p for p in Phase if p in phases)


def phases_markdown() -> str:
    """``docs/phases.md``: for each phase, the events it allows; for each event, its phases (Markdown text)."""
    lines = ["# Referee phases", "",
             "Generated from `kiosk/referee/phase.py` (`ALLOWED`) by `tests/referee/test_ref_phases.py`; do not",
             "edit by hand. An event outside its phases is refused (code `wrong_phase`, `not_started` or",
             "`game_over`) before any other check.", "", "## What each phase allows", "",
             "| phase | events |", "| --- | --- |"]
    for phase in Phase:
        names = ", ".join(f"`{cls.type}`" for cls in allowed_in(phase)) or "(none)"
        lines.append(f"| `{phase}` | {names} |")
    lines += ["", "## Where each event may happen", "", "| event | phases |", "| --- | --- |"]
    for cls, phases in ALLOWED.items():
        lines.append(f"| `{cls.type}` | {', '.join(f'`{p}`' for p in in_order(phases))} |")
    return "\n".join(lines) + "\n"
