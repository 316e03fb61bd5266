"""Read-only values the referee hands out: the state snapshot, results of ``apply``, prompts, the game result.

Everything here is frozen and made of tuples, so two snapshots compare equal exactly when the games are in
the same state (the journal's crash test relies on that).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from kiosk.referee.clock import ClockState
from kiosk.referee.kinds import EndReason, PromptKind
from kiosk.referee.phase import Phase

# phases (kept as names for the modules that import them from here)
NOT_STARTED = Phase.NOT_STARTED
PLAYING = Phase.PLAYING
DESIGNATING = Phase.DESIGNATING
CHALLENGED = Phase.CHALLENGED
REMOVING = Phase.REMOVING
OUTPLAY = Phase.OUTPLAY
RACK_ENTRY = Phase.RACK_ENTRY
OVER = Phase.OVER


def _to_json_dict(value: Any) -> dict[str, Any]:
    """A frozen dataclass as a plain JSON dict (tuples become lists)."""
    out: dict[str, Any] = json.loads(json.dumps(asdict(value)))
    return out


@dataclass(frozen=True)
class Result:
    """What :meth:`Referee.apply` did.

    Attributes:
        accepted: the event took effect (and was added to the accepted events).
        reason: why it was refused (for the screen), or a short note when accepted.
        code: machine code of a refusal: a :class:`~kiosk.referee.kinds.Code` ("wrong_player",
            "window_closed", "impossible_tiles" ...) or a :class:`PlacementError` code ("gap" ...).
        judge: the refusal needs the judge (usually a camera misread: tiles that cannot exist).
        squares: squares the refusal is about (to mark on the board view).
    """

    accepted: bool
    reason: str = ""
    code: str = ""
    judge: bool = False
    squares: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return self.accepted

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON dict (for the stream / the UI process)."""
        return _to_json_dict(self)


