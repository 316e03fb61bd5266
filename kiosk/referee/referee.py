"""The referee: folds events into the game state, refusing events the state does not allow.

Pure logic: no I/O, no wall clock (every time is an event's ``t`` in ms). The same accepted events always
give the same :class:`~kiosk.referee.state.GameState`. Typical loop of the kiosk app::

    ref = Referee()
    result = ref.apply(GameStarted(t=now, preset=load_preset("nsf").to_dict(), players=("Ann", "Bob")))
    ...
    for ev in ref.tick(now):        # due time events: window closed, courtesy notice, overtime ...
        ref.apply(ev)
    ref.pending_prompts()           # what the touchscreen must show or ask

``apply`` is all-or-nothing: the handler works on a copy and the copy replaces the state only when the
event is accepted. :meth:`Referee.prepare` / :meth:`Referee.commit` split the two steps so the journal can
record an event after it is known to be acceptable and before it takes effect (:mod:`kiosk.store`).

The state machine is spread over small modules, one topic each: :mod:`~kiosk.referee.phase` (the phases and
the one table of which events each allows), :mod:`~kiosk.referee.model` (the mutable game), the handlers in
:mod:`~kiosk.referee.turns`, :mod:`~kiosk.referee.challenges`, :mod:`~kiosk.referee.timing`,
:mod:`~kiosk.referee.judge`, :mod:`~kiosk.referee.ending`, and the read-outs :mod:`~kiosk.referee.prompts`
and :mod:`~kiosk.referee.snapshot`. This module only dispatches.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from dataclasses import dataclass, field

# the handler modules register their handlers (model.HANDLERS) when imported
from kiosk.referee import challenges, ending, judge, timing, turns  # noqa: F401
from kiosk.referee.ending import ended_by_decision
from kiosk.referee.events import ChallengeRuled, Event, GameStarted, TimeWarning
from kiosk.referee.kinds import Code
from kiosk.referee.model import HANDLERS, REFUSALS, GameModel, Refused, new_game, wrong_phase
from kiosk.referee.phase import ALLOWED, TRANSITIONS, Phase
from kiosk.referee.presets import Preset
from kiosk.referee.prompts import pending_prompts
from kiosk.referee.snapshot import snapshot
from kiosk.referee.state import GameState, Prompt, Result
from kiosk.referee.timing import due_events
from kiosk.referee.turns import begins_turn
from kiosk.rules.tiles import TileSet

MAX_T = 2 ** 53 - 1
"""The latest time an event may carry (ms): the largest integer a float, JSON's numbers in a browser and the stream's
consumers keep exact; the wall clock in ms since 1970 is about 1.8e12."""


@dataclass(frozen=True)
class Prepared:
    """An event checked against the current state (:meth:`Referee.prepare`): its ``result`` and, when accepted,
    the state it leads to (kept private: only :meth:`Referee.commit` uses it). ``version``: the referee's
    count of committed events when it was prepared."""

    event: Event
    result: Result
    version: int
    _model: GameModel | None = field(default=None, repr=False, compare=False)

    @property
    def phase(self) -> Phase | None:
        """The phase the event leads to (None when it was refused)."""
        return self._model.phase if self._model is not None else None

    @property
    def ends_game(self) -> bool:
        """The event is accepted and the game is over after it."""
        return self.phase == Phase.OVER


class Referee:
    """Referee of one game (see module doc). Public API:

    * :meth:`apply` (event -> :class:`Result`), :meth:`prepare` / :meth:`commit`;
    * :attr:`state` (frozen :class:`GameState`), :attr:`events` (accepted events, in order);
    * :meth:`pending_prompts`, :meth:`tick` (due time events), :meth:`challenge_ruling` (lexicon suggestion);
    * :meth:`from_events` (rebuild from a journal).
    """

    def __init__(self) -> None:
        self._model: GameModel | None = None
        self._events: list[Event] = []
        self._version = 0
        self._snapshot: GameState | None = None

    @classmethod
    def from_events(cls, events: Iterable[Event]) -> Referee:
        """Rebuild a referee by applying ``events`` (a journal); raises ``ValueError`` naming the first refused."""
        ref = cls()
        for i, ev in enumerate(events):
            res = ref.apply(ev)
            if not res.accepted:
                raise ValueError(f"event {i + 1} ({ev.type} at {ev.t} ms) is refused on replay: {res.reason}")
        return ref

    @property
    def events(self) -> tuple[Event, ...]:
        """Every accepted event, in order."""
        return tuple(self._events)

    @property
    def preset(self) -> Preset | None:
        """The game's rules (None before a game starts)."""
        return self._model.preset if self._model else None

    @property
    def tile_set(self) -> TileSet | None:
        """The game's tile set (None before a game starts)."""
        return self._model.tile_set if self._model else None

    def apply(self, event: Event) -> Result:
        """Apply one event: accepted (state updated, event recorded) or refused with a reason (nothing changes)."""
        prepared = self.prepare(event)
        if prepared.result.accepted:
            self.commit(prepared)
        return prepared.result

    def prepare(self, event: Event) -> Prepared:
        """Check ``event`` and compute the state it leads to, without changing this referee."""
        try:
            model = _dispatch(self._model, event)
        except Refused as r:
            return Prepared(event, r.result, self._version)
        except Exception as exc:  # a bug must never take the kiosk down: refuse and call the judge
            return Prepared(event, Result(False, f"internal referee error on {getattr(event, 'type', '?')}: "
                                                 f"{type(exc).__name__}: {exc}", Code.INTERNAL, True),
                            self._version)
        return Prepared(event, Result(True), self._version, model)

    def commit(self, prepared: Prepared) -> None:
        """Make a prepared, accepted event take effect. Raises ``ValueError`` if the state moved on since."""
        if prepared._model is None or not prepared.result.accepted:
            raise ValueError("only an accepted prepared event can be committed")
        if prepared.version != self._version:
            raise ValueError("the referee's state changed since this event was prepared")
        self._model = prepared._model
        self._events.append(prepared.event)
        self._version += 1
        self._snapshot = None

    @property
    def state(self) -> GameState:
        """Frozen snapshot of the game (cached until the next accepted event)."""
        if self._snapshot is None:
            self._snapshot = snapshot(self._model, len(self._events))
        return self._snapshot

    def clock_remaining(self, player: int, now_ms: int) -> int | None:
        """``player``'s time left at ``now_ms`` (negative in overtime), or None without a chess clock."""
        if self._model is None:
            return None
        return self._model.clock.remaining(player, max(now_ms, self._model.last_t))

    def pending_prompts(self) -> list[Prompt]:
        """What the kiosk must show or ask now (see :class:`~kiosk.referee.kinds.PromptKind`), most urgent first."""
        return pending_prompts(self._model)

    def tick(self, now_ms: int) -> list[Event]:
        """Due time events at ``now_ms``, earliest first (:func:`~kiosk.referee.timing.due_events`)."""
        return due_events(self._model, now_ms)

    def challenge_ruling(self, lexicon: Container[str], t: int) -> ChallengeRuled | None:
        """The ruling ``lexicon`` suggests for the open challenge, or None (:func:`~kiosk.referee.judge.suggest_ruling`)."""
        return judge.suggest_ruling(self._model, lexicon, t)


