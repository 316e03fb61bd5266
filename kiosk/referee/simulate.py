"""Scripted random games: a deterministic stream of legal referee events, for tests, benchmarks and demos.

The generator drives a real :class:`Referee` and keeps only accepted events, so every script is a game the
referee itself allows: tile plays in legal positions with tiles that exist, blanks with designations, passes,
exchanges, holds (with the courtesy draw), challenges ruled both ways, out-plays and rack entry. Words are
random letters: the referee only judges words when a challenge is ruled, and the script supplies the ruling.
"""

from __future__ import annotations

import random
from collections import Counter

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
from kiosk.referee.state import CHALLENGED, DESIGNATING, OUTPLAY, OVER, PLAYING, RACK_ENTRY, REMOVING
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
    rng = random.Random(seed)
    p = load_preset(preset) if isinstance(preset, str) else preset
    ref = Referee()
    t = 1_000
    events: list[Event] = []

    def go(ev: Event) -> bool:
        res = ref.apply(ev)
        if res.accepted:
            events.append(ev)
        return res.accepted

    go(GameStarted(t=t, preset=p.to_dict(), players=players, game_id=f"sim-{seed}"))
    for _ in range(max_events):
        st = ref.state
        if st.phase == OVER:
            break
        t += rng.randint(2_000, 40_000)
        t = max(t, st.last_t)
        if st.phase == DESIGNATING:
            go(BlankDesignated(t=t, player=_pending_player(ref), square=st.pending_blanks[0],
                               letter=rng.choice("AEIOUST")))
            continue
        if st.phase == CHALLENGED:
            go(ChallengeRuled(t=t, acceptable=rng.random() < 0.5, judge="sim"))
            continue
        if st.phase == REMOVING:
            go(TilesRemoved(t=t))
            continue
        if st.phase == OUTPLAY:
            lp = st.last_play
            assert lp is not None
            opp = (lp.player + 1) % len(players)
            if p.challenge.rule != "void" and rng.random() < 0.3:
                go(Challenge(t=lp.t + 1_000, player=opp))
            else:
                go(OutplayAccepted(t=lp.t + 1_000, player=opp))
            continue
        if st.phase == RACK_ENTRY:
            go(RacksEntered(t=t, racks=_deal_racks(ref, rng)))
            continue
        if st.phase != PLAYING or st.on_move is None:
            break
        me = st.on_move
        lp = st.last_play
        roll = rng.random()
        if st.window_open and lp is not None and not lp.withdrawn and p.challenge.rule != "void":
            wt = min(lp.t + 5_000, (st.window_until_ms or lp.t + 5_000))
            if roll < 0.06 and p.challenge.holds:
                if go(Hold(t=wt, player=me)):
                    hold_end = wt + rng.choice((20_000, 70_000))
                    if hold_end - wt >= (p.challenge.courtesy_ms or 10**12):
                        for ev in ref.tick(hold_end):
                            go(ev)
                        go(CourtesyDraw(t=hold_end, player=lp.player))
                    if rng.random() < 0.5:
                        go(HoldReleased(t=hold_end, player=me))
                    else:
                        go(Challenge(t=hold_end, player=me))
                    continue
            elif roll < 0.14:
                go(Challenge(t=wt, player=me))
                continue
        for ev in ref.tick(t):
            go(ev)
        st = ref.state
        if st.phase != PLAYING or st.on_move != me:
            continue
        roll = rng.random()
        if roll < pass_rate:
            go(Pass(t=t, player=me))
            continue
        if roll < pass_rate + 0.06 and st.bag >= max(p.exchange.min_bag, 1) and st.racks[me]:
            n = st.racks[me] if p.exchange.counts == "one_or_all" and rng.random() < 0.5 else 1
            go(Exchange(t=t, player=me, count=min(n, st.racks[me], st.bag)))
            continue
        count = min(st.racks[me], rng.choice((1, 2, 2, 3, 3, 4, 7)))
        if count == 0:
            go(Pass(t=t, player=me))
            continue
        squares = _placements(ref, rng, count)
        unseen = Counter(dict(st.unseen))
        letters: list[str] = []
        for _sq in squares or []:
            pool = [k for k, v in unseen.items() if v > 0]
            if not pool:
                break
            k = rng.choice(sorted(pool))
            unseen[k] -= 1
            letters.append(k)
        if squares is None or len(letters) != len(squares):
            go(Pass(t=t, player=me))
            continue
        if rng.random() < 0.5 and go(ClockPressed(t=t, player=me)):
            t += 800  # the board reading arrives after the press
        if not go(Play(t=t, player=me, tiles=tuple(zip(squares, letters)))):
            go(Pass(t=t, player=me))
    return events


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
    def state(self):  # type: ignore[no-untyped-def]
        return self.ref.state

    def do(self, cls: type[Event], t: int, **fields: object):  # type: ignore[no-untyped-def]
        """Apply ``cls(t=t, **fields)``."""
        return self.ref.apply(cls(t=t, **fields))  # type: ignore[call-arg]

    def play(self, player: int, coordinate: str, word: str, t: int):  # type: ignore[no-untyped-def]
        """Apply a :class:`Play` of the new tiles of ``word`` at ``coordinate`` (see :func:`tiles_for`)."""
        return self.ref.apply(Play(t=t, player=player, tiles=tiles_for(self.ref.state.board, coordinate, word)))
