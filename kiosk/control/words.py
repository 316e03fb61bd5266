"""What players read: one sentence for each refusal code and each way a game ends, never an internal name.

The referee's :attr:`Result.reason` names events and phases ("'tiles_removed' is not allowed now (the game
is in 'playing', needs removing)"): it goes to the log. The screen shows :func:`refusal_sentence` instead:
the sentence of the refusal's :class:`~kiosk.referee.kinds.Code` (or of the placement rule a play broke,
:data:`kiosk.rules.placement.CODES`), with the squares concerned. Tables, not branches: a new code needs
its sentence here (tests/app/test_app_words.py checks that every code has one). A count and its noun ("1 move",
"2 moves") are written by :func:`counted` (:mod:`kiosk.rules.counts`, where the referee may use it too).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kiosk.devices.health import DeviceHealth
from kiosk.referee.kinds import Code, EndReason
from kiosk.referee.state import Result
from kiosk.rules.board import COLUMNS, SIZE, CoordinateError, parse_coordinate, square_name, team_label
from kiosk.rules.counts import counted as counted  # re-exported: "1 move", "2 moves"
from kiosk.rules.placement import CODES as PLACEMENT

NUMBERS = tuple(str(i + 1) for i in range(SIZE))
LINE_LABELS: dict[str, tuple[Sequence[str], Sequence[str]]] = {
    "numbers": (COLUMNS, NUMBERS),   # columns A-O, rows 1-15: the usual board
    "letters": (NUMBERS, COLUMNS),   # rows A-O, columns 1-15 (seed 004)
}
"""Column and row labels by a preset's ``board.rows``."""


def square_label(sq: int, rows: str = "numbers") -> str:
    """A square's name as the sheet says it: :func:`kiosk.rules.board.square_name` ("H8": column then row),
    or on a sheet whose rows are letters (``rows="letters"``, seed 004) :func:`kiosk.rules.board.team_label`
    (row A, column 4 is "A4"). Raises KeyError for another ``rows``."""
    return {"numbers": square_name, "letters": team_label}[rows](sq)


REFUSALS: dict[str, str] = {
    Code.INTERNAL: "The referee could not work this out. Please call the judge.",
    Code.BAD_EVENT: "That was not understood. Please try again or call the judge.",
    Code.NOT_STARTED: "No game is running yet. Start a new game first.",
    Code.ALREADY_STARTED: "A game is already running on this table.",
    Code.GAME_OVER: "The game is over. The judge can start a new game.",
    Code.WRONG_PHASE: "That cannot be done at this point of the turn.",
    Code.TIME_ORDER: "The kiosk's clock went back. Please call the judge.",
    Code.BAD_PLAYER: "That player is not in this game.",
    Code.BAD_PLAYERS: "Each player needs a different, non-empty name, as many as the rules allow.",
    Code.BAD_PRESET: "Those rules could not be loaded. Please call the judge.",
    Code.WRONG_PLAYER: "That is not yours to do now.",
    Code.NEUTRALISED: "The clocks are stopped. Press pause to start them again first.",
    Code.NOT_NEUTRALISED: "The clocks are not stopped.",
    Code.ALREADY_PRESSED: "The clock was pressed already. The board is being read.",
    Code.NO_TILES: "No tiles were placed. Pressing the clock without tiles is a pass.",
    Code.BAD_TILE: "A tile on the board was not recognised. Please check the board or call the judge.",
    Code.IMPOSSIBLE_TILES: "Those tiles cannot all be there. Please check the board or call the judge.",
    Code.BAD_LETTER: "That letter is not in this tile set.",
    Code.ALREADY_DESIGNATED: "That blank already has its letter. It cannot change.",
    Code.NO_BLANK_THERE: "There is no new blank on that square.",
    Code.EXCHANGE_NOT_ALLOWED: "These rules do not allow exchanges.",
    Code.BAD_COUNT: "These rules do not allow exchanging that many tiles.",
    Code.BAG_TOO_SMALL: "There are not enough tiles in the bag to exchange.",
    Code.NOTHING_TO_DRAW: "There are no tiles to draw now.",
    Code.HELD: "The play is held. Wait for the hold to end.",
    Code.WINDOW_CLOSED: "It is too late: the play stands.",
    Code.NO_HOLDS: "These rules have no holds. Challenge or play on.",
    Code.ALREADY_HELD: "The play is held already.",
    Code.NO_HOLD: "There is no hold to end.",
    Code.NO_CHALLENGES: "These rules have no challenges: every word is checked.",
    Code.NOT_FORMED: "That word was not made by the last play.",
    Code.OFF_CENTRE: "The first play did not cover the centre square, so it comes off.",
    Code.NO_WINDOW: "There is nothing to wait for.",
    Code.TOO_EARLY: "Not yet: the time for it has not come.",
    Code.ALREADY_GIVEN: "That was given already.",
    Code.ALREADY_ACCEPTED: "You have accepted the out-play already; the other opponents still have to.",
    Code.NO_LIMIT: "There is no time limit on this turn.",
    Code.NOT_OVERTIME: "That player is not in overtime.",
    Code.NO_REASON: "Please give a reason.",
    Code.NO_POINTS: "Zero points changes nothing.",
    Code.BAD_RACKS: "The racks do not match the tiles left. Please check them.",
    Code.NOTHING_TO_UNDO: "There is no turn to take back.",
    Code.GAME_UNDER_WAY: "The game is under way: the rules or a late arrival can be set only before the first move.",
}

