"""A GCG record as the referee events a real table would have produced: the one conversion of a record into
``list[Event]``, for the stream's recorded games, demos and tests.

:class:`RefereeEvents` is a :class:`~kiosk.rules.gcg.GcgVisitor`: it drives a real
:class:`~kiosk.referee.Referee` through the record, so the events it returns are exactly ones the referee
accepts: plays (blanks placed as ``"?"`` then designated), passes, exchanges, challenges ruled either way with
the phony taken off, out-plays accepted, racks entered after a scoreless end. Scores are the referee's own
(under the chosen preset); a player's time penalty in the record is acted out as the overtime that costs it: his last
turn takes that long, as the demo's players think that long (:func:`~kiosk.referee.clock.overtime_for_penalty`),
so the referee's own clock charges it. A record the referee cannot follow raises :class:`RecordEventsError`
naming the file, the line and the referee's reason; a score beyond :data:`~kiosk.rules.gcg.MAX_POINTS` either
way is refused the same way. :func:`events_from_gcg` reads a file (or takes a parsed game) and returns the events; with
``check_scores`` it also compares the referee's scores with the record's, line by line
(:mod:`kiosk.referee.record_scores`), and raises :class:`RecordScoresError` when they differ.

How a record's lines read at the table (GCG spec v1.2, ``docs/gcg.md``): a play's word is resolved against the
referee's board (:meth:`Placement.from_word <kiosk.rules.placement.Placement.from_word>`), so letters over tiles
already there are played through whether the record puts them in parentheses or, as old Quackle files do, not;
a word that does not fit the board goes to the referee as written, which refuses it with its reason. A
withdrawn-phony line (``--``) is
the play before it challenged and ruled unacceptable, a challenge-bonus line (``(challenge)``) the play
challenged and ruled acceptable (:data:`CHALLENGE_LINES`); the opponent's line after an out-play (a pass or
the end-rack line) is the out-play accepted; negative end-rack lines after a scoreless end are the racks left.
A challenge is the next player's, but a failed challenge's penalty line (``>Cy: (challenge) -10``) names the
challenger who pays (with 3-4 players not always the next player). Under a VOID preset (``casual``: the lexicon
refuses a phony before it stands) every play is ruled at once: it stands unless the record's next line withdraws
it (``--``), and a refused play's two lines are not compared with the scoresheet it never entered.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from kiosk.referee.clock import overtime_for_penalty
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
from kiosk.referee.game_id import record_game_id
from kiosk.referee.presets import Preset, PresetError, load_preset
from kiosk.referee.record_scores import score_mismatches
from kiosk.referee.referee import Referee
from kiosk.referee.state import CHALLENGED, OUTPLAY, OVER, PLAYING, RACK_ENTRY
from kiosk.rules.counts import counted
from kiosk.rules.gcg import MAX_POINTS, EventKind, GcgError, GcgEvent, GcgGame, GcgVisitor, Walk, read_gcg
from kiosk.rules.names import clash
from kiosk.rules.placement import Placement, WordError, WordFault
from kiosk.rules.racks import split_racks
from kiosk.rules.replay import ReplayProblem, guess_tile_set, record_letters
from kiosk.rules.tiles import TileSetError, load_tile_set

CHALLENGE_LINES: dict[EventKind, bool] = {EventKind.WITHDRAWN: False, EventKind.CHALLENGE_BONUS: True}
"""Record lines that answer a challenge of the play before them -> whether the play stood (ruled acceptable)."""


EVENT_WORDS = {"game_started": "the start of the game", "blank_designated": "the blank's letter",
               "challenge_ruled": "the challenge's ruling", "tiles_removed": "the phony's removal",
               "outplay_accepted": "the out-play's acceptance", "racks_entered": "the racks left",
               "judge_adjustment": "the judge's adjustment"}
"""Referee event types in words (the others, play, pass, exchange, challenge, are words already)."""


class RecordEventsError(ValueError):
    """The record cannot be turned into referee events (``file:line: reason``)."""


class RecordScoresError(RecordEventsError):
    """The referee's scores for the record differ from the record's. ``mismatches``: every line that differs
    (:class:`~kiosk.rules.replay.ReplayProblem`, kind "mismatch"), the first one named in the message."""

    def __init__(self, mismatches: Sequence[ReplayProblem], preset: str) -> None:
        first = mismatches[0]
        where = f"{first.file}:{first.line}" if first.line else first.file
        others = len(mismatches) - 1
        more = f"; {counted(others, 'more line')} {'differs' if others == 1 else 'differ'}" if others else ""
        super().__init__(f"{where}: {first.message}: the record has {first.recorded}, the kiosk counts "
                         f"{first.computed} under preset {preset}{more}")
        self.mismatches = list(mismatches)
        self.preset = preset


class RefereeEvents(GcgVisitor[list[Event]]):
    """The referee events of one record (see module doc): ``game.accept(RefereeEvents("naspa"))``.

    Args:
        preset: rule preset the referee applies (bundled name, .toml path or a :class:`Preset`).
        step_ms: time between turns (ms; each player's clock is charged that much per turn), at least 5000.
        start_ms: time of ``game_started`` (ms).
        game_id: the game's id (default: :func:`~kiosk.referee.game_id.record_game_id`, the one rule: the
            record's ``#id``, else its players' nicks and a hash of its moves, as ``kiosk stream-game``).
        charge_time: act the record's time penalties out as overtime (default True).

    Raises (from the walk):
        RecordEventsError: record errors, not 2-4 players, an unknown preset, a score beyond
        :data:`MAX_POINTS`, or a move the referee refuses.
    """

    def __init__(self, preset: str | Preset = "naspa", *, step_ms: int = 15_000, start_ms: int = 1_000,
                 game_id: str | None = None, charge_time: bool = True) -> None:
        self.preset_spec = preset
        self.preset: Preset | None = None
        self.step = step_ms
        self.start = self.t = start_ms
        self.game_id = game_id
        self.charge_time = charge_time
        self.overtime: dict[int, int] = {}  # record line of a player's last turn -> his recorded time penalty
        self.ref = Referee()
        self.events: list[Event] = []
        self.lines: list[int] = []  # the record line each event acts out (0: the start and the end of the game)
        self.history_at: list[int] = []  # the referee's scoresheet length after each event
        self.name = "<gcg>"
        self.game = GcgGame()
        self.players: tuple[str, ...] = ()
        self.racks: dict[int, str] = {}
        self.held: GcgEvent | None = None  # the line seen but not yet acted: its next line decides how
        self.next_line = 0  # the line after the one being acted (0: none yet)
        self.over = False

    # -- the walk
    def begin_game(self, game: GcgGame) -> None:
        self.game, self.name = game, game.name or "<gcg>"
        if game.errors:
            raise RecordEventsError(f"the record has errors; first: {game.errors[0]}")
        if not 2 <= len(game.players) <= 4:
            raise RecordEventsError(f"{game.name}: {counted(len(game.players), 'player')} in the record (a game "
                                    "has 2 to 4)")
        if self.step < 5_000:
            raise RecordEventsError(f"step_ms {self.step}: at least 5000 ms between turns (challenges need room)")
        try:
            preset = load_preset(self.preset_spec) if isinstance(self.preset_spec, str) else self.preset_spec
        except PresetError as exc:
            raise RecordEventsError(f"{self.name}: {exc}") from None
        n = len(game.players)
        if not preset.min_players <= n <= preset.max_players:
            size = f"{preset.min_players} to {preset.max_players}" if preset.min_players < preset.max_players \
                else f"{preset.min_players}"
            raise RecordEventsError(f"{self.name}: the record has {counted(n, 'player')} and preset {preset.name} "
                                    f"is for {size}: give a preset for {counted(n, 'player')}")
        self.preset = preset
        _check_numbers(game, self.name)
        _check_tile_set(game, self.name, preset)
        players = tuple(p.name.strip() or p.nick for p in game.players)
        if clash(players) is not None:   # (names a scoresheet cannot tell apart: the kiosk's one rule)
            players = tuple(p.nick for p in game.players)
        if (same := clash(players)) is not None:   # GCG engines take such a record by turn order; a referee cannot
            i, j, how = same
            raise RecordEventsError(f"{self.name}: #player{i + 1} and #player{j + 1} {how}: the referee needs each "
                                    "player under a nickname of his own (write another in one of those lines)")
        self.players = players
        if self.charge_time:
            self.overtime = _last_turn_penalties(game, preset, self.step, self.start)
        game_id = self.game_id or record_game_id(game)
        self.go(GameStarted(t=self.t, preset=preset.to_dict(), players=players, game_id=game_id), 0)

    def visit_event(self, event: GcgEvent) -> Walk | None:
        held, self.held = self.held, event
        self.next_line = event.line
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
        if not res.accepted:   # line 0: the start or the end of the game, no line of its own
            where = f"{self.name}:{line}" if line else self.name
            raise RecordEventsError(f"{where}: the referee refuses {EVENT_WORDS.get(ev.type, ev.type)}: {res.reason}")
        self.events.append(ev)
        self.lines.append(line)
        self.history_at.append(len(self.ref.state.history))

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

    def turn(self, p: int, line: int) -> int:
        """The time of player ``p``'s turn on record line ``line``: the usual step, or on his last turn, when
        the record charges him overtime, as long as his clock needs to cost him that penalty."""
        pen, preset = self.overtime.get(line, 0), self.preset
        if not pen or preset is None:
            return self.later()
        base = max(self.t, self.ref.state.last_t)
        rem = self.ref.clock_remaining(p, base)
        want = overtime_for_penalty(pen, preset.clock.overtime_penalty_points, preset.clock.overtime_unit_ms)
        return self.later(self.step if rem is None or not want else max(self.step, rem + want))

    def entry_lines(self) -> list[int]:
        """The record line each entry of the referee's scoresheet came from (0: the start or the end)."""
        out: list[int] = []
        for line, upto in zip(self.lines, self.history_at):
            del out[upto:]   # a play refused under VOID leaves the scoresheet
            out.extend([line] * (upto - len(out)))
        return out

    def check_scores(self) -> None:
        """After the walk: raise :class:`RecordScoresError` when the referee's scores differ from the record's
        (a move's score, a bonus or penalty, a running total, a final score; :mod:`kiosk.referee.record_scores`)."""
        game = replace(self.game, events=self.scored_lines(self.game.events))
        found = score_mismatches(game, self.ref.state.history, self.entry_lines())
        if found:
            raise RecordScoresError(found, self.preset.name if self.preset is not None else str(self.preset_spec))

    def scored_lines(self, events: Sequence[GcgEvent]) -> list[GcgEvent]:
        """The record lines the referee's scoresheet answers: all of ``events`` but, under a VOID preset, a phony's
        play line and its withdrawn (``--``) line (refused at once, the play never enters the scoresheet)."""
        if self.preset is None or self.preset.challenge.rule != "void":
            return list(events)
        gone = {i for i, e in enumerate(events) if e.kind is EventKind.WITHDRAWN}
        return [e for i, e in enumerate(events) if i not in gone and i + 1 not in gone]

    def challenge(self, line: int, acceptable: bool, by: int | None = None) -> None:
        """The challenge a record line answers (``line``), ruled as the line says; ``by``: the challenger (default:
        the player after the one who played). Raises :class:`RecordEventsError` with no play before it."""
        st = self.ref.state
        lp = st.last_play
        if lp is None:
            raise RecordEventsError(f"{self.name}:{line}: a challenge with no play before it")
        opp = (lp.player + 1) % len(st.players) if by is None else by
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
        lp = st.last_play
        if ev.kind is EventKind.PLAY:
            self.play(ev, p, nxt)
        elif ev.kind is EventKind.CHALLENGE_BONUS and ev.score < 0 and lp is not None and lp.withdrawn \
                and lp.player == p:
            pass  # the phony's penalty: the referee deducted it when the play came off (docs/gcg_export.md)
        elif ev.kind is EventKind.WITHDRAWN and self.preset is not None and self.preset.challenge.rule == "void":
            pass  # VOID: the play's ruling took it off already (:meth:`void_ruling`)
        elif ev.kind in CHALLENGE_LINES:
            # a failed challenge's penalty line names the challenger who pays (3-4 players: not always the next)
            by = p if ev.kind is EventKind.CHALLENGE_BONUS and ev.score < 0 and lp is not None \
                and not lp.withdrawn and lp.player != p else None
            self.challenge(ev.line, acceptable=CHALLENGE_LINES[ev.kind], by=by)

        elif ev.kind is EventKind.PASS:
            self.go(Pass(t=self.turn(p, ev.line), player=p), ev.line)
        elif ev.kind is EventKind.EXCHANGE:
            self.go(Exchange(t=self.turn(p, ev.line), player=p, count=ev.count or len(ev.tiles)), ev.line)
        elif ev.kind is EventKind.END_RACK:
            if st.phase == OUTPLAY:
                self.accept_outplay(ev.line)
            elif st.phase == RACK_ENTRY and not (st.last_play is not None and st.last_play.outplay
                                                 and st.last_play.player == p):
                self.racks[p] = ev.tiles  # an own-rack line (the out player's line lists the others' tiles)
        # TIME_PENALTY: acted out before, as the overtime of the player's last turn (:meth:`turn`)

    def play(self, ev: GcgEvent, p: int, nxt: EventKind | None) -> None:
        """Player ``p`` lays record line ``ev``'s play (blanks placed, then named); under a VOID preset it is ruled at
        once (:meth:`void_ruling`); an out-play no challenge line follows is accepted. Raises
        :class:`RecordEventsError` for a play off the board or one the referee refuses."""
        assert ev.coordinate is not None
        st = self.ref.state
        try:
            placement = Placement.from_word(st.board, ev.coordinate, ev.word, through=ev.through)
        except WordError as exc:
            if exc.code is WordFault.OFF_BOARD:
                raise RecordEventsError(f"{self.name}:{ev.line}: {exc}") from None
            # the word does not fit the board: the record's notation alone, and the referee names the fault
            placement = Placement.from_word(None, ev.coordinate, ev.word, through=ev.through)
        self.go(Play(t=self.turn(p, ev.line), player=p, tiles=placement.undesignated), ev.line)
        for sq, letter in placement.blanks:
            self.go(BlankDesignated(t=self.later(2_000), player=p, square=sq, letter=letter), ev.line)
        if self.ref.state.phase == CHALLENGED and self.ref.state.challenge_by is None:
            self.void_ruling(ev.line, nxt)
        if self.ref.state.phase == OUTPLAY and nxt not in CHALLENGE_LINES:
            self.accept_outplay(ev.line)

    def void_ruling(self, line: int, nxt: EventKind | None) -> None:
        """Under a VOID preset every play waits for a ruling before it stands: it stood unless the record's next
        line withdraws it (``--``); then the ruling and the removal are that line's."""
        stood = nxt is not EventKind.WITHDRAWN
        self.go(ChallengeRuled(t=self.later(1_000), acceptable=stood, judge="demo"), line if stood else self.next_line)
        if not stood:
            self.go(TilesRemoved(t=self.later(2_000)), self.next_line)

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


