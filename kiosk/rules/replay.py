"""Replaying a GCG record on a fresh board: every score recomputed, every rule of the record checked.

The replay never trusts a recorded score: each tile-placing move is scored from the board alone
(:func:`kiosk.rules.scoring.score_play`) and compared with the record; running totals, challenge bonuses,
withdrawn phonies, end-of-game rack adjustments and time penalties are applied and checked against the
recorded cumulative totals.

Rules checked (GCG spec v1.2 and ``docs/gcg.md`` "Rules the engines agree on"):

* turns alternate; a withdrawal or a challenge bonus follows the same player's play;
* racks hold only tiles that exist (full set minus the board) and the tiles played or exchanged;
* an exchange needs at least 7 tiles in the bag;
* the game ends when a player empties the rack with the bag empty (the opponent may still pass or challenge),
  or after six successive scoreless turns (passes, exchanges, withdrawn plays; a tile play scoring 0 is not
  scoreless); after that only end-rack lines and then time penalties may follow;
* end-rack points: the player who went out gets 2x the opponent's rack (NASPA style) in one line, or 1x while
  the opponent loses 1x in a line of his own (WESPA style); after six scoreless turns each player loses his
  own rack's value.

A problem is either a *mismatch* (a recorded number differs from the computed one: the replay reports it and
continues from the recorded total) or an *error* (the record breaks a rule or cannot be read: the replay
reports it and stops that game; the moves before it still count).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NoReturn, overload

from kiosk.rules.board import Board
from kiosk.rules.counts import counted
from kiosk.rules.gcg import EventKind, GcgEvent, GcgGame, GcgVisitor, Walk, read_gcg
from kiosk.rules.placement import Placement, PlacementError, WordError, WordFault
from kiosk.rules.racks import NoOutAdjustment, OutAdjustment, rack_adjustments
from kiosk.rules.scoring import score_play
from kiosk.rules.tiles import BLANK, ENGLISH, GERMAN, TileSet, bundled_tile_sets, load_tile_set
from kiosk.rules.variants import STANDARD, ScoringRules

SCORELESS_TURNS_TO_END = 6


@dataclass(frozen=True)
class ReplayProblem:
    """One finding. ``kind`` is ``"mismatch"`` or ``"error"``; ``computed``/``recorded`` in points (mismatch)."""

    file: str
    line: int
    kind: str
    message: str
    computed: int | None = None
    recorded: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        if self.kind == "mismatch":
            return f"{where}: mismatch: {self.message}: computed {self.computed}, recorded {self.recorded}"
        return f"{where}: error: {self.message}"


@dataclass
class ReplayResult:
    """Outcome of one game's replay.

    Attributes:
        moves: tile-placing moves scored.
        totals: each player's total after the last event replayed (points).
        ended: ``"out"``, ``"six_scoreless"`` or ``None`` (record unfinished or stopped by an error).
        positions: the board after each move that changed it (when asked for).
        end_style: ``"2x"`` or ``"1x"`` where the record has end-rack points.
    """

    name: str
    tile_set: TileSet
    players: list[str]
    moves: int = 0
    totals: list[int] = field(default_factory=list)
    problems: list[ReplayProblem] = field(default_factory=list)
    ended: str | None = None
    end_style: str | None = None
    positions: list[Board] = field(default_factory=list)
    board: Board = field(default_factory=Board)

    @property
    def mismatches(self) -> list[ReplayProblem]:
        return [p for p in self.problems if p.kind == "mismatch"]

    @property
    def errors(self) -> list[ReplayProblem]:
        return [p for p in self.problems if p.kind == "error"]


KNOWN_GAME_TYPES = ("classic",)  # ``#game-type`` values scored by these rules (Woogles writes "classic")


class _Stop(Exception):
    pass


@dataclass(frozen=True)
class _LastPlay:
    """The play a withdrawal or a challenge bonus refers to, and the state before it (to take it back)."""

    player: int
    squares: list[int]
    applied: int  # points the play added (the recorded score where it differs)
    rack: str
    sizes: list[int]
    bag: int
    scoreless: int
    phase: str
    game_word: bool


def _not_within(tiles: str, rack: str) -> bool:
    """True when ``tiles`` uses some letter more often than ``rack`` holds it."""
    return any(tiles.count(ch) > rack.count(ch) for ch in set(tiles))


def record_letters(game: GcgGame) -> set[str]:
    """The letters (upper-case) a record's racks, words and exchanged tiles show."""
    return {ch for ch in "".join(ev.rack + ev.word + ev.tiles for ev in game.events).upper() if ch.isalpha()}


