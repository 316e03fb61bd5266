"""The simulated people of the demo: two players and a judge acting out a recorded GCG game at the table.

They only do what people at a real table do: put the tiles of the recorded move on the physical board, press
their side of the clock, tap the screen (blank letters, exchange count, hold, challenge, accept the out-play,
racks at the end), take withdrawn tiles back, and, as the judge, enter the PIN and confirm the recorded
ruling (real games use other lexicons, so the record's ruling stands). They never tell the kiosk what is on the
board: the kiosk reads it with the camera. When the kiosk asks the judge about squares it cannot read, the
judge looks at the table and corrects exactly those squares (counted in :attr:`RecordPlayers.judge_fixes`).
When the move the kiosk shows is not what lies on the table (a silent misread), the players notice it as
players at a real table would, and the judge takes the turn back and corrects the misread squares
(:attr:`RecordPlayers.judge_undos`).

They are reactive: each :meth:`RecordPlayers.step` looks at the kiosk's state and the next recorded event,
so a kiosk restarted from its journal is simply picked up where it stands. What they do for a record line is
what the one conversion of records into referee events (:mod:`kiosk.referee.records`) made of it: the tiles
its play lays (blanks as their letters), the count its exchange names, the ruling its challenge gets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from kiosk.app.kiosk import Kiosk
from kiosk.app.simtable import SimClock, SimulatedTable
from kiosk.control.side import Side
from kiosk.control.words import counted
from kiosk.referee.clock import overtime_for_penalty
from kiosk.referee.events import Challenge, ChallengeRuled, Event, Exchange
from kiosk.referee.presets import Preset, load_preset
from kiosk.referee.prompts import end_sentence
from kiosk.referee.records import CHALLENGE_LINES, RecordEventsError, RefereeEvents, tiles_laid
from kiosk.referee.state import CHALLENGED, DESIGNATING, OUTPLAY, OVER, PLAYING, RACK_ENTRY, REMOVING, GameState
from kiosk.rules.board import square_name
from kiosk.rules.gcg import EventKind, GcgEvent, GcgGame
from kiosk.rules.replay import replay_game
from kiosk.rules.tiles import TileSet
from kiosk.vision.reading import board_rows, seen_as

END_KINDS = (EventKind.END_RACK, EventKind.TIME_PENALTY)
HISTORY_KIND = {EventKind.PLAY: "play", EventKind.PASS: "pass", EventKind.EXCHANGE: "exchange",
                EventKind.WITHDRAWN: "withdrawn", EventKind.CHALLENGE_BONUS: "challenge_bonus"}


def history_kind(ev: GcgEvent) -> str | None:
    """The kind of the referee's history entry a record line becomes (:data:`HISTORY_KIND`; a ``(challenge) -N``
    line is the challenger's penalty, ``challenge_penalty``), None for a line that makes none."""
    if ev.kind == EventKind.CHALLENGE_BONUS and (ev.score or 0) < 0:
        return "challenge_penalty"
    return HISTORY_KIND.get(ev.kind)
THINK_MS = 15_000
PLACE_MS = 1_500


class RecordError(ValueError):
    """The record cannot be played at the table (malformed, unsupported); the message names file and line."""


@dataclass
class RecordPlan:
    """A record prepared for the table: players, tile set, the preset that follows the record's rules, the
    events in table order, the end lines, and the referee events each record line became (by line number)."""

    name: str
    nicks: tuple[str, ...]
    tile_set: TileSet
    preset: Preset
    events: list[GcgEvent]
    end_lines: list[GcgEvent]
    finals: tuple[int, ...]
    ended: str | None
    notes: list[str] = field(default_factory=list)
    acts: dict[int, tuple[Event, ...]] = field(default_factory=dict)