def _check_tile_set(game: GcgGame, name: str, preset: Preset) -> None:
    """Raise RecordEventsError when the record's tiles hold letters the preset's tile set lacks (a German game's
    umlauts under an English preset), naming them and the bundled set that has them, with the way to give it: a
    preset file that extends this one with that tile set. (Without this, the first such play was refused as "not
    a tile of the english set on H8".)"""
    try:
        ours = set(load_tile_set(preset.tile_set).values)
    except TileSetError:
        return   # the referee names a tile set that does not load
    letters = record_letters(game)
    strange = sorted(letters - ours)
    if not strange:
        return
    fits = guess_tile_set(game)
    hint = (f"give a preset of the {fits.name} set: a file holding extends = \"{preset.name}\" and tile_set = "
            f"\"{fits.name}\", given as the preset (FILE.toml)") if not letters - set(fits.values) and \
        fits.name != preset.tile_set else "give a preset whose tile set has them"
    raise RecordEventsError(f"{name}: the record's tiles hold {', '.join(strange)}, which the {preset.tile_set} set "
                            f"of preset {preset.name} does not have: {hint}")


def _check_numbers(game: GcgGame, name: str) -> None:
    """Refuse a record line whose score or total is beyond :data:`~kiosk.rules.gcg.MAX_POINTS` either way
    (RecordEventsError): reading a file refuses it already; this is for a game built in code."""
    for ev in game.events:
        for what, value in (("score", ev.score), ("total", ev.cumulative)):
            if abs(value) > MAX_POINTS:
                raise RecordEventsError(f"{name}:{ev.line}: a {what} of {value} points: no game has such a number "
                                        f"(at most {MAX_POINTS:,} either way); the record is damaged")