@dataclass(frozen=True)
class Prompt:
    """Something the kiosk must show or ask now.

    ``kind``: a :class:`~kiosk.referee.kinds.PromptKind` ("read_board", "designate_blank", "challenge_window",
    "hold", "courtesy_draw", "challenge_ruling", "remove_tiles", "outplay_window", "rack_entry",
    "clock_neutralised", "game_over").
    ``player``: whom it addresses (-1: everyone / the judge); ``until_ms``: when it lapses, if it does.
    ``data``: kind-specific details as sorted (key, value) pairs.
    """

    kind: PromptKind
    player: int
    text: str
    until_ms: int | None = None
    squares: tuple[int, ...] = ()
    data: tuple[tuple[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON dict; ``data`` becomes an object."""
        out = _to_json_dict(self)
        out["data"] = {k: v for k, v in out["data"]}
        return out


@dataclass(frozen=True)
class PlayRecord:
    """A tile play as the referee keeps it (also what GCG export writes).

    Attributes:
        player: who played. tiles: ((square, tile), ...) with blanks lower-case once designated.
        coordinate: GCG coordinate of the main word ("8D"); word: the main word (lower-case blanks).
        words: every word formed (main first). score: points of the play (0 until scored).
        rack_before: tiles the player had (count). drawn: tiles drawn after it; kept_apart: drawn under the
        courtesy rule and kept apart. game_word_bonus: points from the game word. off_centre_first: a first
        play missing the centre. outplay: the play emptied the rack with the bag empty.
        withdrawn: challenged off. bonus: points the challenged player got for a failed challenge.
    """

    player: int
    tiles: tuple[tuple[int, str], ...]
    coordinate: str = ""
    word: str = ""
    words: tuple[str, ...] = ()
    score: int = 0
    rack_before: int = 7
    to_draw: int = 0
    pressed_at: int | None = None
    exchange_counts: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON dict of the whole snapshot (for the event stream and the UI process)."""
        return _to_json_dict(self)
    drawn: int = 0
    kept_apart: int = 0
    game_word_bonus: int = 0
    off_centre_first: bool = False
    outplay: bool = False
    withdrawn: bool = False
    bonus: int = 0
    t: int = 0


ENTERED_BY_JUDGE = "tiles entered or corrected by the judge"
"""A play's :attr:`TurnRecord.note` when the judge decided its tiles (:attr:`kiosk.referee.events.Play.by_judge`)."""


@dataclass(frozen=True)
class TurnRecord:
    """One line of the game's history (for GCG export and the scoresheet).

    ``kind``: "play", "pass", "exchange", "withdrawn", "lost_turn", "challenge_bonus", "challenge_penalty",
    "phony_penalty", "end_rack", "own_rack", "time_penalty", "judge". ``points``: change to the player's score.
    ``note``: why (a lost turn, a judge's adjustment); on a play, :data:`ENTERED_BY_JUDGE` when the judge decided
    its tiles.
    """

    kind: str
    player: int
    points: int
    total: int
    play: PlayRecord | None = None
    count: int = 0
    rack: str = ""
    note: str = ""


@dataclass(frozen=True)
class GameResult:
    """The finished game.

    Attributes:
        reason: an :class:`~kiosk.referee.kinds.EndReason` ("out_play", "six_scoreless", "called",
            "time_limit", "phony_loses", "challenge_loses", "overtime_cap", "stopped", "resigned").
        final: scores after every adjustment. before_racks: scores before the rack adjustment.
        rack_adjust / time_penalty: per player. racks: final racks (known or entered).
        wins: win credit per player (1, 0.5 each for a tie under "half", 0).
        went_out: who played out, or None. forfeit: who lost by rule (cap, TRIPLE, resigned), or None.
    """

    reason: EndReason
    final: tuple[int, ...]
    before_racks: tuple[int, ...]
    rack_adjust: tuple[int, ...]
    time_penalty: tuple[int, ...]
    racks: tuple[str, ...]
    wins: tuple[float, ...]
    went_out: int | None = None
    forfeit: int | None = None


@dataclass(frozen=True)
class GameState:
    """Read-only snapshot of the refereed game (for the UI, the stream and tests).

    Attributes:
        phase: a :class:`~kiosk.referee.phase.Phase` (equal to its string). on_move: the player whose turn it is (or None).
        scores: running scores (points). board: 225 cells ("" empty). bag: tiles in the bag (tiles kept apart
        under the courtesy rule are out of it). racks: tiles on each rack (count; kept-apart tiles not
        included). kept_apart: courtesy tiles held by the player who played. unseen: (tile, count) pairs of
        the full set minus the board (bag plus every rack). clock: the chess clock at ``last_t``.
        scoreless_run: successive scoreless turns. last_play: the play that can still be challenged or the
        most recent one. window_until_ms: when the hold/challenge window closes (None: until the next turn
        or closed). hold_by / hold_since_ms: the hold in progress. challenge_by: the open challenge.
        skip_next: players who lose their next turn. game_word_available: the game word bonus is unclaimed.
        result: the finished game. history: every scoring line. downtime_ms: time charged to nobody
        (the kiosk down, its journal paused, its wall clock set forward: ``kiosk_resumed``). last_t: time of the last accepted event. events: count of accepted events.
        to_draw: replacement tiles the player of the last play has still to draw (held back while the play
        can be challenged; 0 once drawn; they are still in ``bag``). Always: bag + racks + kept_apart + board
        tiles = the full set (outside the blank designation step, whose tiles are not on the board yet).
        pressed_at: the clock press whose board reading is awaited (ms), or None.
        exchange_counts: how many tiles the player on move may exchange now under the preset (ascending;
            empty: no exchange now), what the exchange screen offers.
        outplay_accepted_by: the opponents who have accepted the open out-play, in the order they did (seeds
            003/004, 3-4 players: the game ends once every opponent has). outplay_waiting_for: the opponents
            who have still to accept it, in turn order (empty outside the out-play window).
    """

    phase: Phase
    preset: str
    players: tuple[str, ...]
    on_move: int | None
    turn: int
    scores: tuple[int, ...]
    board: tuple[str, ...]
    bag: int
    racks: tuple[int, ...]
    kept_apart: int
    unseen: tuple[tuple[str, int], ...]
    clock: ClockState | None
    scoreless_run: int
    last_play: PlayRecord | None
    window_open: bool
    window_until_ms: int | None
    hold_by: int | None
    hold_since_ms: int | None
    courtesy_given: bool
    challenge_by: int | None
    challenge_words: tuple[str, ...]
    ruling: str
    skip_next: tuple[bool, ...]
    game_word_available: bool
    neutralised: str
    overtime_notified: tuple[bool, ...]
    warnings_given: tuple[str, ...]
    pending_blanks: tuple[int, ...]
    result: GameResult | None
    history: tuple[TurnRecord, ...]
    downtime_ms: int
    last_t: int
    started_t: int
    events: int
    notes: tuple[str, ...] = field(default=())
    to_draw: int = 0
    pressed_at: int | None = None
    exchange_counts: tuple[int, ...] = ()
    outplay_accepted_by: tuple[int, ...] = ()
    outplay_waiting_for: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON dict of the whole snapshot (for the event stream and the UI process)."""
        return _to_json_dict(self)
