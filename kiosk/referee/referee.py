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
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from kiosk.referee import endgame
from kiosk.referee.clock import ChessClock
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
from kiosk.referee.phase import ALLOWED, Phase, in_order
from kiosk.referee.presets import Preset, PresetError, preset_from_dict
from kiosk.referee.state import (
    CHALLENGED,
    DESIGNATING,
    NOT_STARTED,
    OUTPLAY,
    OVER,
    PLAYING,
    RACK_ENTRY,
    REMOVING,
    GameResult,
    GameState,
    PlayRecord,
    Prompt,
    Result,
    TurnRecord,
)
from kiosk.rules.board import Board, square_name
from kiosk.rules.placement import PlacementError, validate_placement
from kiosk.rules.scoring import score_play
from kiosk.rules.tiles import BLANK, TileSet, TileSetError, load_tile_set


class Refused(Exception):
    """Raised inside handlers; becomes a refused :class:`Result` (never escapes :meth:`Referee.apply`)."""

    def __init__(self, reason: str, code: str, *, judge: bool = False, squares: Iterable[int] = ()) -> None:
        super().__init__(reason)
        self.result = Result(False, reason, code, judge, tuple(squares))


class _Game:
    """The mutable game the handlers work on (copied before every event; see :meth:`copy`)."""

    def __init__(self, preset: Preset, tile_set: TileSet, players: tuple[str, ...], t: int) -> None:
        n = len(players)
        self.preset = preset
        self.rules = preset.scoring_rules()
        self.tile_set = tile_set
        self.players = players
        self.n = n
        self.board = Board()
        self.bag = tile_set.total_tiles - tile_set.rack_size * n
        self.racks = [tile_set.rack_size] * n
        self.scores = [0] * n
        self.on_move: int | None = None
        self.turn = 0
        self.clock = ChessClock(n, preset.clock.game_ms if n == 2 else None)
        self.phase = PLAYING
        self.scoreless = 0
        self.scoreless_saved = 0
        self.last_play: PlayRecord | None = None
        self.window_open = False
        self.window_until: int | None = None
        self.hold_by: int | None = None
        self.hold_since: int | None = None
        self.courtesy_given = False
        self.challenge_by: int | None = None
        self.challenge_words: tuple[str, ...] = ()
        self.challenge_return = PLAYING
        self.ruling = ""
        self.skip_next = [False] * n
        self.game_word_available = bool(self.rules.game_word)
        self.neutralised = ""
        self.overtime_notified = [False] * n
        self.warnings: tuple[str, ...] = ()
        self.pending: tuple[tuple[int, str], ...] = ()
        self.pending_player = 0
        self.pressed_at: int | None = None
        self.removing: tuple[int, ...] = ()
        self.end_reason = ""
        self.went_out: int | None = None
        self.result: GameResult | None = None
        self.history: list[TurnRecord] = []
        self.downtime = 0
        self.notes: list[str] = []
        self.last_t = t
        self.started_t = t
        # the game as it stood just before the last turn began (its clock press, or the play/pass/exchange
        # itself when no press was reported): what the judge's MoveUndone returns to; a chain, one per turn
        self.turn_start: _Game | None = None

    def copy(self) -> _Game:
        g = copy.copy(self)
        g.board = self.board.copy()
        g.racks, g.scores, g.skip_next = list(self.racks), list(self.scores), list(self.skip_next)
        g.overtime_notified, g.history, g.notes = list(self.overtime_notified), list(self.history), list(self.notes)
        g.clock = self.clock.copy()
        return g

    # helpers ---------------------------------------------------------------------------------------------
    def name(self, p: int) -> str:
        return self.players[p]

    def nxt(self, p: int) -> int:
        return (p + 1) % self.n

    def unseen(self) -> Counter:
        return endgame.unseen_tiles(self.tile_set, self.board.cells)

    def record(self, kind: str, player: int, points: int, **kw: object) -> None:
        self.scores[player] += points
        self.history.append(TurnRecord(kind, player, points, self.scores[player], **kw))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Prepared:
    """An event checked against the current state: ``result`` and (when accepted) the state it leads to."""

    event: Event
    result: Result
    game: _Game | None
    version: int


