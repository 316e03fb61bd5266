"""The referee's phases and its state machine in one table.

:data:`TRANSITIONS` says, for each event, in which phases it may happen and which phases it may lead to;
:data:`ALLOWED` (its rows) answers "what may happen while CHALLENGED?" without reading a handler. The
dispatcher (:mod:`kiosk.referee.referee`) looks the event up once and refuses it in a phase without a row; a
handler checks only what the phase cannot say (whose turn, whether a window is open, the tiles ...).
``docs/phases.md`` is rendered from the table (:func:`phases_markdown`; a test keeps it current).
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
    LateArrival,
    MoveUndone,
    OutplayAccepted,
    OvertimeCapExceeded,
    OvertimeStarted,
    Pass,
    Play,
    PresetChanged,
    PressWithdrawn,
    RacksEntered,
    Resigned,
    SessionTimeUp,
    TilesRemoved,
    TimeAdded,
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

_ENDED = frozenset({_P.RACK_ENTRY, _P.OVER})        # an out-play ends the game (OVER; RACK_ENTRY with 3-4 players)
_NEXT_TURN = frozenset({_P.PLAYING, _P.RACK_ENTRY})  # the turn passes on (the scoreless run may end the game)
_SCORED = _NEXT_TURN | {_P.CHALLENGED, _P.OUTPLAY}  # a play scored: VOID's lexicon check, an out-play or on


def _keeps(phases: frozenset[Phase]) -> dict[Phase, frozenset[Phase]]:
    return {p: frozenset({p}) for p in phases}


def _goes(phases: frozenset[Phase] | set[Phase], to: frozenset[Phase] | set[Phase]) -> dict[Phase, frozenset[Phase]]:
    return {p: frozenset(to) for p in phases}


TRANSITIONS: dict[type[Event], dict[Phase, frozenset[Phase]]] = {
    GameStarted: _goes({_P.NOT_STARTED}, {_P.PLAYING}),
    # turns
    ClockPressed: _keeps(frozenset({_P.PLAYING})),
    PressWithdrawn: _keeps(frozenset({_P.PLAYING})),
    Play: _goes({_P.PLAYING, _P.DESIGNATING}, _SCORED | {_P.DESIGNATING}),  # DESIGNATING: the same player's
    BlankDesignated: _goes({_P.DESIGNATING}, _SCORED | {_P.DESIGNATING}),   # corrected reading
    Pass: _goes({_P.PLAYING}, _NEXT_TURN),
    Exchange: _goes({_P.PLAYING}, _NEXT_TURN),
    Drew: _keeps(IN_GAME),
    # holds, challenges, the out-play
    Hold: _keeps(frozenset({_P.PLAYING, _P.OUTPLAY})),
    HoldReleased: {_P.PLAYING: frozenset({_P.PLAYING}), _P.OUTPLAY: _ENDED | {_P.OUTPLAY}},  # 3-4: an accept
    CourtesyNotice: _keeps(frozenset({_P.PLAYING})),
    CourtesyDraw: _keeps(IN_GAME),
    Challenge: _goes({_P.PLAYING, _P.OUTPLAY}, {_P.CHALLENGED}),
    ChallengeRuled: _goes({_P.CHALLENGED}, _ENDED | {_P.PLAYING, _P.REMOVING}),
    ChallengeWithdrawn: _goes({_P.CHALLENGED}, _ENDED | {_P.PLAYING}),
    TilesRemoved: _goes({_P.REMOVING}, _NEXT_TURN),
    OutplayAccepted: _goes({_P.OUTPLAY}, _ENDED | {_P.OUTPLAY}),  # 3-4 players: until every opponent accepts
    WindowClosed: {_P.PLAYING: frozenset({_P.PLAYING}), _P.OUTPLAY: _ENDED},
    # time
    TimeWarning: _keeps(IN_GAME),
    TurnTimeExpired: _goes({_P.PLAYING}, _NEXT_TURN),
    OvertimeStarted: {**_keeps(IN_GAME), _P.PLAYING: frozenset({_P.PLAYING, _P.OVER})},  # a late player's time
    TimeAdded: _keeps(IN_GAME),
    OvertimeCapExceeded: {**_goes(IN_GAME, {_P.OVER}), _P.OUTPLAY: _ENDED},  # a hold on an out-play: it stands
    SessionTimeUp: {_P.PLAYING: frozenset({_P.RACK_ENTRY}), _P.REMOVING: frozenset({_P.RACK_ENTRY}),
                    _P.OUTPLAY: _ENDED},
    # judge, end
    ClockNeutralised: _keeps(frozenset({_P.PLAYING})),
    ClockResumed: _keeps(IN_GAME),
    JudgeAdjustment: _keeps(ANY_STARTED),  # OVER: a scoring error both players agree on (002 III.F)
    # back to the start of the last turn, always in PLAYING; from the end, a judge's decision that ended the game
    # (resigned, called, stopped) is taken back alone: the game goes on in the phase it was decided in
    MoveUndone: {**_goes(ANY_STARTED, {_P.PLAYING}), **_goes(_ENDED, IN_GAME - {_P.RACK_ENTRY})},
    PresetChanged: _keeps(frozenset({_P.PLAYING})),
    LateArrival: _goes({_P.PLAYING}, {_P.PLAYING, _P.OVER}),  # before the first move; OVER: forfeited
    GameCalled: {_P.PLAYING: _ENDED, _P.REMOVING: _ENDED,  # OVER: stopped as it stands (002 III.G)
                 _P.OUTPLAY: _ENDED, _P.RACK_ENTRY: frozenset({_P.OVER})},
    Resigned: _goes(IN_GAME, {_P.OVER}),
    RacksEntered: _goes({_P.RACK_ENTRY}, {_P.OVER}),
    KioskResumed: _keeps(ANY_STARTED),
}
"""The state machine: event class -> {phase it may happen in: the phases it may lead to}. The dispatcher
refuses an event in a phase without a row and treats a handler that leads elsewhere as a referee bug."""

ALLOWED: dict[type[Event], frozenset[Phase]] = {cls: frozenset(rows) for cls, rows in TRANSITIONS.items()}
"""Event class -> the phases in which it may be applied (the rows of :data:`TRANSITIONS`)."""


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
    lines += ["", "## Transitions", "", "From the phase an event happens in to the phases it may lead to.", "",
              "| event | from | to |", "| --- | --- | --- |"]
    for cls, rows in TRANSITIONS.items():
        groups: dict[str, list[Phase]] = {}  # the same targets (or "stays") on one line
        for src in in_order(frozenset(rows)):
            to = rows[src]
            groups.setdefault("(stays)" if to == {src} else ", ".join(f"`{p}`" for p in in_order(to)), []).append(src)
        for to_text, sources in groups.items():
            lines.append(f"| `{cls.type}` | {', '.join(f'`{p}`' for p in sources)} | {to_text} |")
    return "\n".join(lines) + "\n"
