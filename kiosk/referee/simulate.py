"""Scripted random games: a deterministic stream of legal referee events, for tests, benchmarks and demos.

The generator drives a real :class:`Referee` and keeps only accepted events, so every script is a game the
referee itself allows: tile plays in legal positions with tiles that exist, blanks with designations, passes,
exchanges, holds (with the courtesy draw), challenges ruled both ways, out-plays and rack entry. Words are
random letters: the referee only judges words when a challenge is ruled, and the script supplies the ruling.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from kiosk.referee import endgame
from kiosk.referee.events import (
    BlankDesignated,
    Challenge,
    ChallengeRuled,
    ClockPressed,
    CourtesyDraw,
    Event,
    Exchange,
    GameStarted,
    Hold,
    HoldReleased,
    OutplayAccepted,
    Pass,
    Play,
    RacksEntered,
    TilesRemoved,
)
from kiosk.referee.presets import Preset, load_preset
from kiosk.referee.referee import Referee
from kiosk.referee.state import CHALLENGED, DESIGNATING, OUTPLAY, OVER, PLAYING, RACK_ENTRY, REMOVING, GameState, Result
from kiosk.rules.board import CENTRE, SIZE, Board
from kiosk.rules.placement import Placement, PlacementError, validate_placement


def _placements(ref: Referee, rng: random.Random, count: int) -> list[int] | None:
    """Squares for a legal play of ``count`` tiles, or None."""
    cells = list(ref.state.board)
    board = Board(cells)
    if board.is_empty():
        n = max(2, count)
        start = CENTRE - rng.randint(0, n - 1)
        across = rng.random() < 0.5
        step = 1 if across else SIZE
        if not across:
            start = CENTRE - step * rng.randint(0, n - 1)
        return [start + i * step for i in range(n)]
    occupied = [i for i, c in enumerate(cells) if c]
    for _ in range(40):
        anchor = rng.choice(occupied)
        across = rng.random() < 0.5
        step = 1 if across else SIZE
        r, c = divmod(anchor, SIZE)
        pos = c if across else r
        back = rng.randint(0, count)
        squares: list[int] = []
        p = pos - back
        sq = anchor - back * step
        while len(squares) < count and 0 <= p < SIZE:
            if 0 <= sq < SIZE * SIZE and not cells[sq]:
                squares.append(sq)
            sq += step
            p += 1
        if len(squares) != count:
            continue
        try:
            validate_placement(board, [(s, "A") for s in squares])
        except PlacementError:
            continue
        return squares
    return None


def random_game(preset: str | Preset = "nsf", seed: int = 0, players: tuple[str, ...] = ("Ann", "Bob"),
                max_events: int = 400, pass_rate: float = 0.05) -> list[Event]:
    """A complete random game under ``preset`` as a list of events the referee accepts (deterministic in ``seed``).

    ``pass_rate``: chance that a turn is a pass (raise it to get six-scoreless endings).
    """
    sim = _RandomGame(load_preset(preset) if isinstance(preset, str) else preset, seed, players, pass_rate)
    t = 1_000
    sim.go(GameStarted(t=t, preset=sim.preset.to_dict(), players=players, game_id=f"sim-{seed}"))
    for _ in range(max_events):
        st = sim.ref.state
        if st.phase == OVER:
            break
        t += sim.rng.randint(2_000, 40_000)
        t = max(t, st.last_t)
        if sim.settle(st, t):
            continue
        if st.phase != PLAYING or st.on_move is None:
            break
        if sim.hold_or_challenge(st, st.on_move):
            continue
        t = sim.turn(t, st.on_move)
    return sim.events


class _RandomGame:
    """The state of :func:`random_game`: the referee, the random source and the accepted events."""

    def __init__(self, preset: Preset, seed: int, players: tuple[str, ...], pass_rate: float) -> None:
        self.rng = random.Random(seed)
        self.preset = preset
        self.players = players
        self.pass_rate = pass_rate
        self.ref = Referee()
        self.events: list[Event] = []

    def go(self, ev: Event) -> bool:
        """Apply ``ev``; keep it when accepted."""
        res = self.ref.apply(ev)
        if res.accepted:
            self.events.append(ev)
        return res.accepted

    def settle(self, st: GameState, t: int) -> bool:
        """Answer a phase other than PLAYING (blank letters, ruling, tiles off, out-play, racks); True if one was."""
        rng, p = self.rng, self.preset
        if st.phase == DESIGNATING:
            self.go(BlankDesignated(t=t, player=_pending_player(self.ref), square=st.pending_blanks[0],
                                    letter=rng.choice("AEIOUST")))
        elif st.phase == CHALLENGED:
            self.go(ChallengeRuled(t=t, acceptable=rng.random() < 0.5, judge="sim"))
        elif st.phase == REMOVING:
            self.go(TilesRemoved(t=t))
        elif st.phase == OUTPLAY:
            lp = st.last_play
            assert lp is not None
            opp = st.outplay_waiting_for[0]  # each opponent in turn; any may still challenge (seeds 003/004)
            at = lp.t + 1_000 + 100 * len(st.outplay_accepted_by)
            if p.challenge.rule != "void" and rng.random() < 0.3:
                self.go(Challenge(t=at, player=opp))
            else:
                self.go(OutplayAccepted(t=at, player=opp))
        elif st.phase == RACK_ENTRY:
            self.go(RacksEntered(t=t, racks=_deal_racks(self.ref, rng)))
        else:
            return False
        return True

    def hold_or_challenge(self, st: GameState, me: int) -> bool:
        """Maybe hold or challenge the last play while its window is open; True if the turn went to that."""
        lp, p, rng = st.last_play, self.preset, self.rng
        roll = rng.random()
        if not (st.window_open and lp is not None and not lp.withdrawn and p.challenge.rule != "void"):
            return False
        wt = min(lp.t + 5_000, (st.window_until_ms or lp.t + 5_000))
        if roll < 0.06 and p.challenge.holds:
            if self.go(Hold(t=wt, player=me)):
                hold_end = wt + rng.choice((20_000, 70_000))
                if hold_end - wt >= (p.challenge.courtesy_ms or 10**12):
                    for ev in self.ref.tick(hold_end):
                        self.go(ev)
                    self.go(CourtesyDraw(t=hold_end, player=lp.player))
                if rng.random() < 0.5:
                    self.go(HoldReleased(t=hold_end, player=me))
                else:
                    self.go(Challenge(t=hold_end, player=me))
                return True
        elif roll < 0.14:
            self.go(Challenge(t=wt, player=me))
            return True
        return False

    def turn(self, t: int, me: int) -> int:
        """``me``'s turn at ``t``: a pass, an exchange or a random play; returns the time it ended (ms)."""
        rng, p = self.rng, self.preset
        for ev in self.ref.tick(t):
            self.go(ev)
        st = self.ref.state
        if st.phase != PLAYING or st.on_move != me:
            return t
        roll = rng.random()
        if roll < self.pass_rate:
            self.go(Pass(t=t, player=me))
            return t
        if roll < self.pass_rate + 0.06 and st.bag >= max(p.exchange.min_bag, 1) and st.racks[me]:
            n = st.racks[me] if p.exchange.counts == "one_or_all" and rng.random() < 0.5 else 1
            self.go(Exchange(t=t, player=me, count=min(n, st.racks[me], st.bag)))
            return t
        count = min(st.racks[me], rng.choice((1, 2, 2, 3, 3, 4, 7)))
        squares = _placements(self.ref, rng, count) if count else None
        letters = self._letters(st, len(squares or ()))
        if squares is None or len(letters) != len(squares):
            self.go(Pass(t=t, player=me))
            return t
        if rng.random() < 0.5 and self.go(ClockPressed(t=t, player=me)):
            t += 800  # the board reading arrives after the press
        if not self.go(Play(t=t, player=me, tiles=tuple(zip(squares, letters, strict=True)))):
            self.go(Pass(t=t, player=me))
        return t

    def _letters(self, st: GameState, count: int) -> list[str]:
        """Up to ``count`` random tiles from the unseen ones (fewer when they run out)."""
        unseen = Counter(dict(st.unseen))
        letters: list[str] = []
        for _ in range(count):
            pool = [k for k, v in unseen.items() if v > 0]
            if not pool:
                break
            k = self.rng.choice(sorted(pool))
            unseen[k] -= 1
            letters.append(k)
        return letters