class Referee:
    """Referee of one game (see module doc). Public API:

    * :meth:`apply` (event -> :class:`Result`), :meth:`prepare` / :meth:`commit`;
    * :attr:`state` (frozen :class:`GameState`), :attr:`events` (accepted events, in order);
    * :meth:`pending_prompts`, :meth:`tick` (due time events), :meth:`challenge_ruling` (lexicon suggestion);
    * :meth:`from_events` (rebuild from a journal).
    """

    def __init__(self) -> None:
        self._g: _Game | None = None
        self._events: list[Event] = []
        self._version = 0
        self._snapshot: GameState | None = None

    # --------------------------------------------------------------------------------------- public API
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
        return self._g.preset if self._g else None

    @property
    def tile_set(self) -> TileSet | None:
        return self._g.tile_set if self._g else None

    def apply(self, event: Event) -> Result:
        """Apply one event: accepted (state updated, event recorded) or refused with a reason (nothing changes)."""
        prepared = self.prepare(event)
        if prepared.result.accepted:
            self.commit(prepared)
        return prepared.result

    def prepare(self, event: Event) -> Prepared:
        """Check ``event`` and compute the state it leads to, without changing this referee."""
        try:
            game = self._handle(event)
        except Refused as r:
            return Prepared(event, r.result, None, self._version)
        except Exception as exc:  # a bug must never take the kiosk down: refuse and call the judge
            return Prepared(event, Result(False, f"internal referee error on {getattr(event, 'type', '?')}: "
                                                 f"{type(exc).__name__}: {exc}", "internal", True), None,
                            self._version)
        return Prepared(event, Result(True), game, self._version)

    def commit(self, prepared: Prepared) -> None:
        """Make a prepared, accepted event take effect. Raises ``ValueError`` if the state moved on since."""
        if prepared.game is None or not prepared.result.accepted:
            raise ValueError("only an accepted prepared event can be committed")
        if prepared.version != self._version:
            raise ValueError("the referee's state changed since this event was prepared")
        self._g = prepared.game
        self._events.append(prepared.event)
        self._version += 1
        self._snapshot = None

    @property
    def state(self) -> GameState:
        """Frozen snapshot of the game (cached until the next accepted event)."""
        if self._snapshot is None:
            self._snapshot = self._make_state()
        return self._snapshot

    def clock_remaining(self, player: int, now_ms: int) -> int | None:
        """``player``'s time left at ``now_ms`` (negative in overtime), or None without a chess clock."""
        if self._g is None:
            return None
        return self._g.clock.remaining(player, max(now_ms, self._g.last_t))

    # --------------------------------------------------------------------------------------- dispatch
    def _handle(self, ev: Event) -> _Game:
        """The game ``ev`` leads to. Checks, in order: an event at all; its phase (:data:`ALLOWED`, the one
        place that says what each phase allows); its time; its player; then the handler's own checks."""
        if not isinstance(ev, Event) or not isinstance(ev.t, int) or isinstance(ev.t, bool):
            raise Refused("not an event (expected a kiosk.referee.events value with a time t in ms)", "bad_event")
        phase = self._g.phase if self._g is not None else Phase.NOT_STARTED
        if phase not in ALLOWED.get(type(ev), frozenset()):
            _refuse_phase(self._g, ev, phase)
        if isinstance(ev, GameStarted):
            return self._game_started(ev)
        assert self._g is not None
        if ev.t < self._g.last_t:
            raise Refused(f"{ev.type} at {ev.t} ms is earlier than the last event ({self._g.last_t} ms)", "time_order")
        g = self._g.copy()
        if isinstance(ev, MoveUndone):
            return _undo_turn(self._g, ev)
        handler = _HANDLERS[type(ev)]
        if hasattr(ev, "player") and type(ev) not in (TimeWarning,):
            p = ev.player  # type: ignore[attr-defined]
            if not isinstance(p, int) or not 0 <= p < g.n:
                raise Refused(f"{ev.type}: player {p!r} is not in this game (0..{g.n - 1})", "bad_player")
        before = self._g
        handler(g, ev)
        if _begins_turn(before, ev):
            g.turn_start = before
        g.last_t = ev.t
        return g

    def _game_started(self, ev: GameStarted) -> _Game:
        try:
            preset = preset_from_dict(ev.preset)
            tile_set = load_tile_set(preset.tile_set)
            preset.scoring_rules()
        except (PresetError, TileSetError, ValueError, TypeError) as exc:
            raise Refused(f"game_started: bad preset: {exc}", "bad_preset") from None
        players = tuple(ev.players)
        if not preset.min_players <= len(players) <= preset.max_players:
            raise Refused(f"preset '{preset.name}' is for {preset.min_players}-{preset.max_players} players, "
                          f"got {len(players)}", "bad_players")
        if len(set(players)) != len(players) or not all(isinstance(p, str) and p.strip() for p in players):
            raise Refused("players need distinct, non-empty names", "bad_players")
        if not 0 <= ev.first < len(players):
            raise Refused(f"first player {ev.first} is not one of the {len(players)} players", "bad_players")
        if ev.t < 0:
            raise Refused("time t must be >= 0 ms", "time_order")
        g = _Game(preset, tile_set, players, ev.t)
        g.on_move = ev.first
        g.clock.start(ev.first, ev.t)
        return g

    # --------------------------------------------------------------------------------------- prompts
    def pending_prompts(self) -> list[Prompt]:
        """What the kiosk must show or ask now (see :class:`Prompt` kinds), most urgent first."""
        g = self._g
        if g is None:
            return []
        out: list[Prompt] = []
        if g.phase == DESIGNATING:
            blanks = tuple(sq for sq, t in g.pending if t == BLANK)
            out.append(Prompt("designate_blank", g.pending_player,
                              f"{g.name(g.pending_player)}: say which letter each blank stands for "
                              f"({', '.join(square_name(s) for s in blanks)})", squares=blanks))
        elif g.phase == CHALLENGED:
            lp = g.last_play
            assert lp is not None
            who = "lexicon check" if g.challenge_by is None else f"{g.name(g.challenge_by)} challenges"
            out.append(Prompt("challenge_ruling", -1, f"{who}: {', '.join(g.challenge_words)} - judge, confirm "
                              "the ruling", squares=tuple(sq for sq, _ in lp.tiles),
                              data=(("words", g.challenge_words), ("off_centre_first", lp.off_centre_first))))
        elif g.phase == REMOVING:
            lp = g.last_play
            assert lp is not None
            out.append(Prompt("remove_tiles", lp.player, f"{g.name(lp.player)}: take your tiles back "
                              f"({', '.join(square_name(s) for s in g.removing)})", squares=g.removing))
        elif g.phase == OUTPLAY:
            lp = g.last_play
            assert lp is not None
            if g.hold_by is not None:
                out.append(Prompt("hold", g.hold_by, f"{g.name(g.hold_by)} holds the out-play: release or "
                                  "challenge"))
            else:
                until = g.window_until
                out.append(Prompt("outplay_window", g.nxt(lp.player), f"{g.name(lp.player)} went out: accept or "
                                  "challenge", until_ms=until))
        elif g.phase == RACK_ENTRY:
            out.append(Prompt("rack_entry", -1, "enter the tiles left on each rack",
                              data=(("counts", tuple(g.racks)),)))
        elif g.phase == OVER and g.result is not None:
            out.append(Prompt("game_over", -1, _result_text(g), data=(("wins", g.result.wins),)))
        if g.phase == PLAYING:
            if g.pressed_at is not None and g.on_move is not None:
                out.append(Prompt("read_board", g.on_move, f"{g.name(g.on_move)} pressed the clock: reading the board"))
            if g.neutralised:
                out.append(Prompt("clock_neutralised", -1, f"clock stopped: {g.neutralised}"))
            if g.hold_by is not None:
                out.append(Prompt("hold", g.hold_by, f"{g.name(g.hold_by)} holds: release or challenge"))
                if g.courtesy_given and g.last_play is not None:
                    lp = g.last_play
                    out.append(Prompt("courtesy_draw", lp.player, f"{g.name(lp.player)} may draw {lp.to_draw} "
                                      "replacement tiles and keep them apart"))
            elif g.window_open and g.last_play is not None:
                out.append(Prompt("challenge_window", g.on_move if g.on_move is not None else -1,
                                  "hold or challenge the last play", until_ms=g.window_until))
        return out

    # --------------------------------------------------------------------------------------- time
    def tick(self, now_ms: int) -> list[Event]:
        """Due time events at ``now_ms``, earliest first; each has the ``t`` it fell due (not before the last
        event). Apply them in order (a later one may be refused if an earlier one ended the situation)."""
        g = self._g
        if g is None or g.phase in (OVER,):
            return []
        due: list[Event] = []
        lo = g.last_t

        def at(t: int) -> int:
            return max(t, lo)

        ch = g.preset.challenge
        if g.hold_by is None and g.window_open and g.window_until is not None and now_ms >= g.window_until \
                and g.phase in (PLAYING, OUTPLAY):
            due.append(WindowClosed(t=at(g.window_until)))
        if g.hold_by is not None and not g.courtesy_given and ch.courtesy_ms is not None and g.phase == PLAYING \
                and g.hold_since is not None and now_ms >= g.hold_since + ch.courtesy_ms:
            due.append(CourtesyNotice(t=at(g.hold_since + ch.courtesy_ms)))
        ck = g.clock
        r = ck.running
        if r is not None and ck.game_ms is not None:
            used_now = ck.used[r] + max(0, now_ms - ck.since)
            if not g.overtime_notified[r] and used_now >= ck.game_ms:
                due.append(OvertimeStarted(t=at(ck.since + ck.game_ms - ck.used[r]), player=r))
            cap = g.preset.clock.overtime_cap_ms
            if cap is not None and used_now > ck.game_ms + cap:
                due.append(OvertimeCapExceeded(t=at(ck.since + ck.game_ms + cap - ck.used[r] + 1), player=r))
        clk = g.preset.clock
        if g.phase == PLAYING and r is not None and r == g.on_move and clk.turn_limit_ms is not None:
            used_turn = ck.turn_used_at(now_ms)
            base = ck.since - ck.turn_used
            for w in clk.turn_warnings_ms:
                key = f"turn{g.turn}:{w}"
                if key not in g.warnings and used_turn >= clk.turn_limit_ms - w:
                    due.append(TimeWarning(t=at(base + clk.turn_limit_ms - w), kind="turn", remaining_ms=w, player=r))
            if f"turn{g.turn}:expired" not in g.warnings and used_turn >= clk.turn_limit_ms:
                due.append(TurnTimeExpired(t=at(base + clk.turn_limit_ms), player=r))
        if clk.session_limit_ms is not None and g.phase not in (RACK_ENTRY, OVER):
            end = g.started_t + g.downtime + clk.session_limit_ms
            for w in clk.session_warnings_ms:
                key = f"session:{w}"
                if key not in g.warnings and now_ms >= end - w:
                    due.append(TimeWarning(t=at(end - w), kind="session", remaining_ms=w))
            if now_ms >= end:
                due.append(SessionTimeUp(t=at(end)))
        due.sort(key=lambda e: e.t)
        return due

    # --------------------------------------------------------------------------------------- lexicon
    def challenge_ruling(self, lexicon: object, t: int) -> ChallengeRuled | None:
        """The ruling the lexicon suggests for the open challenge (for the judge to confirm), or None.

        ``lexicon`` supports ``word in lexicon`` (upper-case words). A first play off the centre under a
        preset with ``off_centre_challengeable`` is unacceptable regardless of its words.
        """
        g = self._g
        if g is None or g.phase != CHALLENGED or g.last_play is None:
            return None
        bad = tuple(w for w in g.challenge_words if w.upper() not in lexicon)  # type: ignore[operator]
        off = g.last_play.off_centre_first and g.preset.challenge.off_centre_challengeable and g.challenge_by is not None
        return ChallengeRuled(t=t, acceptable=not bad and not off, invalid=bad)

    # --------------------------------------------------------------------------------------- snapshot
    def _make_state(self) -> GameState:
        g = self._g
        if g is None:
            return GameState(NOT_STARTED, "", (), None, 0, (), ("",) * 225, 0, (), 0, (), None, 0, None, False, None,
                             None, None, False, None, (), "", (), False, "", (), (), (), None, (), 0, 0, 0, 0)
        unseen = tuple(sorted(g.unseen().items(), key=lambda kv: (kv[0] == BLANK, kv[0])))
        return GameState(
            phase=g.phase, preset=g.preset.name, players=g.players, on_move=g.on_move, turn=g.turn,
            scores=tuple(g.scores), board=tuple(g.board.cells), bag=g.bag, racks=tuple(g.racks),
            kept_apart=g.last_play.kept_apart if g.last_play and g.window_open else 0, unseen=unseen,
            clock=g.clock.snapshot(), scoreless_run=g.scoreless, last_play=g.last_play, window_open=g.window_open,
            window_until_ms=g.window_until, hold_by=g.hold_by, hold_since_ms=g.hold_since,
            courtesy_given=g.courtesy_given, challenge_by=g.challenge_by, challenge_words=g.challenge_words,
            ruling=g.ruling, skip_next=tuple(g.skip_next), game_word_available=g.game_word_available,
            neutralised=g.neutralised, overtime_notified=tuple(g.overtime_notified), warnings_given=g.warnings,
            pending_blanks=tuple(sq for sq, t in g.pending if t == BLANK), result=g.result,
            history=tuple(g.history), downtime_ms=g.downtime, last_t=g.last_t, started_t=g.started_t,
            events=len(self._events), notes=tuple(g.notes), to_draw=_to_draw(g), pressed_at=g.pressed_at,
        )