def _last_turn_penalties(game: GcgGame, preset: Preset, step_ms: int, start_ms: int) -> dict[int, int]:
    """Record line of each player's last turn -> the time penalty (points) the record charges him; empty
    without time penalty lines. A walk without overtime finds the last turns (the pass that accepts an
    out-play is no turn)."""
    charged: dict[int, int] = {}
    for ev in game.events:
        seats = [i for i, pl in enumerate(game.players) if pl.nick == ev.nick]
        if ev.kind is EventKind.TIME_PENALTY and ev.score < 0 and seats:
            charged[seats[0]] = charged.get(seats[0], 0) - ev.score
    if not charged:
        return {}
    probe = RefereeEvents(preset, step_ms=step_ms, start_ms=start_ms, charge_time=False)
    game.accept(probe)
    last: dict[int, int] = {}
    for e, line in zip(probe.events, probe.lines):
        if isinstance(e, (Play, Pass, Exchange)) and line:
            last[e.player] = line
    return {last[p]: pen for p, pen in charged.items() if p in last}


def tiles_laid(events: Sequence[Event]) -> tuple[tuple[int, str], ...]:
    """The tiles a line's events put on the table: its :class:`Play`'s tiles with each blank as the lower-case
    letter its :class:`BlankDesignated` names (``(square, tile)``, as a board holds them)."""
    letters = {e.square: e.letter.lower() for e in events if isinstance(e, BlankDesignated)}
    return tuple((sq, letters.get(sq, t) if t == "?" else t) for e in events if isinstance(e, Play) for sq, t in e.tiles)