def _pending_player(ref: Referee) -> int:
    st = ref.state
    return st.on_move if st.on_move is not None else 0


def _deal_racks(ref: Referee, rng: random.Random) -> tuple[str, ...]:
    """Racks consistent with the tracked counts and the unseen tiles (as players would enter them)."""
    st = ref.state
    pool = list(Counter(dict(st.unseen)).elements())
    rng.shuffle(pool)
    racks = []
    for n in st.racks:
        racks.append(endgame.rack_string(Counter(pool[:n])))
        pool = pool[n:]
    return tuple(racks)



def tiles_for(board: tuple[str, ...] | list[str], coordinate: str, word: str) -> tuple[tuple[int, str], ...]:
    """The new tiles of a play written GCG-style (``"8D"``, ``"QUIRT"``) on ``board`` (225 cells):
    :attr:`Placement.tiles <kiosk.rules.placement.Placement>` of :meth:`Placement.from_word`.

    Letters over occupied squares (or ``"."``) are played through; lower case is a designated blank, ``"?"``
    a blank still to designate. Raises ``ValueError`` (a :class:`~kiosk.rules.placement.WordError` or
    :class:`~kiosk.rules.board.CoordinateError`) when the word does not fit the board.
    """
    return Placement.from_word(board, coordinate, word).tiles


class Script:
    """Drive a referee with terse calls (tests, demos, the kiosk's demo mode).

    ``Script("nsf")`` starts a game at t = 0 ms; ``s.play(0, "8D", "QUIRT", 30_000)`` places the tiles of a
    GCG-style play; ``s.do(Pass, 40_000, player=1)`` applies any event. Every call returns the referee's
    :class:`Result`; ``s.ref`` is the referee, ``s.state`` its state.
    """

    def __init__(self, preset: str | Preset = "nsf", players: tuple[str, ...] = ("Ann", "Bob"), *, t: int = 0,
                 first: int = 0) -> None:
        p = load_preset(preset) if isinstance(preset, str) else preset
        self.ref = Referee()
        res = self.ref.apply(GameStarted(t=t, preset=p.to_dict(), players=players, first=first))
        if not res.accepted:
            raise ValueError(f"cannot start the game: {res.reason}")

    @property
    def state(self) -> GameState:
        """The referee's snapshot."""
        return self.ref.state

    def do(self, cls: type[Event], t: int, **fields: Any) -> Result:
        """Apply ``cls(t=t, **fields)``."""
        return self.ref.apply(cls(t=t, **fields))

    def play(self, player: int, coordinate: str, word: str, t: int) -> Result:
        """Apply a :class:`Play` of the new tiles of ``word`` at ``coordinate`` (see :func:`tiles_for`)."""
        return self.ref.apply(Play(t=t, player=player, tiles=tiles_for(self.ref.state.board, coordinate, word)))