def _to_draw(g: _Game) -> int:
    lp = g.last_play
    if lp is None or not g.window_open or lp.drawn or lp.kept_apart or lp.withdrawn:
        return 0
    return min(lp.to_draw, g.bag)


# =========================================================================================== handlers


def _wrong_phase(g: _Game, ev: Event, phases: frozenset[Phase]) -> Refused:
    needs = " or ".join(in_order(phases))
    return Refused(f"'{ev.type}' is not allowed now (the game is in '{g.phase}', needs {needs})", "wrong_phase")


def _refuse_phase(g: _Game | None, ev: Event, phase: Phase) -> None:
    """Raise the refusal of ``ev`` in ``phase``, which :data:`ALLOWED` does not allow it in."""
    if isinstance(ev, GameStarted):
        raise Refused("a game is already in progress on this kiosk", "already_started")
    if g is None:
        raise Refused(f"no game in progress: start a game before '{ev.type}'", "not_started")
    if phase == OVER:
        raise Refused(f"the game is over: '{ev.type}' is not allowed", "game_over")
    if type(ev) not in ALLOWED:
        raise Refused(f"unknown event type '{ev.type}'", "bad_event")
    why = _WHY_NOT.get(type(ev))
    if why is not None:
        why(g, ev)
    raise _wrong_phase(g, ev, ALLOWED[type(ev)])


def _need_on_move(g: _Game, ev: Event, player: int) -> None:
    if g.on_move != player:
        who = g.name(g.on_move) if g.on_move is not None else "nobody"
        raise Refused(f"{ev.type}: it is {who}'s turn, not {g.name(player)}'s", "wrong_player")
    if g.neutralised:
        raise Refused(f"{ev.type}: the clock is neutralised ({g.neutralised}); resume it first", "neutralised")


def _draw(g: _Game) -> None:
    """The player of the last play draws his replacement tiles now (kept-apart tiles join the rack)."""
    lp = g.last_play
    if lp is None or lp.withdrawn or lp.drawn or lp.outplay:
        return
    if lp.kept_apart:
        g.racks[lp.player] += lp.kept_apart
        g.last_play = replace(lp, drawn=lp.kept_apart, kept_apart=0)
        return
    n = min(lp.to_draw, g.bag)
    g.bag -= n
    g.racks[lp.player] += n
    g.last_play = replace(lp, drawn=n)


def _close_window(g: _Game) -> None:
    """The last play can no longer be held or challenged: it stands and its player draws."""
    if g.window_open:
        g.window_open = False
        g.window_until = None
    g.hold_by = None
    g.hold_since = None
    g.courtesy_given = False
    _draw(g)