TURN_KINDS: dict[str, str] = {
    "play": "played", "pass": "passed", "exchange": "exchanged", "withdrawn": "play taken back",
    "lost_turn": "lost the turn", "challenge_bonus": "challenge bonus", "challenge_penalty": "challenge penalty",
    "phony_penalty": "phony penalty", "end_rack": "tiles left on the racks", "own_rack": "own rack",
    "time_penalty": "overtime penalty", "judge": "judge's adjustment",
}
"""A history line's kind (:class:`~kiosk.referee.state.TurnRecord`) in words."""


def turn_words(kind: str) -> str:
    """``kind`` of a history line in words ("lost_turn" -> "lost the turn"); an unknown kind: "turn"."""
    return TURN_KINDS.get(kind, "turn")


ENDINGS: dict[str, str] = {
    EndReason.OUT_PLAY: "a player went out",
    EndReason.SIX_SCORELESS: "too many scoreless turns in a row",
    EndReason.CALLED: "the judge ended the game",
    EndReason.TIME_LIMIT: "the session time ran out",
    EndReason.PHONY_LOSES: "a phony was challenged off",
    EndReason.CHALLENGE_LOSES: "a challenge failed",
    EndReason.OVERTIME_CAP: "a player ran past the overtime limit",
    EndReason.STOPPED: "the director stopped the game with the scores as they stand",
    EndReason.LATE_FORFEIT: "a player arrived too late and forfeits the game",
    EndReason.RESIGNED: "a player resigned",
}

UNKNOWN = "That cannot be done now. Please call the judge."
KIOSK_OWN = frozenset({"pin", "busy", "journal_full", "journal_failed", "pressed", "press_unrecorded"})
"""The kiosk's and the journal's own refusal codes: their reason is written as the sentence players read."""
BAD_INPUT = "That input was not understood. Please try again."
REASON_SHOWN = frozenset({Code.BAD_PLAYERS})  # the referee's reason is written for the new-game screen already
PLACED: dict[str, str] = {**PLACEMENT, "bad_tile": "a tile on the board was not recognised",
                          "duplicate_square": "two tiles were read on one square"}
"""A broken placement rule as players read it (:data:`kiosk.rules.placement.CODES`, two of them said as what the
kiosk saw: "not a tile letter" and "two tiles on one square" were no sentences)."""


def play_place(coordinate: str, rows: str = "numbers") -> str:
    """Where a play lies as the sheet says it: the GCG coordinate (``"8D"`` across, ``"D8"`` down) on the usual
    board; on a sheet whose rows are letters (``rows="letters"``, seed 004) its first square's label and its way
    (``"H4 across"``), since "8D" names no row or column there. A coordinate that does not parse is given as it is."""
    if rows != "letters":
        return coordinate
    try:
        c = parse_coordinate(coordinate)
    except CoordinateError:
        return coordinate
    return f"{team_label(c.row * SIZE + c.col)} {'across' if c.across else 'down'}"