def plan_record(game: GcgGame, base_preset: str = "nsf") -> RecordPlan:
    """Check ``game`` with the rules replay and derive the preset its scores follow.

    The preset: ``base_preset`` with the record's tile set, its end-rack style (2x: the player who goes out
    gets twice the opponent's rack; 1x: each side's own line) and its challenge bonus (``(challenge) +N``).

    Raises:
        RecordError: parse errors, rule errors in the record, not two players.
    """
    if game.errors:
        raise RecordError(f"{game.name}: unreadable record: {game.errors[0]}")
    if not game.players and not game.events:
        raise RecordError(f"{game.name}: not a game record (no #player lines and no moves)")
    if not 2 <= len(game.players) <= 4:
        raise RecordError(f"{game.name}: the kiosk referees 2 to 4 players, the record has {len(game.players)}")
    res = replay_game(game)
    errors = [p for p in res.problems if p.kind == "error"]
    if errors:
        raise RecordError(f"{game.name}: the record breaks the rules: {errors[0]}")
    notes = [f"record: {p}" for p in res.problems]
    p = load_preset(base_preset)
    lines = [ev.score for ev in game.events if ev.kind == EventKind.CHALLENGE_BONUS]
    # a '(challenge) +N' line is the bonus of the player challenged; '(challenge) -N' the challenger's penalty
    bonuses, penalties = sorted({n for n in lines if n > 0}), sorted({-n for n in lines if n < 0})
    bonus = bonuses[0] if bonuses else 0 if penalties else p.challenge.wrong_bonus
    per_word = len(bonuses) > 1  # e.g. +10 and +5 in one record: five points per challenged word
    if per_word and any(b % bonus for b in bonuses):
        raise RecordError(f"{game.name}: challenge bonuses {bonuses} follow no per-game or per-word rule")
    if len(penalties) > 1:
        raise RecordError(f"{game.name}: failed challenges cost {penalties} points: the record follows no one rule")
    challenge = replace(p.challenge, wrong_bonus=bonus, wrong_bonus_per_word=per_word,
                        wrong_penalty=penalties[0] if penalties else 0,
                        wrong_loses_turn=False, phony_penalty=0, off_centre_challengeable=False,
                        rule="custom" if bonus not in (0, 10) or penalties else p.challenge.rule)
    end = replace(p.end, out_adjustment=_out_style(game, res.ended, res.end_style),
                  no_out_adjustment="own_rack", scoreless_needs_nonzero=False)
    n = len(game.players)
    preset = replace(p, name=f"{p.name}-as-recorded", tile_set=res.tile_set.name, challenge=challenge, end=end,
                     description=f"{p.description} (adapted to the record {game.name})",
                     min_players=min(p.min_players, n), max_players=max(p.max_players, n))
    events = [ev for ev in game.events if ev.kind not in END_KINDS]
    # after the last play went out, a recorded pass of the opponent is his acceptance of the out-play
    if res.ended == "out":
        last_play = max(i for i, ev in enumerate(events) if ev.kind == EventKind.PLAY)
        events = events[:last_play + 1] + [ev for ev in events[last_play + 1:] if ev.kind != EventKind.PASS]
    finals = tuple(res.totals) if res.totals else (0, 0)
    converter = RefereeEvents(preset)
    try:
        game.accept(converter)
    except RecordEventsError as exc:
        raise RecordError(f"{game.name}: the referee cannot follow the record: {exc}") from None
    return RecordPlan(game.name, tuple(pl.nick for pl in game.players), res.tile_set, preset, events,
                      [ev for ev in game.events if ev.kind in END_KINDS], finals, res.ended, notes,
                      converter.by_line())


def _out_style(game: GcgGame, ended: str | None, style: str | None) -> str:
    """The preset's ``end.out_adjustment`` that the record's end lines follow: "standard" (1x), "double" (2x),
    or "own_only" when a player went out and only the others' own-rack lines were written (seed 003)."""
    if style == "1x":
        return "standard"
    if ended == "out" and style is None and any(e.kind == EventKind.END_RACK for e in game.events):
        return "own_only"
    return "double"


@dataclass
class StepOutcome:
    """What one step did: a line for the log, or None when the people wait for the kiosk."""

    text: str | None
    done: bool = False