def _scoreless_end(g: _Game) -> bool:
    n = g.preset.end.scoreless_turns
    if n is None or g.scoreless < n:
        return False
    return not (g.preset.end.scoreless_needs_nonzero and all(s == 0 for s in g.scores))


def _end_without_out(g: _Game, t: int, reason: str) -> None:
    _close_window(g)
    g.clock.stop(t)
    g.phase = RACK_ENTRY
    g.end_reason = reason
    g.went_out = None
    g.on_move = None


def _next_turn(g: _Game, frm: int, t: int) -> None:
    """Turn passes to the player after ``frm`` (skipping players who lose a turn); checks the scoreless end."""
    nxt = g.nxt(frm)
    for _ in range(g.n + 1):
        if _scoreless_end(g):
            _end_without_out(g, t, "six_scoreless")
            return
        if not g.skip_next[nxt]:
            break
        g.skip_next[nxt] = False
        g.record("lost_turn", nxt, 0, note="loses this turn (failed challenge)")
        g.scoreless += 1
        nxt = g.nxt(nxt)
    g.on_move = nxt
    g.turn += 1
    g.clock.start(nxt, t)
    if _scoreless_end(g):
        _end_without_out(g, t, "six_scoreless")


def _finish(g: _Game, t: int, reason: str, racks: tuple[str, ...], went_out: int | None,
            forfeit: int | None = None) -> None:
    """End the game: rack adjustments, overtime penalties, win credit; phase OVER."""
    _close_window(g)
    g.clock.stop(t)
    p = g.preset
    values = [g.tile_set.rack_value(r) for r in racks]
    adj = [0] * g.n if forfeit is not None else endgame.rack_adjustments(p, values, went_out)
    before = tuple(g.scores)
    # rack lines are written even when worth 0, so that a record's end (and any time penalty after it) is complete
    if forfeit is None and went_out is not None:
        rule = p.end.out_adjustment
        if rule in ("standard", "double"):
            others = "".join(r for j, r in enumerate(racks) if j != went_out)
            g.record("end_rack", went_out, adj[went_out], rack=others)
        if rule in ("standard", "own_only"):
            for i in range(g.n):
                if i != went_out:
                    g.record("own_rack", i, adj[i], rack=racks[i])
    elif forfeit is None and p.end.no_out_adjustment == "own_rack":
        for i in range(g.n):
            g.record("own_rack", i, adj[i], rack=racks[i])
    pen = endgame.time_penalties(p, g.clock.used)
    for i in range(g.n):
        if pen[i]:
            g.record("time_penalty", i, -pen[i], note=f"{g.clock.used[i] - (p.clock.game_ms or 0)} ms overtime")
    final = tuple(g.scores)
    wins = endgame.win_credit(p, final, before, forfeit)
    g.result = GameResult(reason, final, before, tuple(adj), tuple(pen), racks, wins, went_out, forfeit)
    g.phase = OVER
    g.on_move = None
    g.neutralised = ""


def _end_outplay(g: _Game, t: int) -> None:
    lp = g.last_play
    assert lp is not None
    g.window_open = False
    g.hold_by = None
    if g.n == 2:
        opp = endgame.rack_string(g.unseen())
        racks = ("", opp) if lp.player == 0 else (opp, "")
        _finish(g, t, "out_play", racks, lp.player)
    else:
        g.clock.stop(t)
        g.phase = RACK_ENTRY
        g.end_reason = "out_play"
        g.went_out = lp.player
        g.on_move = None


def _turn_time(g: _Game, ev: Event) -> int:
    """When the turn ended: the clock press if one was reported, else the event itself (ms)."""
    return g.pressed_at if g.pressed_at is not None else ev.t


def _on_clock_pressed(g: _Game, ev: ClockPressed) -> None:
    _need_on_move(g, ev, ev.player)
    if g.pressed_at is not None:
        raise Refused(f"clock_pressed: {g.name(ev.player)} pressed already at {g.pressed_at} ms; waiting for the "
                      "board reading", "already_pressed")
    g.pressed_at = ev.t
    g.clock.start(g.nxt(ev.player), ev.t)


def _on_play(g: _Game, ev: Play) -> None:
    if g.phase == DESIGNATING:  # only a corrected reading, which replaces the pending one
        if ev.player != g.pending_player:
            raise _wrong_phase(g, ev, frozenset({PLAYING}))
        g.phase = PLAYING
        g.pending = ()
    _need_on_move(g, ev, ev.player)
    t_turn = _turn_time(g, ev)
    g.pressed_at = None
    tiles = tuple((int(sq), t) for sq, t in ev.tiles)
    if not tiles:
        raise Refused("play: no tiles were placed (a clock press without tiles is a pass)", "no_tiles", judge=True)
    bad = [sq for sq, t in tiles if not (isinstance(t, str) and len(t) == 1 and (t == BLANK or g.tile_set.is_letter(t)))]
    if bad:
        raise Refused(f"play: not a tile of the {g.tile_set.name} set on "
                      f"{', '.join(square_name(s) if 0 <= s < 225 else str(s) for s in bad)}", "bad_tile",
                      judge=True, squares=[s for s in bad if 0 <= s < 225])
    _close_window(g)  # the mover's play ends the window on the previous play
    p = ev.player
    if len(tiles) > g.racks[p]:
        raise Refused(f"play: {len(tiles)} tiles placed but {g.name(p)}'s rack holds only {g.racks[p]} - "
                      "a misread? judge please check", "impossible_tiles", judge=True, squares=[s for s, _ in tiles])
    need = Counter(BLANK if (t == BLANK or t.islower()) else t for _, t in tiles)
    over = need - g.unseen()
    if over:
        squares = [sq for sq, t in tiles if (BLANK if (t == BLANK or t.islower()) else t) in over]
        names = ", ".join(f"{'blank' if k == BLANK else k}" for k in sorted(over))
        raise Refused(f"play: no {names} left to play (all already on the board) - a misread? judge please check",
                      "impossible_tiles", judge=True, squares=squares)
    probe = [(sq, "e" if t == BLANK else t) for sq, t in tiles]  # a blank's letter cannot make the shape legal
    try:
        score_play(g.board, probe, g.tile_set, g.rules, game_word_available=g.game_word_available)
    except PlacementError as exc:
        raise Refused(f"play: {exc}", exc.code, judge=True, squares=exc.squares) from None
    g.pending = tiles
    g.pending_player = p
    if any(t == BLANK for _, t in tiles):
        g.phase = DESIGNATING
        g.clock.stop(max(t_turn, g.clock.at))
        return
    _score_pending(g, max(t_turn, g.clock.at), shown=ev.t)


