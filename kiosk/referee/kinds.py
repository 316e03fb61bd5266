"""The referee's named strings as enums: refusal codes, end reasons, prompt kinds.

Each is a ``StrEnum``: a member equals its string (``Code.WRONG_PHASE == "wrong_phase"``) and serialises as
it, so journals, the stream and the UI see the same values as before these enums existed.
"""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    """Why the referee refused an event (:attr:`Result.code`). A refused play may instead carry the code of the
    :class:`kiosk.rules.placement.PlacementError` that refused it ("gap", "first_not_centre" ...)."""

    INTERNAL = "internal"                    # a referee bug: refused, the judge is called
    BAD_EVENT = "bad_event"                  # not an event, or a field out of range
    NOT_STARTED = "not_started"
    ALREADY_STARTED = "already_started"
    GAME_OVER = "game_over"
    WRONG_PHASE = "wrong_phase"              # not allowed in this phase (phase.ALLOWED)
    TIME_ORDER = "time_order"                # earlier than the last event
    BAD_PLAYER = "bad_player"                # not a player of this game
    BAD_PLAYERS = "bad_players"              # game_started: player count or names
    BAD_PRESET = "bad_preset"
    WRONG_PLAYER = "wrong_player"            # not this player's turn, hold or challenge
    NEUTRALISED = "neutralised"
    NOT_NEUTRALISED = "not_neutralised"
    ALREADY_PRESSED = "already_pressed"
    NO_TILES = "no_tiles"
    BAD_TILE = "bad_tile"
    IMPOSSIBLE_TILES = "impossible_tiles"    # more tiles than the rack or the unseen tiles hold: a misread
    BAD_LETTER = "bad_letter"
    ALREADY_DESIGNATED = "already_designated"
    NO_BLANK_THERE = "no_blank_there"
    EXCHANGE_NOT_ALLOWED = "exchange_not_allowed"
    BAD_COUNT = "bad_count"
    BAG_TOO_SMALL = "bag_too_small"
    NOTHING_TO_DRAW = "nothing_to_draw"
    HELD = "held"
    WINDOW_CLOSED = "window_closed"
    NO_HOLDS = "no_holds"
    ALREADY_HELD = "already_held"
    NO_HOLD = "no_hold"
    NO_CHALLENGES = "no_challenges"
    NOT_FORMED = "not_formed"
    OFF_CENTRE = "off_centre"
    NO_WINDOW = "no_window"
    TOO_EARLY = "too_early"
    ALREADY_GIVEN = "already_given"
    ALREADY_ACCEPTED = "already_accepted"      # outplay_accepted: this opponent has accepted it already
    NO_LIMIT = "no_limit"
    NOT_OVERTIME = "not_overtime"
    NO_REASON = "no_reason"
    NO_POINTS = "no_points"
    BAD_RACKS = "bad_racks"
    NOTHING_TO_UNDO = "nothing_to_undo"
    GAME_UNDER_WAY = "game_under_way"


class EndReason(StrEnum):
    """Why the game ended (:attr:`GameResult.reason`)."""

    OUT_PLAY = "out_play"
    SIX_SCORELESS = "six_scoreless"          # the preset's run of scoreless turns (six under most rules)
    CALLED = "called"                        # the judge or captain called the game
    TIME_LIMIT = "time_limit"                # the session time ran out
    PHONY_LOSES = "phony_loses"              # a phony challenged off loses the game (preset)
    CHALLENGE_LOSES = "challenge_loses"      # a failed challenge loses the game (preset)
    OVERTIME_CAP = "overtime_cap"            # past the overtime cap
    STOPPED = "stopped"                      # the director stopped it with the scores as they stand (002 III.G)
    LATE_FORFEIT = "late_forfeit"            # a side arrived too late (000 R19) or its late clock ran out (002 I.F)
    RESIGNED = "resigned"                    # a player resigned: a forfeit loss, scores as they stand (002 III.G)


class PromptKind(StrEnum):
    """What a :class:`Prompt` asks of the kiosk."""

    READ_BOARD = "read_board"
    DESIGNATE_BLANK = "designate_blank"
    CHALLENGE_WINDOW = "challenge_window"
    HOLD = "hold"
    COURTESY_DRAW = "courtesy_draw"
    CHALLENGE_RULING = "challenge_ruling"
    REMOVE_TILES = "remove_tiles"
    OUTPLAY_WINDOW = "outplay_window"
    RACK_ENTRY = "rack_entry"
    CLOCK_NEUTRALISED = "clock_neutralised"
    GAME_OVER = "game_over"
