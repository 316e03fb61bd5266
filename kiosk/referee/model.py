"""The referee's game model: the mutable game its handlers work on, and the registry of those handlers.

The model is private to :mod:`kiosk.referee`: the referee copies it before every event (:meth:`GameModel.copy`)
and hands out only frozen :class:`~kiosk.referee.state.GameState` snapshots. Its parts are grouped: the
challenge :class:`Window` on the last play, the :class:`HoldState`, the open :class:`ChallengeState`, and the
:class:`PendingPlay` (a clock press waiting for its board reading, a play waiting for its blanks' letters).

Handlers (``turns``, ``challenges``, ``timing``, ``judge``, ``ending``) register themselves with
:func:`handles`; an event's refusal in a phase that :data:`~kiosk.referee.phase.ALLOWED` does not allow it in
may be worded by a function registered with :func:`refusal_for`.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from kiosk.referee import endgame
from kiosk.referee.clock import ChessClock
from kiosk.referee.events import Event, GameStarted
from kiosk.referee.kinds import Code, EndReason
from kiosk.referee.phase import Phase, in_order
from kiosk.referee.presets import Preset, PresetError, preset_from_dict
from kiosk.referee.state import GameResult, PlayRecord, Result, TurnRecord
from kiosk.rules.board import Board
from kiosk.rules.tiles import TileSet, TileSetError, load_tile_set
from kiosk.rules.variants import ScoringRules


class Refused(Exception):
    """Raised inside handlers; becomes a refused :class:`Result` (never escapes :meth:`Referee.apply`).

    ``code``: a :class:`~kiosk.referee.kinds.Code`, or a :class:`~kiosk.rules.placement.PlacementError` code.
    """

    def __init__(self, reason: str, code: str, *, judge: bool = False, squares: Iterable[int] = ()) -> None:
        super().__init__(reason)
        self.result = Result(False, reason, code, judge, tuple(squares))


@dataclass
class Window:
    """The hold/challenge window on the last play: ``open``; ``until`` when it closes (ms; None: at the next
    turn)."""

    open: bool = False
    until: int | None = None


@dataclass
class HoldState:
    """The hold in progress: held ``by`` whom, ``since`` when (ms); ``courtesy_given``: the courtesy time passed."""

    by: int | None = None
    since: int | None = None
    courtesy_given: bool = False


@dataclass
class ChallengeState:
    """The open challenge: ``by`` the challenger (None: the lexicon check of a VOID game), of ``words``;
    ``back_to``: the phase it was made in; ``ruling``: the text of the last ruling ("" none yet)."""

    by: int | None = None
    words: tuple[str, ...] = ()
    back_to: Phase = Phase.PLAYING
    ruling: str = ""


@dataclass
class PendingPlay:
    """A turn not yet scored: ``pressed_at`` the clock press whose board reading is awaited (ms, or None);
    ``tiles`` ((square, tile), ...) of ``player``'s play waiting for its blanks' letters; ``by_judge``: the judge
    decided those tiles (:attr:`kiosk.referee.events.Play.by_judge`)."""

    tiles: tuple[tuple[int, str], ...] = ()
    player: int = 0
    pressed_at: int | None = None
    by_judge: bool = False


@dataclass
class GameModel:
    """The mutable game the handlers work on (copied before every event; see :meth:`copy`).

    Scores in points, times in ms (the kiosk's clock), players as 0-based indexes, squares ``row * 15 + col``.
    """

    preset: Preset
    tile_set: TileSet
    players: tuple[str, ...]
    started_t: int
    rules: ScoringRules
    board: Board = field(default_factory=Board)
    bag: int = 0
    racks: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    on_move: int | None = None
    turn: int = 0
    clock: ChessClock = field(default_factory=lambda: ChessClock(2, None))
    phase: Phase = Phase.PLAYING
    scoreless: int = 0
    scoreless_saved: int = 0
    last_play: PlayRecord | None = None
    window: Window = field(default_factory=Window)
    hold: HoldState = field(default_factory=HoldState)
    challenge: ChallengeState = field(default_factory=ChallengeState)
    pending: PendingPlay = field(default_factory=PendingPlay)
    skip_next: list[bool] = field(default_factory=list)
    game_word_available: bool = False
    neutralised: str = ""
    overtime_notified: list[bool] = field(default_factory=list)
    late: tuple[int, ...] = ()  # players whose late arrival came off their clock (seed 002 I.F)
    warnings: tuple[str, ...] = ()
    removing: tuple[int, ...] = ()
    end_reason: EndReason | None = None
    went_out: int | None = None
    outplay_accepted: tuple[int, ...] = ()  # opponents who accepted the open out-play, in order (003/004)
    result: GameResult | None = None
    history: list[TurnRecord] = field(default_factory=list)
    downtime: int = 0
    notes: list[str] = field(default_factory=list)
    last_t: int = 0
    # the game as it stood just before the last turn began (its clock press, or the play/pass/exchange
    # itself when no press was reported): what the judge's MoveUndone returns to; a chain, one per turn
    turn_start: GameModel | None = None
    # the game as it stood just before a judge's decision ended it (a resignation, a called or stopped game, a
    # late arrival's forfeit) and when (ms): what MoveUndone returns to from the end, taking back only the ending
    end_start: GameModel | None = None
    ended_t: int = 0

    @classmethod
    def fresh(cls, preset: Preset, tile_set: TileSet, players: tuple[str, ...], t: int) -> GameModel:
        """A game at its start (racks drawn, nobody on move yet) at ``t`` ms."""
        n = len(players)
        rules = preset.scoring_rules()
        return cls(preset, tile_set, players, t, rules, bag=tile_set.total_tiles - tile_set.rack_size * n,
                   racks=[tile_set.rack_size] * n, scores=[0] * n,
                   clock=ChessClock(n, preset.clock.game_ms if n == 2 else None), skip_next=[False] * n,
                   game_word_available=bool(rules.game_word), overtime_notified=[False] * n,
                   last_t=t)

    @property
    def n(self) -> int:
        """Number of players."""
        return len(self.players)

    def outplay_waiting(self) -> tuple[int, ...]:
        """The opponents who have still to accept the open out-play, in turn order from the player who went out
        (empty when no out-play is open). Seeds 003/004 (2-4 players): every opponent may challenge, so the
        game ends only once each has accepted; with two players one Accept ends it."""
        lp = self.last_play
        if self.phase != Phase.OUTPLAY or lp is None:
            return ()
        order = ((lp.player + k) % self.n for k in range(1, self.n))
        return tuple(p for p in order if p not in self.outplay_accepted)

    def copy(self) -> GameModel:
        """A copy that shares nothing mutable with this one (``turn_start`` is shared: it is never changed)."""
        g = copy.copy(self)
        g.board = self.board.copy()
        g.racks, g.scores, g.skip_next = list(self.racks), list(self.scores), list(self.skip_next)
        g.overtime_notified, g.history, g.notes = list(self.overtime_notified), list(self.history), list(self.notes)
        g.clock = self.clock.copy()
        g.window, g.hold = replace(self.window), replace(self.hold)
        g.challenge, g.pending = replace(self.challenge), replace(self.pending)
        return g

    # helpers ---------------------------------------------------------------------------------------------
    def name(self, p: int) -> str:
        """Player ``p``'s name."""
        return self.players[p]

    def nxt(self, p: int) -> int:
        """The player after ``p``."""
        return (p + 1) % self.n

    def unseen(self) -> Counter[str]:
        """Tiles not on the board (bag and racks), by tile."""
        return endgame.unseen_tiles(self.tile_set, self.board.cells)

    def record(self, kind: str, player: int, points: int, *, play: PlayRecord | None = None, count: int = 0,
               rack: str = "", note: str = "") -> None:
        """Add ``points`` to ``player``'s score and a history line of ``kind`` (:class:`TurnRecord`)."""
        self.scores[player] += points
        self.history.append(TurnRecord(kind, player, points, self.scores[player], play, count, rack, note))

    def draw(self) -> None:
        """The player of the last play draws his replacement tiles now (kept-apart tiles join the rack)."""
        lp = self.last_play
        if lp is None or lp.withdrawn or lp.drawn or lp.outplay:
            return
        if lp.kept_apart:
            self.racks[lp.player] += lp.kept_apart
            self.last_play = replace(lp, drawn=lp.kept_apart, kept_apart=0)
            return
        n = min(lp.to_draw, self.bag)
        self.bag -= n
        self.racks[lp.player] += n
        self.last_play = replace(lp, drawn=n)

    def close_window(self) -> None:
        """The last play can no longer be held or challenged: it stands and its player draws."""
        if self.window.open:
            self.window = Window()
        self.hold = HoldState()
        self.draw()


def new_game(ev: GameStarted) -> GameModel:
    """The game ``ev`` starts (first player on move, his clock running). Raises :class:`Refused`
    (bad_preset, bad_players, time_order)."""
    try:
        preset = preset_from_dict(ev.preset)
        tile_set = load_tile_set(preset.tile_set)
        preset.scoring_rules()
    except (PresetError, TileSetError, ValueError, TypeError) as exc:
        raise Refused(f"game_started: bad preset: {exc}", Code.BAD_PRESET) from None
    players = tuple(ev.players)
    if not preset.min_players <= len(players) <= preset.max_players:
        raise Refused(f"preset '{preset.name}' is for {preset.seats}, got {len(players)}", Code.BAD_PLAYERS)
    if len(set(players)) != len(players) or not all(isinstance(p, str) and p.strip() for p in players):
        raise Refused("players need distinct, non-empty names", Code.BAD_PLAYERS)
    if not 0 <= ev.first < len(players):
        raise Refused(f"first player {ev.first} is not one of the {len(players)} players", Code.BAD_PLAYERS)
    if ev.t < 0:
        raise Refused("time t must be >= 0 ms", Code.TIME_ORDER)
    g = GameModel.fresh(preset, tile_set, players, ev.t)
    g.on_move = ev.first
    g.clock.start(ev.first, ev.t)
    return g


def wrong_phase(g: GameModel, ev: Event, phases: frozenset[Phase]) -> Refused:
    """The standard refusal of ``ev`` in ``g``'s phase, naming the ``phases`` it needs."""
    needs = " or ".join(in_order(phases))
    return Refused(f"'{ev.type}' is not allowed now (the game is in '{g.phase}', needs {needs})", Code.WRONG_PHASE)


# ------------------------------------------------------------------------------------------ registries
E = TypeVar("E", bound=Event)
R = TypeVar("R", bound=Callable[..., None])
Handler = Callable[[GameModel, Any], "GameModel | None"]
"""Applies an event to a copy of the game, in place (returns None) or by returning the game that replaces it;
raises :class:`Refused`."""

HANDLERS: dict[type[Event], Handler] = {}
"""Event class -> its handler (every event class but :class:`GameStarted`, which :func:`new_game` starts)."""
REFUSALS: dict[type[Event], Callable[[GameModel, Any], None]] = {}
"""Event class -> a function that raises the precise :class:`Refused` for the event in a phase it is not
allowed in (when the standard wording of :func:`wrong_phase` would say less)."""


def handles(cls: type[E]) -> Callable[[Callable[[GameModel, E], GameModel | None]],
                                      Callable[[GameModel, E], GameModel | None]]:
    """Decorator: register the handler of event class ``cls`` (once; raises ``TypeError`` for a second)."""
    def register(fn: Callable[[GameModel, E], GameModel | None]) -> Callable[[GameModel, E], GameModel | None]:
        if cls in HANDLERS:
            raise TypeError(f"{cls.__name__} has a handler already")
        HANDLERS[cls] = fn
        return fn
    return register


def refusal_for(cls: type[Event]) -> Callable[[R], R]:
    """Decorator: register the wording of ``cls``'s refusal in the phases it is not allowed in."""
    def register(fn: R) -> R:
        REFUSALS[cls] = fn
        return fn
    return register