def sheet_rows(preset: Any) -> str:
    """How ``preset`` (a :class:`~kiosk.referee.presets.Preset` or None) labels the board's rows."""
    return str(preset.board.rows) if preset is not None else "numbers"


def refusal_sentence(res: Result, rows: str = "numbers") -> str:
    """The sentence a player reads for the refusal ``res`` (its code's; a broken placement rule's sentence
    with the squares concerned as the sheet names them (``rows``: :data:`LINE_LABELS`), e.g. "The word has a gap (H9)."); the kiosk's own
    refusals (:data:`KIOSK_OWN`) keep their words. An unknown code gets :data:`UNKNOWN`."""
    if res.code in KIOSK_OWN:
        return res.reason
    if res.code in REASON_SHOWN and res.reason:  # "Preset 'nsf' is for 2-2 players, got 3."
        return res.reason[0].upper() + res.reason[1:].rstrip(".") + "."
    if res.code == "bad_input":
        return BAD_INPUT
    if res.code in PLACED:
        text = PLACED[res.code]
        names = " ".join(square_label(s, rows) for s in res.squares if 0 <= s < SIZE * SIZE)
        return text[0].upper() + text[1:] + (f" ({names})." if names else ".")
    return REFUSALS.get(res.code, UNKNOWN)


def ruling_sentence(ruling: str) -> str:
    """The judge's ruling on a challenge (:attr:`GameState.ruling`: "acceptable", "unacceptable: QUIRT",
    "challenge withdrawn") in a sentence for the screen; "" for none."""
    verdict, _, words = ruling.partition(": ")
    if verdict == "acceptable":
        return "The judge ruled the play acceptable: it stands."
    if verdict == "unacceptable":
        return (f"The judge ruled {words} unacceptable: the play comes off the board." if words else
                "The judge ruled the play unacceptable: it comes off the board.")
    if verdict == "challenge withdrawn":
        return "The challenge was withdrawn: the play stands."
    return ruling[:1].upper() + ruling[1:] + ("." if ruling and not ruling.endswith(".") else "")


def tile_words(ch: str) -> str:
    """A grid character as players say it: "A", "a blank" (``?``), "a blank as A" (``a``), "nothing" (``.``),
    "an unclear tile" (``#``)."""
    if ch == "?":
        return "a blank"
    if ch in (".", ""):
        return "nothing"
    if ch == "#":
        return "an unclear tile"
    return f"a blank as {ch.upper()}" if ch.islower() else ch


def ending_sentence(reason: str) -> str:
    """Why the game ended, in words (``reason``: an :class:`EndReason` value); unknown: "the game ended"."""
    return ENDINGS.get(reason, "the game ended")


DEVICE_NAMES = {"buttons": "Clock buttons", "display": "Clock display", "camera": "Camera",
                "clock-link": "Clock link"}
DEVICE_STATES = {"down": "not working", "degraded": "having trouble"}
ABSENT_SHOWN = {"camera": "No camera: the judge enters each move."}


def device_name(device: str) -> str:
    """A device as players call it ("camera" -> "Camera", "clock-link" -> "Clock link")."""
    return DEVICE_NAMES.get(device, device.capitalize())


def device_problems(healths: Iterable[DeviceHealth]) -> dict[str, str]:
    """{device: its sentence} for each device that players and the judge must know about: down or degraded
    (e.g. "Camera not working."), or absent where that changes the game (no camera). Working devices give none.
    The one source of these sentences: the screen shows them (:func:`device_notes`), ``kiosk run`` logs them
    (:class:`kiosk.app.device_log.DeviceLog`)."""
    out = {}
    for h in healths:
        if h.state in DEVICE_STATES:
            out[h.device] = f"{device_name(h.device)} {DEVICE_STATES[h.state]}."
        elif h.state == "absent" and h.device in ABSENT_SHOWN:
            out[h.device] = ABSENT_SHOWN[h.device]
    return out


def device_notes(healths: Iterable[DeviceHealth]) -> tuple[str, ...]:
    """The screen's line of device problems: :func:`device_problems`' sentences, in the devices' order."""
    return tuple(device_problems(healths).values())


def device_cleared(device: str) -> str:
    """The sentence for a device whose problem has cleared ("Camera working again.")."""
    return f"{device_name(device)} working again."