def _why_not_blank_designated(g: _Game, ev: BlankDesignated) -> None:
    """Outside DESIGNATING: a blank of the last play designated already is said so."""
    for sq, t in (g.last_play.tiles if g.last_play else ()):
        if sq == ev.square and t.islower():
            raise Refused(f"the blank on {square_name(sq)} was designated {t.upper()} already; a designation "
                          "never changes", "already_designated", squares=[sq])


def _on_blank_designated(g: _Game, ev: BlankDesignated) -> None:
    if ev.player != g.pending_player:
        raise Refused(f"blank_designated: the blank belongs to {g.name(g.pending_player)}'s play", "wrong_player")
    letter = ev.letter.upper() if isinstance(ev.letter, str) else ""
    if len(letter) != 1 or not g.tile_set.is_letter(letter):
        raise Refused(f"blank_designated: '{ev.letter}' is not a letter of the {g.tile_set.name} set", "bad_letter",
                      squares=[ev.square] if 0 <= ev.square < 225 else [])
    tiles = list(g.pending)
    for i, (sq, t) in enumerate(tiles):
        if sq == ev.square:
            if t != BLANK:
                what = f"designated {t.upper()} already" if t.islower() else f"the tile {t}, not a blank"
                raise Refused(f"{square_name(sq)} holds {what}; a designation never changes", "already_designated",
                              squares=[sq])
            tiles[i] = (sq, letter.lower())
            break
    else:
        raise Refused(f"blank_designated: no blank of this play on {square_name(ev.square) if 0 <= ev.square < 225 else ev.square}",
                      "no_blank_there")
    g.pending = tuple(tiles)
    if not any(t == BLANK for _, t in tiles):
        _score_pending(g, ev.t)


def _score_pending(g: _Game, t: int, shown: int | None = None) -> None:
    """Score the pending play as of its clock press ``t`` (ms). ``shown``: when the kiosk shows it (the reading
    arrived, ms): the out-play window runs from then, since the opponent cannot challenge a play before
    seeing it (the press may be seconds earlier when a judge had to fix the reading)."""
    p, tiles = g.pending_player, g.pending
    try:
        ps = score_play(g.board, tiles, g.tile_set, g.rules, game_word_available=g.game_word_available)
        shape = validate_placement(g.board, tiles, g.rules)
    except PlacementError as exc:
        raise Refused(f"play: {exc}", exc.code, judge=True, squares=exc.squares) from None
    g.board.place(list(tiles))
    rack_before = g.racks[p]
    g.racks[p] -= len(tiles)
    outplay = g.bag == 0 and g.racks[p] == 0
    lp = PlayRecord(player=p, tiles=tiles, coordinate=str(ps.coordinate), word=ps.main_word,
                    words=tuple(w.word for w in ps.words), score=ps.total, rack_before=rack_before,
                    to_draw=min(len(tiles), g.bag), game_word_bonus=ps.game_word_bonus,
                    off_centre_first=shape.off_centre_first, outplay=outplay, t=t)
    g.last_play = lp
    g.pending = ()
    g.scoreless_saved = g.scoreless
    g.scoreless = 0
    if ps.game_word_bonus:
        g.game_word_available = False
    g.record("play", p, ps.total, play=lp)
    g.ruling = ""
    ch = g.preset.challenge
    if ch.rule == "void":
        g.phase = CHALLENGED
        g.challenge_by = None
        g.challenge_words = tuple(w.upper() for w in lp.words)
        g.challenge_return = PLAYING
        g.clock.stop(t)
        return
    g.window_open = True
    if outplay:
        g.phase = OUTPLAY
        g.clock.stop(t)
        g.window_until = max(t, shown if shown is not None else t) + ch.outplay_window_ms
        g.on_move = g.nxt(p)
        return
    g.phase = PLAYING
    g.window_until = t + ch.window_ms if ch.window_ms is not None else None
    _next_turn(g, p, t)
    if g.phase == PLAYING:
        g.window_open = True


def _on_pass(g: _Game, ev: Pass) -> None:
    _need_on_move(g, ev, ev.player)
    t_turn = max(_turn_time(g, ev), g.clock.at)
    g.pressed_at = None
    _close_window(g)
    g.record("pass", ev.player, 0)
    g.scoreless += 1
    g.last_play = None
    _next_turn(g, ev.player, t_turn)


def _on_exchange(g: _Game, ev: Exchange) -> None:
    _need_on_move(g, ev, ev.player)
    t_turn = max(_turn_time(g, ev), g.clock.at)
    g.pressed_at = None
    ex = g.preset.exchange
    if not ex.allowed:
        raise Refused(f"exchanges are not allowed under '{g.preset.name}'", "exchange_not_allowed")
    _close_window(g)
    p, n = ev.player, ev.count
    if n < 1:
        raise Refused("exchange: the count must be at least 1 (exchanging none is a pass)", "bad_count")
    if n > g.racks[p]:
        raise Refused(f"exchange: {g.name(p)} has only {g.racks[p]} tiles", "bad_count")
    if ex.counts == "one_or_all" and n not in (1, g.racks[p]):
        raise Refused(f"exchange: under '{g.preset.name}' exchange one tile or all {g.racks[p]}", "bad_count")
    if g.bag < ex.min_bag:
        raise Refused(f"exchange: only {g.bag} tiles in the bag; '{g.preset.name}' needs at least {ex.min_bag}",
                      "bag_too_small")
    if g.bag < n:
        raise Refused(f"exchange: only {g.bag} tiles in the bag to draw {n}", "bag_too_small")
    g.record("exchange", p, 0, count=n)
    g.scoreless += 1
    g.last_play = None
    _next_turn(g, p, t_turn)


def _on_drew(g: _Game, ev: Drew) -> None:
    lp = g.last_play
    if lp is None or lp.player != ev.player or lp.drawn or lp.withdrawn or lp.outplay:
        raise Refused(f"drew: {g.name(ev.player)} has no tiles to draw now", "nothing_to_draw")
    if g.hold_by is not None:
        raise Refused(f"drew: {g.name(g.hold_by)} holds the play; draw only after the courtesy minute, kept apart",
                      "held")
    _draw(g)


def _window_open_for(g: _Game, ev: Event, player: int) -> None:
    lp = g.last_play
    if lp is None or not g.window_open or lp.withdrawn:
        raise Refused(f"{ev.type}: there is no play to hold or challenge now", "window_closed")
    if player == lp.player:
        raise Refused(f"{ev.type}: {g.name(player)} cannot hold or challenge his own play", "wrong_player")
    if g.hold_by is None and g.window_until is not None and ev.t > g.window_until:
        late = (ev.t - g.window_until) / 1000
        raise Refused(f"{ev.type}: the window closed {late:.1f} s ago; the play stands", "window_closed")