def _dispatch(current: GameModel | None, ev: Event) -> GameModel:
    """The game ``ev`` leads to from ``current`` (never changed). Raises :class:`Refused`.

    The phase is looked up once in :data:`~kiosk.referee.phase.ALLOWED` (the rows of the one transition
    table); handlers check only what the phase cannot say, and the phase a handler leads to must be one the
    table lists. Which fault is named when an event has
    several: no game (or a game already) first, then the time, then a game that is over, then the player,
    then any other phase.
    """
    if not isinstance(ev, Event) or not isinstance(ev.t, int) or isinstance(ev.t, bool):
        raise Refused("not an event (expected a kiosk.referee.events value with a time t in ms)", Code.BAD_EVENT)
    if ev.t > MAX_T:   # (a demo at an unbounded --speed once journaled 5.5e16 ms: overtime of -4e12 points)
        raise Refused(f"{ev.type} at {ev.t} ms: no clock reads that far (at most 2^53 - 1 ms, about 285,000 "
                      "years)", Code.TIME_ORDER)
    phase = current.phase if current is not None else Phase.NOT_STARTED
    allowed = phase in ALLOWED.get(type(ev), frozenset())
    if not allowed and (current is None or isinstance(ev, GameStarted)):
        _refuse_phase(current, ev, phase)
    if isinstance(ev, GameStarted):
        return new_game(ev)
    assert current is not None  # only game_started is allowed before a game
    if ev.t < current.last_t:
        raise Refused(f"{ev.type} at {ev.t} ms is earlier than the last event ({current.last_t} ms)",
                      Code.TIME_ORDER)
    if not allowed and (phase == Phase.OVER or type(ev) not in HANDLERS):
        _refuse_phase(current, ev, phase)
    p = getattr(ev, "player", None)
    if hasattr(ev, "player") and not isinstance(ev, TimeWarning) and not (isinstance(p, int) and 0 <= p < current.n):
        raise Refused(f"{ev.type}: player {p!r} is not in this game (0..{current.n - 1})", Code.BAD_PLAYER)
    if not allowed:
        _refuse_phase(current, ev, phase)
    g = current.copy()
    g = HANDLERS[type(ev)](g, ev) or g
    if g.phase not in TRANSITIONS[type(ev)][phase]:  # a referee bug: prepare() refuses it and calls the judge
        raise RuntimeError(f"{ev.type} led from {phase} to {g.phase}, which phase.TRANSITIONS does not allow")
    if begins_turn(current, ev):
        g.turn_start = current
    if ended_by_decision(current, ev, g):
        g.end_start, g.ended_t = current, ev.t
    g.last_t = ev.t
    return g


def _refuse_phase(g: GameModel | None, ev: Event, phase: Phase) -> None:
    """Raise the refusal of ``ev`` in ``phase``, which :data:`ALLOWED` does not allow it in."""
    if isinstance(ev, GameStarted):
        raise Refused("a game is already in progress on this kiosk", Code.ALREADY_STARTED)
    if g is None:
        raise Refused(f"no game in progress: start a game before '{ev.type}'", Code.NOT_STARTED)
    if phase == Phase.OVER:
        raise Refused(f"the game is over: '{ev.type}' is not allowed", Code.GAME_OVER)
    if type(ev) not in ALLOWED:
        raise Refused(f"unknown event type '{ev.type}'", Code.BAD_EVENT)
    why = REFUSALS.get(type(ev))
    if why is not None:
        why(g, ev)
    raise wrong_phase(g, ev, ALLOWED[type(ev)])