def guess_tile_set(game: GcgGame) -> TileSet:
    """The tile set a record uses: its ``#tile-distribution``/``#tile-set`` pragma when it names a bundled set,
    else German when its racks and words use letters only the German set has, else English."""
    for key in ("tile-distribution", "tile-set"):
        for value in game.pragmas.get(key, []):
            word = value.split()[0].lower() if value.split() else ""
            if word in bundled_tile_sets():
                return load_tile_set(word)
    letters = record_letters(game)
    if letters - set(ENGLISH.values) and not letters - set(GERMAN.values):
        return GERMAN
    return ENGLISH


class ReplayVisitor(GcgVisitor[ReplayResult]):
    """The replay as a :class:`~kiosk.rules.gcg.GcgVisitor` of one game: ``game.accept(ReplayVisitor(game))``
    (what :func:`replay_game` does). Arguments as :func:`replay_game`'s."""

    def __init__(self, game: GcgGame, tile_set: TileSet | None = None, rules: ScoringRules = STANDARD,
                 positions: bool = False, exchange_min_bag: int = 7, out_rack_lines: bool = True,
                 six_rack_lines: bool = True) -> None:
        tile_set = tile_set or guess_tile_set(game)
        self.out_rack_lines = out_rack_lines  # the rules adjust racks after an out-play: its lines are due
        self.six_rack_lines = six_rack_lines  # ... after six scoreless turns
        self.game = game
        self.early = False  # not a record the replay scores: nothing more is looked at
        self.stopped = False  # a rule error stopped the replay
        self.first_error: int | None = None
        self.ts = tile_set
        self.rules = rules
        self.exchange_min_bag = exchange_min_bag
        self.game_word_available = True
        self.keep_positions = positions
        n = len(game.players)
        self.n = n
        self.seats: dict[str, list[int]] = {}
        for i, pl in enumerate(game.players):
            self.seats.setdefault(pl.nick, []).append(i)
        self.res = ReplayResult(game.name, tile_set, [p.nick for p in game.players], totals=[0] * n)
        self.board = self.res.board
        self.full = tile_set.full_bag()
        self._unseen = dict(self.full)  # full set minus the board, kept up to date on every place/remove
        self.sizes = [tile_set.rack_size] * n
        self.bag = tile_set.total_tiles - n * tile_set.rack_size
        self.turn = 0
        self.scoreless = 0
        self.last_play: _LastPlay | None = None
        self.phase = "playing"  # playing | out | six | over
        self.out_player = -1
        self.end_lines: set[int] = set()
        self.time_lines: set[int] = set()
        self.withdrawn_by: int | None = None  # the player whose play just came off (a phony penalty follows)
        self.out_style: str | None = None  # the out player's end line: "2x" or "1x"

    # -- reporting
    @overload
    def error(self, ev: GcgEvent | None, msg: str, fatal: Literal[True] = True) -> NoReturn: ...
    @overload
    def error(self, ev: GcgEvent | None, msg: str, fatal: Literal[False]) -> None: ...
    def error(self, ev: GcgEvent | None, msg: str, fatal: bool = True) -> None:
        """Report a rule error; a fatal one (the board or turn order can no longer be trusted) stops the game,
        a rack inconsistency (racks never change the board or the scores) is reported and the replay goes on."""
        self.res.problems.append(ReplayProblem(self.game.name, ev.line if ev else 0, "error", msg))
        if fatal:
            raise _Stop

    def mismatch(self, ev: GcgEvent, msg: str, computed: int, recorded: int) -> None:
        self.res.problems.append(ReplayProblem(self.game.name, ev.line, "mismatch", msg, computed, recorded))

    # -- helpers
    def unseen(self) -> Counter[str]:
        """Tiles not on the board (blanks as ``?``): the bag plus every rack."""
        return Counter({t: n for t, n in self._unseen.items() if n > 0})

    def _move_tiles(self, tiles: list[str], sign: int) -> None:
        for t in tiles:
            key = BLANK if t.islower() else t
            self._unseen[key] = self._unseen.get(key, 0) - sign

    def check_exists(self, ev: GcgEvent | None, tiles: str, what: str) -> None:
        if not tiles:
            return
        unseen = self._unseen
        if all(tiles.count(t) <= unseen.get(t, 0) for t in set(tiles)):
            return
        extra = Counter(tiles) - self.unseen()
        if extra:
            unknown = "".join(sorted({t for t in extra if t != BLANK and not self.ts.is_letter(t)}))
            if unknown:
                self.error(ev, f"{what} '{tiles}': {unknown} not tiles of the {self.ts.name} set (give the record's tile set with --tiles)")
            self.error(ev, f"{what} '{tiles}' not in bag: tiles {''.join(sorted(extra.elements()))} do not exist besides the board",
                       fatal=False)

    def player_of(self, ev: GcgEvent, expected: int) -> int:
        """The player index of an event's nick (records with one nick for two players: by turn order)."""
        idxs = self.seats[ev.nick]
        return expected if expected in idxs else idxs[0]

    def settle(self, ev: GcgEvent, p: int, delta: int) -> None:
        self.res.totals[p] += delta
        if self.res.totals[p] != ev.cumulative:
            self.mismatch(ev, f"{ev.nick}'s total", self.res.totals[p], ev.cumulative)
            self.res.totals[p] = ev.cumulative

    def after_scoreless(self) -> None:
        self.scoreless += 1
        if self.scoreless >= SCORELESS_TURNS_TO_END:   # any number of players, as the presets end.scoreless_turns
            self.phase = "six"
            self.res.ended = "six_scoreless"

    # -- the walk (GcgVisitor)
    def begin_game(self, game: GcgGame) -> None:
        if not game.players and not game.events:  # an empty or binary file: nothing was recorded
            self.res.problems.append(ReplayProblem(game.name, 0, "error",
                                                   "not a game record: no #player lines and no moves (GCG spec)"))
            self.early = True
            return
        kinds = [v.split()[0].lower() for v in game.pragmas.get("game-type", []) if v.split()]
        unknown = [k for k in kinds if k not in KNOWN_GAME_TYPES]
        if unknown:  # another game (e.g. a Woogles variant) would be scored by the wrong rules
            self.res.problems.append(ReplayProblem(game.name, 0, "error", f"#game-type {unknown[0]}: not a "
                                                   f"game type the kiosk scores (known: {', '.join(KNOWN_GAME_TYPES)})"))
            self.early = True
            return
        self.first_error = min((e.line for e in game.errors if e.line), default=None)
        for e in game.errors:
            if e.line == 0:
                self.res.problems.append(ReplayProblem(game.name, 0, "error", e.message))

    def visit_event(self, event: GcgEvent) -> Walk | None:
        if self.early or self.stopped:
            return Walk.STOP
        if self.first_error is not None and event.line > self.first_error:
            return Walk.STOP  # the record is read up to its first bad line
        try:
            self.apply(event)
        except _Stop:
            self.stopped = True
            return Walk.STOP
        return None

    def end_game(self) -> None:
        if self.early:
            return
        if not self.stopped:
            try:
                for idx, rack in sorted(self.game.racks.items()):
                    self.check_exists(None, rack, f"#rack{idx + 1}")
            except _Stop:
                pass
            self.end_complete()
        if self.first_error is not None:
            err = next(e for e in self.game.errors if e.line == self.first_error)
            if not self.res.errors or self.res.errors[0].line > self.first_error:
                self.res.problems.append(ReplayProblem(self.game.name, self.first_error, "error", err.message))
        self.res.problems.sort(key=lambda pr: pr.line)

    def result(self) -> ReplayResult:
        return self.res

    def apply(self, ev: GcgEvent) -> None:
        k = ev.kind
        if k in (EventKind.PLAY, EventKind.PASS, EventKind.EXCHANGE):
            p = self.player_of(ev, self.turn)
            if self.phase == "out" and k is EventKind.PASS and p != self.out_player:
                self.settle(ev, p, ev.score)  # the opponent accepts the out-play
                return
            if self.phase != "playing":
                self.error(ev, f"move after the game ended ({'a player went out' if self.phase == 'out' else 'six scoreless turns' if self.phase == 'six' else 'end-of-game lines given'})")
            if p != self.turn:
                self.error(ev, f"{ev.nick} moves out of turn: it is {self.game.players[self.turn].nick}'s turn")
            self.withdrawn_by = None
            self.check_exists(ev, ev.rack, "rack")
            if k is EventKind.PLAY:
                self.play(ev, p)
            else:
                if ev.score != 0:
                    self.mismatch(ev, "a pass or exchange scores 0", 0, ev.score)
                if k is EventKind.EXCHANGE:
                    if ev.tiles and ev.rack and _not_within(ev.tiles, ev.rack):
                        self.error(ev, f"exchanged tiles '{ev.tiles}' not in rack '{ev.rack}'", fatal=False)
                    if self.bag < self.exchange_min_bag:
                        self.error(ev, f"exchange with only {counted(self.bag, 'tile')} in the bag (at least "
                                       f"{self.exchange_min_bag} needed)")
                    if ev.count > self.sizes[p]:
                        self.error(ev, f"exchange of {counted(ev.count, 'tile')} from a rack of {self.sizes[p]}")
                self.last_play = None
                self.settle(ev, p, 0)
                self.turn = (p + 1) % self.n
                self.after_scoreless()
        elif k is EventKind.WITHDRAWN:
            self.withdraw(ev)
        elif k is EventKind.CHALLENGE_BONUS and ev.score < 0:
            self.challenge_penalty(ev)
        elif k is EventKind.ADJUSTMENT:  # the kiosk's line for a judge's adjustment (docs/gcg_export.md)
            self.settle(ev, self.player_of(ev, 0), ev.score)
        elif k is EventKind.CHALLENGE_BONUS:
            lp = self.last_play
            if lp is None:
                self.error(ev, "challenge bonus without a play to challenge (the previous turn placed no tiles)")
            if ev.nick != self.game.players[lp.player].nick:
                self.error(ev, f"challenge bonus for {ev.nick}, but the challenged play was {self.game.players[lp.player].nick}'s")
            if ev.score <= 0:
                self.error(ev, f"challenge bonus of {ev.score}: must be positive")
            self.settle(ev, lp.player, ev.score)
        elif k is EventKind.END_RACK:
            self.end_rack(ev)
        elif k is EventKind.TIME_PENALTY:
            p = self.player_of(ev, 0)
            if self.phase == "playing":
                self.error(ev, "time penalty before the game ended (it follows the end-of-game rack lines)")
            if self.phase in ("out", "six") and not self.end_lines:
                self.error(ev, "time penalty before the end-of-game rack points")
            if self.phase == "six" and len(self.end_lines) < self.n:
                self.error(ev, "time penalty between the players' rack penalties")
            if p in self.time_lines:
                self.error(ev, f"second time penalty for {ev.nick}")
            if ev.score > 0:
                self.error(ev, f"time penalty of {ev.score:+d}: must be negative")
            self.time_lines.add(p)
            self.settle(ev, p, ev.score)

    def challenge_penalty(self, ev: GcgEvent) -> None:
        """A ``(challenge)`` line with a negative score (the kiosk's export under rules with challenge
        penalties, docs/gcg_export.md): the challenger of the last play (a failed challenge) or the player
        whose play just came off (a phony) loses the points; turns and the scoreless run do not change."""
        lp = self.last_play
        seats = self.seats[ev.nick]
        if lp is not None and lp.player not in seats:
            p = seats[0]
        elif lp is None and self.withdrawn_by is not None and self.withdrawn_by in seats:
            p = self.withdrawn_by
        else:
            self.error(ev, f"challenge penalty of {ev.score} for {ev.nick}: neither the challenger of the last "
                           "play nor the player whose play came off")
        self.settle(ev, p, ev.score)

    def end_complete(self) -> None:
        """Report an end that lacks a rack line: an out-play without the out player's line (or, when only the
        others lose their racks, without theirs), a 1x end without the other players' minus lines, a six-zero
        end without a player's own-rack line."""
        if self.game.incomplete or self.stopped or self.first_error is not None or self.res.ended is None:
            return  # a record read only up to a bad line has its own error; an unfinished one no end
        names = [pl.nick for pl in self.game.players]
        if self.res.ended == "out" and self.out_rack_lines:
            others = [i for i in range(self.n) if i != self.out_player]
            if self.out_player not in self.end_lines and not all(i in self.end_lines for i in others):
                self.error(None, f"the game ends with {names[self.out_player]}'s out-play but the record has no "
                                 "end-of-game rack line for it", fatal=False)
            elif self.res.end_style == "1x":
                missing = [names[i] for i in others if i not in self.end_lines]
                if missing:
                    self.error(None, f"a 1x end (the out player adds the rack once) without the minus line of "
                                     f"{', '.join(missing)}", fatal=False)
        elif self.res.ended == "six_scoreless" and self.six_rack_lines:
            missing = [names[i] for i in range(self.n) if i not in self.end_lines]
            if missing:
                self.error(None, f"six scoreless turns end the game but the record has no own-rack line for "
                                 f"{', '.join(missing)}", fatal=False)

    def play(self, ev: GcgEvent, p: int) -> None:
        coord = ev.coordinate
        assert coord is not None
        try:
            placement = Placement.from_word(self.board, coord, ev.word, through=ev.through, tile_set=self.ts)
        except WordError as exc:
            self.error(ev, str(exc) if exc.code is WordFault.NOT_A_TILE else f"illegal play: {exc}")
        tiles = list(placement.tiles)
        if not tiles:
            self.error(ev, f"illegal play: {ev.coordinate} {ev.word} places no tile (every square is already covered)")
        used = placement.rack_tiles
        if not ev.rack:
            self.check_exists(ev, used, "played tiles")  # with a rack, the rack was checked already
        elif _not_within(used, ev.rack):
            missing = "".join(sorted((Counter(used) - Counter(ev.rack)).elements()))
            self.error(ev, f"played {'tile' if len(missing) == 1 else 'tiles'} {missing} not in rack '{ev.rack}'",
                           fatal=False)
            self.check_exists(ev, used, "played tiles")
        if len(tiles) > self.sizes[p]:
            self.error(ev, f"plays {counted(len(tiles), 'tile')} from a rack of {self.sizes[p]}")
        try:
            ps = score_play(self.board, tiles, self.ts, self.rules, across=coord.across,
                            game_word_available=self.game_word_available)
        except PlacementError as exc:
            self.error(ev, f"illegal play: {exc}")
        if ps.coordinate != ev.coordinate:
            self.res.problems.append(ReplayProblem(self.game.name, ev.line, "error", f"coordinate {ev.coordinate} is not the start of the word ({ps.coordinate})"))
            raise _Stop
        applied = ps.total
        if ps.total != ev.score:
            self.mismatch(ev, f"{ev.coordinate} {ev.word} scores", ps.total, ev.score)
            applied = ev.score
        self.board.place(tiles)
        self._move_tiles([t for _, t in tiles], +1)
        self.res.moves += 1
        lp = _LastPlay(player=p, squares=[sq for sq, _ in tiles], applied=applied, rack=ev.rack,
                       sizes=list(self.sizes), bag=self.bag, scoreless=self.scoreless, phase=self.phase,
                       game_word=self.game_word_available)
        if ps.game_word_bonus:
            self.game_word_available = False
        self.sizes[p] -= len(tiles)
        draw = min(len(tiles), self.bag)
        self.sizes[p] += draw
        self.bag -= draw
        self.scoreless = 0
        self.last_play = lp
        self.settle(ev, p, applied)
        self.turn = (p + 1) % self.n
        if self.bag == 0 and self.sizes[p] == 0:
            self.phase = "out"
            self.out_player = p
            self.res.ended = "out"
        if self.keep_positions:
            self.res.positions.append(self.board.copy())

    def withdraw(self, ev: GcgEvent) -> None:
        lp = self.last_play
        if lp is None:
            self.error(ev, "phony withdrawn, but the previous turn placed no tiles")
        owner = self.game.players[lp.player].nick
        if ev.nick != owner:
            self.error(ev, f"{ev.nick} withdraws a play that was {owner}'s")
        if ev.rack and lp.rack and Counter(ev.rack) != Counter(lp.rack):
            self.error(ev, f"rack '{ev.rack}' returned after the phony does not match the play's rack '{lp.rack}'", fatal=False)
        p = lp.player
        self._move_tiles([self.board[sq] for sq in lp.squares], -1)
        self.board.remove(lp.squares)
        self.sizes = lp.sizes
        self.bag = lp.bag
        self.scoreless = lp.scoreless
        self.phase = lp.phase
        self.game_word_available = lp.game_word
        if self.res.ended == "out" and self.phase == "playing":
            self.res.ended = None
        self.last_play = None
        self.withdrawn_by = p
        legacy = ev.score == 0 and lp.applied != 0  # old Quackle: "-- +0" with the total dropping
        if not legacy and ev.score != -lp.applied:
            self.mismatch(ev, "withdrawn play takes off", -lp.applied, ev.score)
        self.settle(ev, p, -lp.applied)
        self.after_scoreless()
        if self.keep_positions:
            self.res.positions.append(self.board.copy())

    def end_rack(self, ev: GcgEvent) -> None:
        p = self.player_of(ev, self.out_player if ev.score >= 0 else 1 - self.out_player if self.n == 2 else 0)
        if self.phase == "playing":
            self.error(ev, "end-of-game rack line before the game ended")
        if p in self.end_lines:
            self.error(ev, f"second end-of-game rack line for {ev.nick}")
        value = self.ts.rack_value(ev.tiles)
        unseen = self.unseen()
        if self.phase == "out" and p == self.out_player:
            # the line's tiles are every other rack: what the out player gains for them under each style
            values = [0] * self.n
            values[(p + 1) % self.n] = value
            double = rack_adjustments(values, p, OutAdjustment.DOUBLE, NoOutAdjustment.OWN_RACK)[p]
            single = rack_adjustments(values, p, OutAdjustment.STANDARD, NoOutAdjustment.OWN_RACK)[p]
            if Counter(ev.tiles) != unseen:
                self.error(ev, f"end rack '{ev.tiles}' is not the opponent's rack: unseen tiles are '{''.join(sorted(unseen.elements()))}'")
            if ev.score == double:
                self.res.end_style = "2x"
            elif ev.score == single:
                self.res.end_style = "1x"
            else:
                self.mismatch(ev, f"end rack ({ev.tiles}) worth 2 x {value}", double, ev.score)
            self.end_lines.add(p)
            self.settle(ev, p, ev.score)
            return
        # own-rack penalty: after six scoreless turns, or the opponent's -1x line (WESPA style)
        if ev.rack and Counter(ev.rack) != Counter(ev.tiles):
            self.error(ev, f"rack '{ev.rack}' differs from the rack counted '({ev.tiles})'", fatal=False)
        if Counter(ev.tiles) - unseen:
            self.error(ev, f"end rack '{ev.tiles}' not in bag: those tiles are not unseen")
        if self.phase == "out" and self.n == 2 and Counter(ev.tiles) != unseen:  # 3-4 players: one of the racks
            self.error(ev, f"end rack '{ev.tiles}' is not the player's rack: unseen tiles are '{''.join(sorted(unseen.elements()))}'")
        values = [0] * self.n
        values[p] = value
        went_out = self.out_player if self.phase == "out" else None
        own = rack_adjustments(values, went_out, OutAdjustment.STANDARD, NoOutAdjustment.OWN_RACK)[p]
        if ev.score != own:
            self.mismatch(ev, f"own rack ({ev.tiles}) penalty", own, ev.score)
        self.end_lines.add(p)
        self.settle(ev, p, ev.score)