def _on_hold(g: _Game, ev: Hold) -> None:
    if not g.preset.challenge.holds:
        raise Refused(f"holds are not part of '{g.preset.name}' rules: challenge or play", "no_holds")
    _window_open_for(g, ev, ev.player)
    if g.hold_by is not None:
        raise Refused(f"hold: {g.name(g.hold_by)} already holds", "already_held")
    if g.phase == PLAYING and ev.player != g.on_move:
        raise Refused(f"hold: only {g.name(g.on_move)} (on move) may hold", "wrong_player")  # type: ignore[arg-type]
    g.hold_by = ev.player
    g.hold_since = ev.t
    g.courtesy_given = False
    if g.phase == OUTPLAY:
        g.clock.start(ev.player, ev.t)  # seed 002 III.B: the holder's clock runs until release or challenge


def _on_hold_released(g: _Game, ev: HoldReleased) -> None:
    if g.hold_by != ev.player:
        raise Refused(f"hold_released: {g.name(ev.player)} has no hold to release", "no_hold")
    if g.phase == OUTPLAY:
        _end_outplay(g, ev.t)
        return
    _close_window(g)


def _why_not_courtesy_notice(g: _Game, ev: CourtesyNotice) -> None:
    raise Refused("courtesy_notice: no hold in progress", "no_hold")


def _on_courtesy_notice(g: _Game, ev: CourtesyNotice) -> None:
    ms = g.preset.challenge.courtesy_ms
    if g.hold_by is None or g.hold_since is None or ms is None:
        _why_not_courtesy_notice(g, ev)
    if g.courtesy_given:
        raise Refused("courtesy_notice: already given", "already_given")
    if ev.t < g.hold_since + ms:
        raise Refused(f"courtesy_notice: the hold has lasted {(ev.t - g.hold_since) / 1000:.1f} s, "
                      f"under {ms / 1000:.0f} s", "too_early")
    g.courtesy_given = True


def _on_courtesy_draw(g: _Game, ev: CourtesyDraw) -> None:
    lp = g.last_play
    if not g.courtesy_given or lp is None or g.hold_by is None:
        raise Refused("courtesy_draw: replacement tiles may be drawn only after the courtesy minute of a hold",
                      "too_early")
    if lp.player != ev.player or lp.kept_apart or lp.drawn:
        raise Refused(f"courtesy_draw: {g.name(ev.player)} has no replacement tiles to draw", "nothing_to_draw")
    n = min(lp.to_draw, g.bag)
    g.bag -= n
    g.last_play = replace(lp, kept_apart=n)


def _on_challenge(g: _Game, ev: Challenge) -> None:
    if g.preset.challenge.rule == "void":
        raise Refused("no challenges under VOID: the lexicon checks every play", "no_challenges")
    if g.neutralised:
        raise Refused(f"challenge: the clock is neutralised ({g.neutralised}); resume it first", "neutralised")
    _window_open_for(g, ev, ev.player)
    if g.hold_by is not None and g.hold_by != ev.player:
        raise Refused(f"challenge: {g.name(g.hold_by)} holds the play", "wrong_player")
    lp = g.last_play
    assert lp is not None
    formed = tuple(w.upper() for w in lp.words)
    words = tuple(w.upper() for w in ev.words) or formed
    missing = [w for w in words if w not in formed]
    if missing:
        raise Refused(f"challenge: {', '.join(missing)} was not formed by the last play ({', '.join(formed)})",
                      "not_formed")
    g.challenge_by = ev.player
    g.challenge_words = words
    g.challenge_return = g.phase
    g.phase = CHALLENGED
    g.clock.stop(ev.t)


def _on_challenge_withdrawn(g: _Game, ev: ChallengeWithdrawn) -> None:
    if g.challenge_by != ev.player:
        raise Refused(f"challenge_withdrawn: {g.name(ev.player)} has no challenge open", "wrong_player")
    g.challenge_by = None
    g.ruling = "challenge withdrawn"
    if g.challenge_return == OUTPLAY:
        _end_outplay(g, ev.t)
        return
    g.phase = PLAYING
    _close_window(g)
    assert g.on_move is not None
    g.clock.start(g.on_move, ev.t, new_turn=False)


def _on_challenge_ruled(g: _Game, ev: ChallengeRuled) -> None:
    lp = g.last_play
    assert lp is not None
    ch = g.preset.challenge
    challenger = g.challenge_by
    void = challenger is None
    if ev.acceptable and lp.off_centre_first and ch.off_centre_challengeable and not void:
        raise Refused("challenge_ruled: a first play missing the centre comes off when challenged, whatever its "
                      "words (seed 002 I.E)", "off_centre")
    p = lp.player
    names_words = ch.ruling_names_words or void
    if ev.acceptable:
        g.ruling = "acceptable"
        g.challenge_by = None
        if not void:
            bonus = ch.wrong_bonus * (len(g.challenge_words) if ch.wrong_bonus_per_word else 1)
            if bonus:
                g.record("challenge_bonus", p, bonus)
                g.last_play = replace(lp, bonus=bonus)
            if ch.wrong_penalty:
                g.record("challenge_penalty", challenger, -ch.wrong_penalty)  # type: ignore[arg-type]
            if ch.wrong_loses_game:
                _finish(g, ev.t, "challenge_loses", _unknown_racks(g), None, forfeit=challenger)
                return
        if lp.outplay:
            _end_outplay(g, ev.t)
            return
        g.phase = PLAYING
        _close_window(g)
        if void:
            _next_turn(g, p, ev.t)
            return
        assert challenger is not None
        if ch.wrong_loses_turn:
            if challenger == g.on_move:
                g.record("lost_turn", challenger, 0, note="failed challenge")
                g.scoreless += 1
                _next_turn(g, challenger, ev.t)
            else:
                g.skip_next[challenger] = True
            return
        assert g.on_move is not None
        g.clock.start(g.on_move, ev.t, new_turn=False)
        return
    # unacceptable: the play comes off
    g.ruling = "unacceptable" + (f": {', '.join(ev.invalid)}" if names_words and ev.invalid else "")
    squares = tuple(sq for sq, _ in lp.tiles)
    g.board.remove(list(squares))
    g.racks[p] += len(lp.tiles)
    if lp.kept_apart:  # courtesy tiles go back to the bag (seed 002 II.L.3)
        g.bag += lp.kept_apart
    if lp.drawn:
        g.bag += lp.drawn
        g.racks[p] -= lp.drawn
    if lp.game_word_bonus:
        g.game_word_available = True
    g.last_play = replace(lp, withdrawn=True, kept_apart=0, drawn=0)
    g.window_open = False
    g.window_until = None
    g.hold_by = None
    g.hold_since = None
    g.courtesy_given = False
    g.challenge_by = None
    if void:  # refused before it stood: it never enters the history
        g.scores[p] -= lp.score
        g.history.pop()
        g.scoreless = g.scoreless_saved
        g.on_move = p
    else:
        g.record("withdrawn", p, -lp.score, play=g.last_play)
        g.scoreless = g.scoreless_saved + 1
        if ch.phony_penalty:
            g.record("phony_penalty", p, -ch.phony_penalty)
        if ch.phony_loses_game:
            _finish(g, ev.t, "phony_loses", _unknown_racks(g), None, forfeit=p)
            return
        g.on_move = g.nxt(p)
        if lp.outplay:
            g.turn += 1
    g.removing = squares
    g.phase = REMOVING
    g.clock.stop(ev.t)


