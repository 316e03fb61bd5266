"""Judging a GCG record by a rule preset: ``kiosk replay --preset``.

The record is walked through the referee exactly as ``kiosk demo --game`` and ``kiosk stream-game`` do
(:class:`~kiosk.referee.records.RefereeEvents`: the one conversion of a record into referee events), under
the preset asked for; the record's numbers are then compared with the referee's own scoresheet
(:class:`~kiosk.referee.state.TurnRecord`, what the kiosk's GCG export writes) by
:func:`~kiosk.referee.record_scores.score_mismatches`, the comparison ``kiosk stream-game`` makes before it
publishes a record: each line's score with the points the referee gave for it, each running total, the final
scores. So the preset's every rule applies as the referee applies it - players per game, exchange counts and
limits, challenge bonuses and penalties, the scoreless-turns end and its exceptions, end-of-game rack points,
the overtime a record's time penalties stand for - and there is no second reading of the preset to drift from
the first.

Findings are :class:`~kiosk.rules.replay.ReplayProblem` values in a
:class:`~kiosk.rules.replay.ReplayResult`, as the standard replay gives (:func:`kiosk.rules.replay.replay_game`):
a *mismatch* (a recorded number differs from the referee's; the comparison goes on from the recorded total) or
an *error* (the referee refuses a line, or a move follows the game's end: the walk stops there, the lines
before it still count). What the referee cannot see is not judged here: the racks a record writes are checked
by the standard replay (``kiosk replay`` without ``--preset``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from kiosk.referee.events import Event, GameStarted
from kiosk.referee.presets import Preset
from kiosk.referee.record_scores import score_mismatches
from kiosk.referee.records import RecordEventsError, RefereeEvents
from kiosk.referee.state import OVER, RACK_ENTRY, TurnRecord
from kiosk.rules.board import Board
from kiosk.rules.counts import counted
from kiosk.rules.gcg import EventKind, GcgError, GcgEvent, GcgGame, Walk
from kiosk.rules.replay import ReplayProblem, ReplayResult
from kiosk.rules.tiles import load_tile_set

_AFTER_END = (EventKind.END_RACK, EventKind.TIME_PENALTY, EventKind.ADJUSTMENT)
_ENDS = {"out_play": "a player went out", "six_scoreless": "six scoreless turns"}
_REFUSED_WHAT = {"game_started": "the game", "play": "this play", "exchange": "this exchange", "pass": "this pass",
                 "challenge": "a challenge of the play before", "challenge_ruled": "the challenge's ruling",
                 "tiles_removed": "taking the play off", "blank_designated": "this blank",
                 "outplay_accepted": "the out-play", "racks_entered": "the racks left at the end"}


class _Stop(Exception):
    """The walk stops at a line the referee refuses (the problem is recorded)."""


class PresetJudge(RefereeEvents):
    """The referee's verdict on one record under ``preset``: after ``game.accept(judge)``, ``judge.verdict()`` is the
    :class:`~kiosk.rules.replay.ReplayResult` (see module doc). Never raises on the record's content."""

    def __init__(self, preset: Preset) -> None:
        super().__init__(preset, step_ms=5_000)
        self.rules = preset
        self.res = ReplayResult("<gcg>", load_tile_set(preset.tile_set), [])
        self.entries: list[tuple[int, TurnRecord]] = []  # (record line, the referee's history line it gave)
        self.acted: list[tuple[GcgEvent, int]] = []      # record lines acted out, with the seat they are for
        self.first_error: int | None = None
        self.stopped = False
        self.read_errors: list[GcgError] = []  # the record's reading errors (the walk stops at the first)
        self.acting = 0  # the record line being acted out (0: the start or the end)

    # -- reporting
    def problem(self, line: int, message: str, *, stop: bool = True) -> None:
        """An error at ``line``; ``stop``: the walk goes no further (raises :class:`_Stop`)."""
        self.res.problems.append(ReplayProblem(self.name, line, "error", message))
        if stop:
            raise _Stop

    # -- the walk
    def begin_game(self, game: GcgGame) -> None:
        self.res = ReplayResult(game.name, self.res.tile_set, [p.nick for p in game.players],
                                totals=[0] * len(game.players))
        self.name = game.name or "<gcg>"
        self.read_errors = list(game.errors)
        self.first_error = min((e.line for e in game.errors if e.line), default=None)
        for e in game.errors:
            if e.line == 0:
                self.res.problems.append(ReplayProblem(game.name, 0, "error", e.message))
        p = self.rules
        n = len(game.players)
        if not p.min_players <= n <= p.max_players:
            self._stop_now(f"{counted(n, 'player')} in the record, but preset {p.name} is for {p.seats}")
            return
        try:
            super().begin_game(replace(game, errors=[]))   # the record is read up to its first bad line
        except (RecordEventsError, _Stop) as exc:
            if isinstance(exc, RecordEventsError):
                self._stop_now(self._plain(str(exc), 0))
            self.stopped = True

    def _stop_now(self, message: str) -> None:
        self.res.problems.append(ReplayProblem(self.name, 0, "error", message))
        self.stopped = True

    def visit_event(self, event: GcgEvent) -> Walk | None:
        if self.stopped or (self.first_error is not None and event.line > self.first_error):
            return Walk.STOP
        held, self.held = self.held, event
        self.next_line = event.line
        if held is not None:
            self._guarded(lambda: self.act(held, event.kind))
        return Walk.STOP if self.stopped else None

    def end_game(self) -> None:
        if not self.stopped:
            held = self.held
            self._guarded(lambda: self.act(held, None) if held is not None else None)
        if not self.stopped:
            self.acting = 0
            self._guarded(self.finish)
        self.compare()
        if self.first_error is not None:
            err = next(e for e in self.read_errors if e.line == self.first_error)
            if not self.res.errors or self.res.errors[0].line > self.first_error:
                self.res.problems.append(ReplayProblem(self.name, self.first_error, "error", err.message))
        self.res.problems.sort(key=lambda pr: pr.line)

    def verdict(self) -> ReplayResult:
        """The findings (after the walk)."""
        st = self.ref.state
        self.res.board = Board(list(st.board)) if st.board else Board()
        if st.result is not None:
            reason = str(st.result.reason)
            self.res.ended = {"out_play": "out"}.get(reason, reason)
        self.res.end_style = {"double": "2x", "standard": "1x"}.get(self.rules.end.out_adjustment)
        return self.res

    def _guarded(self, step: Callable[[], object]) -> None:
        try:
            step()
        except _Stop:
            self.stopped = True
        except RecordEventsError as exc:
            line = self.acting
            self.stopped = True
            self.res.problems.append(ReplayProblem(self.name, line, "error", self._plain(str(exc), line)))

    def _plain(self, message: str, line: int) -> str:
        """A :class:`RecordEventsError`'s sentence without its ``file:line:`` prefix."""
        for prefix in (f"{self.name}:{line}: ", f"{self.name}: "):
            if message.startswith(prefix):
                return message[len(prefix):]
        return message

    # -- acting a line out (RefereeEvents), with the referee's history kept per line
    def go(self, ev: Event, line: int) -> None:
        before = len(self.ref.state.history)
        res = self.ref.apply(ev)
        if not res.accepted:
            if isinstance(ev, GameStarted):
                self.problem(line, f"preset {self.rules.name}: the referee cannot start the game: {res.reason}")
            what = _REFUSED_WHAT.get(ev.type, ev.type.replace("_", " "))
            reason = res.reason.removeprefix(f"{ev.type}: ")
            self.problem(line, f"preset {self.rules.name}: the referee refuses {what}: {reason}")
        self.events.append(ev)
        self.lines.append(line)
        history = self.ref.state.history
        self.history_at.append(len(history))
        del self.entries[len(history):]   # a play refused under VOID leaves the scoresheet
        self.entries += [(line, h) for h in history[before:]]

    def act(self, ev: GcgEvent, nxt: EventKind | None) -> None:
        """Act one record line out (:meth:`RefereeEvents.act`: under a VOID preset each play is ruled at once, a
        failed challenge's penalty line names the challenger), refusing a move after the game's end."""
        self.acting = ev.line
        st = self.ref.state
        seats = [i for i, pl in enumerate(self.game.players) if pl.nick == ev.nick]
        seat = (st.on_move if st.on_move in seats else seats[0]) if seats else -1
        lp = st.last_play
        phony_penalty = ev.kind is EventKind.CHALLENGE_BONUS and ev.score < 0 and lp is not None and lp.withdrawn \
            and lp.player == seat   # the line after the withdrawal that ended the game (six scoreless turns)
        if st.phase in (OVER, RACK_ENTRY) and ev.kind not in _AFTER_END and not phony_penalty \
                and not self._accepts_out(ev, seat):
            reason = str(st.result.reason) if st.result is not None else "six_scoreless"
            self.problem(ev.line, f"move after the game ended ({_ENDS.get(reason, reason.replace('_', ' '))})")
        super().act(ev, nxt)
        self.acted.append((ev, seat))

    def _accepts_out(self, ev: GcgEvent, seat: int) -> bool:
        """A 0-point pass of another player right after an out-play: the out-play accepted (older records)."""
        r = self.ref.state.result
        went_out = r.went_out if r is not None else None
        return ev.kind is EventKind.PASS and ev.score == 0 and went_out is not None and seat != went_out

    # -- the comparison
    def compare(self) -> None:
        """Each acted line's score and total against the referee's scoresheet
        (:func:`~kiosk.referee.record_scores.score_mismatches`, as ``kiosk stream-game`` checks a record)."""
        acted = {ev.line for ev, _ in self.acted}
        events = self.scored_lines([e for e in self.game.events if e.line in acted])
        game = replace(self.game, events=events)
        name = self.rules.name
        self.res.problems += [replace(p, message=f"{p.message} under preset {name}") for p in
                              score_mismatches(game, [h for _, h in self.entries], [line for line, _ in self.entries])]
        for ev in game.events:
            seats = [i for i, pl in enumerate(game.players) if pl.nick == ev.nick]
            if seats:
                self.res.totals[seats[0]] = ev.cumulative
        self.res.moves = sum(1 for _, h in self.entries if h.kind == "play")


def judge_record(game: GcgGame, preset: Preset) -> ReplayResult:
    """The referee's verdict on ``game`` under ``preset`` (see module doc): every recorded score and total
    compared with what the referee gives, and the first line it refuses. Never raises on the record."""
    judge = PresetJudge(preset)
    game.accept(judge)
    return judge.verdict()