class RecordPlayers:
    """The players (2-4) and a judge acting out ``plan`` at ``table`` with ``kiosk`` (see module doc)."""

    def __init__(self, plan: RecordPlan, kiosk: Kiosk, table: SimulatedTable, clock: SimClock, pin: str,
                 *, think_ms: int = THINK_MS) -> None:
        self.plan = plan
        self.kiosk = kiosk
        self.table = table
        self.clock = clock
        self.pin = pin
        self.think_ms = think_ms
        self.judge_fixes = 0
        self.judge_undos = 0
        self._checked_turns = -1
        self.presses = 0
        self._retries = 0
        self._tapped_exchange = False
        self._placed_for: int | None = None

    def player_of(self, ev: GcgEvent) -> int:
        return self.plan.nicks.index(ev.nick)

    # -------------------------------------------------------------------------------------------- position
    def position(self, st: GameState) -> int:
        """Index of the next recorded event the table has not acted out yet (from the referee's history).

        Raises:
            RecordError: the kiosk's history departs from the record (names the event).
        """
        hist = [h for h in st.history if h.kind not in ("end_rack", "own_rack", "time_penalty", "judge")]
        for i, h in enumerate(hist):
            if i >= len(self.plan.events):
                raise RecordError(f"the kiosk recorded more turns than the record has ({h.kind})")
            ev = self.plan.events[i]
            if history_kind(ev) != h.kind or self.player_of(ev) != h.player:
                raise RecordError(f"line {ev.line}: the record has {ev.kind} by {ev.nick}, the kiosk recorded "
                                  f"{h.kind} by {st.players[h.player]}")
        return len(hist)

    def restore_table(self) -> None:
        """After a restart: the table holds the referee's board, plus a play still waiting for its blanks or for the
        reading of its press (the kiosk reads the board for that press: :mod:`kiosk.app.unread_press`)."""
        st = self.kiosk.state
        cells = list(st.board)
        if st.phase == DESIGNATING or st.phase == PLAYING and st.pressed_at is not None:
            ev = self.plan.events[self.position(st)]
            self._placed_for, self._checked_turns = ev.line, len(st.history)  # (checked before the press)
            for sq, tile in tiles_laid(self.plan.acts.get(ev.line, ())):
                if cells[sq]:
                    raise RecordError(f"line {ev.line}: the journal's board does not fit the record: "
                                      f"{square_name(sq)} holds {cells[sq]}")
                cells[sq] = tile
        self.table.set_board(cells)

    # -------------------------------------------------------------------------------------------- acting
    def step(self) -> StepOutcome:
        """Do the next thing a person at the table would do now (or nothing while the kiosk is busy)."""
        k = self.kiosk
        st = k.state
        if k.session.paused:  # the journal cannot be written: the people wait while the kiosk tries it again
            self.clock.advance(500)
            return StepOutcome(None)
        if k.pending is not None or k.vision is not None and k.vision.waiting():
            return StepOutcome(None)
        if len(st.history) != self._checked_turns and st.phase in (PLAYING, OUTPLAY, RACK_ENTRY, OVER) \
                and not k.view.problem_squares:  # the kiosk has just recorded a turn: does its board match?
            wrong = self._misread_squares(st)
            if wrong:
                return self._take_back(wrong)
            self._checked_turns = len(st.history)
        if st.phase == OVER:
            return StepOutcome("game over", done=True)
        i = self.position(st)
        nxt = self.plan.events[i] if i < len(self.plan.events) else None
        if k.view.problem_squares or k.view.needs_judge or (k.view.problem_text and st.phase == PLAYING):
            return self._judge_fix()
        if st.phase == DESIGNATING:
            return self._designate(nxt)
        if st.phase == CHALLENGED:
            return self._rule(nxt)
        if st.phase == REMOVING:
            return self._take_withdrawn_tiles_back(st)
        if st.phase == OUTPLAY:
            return self._answer_outplay(st, nxt)
        if st.phase == RACK_ENTRY:
            return self._racks(st)
        if st.phase != PLAYING:
            return StepOutcome(f"the kiosk is in an unexpected phase {st.phase}", done=True)
        if nxt is None:
            return StepOutcome("the record ends here but the game is not over", done=True)
        if nxt.kind in CHALLENGE_LINES:
            lp = st.last_play
            # the challenger the referee's events of this line name (kiosk.referee.records: in a 3-4 player
            # record a failed challenge's '(challenge) -10' line is the challenger's, the player it names)
            challenger = next((e.player for e in self.plan.acts.get(nxt.line, ()) if isinstance(e, Challenge)),
                              (self.player_of(nxt) + 1) % len(st.players))
            if lp is not None and lp.t:
                self.clock.set_at_least(lp.t + 3_000)
            res = k.act("challenge", player=challenger, words=self._challenged_words(nxt, st))
            return StepOutcome(f"{st.players[challenger]} challenges" + ("" if res else f": {res.reason}"),
                               done=not res.accepted)
        return self._turn(nxt, st)

    def _take_withdrawn_tiles_back(self, st: GameState) -> StepOutcome:
        """REMOVING: the player takes the withdrawn play's tiles off the board and presses his clock; where the
        kiosk still reads a tile there, the judge looks at the table and confirms they are off."""
        lp = st.last_play
        assert lp is not None
        on_table = self.table.board().cells
        if not any(on_table[sq] for sq, _ in lp.tiles):
            if not self.kiosk.view.removal_left:
                return StepOutcome(None)  # the kiosk has yet to see the tiles gone
            self._retries += 1
            self.clock.advance(5_000)
            if self._retries > 3 or not self.kiosk.act("judge_unlock", pin=self.pin):
                return StepOutcome("the kiosk keeps seeing the withdrawn tiles", done=True)
            res = self.kiosk.act("confirm_removed")
            self.judge_fixes += len(self.kiosk.view.removal_left) if not res else 1
            return StepOutcome("judge called: the withdrawn tiles are off the board" +
                               ("" if res else f": {res.reason}"))
        self.clock.advance(2_000)
        self.table.remove([sq for sq, _ in lp.tiles])
        self.clock.advance(PLACE_MS)
        self.kiosk.press(Side(lp.player))
        return StepOutcome(f"{st.players[lp.player]} takes the withdrawn tiles back")

    def _answer_outplay(self, st: GameState, nxt: GcgEvent | None) -> StepOutcome:
        """OUTPLAY: an opponent challenges the out-play where the record says so, else the next opponent still to
        accept accepts it (3-4 players: each in turn, seeds 003/004; the game ends once all have)."""
        assert st.last_play is not None
        opp = st.outplay_waiting_for[0] if st.outplay_waiting_for else self._outplay_opponent(st)
        self.clock.advance(1_000)
        if nxt is not None and nxt.kind in CHALLENGE_LINES:
            res = self.kiosk.act("challenge", player=opp)
            return StepOutcome(f"{st.players[opp]} challenges the out-play: {res.reason or 'ok'}")
        res = self.kiosk.act("accept_outplay", player=opp)
        return StepOutcome(f"{st.players[opp]} accepts the out-play" + ("" if res else f": {res.reason}"))

    def _challenged_words(self, ev: GcgEvent, st: GameState) -> tuple[str, ...]:
        """All words formed, or (five points per word) as many as the recorded bonus pays for."""
        ch = self.plan.preset.challenge
        words = st.last_play.words if st.last_play else ()
        if ev.kind == EventKind.CHALLENGE_BONUS and ch.wrong_bonus_per_word and ch.wrong_bonus:
            return tuple(w.upper() for w in words[:max(1, ev.score // ch.wrong_bonus)])
        return ()

    def _turn(self, ev: GcgEvent, st: GameState) -> StepOutcome:
        p = self.player_of(ev)
        k = self.kiosk
        if st.on_move != p:
            return StepOutcome(f"line {ev.line}: the record has {ev.nick} on move, the kiosk has "
                               f"{st.players[st.on_move] if st.on_move is not None else 'nobody'}", done=True)
        self._think(p, st)
        if ev.kind == EventKind.PLAY:
            if self._placed_for != ev.line:
                try:  # the hands lay the recorded tiles on the table, whatever the kiosk made of them
                    self.table.place(tiles_laid(self.plan.acts.get(ev.line, ())))
                except ValueError as exc:
                    return StepOutcome(f"line {ev.line}: cannot lay the recorded move on the table: {exc}", done=True)
                self._placed_for = ev.line
        elif ev.kind == EventKind.EXCHANGE:
            count = next((e.count for e in self.plan.acts.get(ev.line, ()) if isinstance(e, Exchange)),
                         ev.count or len(ev.tiles))
            res = k.act("exchange", count=count)
            if not res:
                return StepOutcome(f"line {ev.line}: exchange refused: {res.reason}", done=True)
        self.clock.advance(PLACE_MS)
        self.presses += 1
        k.press(Side(p))
        return StepOutcome(None)

    def _think(self, p: int, st: GameState) -> None:
        """Time on the player's clock before he acts; on his last turn, the overtime his record shows."""
        think = self.think_ms
        pen = sum(-e.score for e in self.plan.end_lines if e.kind == EventKind.TIME_PENALTY and self.player_of(e) == p)
        if pen > 0 and self._last_turn_of(p, st):
            unit = self.kiosk.session.referee.preset.clock.overtime_unit_ms  # type: ignore[union-attr]
            per = self.kiosk.session.referee.preset.clock.overtime_penalty_points or 10  # type: ignore[union-attr]
            want_overtime = overtime_for_penalty(pen, per, unit)
            rem = self.kiosk.remaining_ms(p)
            if rem is not None and want_overtime:
                think = max(think, rem + want_overtime - PLACE_MS)
        self.clock.advance(think)

    def _last_turn_of(self, p: int, st: GameState) -> bool:
        i = self.position(st)
        later = [e for e in self.plan.events[i + 1:] if self.player_of(e) == p and
                 e.kind in (EventKind.PLAY, EventKind.PASS, EventKind.EXCHANGE)]
        return not later

    def _designate(self, ev: GcgEvent | None) -> StepOutcome:
        """The player says what his blank stands for: the letter of the blank he put there (on the table)."""
        st = self.kiosk.state
        sq = st.pending_blanks[0]
        tile = self.table.board().cells[sq]
        player = st.on_move if st.on_move is not None else 0
        if ev is not None and ev.kind == EventKind.PLAY:
            player = self.player_of(ev)
        if not tile.islower():  # a misread: the judge corrects the square and the player presses again
            self._retries += 1
            if self._retries > 3 or not self.kiosk.act("judge_unlock", pin=self.pin):
                return StepOutcome(f"the kiosk asks for a blank on {square_name(sq)}, but the table has "
                                   f"{tile or 'no tile'} there", done=True)
            self.kiosk.act("correct", square=sq, char=tile or ".")
            self.judge_fixes += 1
            self.clock.advance(PLACE_MS)
            self.kiosk.press(Side(player))
            return StepOutcome(f"judge called: {square_name(sq)} holds {tile or 'no tile'}, not a blank; "
                               "corrected 1 square")
        self.clock.advance(2_000)
        res = self.kiosk.act("designate", player=player, square=sq, letter=tile.upper())
        return StepOutcome(f"{st.players[player]} says the blank is {tile.upper()}" + ("" if res else f": {res.reason}"),
                           done=not res.accepted)

    def _rule(self, ev: GcgEvent | None) -> StepOutcome:
        rulings = [e.acceptable for e in self.plan.acts.get(ev.line, ()) if isinstance(e, ChallengeRuled)] if ev else []
        acceptable = bool(rulings) and rulings[0]  # a line that is no challenge: the play did not stand
        self.clock.advance(20_000)
        res = self.kiosk.act("rule", acceptable=acceptable, pin=self.pin, judge="demo judge")
        verdict = "acceptable" if acceptable else "unacceptable"
        return StepOutcome(f"judge confirms the recorded ruling: {verdict}" + ("" if res else f": {res.reason}"),
                           done=not res.accepted)

    def _racks(self, st: GameState) -> StepOutcome:
        racks = [""] * len(st.players)
        for e in self.plan.end_lines:
            if e.kind == EventKind.END_RACK and e.score < 0:
                racks[self.player_of(e)] = e.tiles
        self.clock.advance(10_000)
        res = self.kiosk.act("racks", racks=tuple(racks))
        return StepOutcome(f"racks entered: {' / '.join(r or '-' for r in racks)}" + ("" if res else f": {res.reason}"),
                           done=not res.accepted)

    @staticmethod
    def _outplay_opponent(st: GameState) -> int:
        """The opponent who answers an out-play: the next in turn order (any opponent may accept or challenge)."""
        assert st.last_play is not None
        return (st.last_play.player + 1) % len(st.players)

    def _judge_fix(self) -> StepOutcome:
        """The kiosk asked about squares: the judge looks at the table, corrects them, the player presses again."""
        k = self.kiosk
        st = k.state
        self._retries += 1
        if self._retries > 3:
            return StepOutcome(f"the kiosk still cannot read the board: {k.view.problem_text}", done=True)
        self.clock.advance(5_000)
        truth = self.table.board().cells
        if not k.act("judge_unlock", pin=self.pin):
            return StepOutcome("the judge PIN was refused", done=True)
        fixed = []
        # the squares the kiosk marks, and any other square where the board as read (on the screen) is not
        # what lies on the table (e.g. a blank read as empty that leaves the marked tiles floating); with no
        # reading at all the screen shows the referee's board: the judge enters the squares the move changed
        reading = k.view.reading if k.view.read_this_turn else None
        seen = "".join(reading.grid() if reading is not None else board_rows(st.board))
        wanted = {sq: seen_as(tile) for sq, tile in enumerate(truth)}
        misread = [sq for sq, ch in enumerate(seen) if ch != wanted[sq] and ch != "#"]
        for sq in dict.fromkeys([*k.view.problem_squares, *misread]):
            k.act("correct", square=sq, char=wanted[sq])
            fixed.append(sq)
        self.judge_fixes += len(fixed)
        k.view.problem_squares = ()
        k.view.needs_judge = False
        problem = k.view.problem_text
        k.view.problem_text = ""
        if st.phase == PLAYING and st.on_move is not None:
            self.clock.advance(PLACE_MS)
            k.press(Side(st.on_move))
        elif st.phase == REMOVING and st.last_play is not None:
            k.press(Side(st.last_play.player))
        return StepOutcome(f"judge called ({problem}); corrected {counted(len(fixed), 'square')}")

    def _misread_squares(self, st: GameState) -> list[int]:
        """Squares where the kiosk's board (as its screen shows it after a move) differs from the tiles on the
        table: what players and judge would notice at a glance."""
        table = self.table.board().cells
        return [sq for sq, have in enumerate(st.board) if (have or "") != (table[sq] or "")]

    def _take_back(self, wrong: list[int]) -> StepOutcome:
        """The players see a move on the screen that is not what lies on the table: the judge takes the turn
        back, tells the kiosk what the misread squares hold, and the player presses the clock again."""
        k = self.kiosk
        self._retries += 1
        names = ", ".join(square_name(sq) for sq in wrong)
        if self._retries > 3:
            return StepOutcome(f"the kiosk's board keeps differing from the table at {names}", done=True)
        self.clock.advance(5_000)
        if not k.act("judge_unlock", pin=self.pin):
            return StepOutcome("the judge PIN was refused", done=True)
        res = k.act("undo", reason=f"the kiosk's board differs from the table at {names}")
        if not res:
            return StepOutcome(f"the kiosk's board differs from the table at {names} and the judge cannot take the "
                               f"move back: {res.reason}", done=True)
        self.judge_undos += 1
        self._checked_turns = len(k.state.history)
        truth = self.table.board().cells
        for sq in wrong:  # what the camera got wrong there, for the reading of the move played again
            k.act("correct", square=sq, char=seen_as(truth[sq]))
        fixed = len(wrong)
        self.judge_fixes += fixed
        st = k.state
        if st.phase == PLAYING and st.on_move is not None:
            self.clock.advance(PLACE_MS)
            k.press(Side(st.on_move))
        return StepOutcome(f"judge called: the kiosk's board differs from the table at {names}; took the turn back "
                           f"and corrected {counted(fixed, 'square')}")

    def reset_retries(self) -> None:
        self._retries = 0


def check_history(plan: RecordPlan, st: GameState) -> list[str]:
    """Every way the kiosk's scores differ from the record's (empty: they agree), one line each."""
    out: list[str] = []
    hist = [h for h in st.history if h.kind not in ("end_rack", "own_rack", "time_penalty", "judge")]
    for ev, h in zip(plan.events, hist):
        legacy = ev.kind == EventKind.WITHDRAWN and ev.score == 0  # old "-- +0" lines: only the total drops
        if (h.points != ev.score and not legacy) or h.total != ev.cumulative:
            out.append(f"line {ev.line}: {ev.nick} {ev.kind}: kiosk {h.points:+d} = {h.total}, record "
                       f"{ev.score:+d} = {ev.cumulative}")
    return out


def move_line(ev: GcgEvent, h_points: int, h_total: int) -> str:
    """One line of the demo's output for a recorded event and the kiosk's score for it."""
    what = {EventKind.PLAY: f"{ev.coordinate} {ev.word}", EventKind.PASS: "pass",
            EventKind.EXCHANGE: f"exchange {ev.count or len(ev.tiles)}", EventKind.WITHDRAWN: "phony withdrawn",
            EventKind.CHALLENGE_BONUS: "failed challenge bonus"}.get(ev.kind, str(ev.kind))
    if history_kind(ev) == "challenge_penalty":
        what = "failed challenge penalty"      # the challenger's own line
    legacy = ev.kind == EventKind.WITHDRAWN and ev.score == 0
    ok = "ok" if h_total == ev.cumulative and (legacy or h_points == ev.score) else f"MISMATCH (record {ev.score:+d} = {ev.cumulative})"
    return f"{ev.nick}: {what} {h_points:+d} = {h_total}  {ok}"


def final_table(st: GameState, nicks: Sequence[str]) -> list[str]:
    """The final table as printed at the end of the demo."""
    r = st.result
    lines = []
    if r is None:
        return [f"not finished: {', '.join(f'{n} {s}' for n, s in zip(nicks, st.scores))}"]
    lines.append(f"game over: {end_sentence(r.reason)}")
    for i, n in enumerate(nicks):
        lines.append(f"  {n:<12} before racks {r.before_racks[i]:>4}  racks {r.rack_adjust[i]:+4d}  "
                     f"time {-r.time_penalty[i]:+4d}  final {r.final[i]:>4}  wins {r.wins[i]:g}")
    return lines