def _unknown_racks(g: _Game) -> tuple[str, ...]:
    return ("",) * g.n


def _on_tiles_removed(g: _Game, ev: TilesRemoved) -> None:
    g.removing = ()
    g.phase = PLAYING
    assert g.on_move is not None
    g.clock.start(g.on_move, ev.t, new_turn=g.last_play is None or g.last_play.player != g.on_move)
    if _scoreless_end(g):
        _end_without_out(g, ev.t, "six_scoreless")


def _on_outplay_accepted(g: _Game, ev: OutplayAccepted) -> None:
    lp = g.last_play
    assert lp is not None
    if ev.player == lp.player:
        raise Refused("outplay_accepted: the player who went out cannot accept his own play", "wrong_player")
    if g.hold_by is not None and g.hold_by != ev.player:
        raise Refused(f"outplay_accepted: {g.name(g.hold_by)} holds the play", "wrong_player")
    _end_outplay(g, ev.t)


def _why_not_window_closed(g: _Game, ev: WindowClosed) -> None:
    raise Refused("window_closed: no timed window is open", "no_window")


def _on_window_closed(g: _Game, ev: WindowClosed) -> None:
    if not g.window_open or g.hold_by is not None or g.window_until is None:
        _why_not_window_closed(g, ev)
    if ev.t < g.window_until:
        raise Refused(f"window_closed: the window is open until {g.window_until} ms", "too_early")
    if g.phase == OUTPLAY:
        _end_outplay(g, ev.t)
    else:
        _close_window(g)


def _on_time_warning(g: _Game, ev: TimeWarning) -> None:
    key = f"turn{g.turn}:{ev.remaining_ms}" if ev.kind == "turn" else f"session:{ev.remaining_ms}"
    if ev.kind not in ("turn", "session"):
        raise Refused(f"time_warning: kind must be 'turn' or 'session', not '{ev.kind}'", "bad_event")
    if key in g.warnings:
        raise Refused(f"time_warning: {key} already given", "already_given")
    g.warnings = (*g.warnings, key)
    g.notes.append(f"{ev.t}: {ev.kind} warning, {ev.remaining_ms // 1000} s left")


def _on_turn_time_expired(g: _Game, ev: TurnTimeExpired) -> None:
    lim = g.preset.clock.turn_limit_ms
    key = f"turn{g.turn}:expired"
    if lim is None or g.on_move != ev.player or key in g.warnings:
        raise Refused("turn_time_expired: no per-turn limit running for this player", "no_limit")
    if g.clock.running != ev.player or g.clock.turn_used_at(ev.t) < lim:
        raise Refused(f"turn_time_expired: {g.name(ev.player)} has not used {lim // 1000} s yet", "too_early")
    g.warnings = (*g.warnings, key)
    if g.preset.clock.turn_limit_action == "lose_turn":
        _close_window(g)
        g.record("lost_turn", ev.player, 0, note="turn time limit")
        g.scoreless += 1
        g.last_play = None
        _next_turn(g, ev.player, ev.t)
    else:
        g.notes.append(f"{ev.t}: {g.name(ev.player)} is over the turn limit")


def _on_overtime_started(g: _Game, ev: OvertimeStarted) -> None:
    rem = g.clock.remaining(ev.player, ev.t)
    if rem is None or rem > 0 or g.overtime_notified[ev.player]:
        raise Refused(f"overtime_started: {g.name(ev.player)} is not (newly) out of time", "not_overtime")
    g.overtime_notified[ev.player] = True
    g.notes.append(f"{ev.t}: {g.name(ev.player)} is in overtime")


def _on_overtime_cap(g: _Game, ev: OvertimeCapExceeded) -> None:
    cap = g.preset.clock.overtime_cap_ms
    rem = g.clock.remaining(ev.player, ev.t)
    if cap is None or rem is None or -rem <= cap:
        raise Refused(f"overtime_cap_exceeded: {g.name(ev.player)} is not past the overtime cap", "not_overtime")
    g.clock.advance(ev.t)
    _finish(g, ev.t, "overtime_cap", _unknown_racks(g), None, forfeit=ev.player)


def _session_due(g: _Game, ev: SessionTimeUp) -> None:
    lim = g.preset.clock.session_limit_ms
    if lim is None or ev.t < g.started_t + g.downtime + lim:
        raise Refused("session_time_up: the session time is not up", "too_early")


def _why_not_session_time_up(g: _Game, ev: SessionTimeUp) -> None:
    _session_due(g, ev)
    if g.phase == RACK_ENTRY:
        raise Refused("session_time_up: the game has ended already", "wrong_phase")
    _why_not_end(g)


def _why_not_end(g: _Game) -> None:
    """The game cannot be ended in the middle of a blank designation or a challenge."""
    raise Refused(f"finish the {g.phase} step before ending the game", "wrong_phase")


def _on_session_time_up(g: _Game, ev: SessionTimeUp) -> None:
    _session_due(g, ev)
    _end_called(g, ev.t, "time_limit")


def _end_called(g: _Game, t: int, reason: str) -> None:
    if g.phase == OUTPLAY:
        _end_outplay(g, t)
        return
    if g.phase == REMOVING:
        g.removing = ()
    _end_without_out(g, t, reason)


def _why_not_game_called(g: _Game, ev: GameCalled) -> None:
    if g.phase == RACK_ENTRY:
        raise Refused("game_called: the game has ended already; enter the racks", "wrong_phase")
    _game_call_reason(ev)
    _why_not_end(g)


def _game_call_reason(ev: GameCalled) -> None:
    if not ev.reason.strip():
        raise Refused("game_called: give a reason (e.g. 'no plays possible', 'time called')", "no_reason")


def _on_game_called(g: _Game, ev: GameCalled) -> None:
    _game_call_reason(ev)
    _end_called(g, ev.t, "called")
    g.notes.append(f"{ev.t}: game called: {ev.reason}")


def _on_racks_entered(g: _Game, ev: RacksEntered) -> None:
    racks = tuple(r.upper().replace(" ", "") for r in ev.racks)
    why = endgame.check_racks(racks, g.racks, g.unseen(), g.bag, g.tile_set, g.players)
    if why:
        raise Refused(f"racks_entered: {why}", "bad_racks")
    _finish(g, ev.t, g.end_reason, racks, g.went_out)