def replay_game(game: GcgGame, tile_set: TileSet | None = None, rules: ScoringRules = STANDARD,
                positions: bool = False, exchange_min_bag: int = 7, out_rack_lines: bool = True,
                six_rack_lines: bool = True) -> ReplayResult:
    """Replay a parsed GCG game (see module docstring). ``tile_set`` defaults to :func:`guess_tile_set`;
    ``rules`` and ``exchange_min_bag`` (tiles that must be in the bag for an exchange) come from the event's
    preset when it is not the standard tournament one (GCG engines: 7). ``out_rack_lines`` /
    ``six_rack_lines``: whether the rules adjust racks after an out-play / six scoreless turns, so that a
    finished record without those lines is reported (False under rules without the adjustment)."""
    return game.accept(ReplayVisitor(game, tile_set, rules, positions, exchange_min_bag, out_rack_lines,
                                     six_rack_lines))


def game_positions(path: str | Path) -> list[Board]:
    """The board (:class:`~kiosk.rules.board.Board`) after each move of a GCG file that changed it, in order
    (plays, and withdrawn phonies taking tiles off). Stops where the record breaks a rule.

    Raises:
        GcgError: the file cannot be read or decoded.
    """
    game = read_gcg(path)
    return game.accept(ReplayVisitor(game, positions=True)).positions
