"""A GCG record as the referee events a real table would have produced: the one conversion of a record into
``list[Event]``, for the stream's recorded games, demos and tests.

:class:`RefereeEvents` is a :class:`~kiosk.rules.gcg.GcgVisitor`: it drives a real
:class:`~kiosk.referee.Referee` through the record, so the events it returns are exactly ones the referee
accepts: plays (blanks placed as ``"?"`` then designated), passes, exchanges, challenges ruled either way with
the phony taken off, out-plays accepted, racks entered after a scoreless end. Scores are the referee's own
(under the chosen preset); time penalties in the record are skipped (the referee charges time from its own
clock). A record the referee cannot follow raises :class:`RecordEventsError` naming the file, the line and
the referee's reason. :func:`events_from_gcg` reads a file (or takes a parsed game) and returns the events.

How a record's lines read at the table (GCG spec v1.2, ``docs/gcg.md``): a play's word is resolved against the
referee's board (:meth:`Placement.from_word <kiosk.rules.placement.Placement.from_word>`), so letters over tiles
already there are played through whether the record puts them in parentheses or, as old Quackle files do, not;
a word that does not fit the board goes to the referee as written, which refuses it with its reason. A
withdrawn-phony line (``--``) is
the play before it challenged and ruled unacceptable, a challenge-bonus line (``(challenge)``) the play
challenged and ruled acceptable (:data:`CHALLENGE_LINES`); the opponent's line after an out-play (a pass or
the end-rack line) is the out-play accepted; negative end-rack lines after a scoreless end are the racks left.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from kiosk.referee.events import (
    BlankDesignated,
    Challenge,
    ChallengeRuled,
    Event,
    Exchange,
    GameStarted,
    JudgeAdjustment,
    OutplayAccepted,
    Pass,
    Play,
    RacksEntered,
    TilesRemoved,
)
from kiosk.referee.presets import Preset, PresetError, load_preset
from kiosk.referee.referee import Referee
from kiosk.referee.state import OUTPLAY, OVER, PLAYING, RACK_ENTRY
from kiosk.rules.gcg import EventKind, GcgError, GcgEvent, GcgGame, GcgVisitor, Walk, read_gcg
from kiosk.rules.placement import Placement, WordError, WordFault
from kiosk.rules.racks import split_racks

CHALLENGE_LINES: dict[EventKind, bool] = {EventKind.WITHDRAWN: False, EventKind.CHALLENGE_BONUS: True}
"""Record lines that answer a challenge of the play before them -> whether the play stood (ruled acceptable)."""


class RecordEventsError(ValueError):
    """The record cannot be turned into referee events (``file:line: reason``)."""


class RefereeEvents(GcgVisitor[list[Event]]):
    """The referee events of one record (see module doc): ``game.accept(RefereeEvents("naspa"))``.

    Args:
        preset: rule preset the referee applies (bundled name, .toml path or a :class:`Preset`).
        step_ms: time between turns (ms; each player's clock is charged that much per turn), at least 5000.
        start_ms: time of ``game_started`` (ms).

    Raises (from the walk):
        RecordEventsError: record errors, not 2-4 players, an unknown preset, or a move the referee refuses.
    """

    def __init__(self, preset: str | Preset = "naspa", *, step_ms: int = 15_000, start_ms: int = 1_000) -> None:
        self.preset_spec = preset
        self.step = step_ms
        self.t = start_ms
        self.ref = Referee()
        self.events: list[Event] = []
        self.lines: list[int] = []  # the record line each event acts out (0: the start and the end of the game)
        self.name = "<gcg>"
        self.game = GcgGame()
        self.players: tuple[str, ...] = ()
        self.racks: dict[int, str] = {}
        self.held: GcgEvent | None = None  # the line seen but not yet acted: its next line decides how
        self.over = False

    # -- the walk
    def begin_game(self, game: GcgGame) -> None:
        self.game, self.name = game, game.name or "<gcg>"
        if game.errors:
            raise RecordEventsError(f"the record has errors; first: {game.errors[0]}")
        if not 2 <= len(game.players) <= 4:
            raise RecordEventsError(f"{game.name}: {len(game.players)} players in the record (2-4 needed)")
        if self.step < 5_000:
            raise RecordEventsError(f"step_ms {self.step}: at least 5000 ms between turns (challenges need room)")
        try:
            preset = load_preset(self.preset_spec) if isinstance(self.preset_spec, str) else self.preset_spec
        except PresetError as exc:
            raise RecordEventsError(f"{self.name}: {exc}") from None
        players = tuple(p.name.strip() or p.nick for p in game.players)
        if len(set(players)) != len(players):
            players = tuple(p.nick for p in game.players)
        self.players = players
        game_id = (game.pragmas.get("id") or [Path(self.name).stem])[-1].replace(" ", "_")[:64]
        self.go(GameStarted(t=self.t, preset=preset.to_dict(), players=players, game_id=game_id), 0)

    def visit_event(self, event: GcgEvent) -> Walk | None:
        held, self.held = self.held, event
        if held is not None:
            self.act(held, event.kind)
        # after the end only a judge's (adjust) lines still act: read on while one may follow
        return Walk.STOP if self.over and event.kind is not EventKind.ADJUSTMENT and not self._adjust_after(event) \
            else None

    def _adjust_after(self, event: GcgEvent) -> bool:
        """True when an (adjust) line follows ``event`` in the record."""
        at = next((i for i, e in enumerate(self.game.events) if e is event), len(self.game.events))
        return any(e.kind is EventKind.ADJUSTMENT for e in self.game.events[at + 1:])

    def end_game(self) -> None:
        if self.held is not None and (not self.over or self.held.kind is EventKind.ADJUSTMENT):
            self.act(self.held, None)
        self.finish()

    def result(self) -> list[Event]:
        return self.events

    # -- acting a line out
    def go(self, ev: Event, line: int) -> None:
        res = self.ref.apply(ev)
        if not res.accepted:
            raise RecordEventsError(f"{self.name}:{line}: the referee refuses {ev.type}: {res.reason}")
        self.events.append(ev)
        self.lines.append(line)

    def by_line(self) -> dict[int, tuple[Event, ...]]:
        """The events each record line became (after the walk), keyed by line number; lines that became no
        event (time penalties, the lines after the game ended) are absent."""
        out: dict[int, list[Event]] = {}
        for line, ev in zip(self.lines, self.events):
            if line:
                out.setdefault(line, []).append(ev)
        return {line: tuple(evs) for line, evs in out.items()}

    def later(self, ms: int | None = None) -> int:
        self.t = max(self.t, self.ref.state.last_t) + (self.step if ms is None else ms)
        return self.t

    def challenge(self, line: int, acceptable: bool) -> None:
        st = self.ref.state
        lp = st.last_play
        if lp is None:
            raise RecordEventsError(f"{self.name}:{line}: a challenge with no play before it")
        opp = (lp.player + 1) % len(st.players)
        self.go(Challenge(t=self.later(1_000), player=opp), line)
        self.go(ChallengeRuled(t=self.later(3_000), acceptable=acceptable, judge="demo"), line)
        if not acceptable:
            self.go(TilesRemoved(t=self.later(2_000)), line)

    def act(self, ev: GcgEvent, nxt: EventKind | None) -> None:
        """The referee events of one record line; ``nxt``: the kind of the line after it (None: the last)."""
        st = self.ref.state
        seats = [i for i, pl in enumerate(self.game.players) if pl.nick == ev.nick]
        if not seats:
            raise RecordEventsError(f"{self.name}:{ev.line}: unknown player '{ev.nick}'")
        p = st.on_move if st.on_move in seats else seats[0]  # one nick for two players: by turn order
        if ev.kind is EventKind.ADJUSTMENT:  # a judge's adjustment, also after the end (seed 002 III.E/F)
            self.go(JudgeAdjustment(t=self.later(1_000), player=p, points=ev.score,
                                    reason=(ev.notes[0] if ev.notes else "") or "adjustment in the record"), ev.line)
            return
        if st.phase == OVER:
            self.over = True
            return
        if ev.kind is EventKind.PLAY:
            assert ev.coordinate is not None
            try:
                placement = Placement.from_word(st.board, ev.coordinate, ev.word, through=ev.through)
            except WordError as exc:
                if exc.code is WordFault.OFF_BOARD:
                    raise RecordEventsError(f"{self.name}:{ev.line}: {exc}") from None
                # the word does not fit the board: the record's notation alone, and the referee names the fault
                placement = Placement.from_word(None, ev.coordinate, ev.word, through=ev.through)
            self.go(Play(t=self.later(), player=p, tiles=placement.undesignated), ev.line)
            for sq, letter in placement.blanks:
                self.go(BlankDesignated(t=self.later(2_000), player=p, square=sq, letter=letter), ev.line)
            if self.ref.state.phase == OUTPLAY and nxt not in CHALLENGE_LINES:
                self.accept_outplay(ev.line)
        elif ev.kind is EventKind.CHALLENGE_BONUS and ev.score < 0 and st.last_play is not None \
                and st.last_play.withdrawn and st.last_play.player == p:
            pass  # the phony's penalty: the referee deducted it when the play came off (docs/gcg_export.md)
        elif ev.kind in CHALLENGE_LINES:
            self.challenge(ev.line, acceptable=CHALLENGE_LINES[ev.kind])

        elif ev.kind is EventKind.PASS:
            self.go(Pass(t=self.later(), player=p), ev.line)
        elif ev.kind is EventKind.EXCHANGE:
            self.go(Exchange(t=self.later(), player=p, count=ev.count or len(ev.tiles)), ev.line)
        elif ev.kind is EventKind.END_RACK:
            if st.phase == OUTPLAY:
                self.accept_outplay(ev.line)
            elif st.phase == RACK_ENTRY and not (st.last_play is not None and st.last_play.outplay
                                                 and st.last_play.player == p):
                self.racks[p] = ev.tiles  # an own-rack line (the out player's line lists the others' tiles)
        # TIME_PENALTY: skipped (the kiosk's own clock decides time penalties)

    def accept_outplay(self, line: int) -> None:
        """Every opponent accepts the open out-play in turn (seeds 003/004: the game ends once all have;
        one with two players). ``line``: the record line that implies it (0: the record's end)."""
        while self.ref.state.phase == OUTPLAY and self.ref.state.outplay_waiting_for:
            self.go(OutplayAccepted(t=self.later(1_000), player=self.ref.state.outplay_waiting_for[0]), line)

    def finish(self) -> None:
        st = self.ref.state
        if st.phase == OUTPLAY:
            self.accept_outplay(0)
        elif st.phase == RACK_ENTRY:
            known = {**self.game.racks, **self.racks}
            entered = tuple(known.get(i, "") for i in range(len(st.players)))
            if any(len(r) != n for r, n in zip(entered, st.racks)):
                entered = split_racks(Counter(dict(st.unseen)), st.racks)
            self.go(RacksEntered(t=self.later(), racks=entered), 0)
        elif st.phase not in (PLAYING, OVER):
            raise RecordEventsError(f"{self.name}: the record ends in the middle of a turn ({st.phase})")


def tiles_laid(events: Sequence[Event]) -> tuple[tuple[int, str], ...]:
    """The tiles a line's events put on the table: its :class:`Play`'s tiles with each blank as the lower-case
    letter its :class:`BlankDesignated` names (``(square, tile)``, as a board holds them)."""
    letters = {e.square: e.letter.lower() for e in events if isinstance(e, BlankDesignated)}
    return tuple((sq, letters.get(sq, t) if t == "?" else t) for e in events if isinstance(e, Play) for sq, t in e.tiles)


def events_from_gcg(source: str | Path | GcgGame, preset: str | Preset = "naspa", *, step_ms: int = 15_000,
                    start_ms: int = 1_000) -> list[Event]:
    """The referee events of a recorded game (:class:`RefereeEvents` over the record).

    Args:
        source: a GCG file path or a parsed :class:`GcgGame`.
        preset: rule preset the referee applies (bundled name, .toml path or a :class:`Preset`; default "naspa").
        step_ms: time between turns (ms; each player's clock is charged that much per turn).
        start_ms: time of ``game_started`` (ms).

    Raises:
        RecordEventsError: unreadable record, record errors, or a move the referee refuses (file:line: reason).
    """
    visitor = RefereeEvents(preset, step_ms=step_ms, start_ms=start_ms)
    if isinstance(source, GcgGame):
        return source.accept(visitor)
    try:
        return read_gcg(source, visitor)
    except GcgError as exc:
        raise RecordEventsError(str(exc)) from None