def events_from_gcg(source: str | Path | GcgGame, preset: str | Preset = "naspa", *, step_ms: int = 15_000,
                    start_ms: int = 1_000, game_id: str | None = None, check_scores: bool = False) -> list[Event]:
    """The referee events of a recorded game (:class:`RefereeEvents` over the record).

    Args:
        source: a GCG file path or a parsed :class:`GcgGame`.
        preset: rule preset the referee applies (bundled name, .toml path or a :class:`Preset`; default "naspa").
        step_ms: time between turns (ms; each player's clock is charged that much per turn).
        start_ms: time of ``game_started`` (ms).
        game_id: the game's id (default: :func:`~kiosk.referee.game_id.record_game_id`, the one rule: the
            record's ``#id``, else its players' nicks and a hash of its moves, as ``kiosk stream-game``).
        check_scores: compare the referee's scores with the record's, line by line.

    Raises:
        RecordScoresError: (check_scores) the referee's scores differ from the record's (file:line: both).
        RecordEventsError: unreadable record, record errors, a score beyond :data:`~kiosk.rules.gcg.MAX_POINTS`,
        or a move the referee refuses (file:line: reason).
    """
    visitor = RefereeEvents(preset, step_ms=step_ms, start_ms=start_ms, game_id=game_id)
    if isinstance(source, GcgGame):
        events = source.accept(visitor)
    else:
        try:
            events = read_gcg(source, visitor)
        except GcgError as exc:
            raise RecordEventsError(str(exc)) from None
    if check_scores:
        visitor.check_scores()
    return events