def _on_clock_neutralised(g: _Game, ev: ClockNeutralised) -> None:
    if g.neutralised:
        raise Refused(f"clock_neutralised: already neutralised ({g.neutralised})", "neutralised")
    if not ev.reason.strip():
        raise Refused("clock_neutralised: give a reason (judge call, recount ...)", "no_reason")
    g.neutralised = ev.reason
    g.clock.stop(ev.t)


def _on_clock_resumed(g: _Game, ev: ClockResumed) -> None:
    if not g.neutralised:
        raise Refused("clock_resumed: the clock is not neutralised", "not_neutralised")
    g.neutralised = ""
    assert g.on_move is not None
    g.clock.start(g.on_move, ev.t, new_turn=False)


def _on_judge_adjustment(g: _Game, ev: JudgeAdjustment) -> None:
    if not ev.reason.strip():
        raise Refused("judge_adjustment: give a reason", "no_reason")
    if ev.points == 0:
        raise Refused("judge_adjustment: 0 points changes nothing", "no_points")
    g.record("judge", ev.player, ev.points, note=ev.reason)


def _begins_turn(before: _Game, ev: Event) -> bool:
    """True when ``ev`` (accepted on ``before``) starts a new turn: a clock press, or a play, pass or exchange
    that no press announced (a corrected reading of a play waiting for its blanks is the same turn)."""
    if isinstance(ev, ClockPressed):
        return True
    return isinstance(ev, Play | Pass | Exchange) and before.pressed_at is None and before.phase == PLAYING


def _undo_turn(current: _Game, ev: MoveUndone) -> _Game:
    """The judge takes back the last turn (:class:`MoveUndone`): the game returns to how it stood before that
    turn's first event; the clocks keep the time used so far and the mover's time runs again from ``ev.t``."""
    if not ev.reason.strip():
        raise Refused("move_undone: give a reason", "no_reason")
    if current.turn_start is None:
        raise Refused("move_undone: no turn to take back", "nothing_to_undo")
    g = current.turn_start.copy()
    mover = g.on_move
    clock = current.clock.copy()
    if mover is not None and not g.neutralised:
        clock.start(mover, ev.t, new_turn=False)
    else:
        clock.stop(ev.t)
    clock.turn_used = g.clock.turn_used
    g.clock = clock
    taken = current.history[len(g.history):]
    what = ", ".join(f"{h.kind} by {current.players[h.player]} ({h.points:+d})" for h in taken) or \
        "a clock press not yet scored"
    g.notes = list(current.notes) + [f"{ev.t}: judge took back {what}: {ev.reason.strip()}"]
    g.downtime = current.downtime
    g.overtime_notified = list(current.overtime_notified)
    g.last_t = ev.t
    return g


def _why_not_preset_changed(g: _Game, ev: PresetChanged) -> None:
    raise Refused("preset_changed: the rules can change only before the first move", "game_under_way")


def _on_preset_changed(g: _Game, ev: PresetChanged) -> None:
    if g.history or g.turn_start is not None or g.pressed_at is not None:
        _why_not_preset_changed(g, ev)
    try:
        preset = preset_from_dict(ev.preset)
        preset.scoring_rules()
    except (PresetError, ValueError, TypeError) as exc:
        raise Refused(f"preset_changed: bad preset: {exc}", "bad_preset") from None
    if preset.tile_set != g.tile_set.name:
        raise Refused(f"preset_changed: '{preset.name}' uses the {preset.tile_set} tiles, this game the "
                      f"{g.tile_set.name} tiles: start a new game", "bad_preset")
    if not preset.min_players <= g.n <= preset.max_players:
        raise Refused(f"preset_changed: '{preset.name}' is for {preset.min_players}-{preset.max_players} players",
                      "bad_players")
    fresh = _Game(preset, g.tile_set, g.players, g.started_t)
    fresh.on_move = g.on_move
    fresh.clock = g.clock.copy()  # the time used so far stays; the new rules' game time applies
    fresh.clock.game_ms = preset.clock.game_ms if g.n == 2 else None
    fresh.notes = list(g.notes) + [f"{ev.t}: judge changed the rules to '{preset.name}'"
                                   + (f": {ev.reason.strip()}" if ev.reason.strip() else "")]
    fresh.downtime = g.downtime
    g.__dict__.update(fresh.__dict__)


def _on_kiosk_resumed(g: _Game, ev: KioskResumed) -> None:
    if not g.last_t <= ev.down_since <= ev.t:
        raise Refused(f"kiosk_resumed: down_since {ev.down_since} ms must lie between the last event "
                      f"({g.last_t} ms) and now ({ev.t} ms)", "time_order")
    down = ev.t - ev.down_since
    g.clock.advance(ev.down_since)
    g.clock.skip(ev.t)
    g.downtime += down
    for attr in ("window_until", "hold_since"):
        v = getattr(g, attr)
        if v is not None:
            setattr(g, attr, v + down)
    g.notes.append(f"{ev.t}: kiosk resumed after {down} ms down (charged to nobody)")


_WHY_NOT: dict[type[Event], Callable[[_Game, Any], None]] = {
    BlankDesignated: _why_not_blank_designated, CourtesyNotice: _why_not_courtesy_notice,
    WindowClosed: _why_not_window_closed, SessionTimeUp: _why_not_session_time_up, GameCalled: _why_not_game_called,
    PresetChanged: _why_not_preset_changed,
}

_HANDLERS = {
    ClockPressed: _on_clock_pressed, Play: _on_play, BlankDesignated: _on_blank_designated, Pass: _on_pass, Exchange: _on_exchange, Drew: _on_drew,
    Hold: _on_hold, HoldReleased: _on_hold_released, CourtesyNotice: _on_courtesy_notice,
    CourtesyDraw: _on_courtesy_draw, Challenge: _on_challenge, ChallengeRuled: _on_challenge_ruled,
    ChallengeWithdrawn: _on_challenge_withdrawn, TilesRemoved: _on_tiles_removed,
    OutplayAccepted: _on_outplay_accepted, WindowClosed: _on_window_closed, TimeWarning: _on_time_warning,
    TurnTimeExpired: _on_turn_time_expired, OvertimeStarted: _on_overtime_started,
    OvertimeCapExceeded: _on_overtime_cap, SessionTimeUp: _on_session_time_up, GameCalled: _on_game_called,
    RacksEntered: _on_racks_entered, ClockNeutralised: _on_clock_neutralised, ClockResumed: _on_clock_resumed,
    JudgeAdjustment: _on_judge_adjustment, KioskResumed: _on_kiosk_resumed, PresetChanged: _on_preset_changed,
}


def _result_text(g: _Game) -> str:
    r = g.result
    assert r is not None
    parts = [f"{g.name(i)} {r.final[i]}" for i in range(g.n)]
    winners = [g.name(i) for i in range(g.n) if r.wins[i] == 1.0]
    tail = f"{winners[0]} wins" if winners else "tie"
    return f"game over ({r.reason}): {', '.join(parts)} - {tail}"
