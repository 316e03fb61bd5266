"""Turns: the clock press, a play (its blanks, its score), a pass, an exchange, the draw after a play."""

from __future__ import annotations

from collections import Counter
from typing import NoReturn

from kiosk.referee.ending import end_without_out, scoreless_end
from kiosk.referee.events import BlankDesignated, ClockPressed, Drew, Event, Exchange, Pass, Play, PressWithdrawn
from kiosk.referee.kinds import Code, EndReason
from kiosk.referee.model import GameModel, Refused, handles, refusal_for, wrong_phase
from kiosk.referee.phase import Phase
from kiosk.referee.state import ENTERED_BY_JUDGE, PlayRecord
from kiosk.rules.board import square_name
from kiosk.rules.counts import counted
from kiosk.rules.placement import PlacementError, validate_placement
from kiosk.rules.scoring import score_play
from kiosk.rules.tiles import BLANK


def need_on_move(g: GameModel, ev: Event, player: int) -> None:
    """Raise :class:`Refused` unless ``player`` is on move with the clock running (wrong_player, neutralised)."""
    if g.on_move != player:
        who = g.name(g.on_move) if g.on_move is not None else "nobody"
        raise Refused(f"{ev.type}: it is {who}'s turn, not {g.name(player)}'s", Code.WRONG_PLAYER)
    if g.neutralised:
        raise Refused(f"{ev.type}: the clock is neutralised ({g.neutralised}); resume it first", Code.NEUTRALISED)


def turn_time(g: GameModel, ev: Event) -> int:
    """When the turn ended: the clock press if one was reported, else the event itself (ms)."""
    return g.pending.pressed_at if g.pending.pressed_at is not None else ev.t


def begins_turn(before: GameModel, ev: Event) -> bool:
    """True when ``ev`` (accepted on ``before``) starts a new turn: a clock press, or a play, pass or exchange
    that no press announced (a corrected reading of a play waiting for its blanks is the same turn)."""
    if isinstance(ev, ClockPressed):
        return True
    return isinstance(ev, Play | Pass | Exchange) and before.pending.pressed_at is None and before.phase == Phase.PLAYING


def next_turn(g: GameModel, frm: int, t: int) -> None:
    """Turn passes to the player after ``frm`` (skipping players who lose a turn); checks the scoreless end."""
    nxt = g.nxt(frm)
    for _ in range(g.n + 1):
        if scoreless_end(g):
            end_without_out(g, t, EndReason.SIX_SCORELESS)
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
    if scoreless_end(g):
        end_without_out(g, t, EndReason.SIX_SCORELESS)


@handles(ClockPressed)
def _on_clock_pressed(g: GameModel, ev: ClockPressed) -> None:
    need_on_move(g, ev, ev.player)
    if g.pending.pressed_at is not None:
        raise Refused(f"clock_pressed: {g.name(ev.player)} pressed already at {g.pending.pressed_at} ms; waiting for the "
                      "board reading", Code.ALREADY_PRESSED)
    g.pending.pressed_at = ev.t
    g.clock.start(g.nxt(ev.player), ev.t)


@handles(PressWithdrawn)
def _on_press_withdrawn(g: GameModel, ev: PressWithdrawn) -> None:
    """The press is taken back: the time the opponent's clock ran since it goes to ``ev.player``, whose clock
    runs again in the same turn (a refused exchange at the press charged the opponent before)."""
    need_on_move(g, ev, ev.player)
    pressed = g.pending.pressed_at
    if pressed is None:
        raise Refused(f"press_withdrawn: {g.name(ev.player)} has no clock press to take back", Code.NOTHING_TO_UNDO)
    ck = g.clock
    ck.advance(ev.t)
    moved = ck.turn_used if ck.running == g.nxt(ev.player) else 0  # what the opponent was charged since the press
    if moved:
        opp = g.nxt(ev.player)
        ck.used[opp] -= moved
        ck.used[ev.player] += moved
        rem = ck.remaining(opp, ev.t)
        if rem is not None and rem > 0:
            g.overtime_notified[opp] = False
    before = g.turn_start.clock if g.turn_start is not None else None
    in_turn = before.turn_used_at(pressed) if before is not None and before.running == ev.player else 0
    ck.start(ev.player, ev.t)
    ck.turn_used = in_turn + moved
    g.pending.pressed_at = None
    g.notes.append(f"{ev.t}: {g.name(ev.player)}'s clock press was taken back; {moved // 1000} s are his")


@refusal_for(Play)
def _why_not_play(g: GameModel, ev: Play) -> NoReturn:
    """Outside PLAYING a play is refused as needing PLAYING (DESIGNATING allows only the same player's
    corrected reading)."""
    raise wrong_phase(g, ev, frozenset({Phase.PLAYING}))


@handles(Play)
def _on_play(g: GameModel, ev: Play) -> None:
    if g.phase == Phase.DESIGNATING:  # only a corrected reading, which replaces the pending one
        if ev.player != g.pending.player:
            raise wrong_phase(g, ev, frozenset({Phase.PLAYING}))
        g.phase = Phase.PLAYING
        g.pending.tiles = ()
    need_on_move(g, ev, ev.player)
    t_turn = turn_time(g, ev)
    g.pending.pressed_at = None
    tiles = tuple((int(sq), t) for sq, t in ev.tiles)
    if not tiles:
        raise Refused("play: no tiles were placed (a clock press without tiles is a pass)", Code.NO_TILES, judge=True)
    bad = [sq for sq, t in tiles if not (isinstance(t, str) and len(t) == 1 and (t == BLANK or g.tile_set.is_letter(t)))]
    if bad:
        raise Refused(f"play: not a tile of the {g.tile_set.name} set on "
                      f"{', '.join(square_name(s) if 0 <= s < 225 else str(s) for s in bad)}", Code.BAD_TILE,
                      judge=True, squares=[s for s in bad if 0 <= s < 225])
    g.close_window()  # the mover's play ends the window on the previous play
    p = ev.player
    if len(tiles) > g.racks[p]:
        raise Refused(f"play: {counted(len(tiles), 'tile')} placed but {g.name(p)}'s rack holds only {g.racks[p]} - "
                      "a misread? judge please check", Code.IMPOSSIBLE_TILES, judge=True, squares=[s for s, _ in tiles])
    need = Counter(BLANK if (t == BLANK or t.islower()) else t for _, t in tiles)
    over = need - g.unseen()
    if over:
        squares = [sq for sq, t in tiles if (BLANK if (t == BLANK or t.islower()) else t) in over]
        names = ", ".join(f"{'blank' if k == BLANK else k}" for k in sorted(over))
        raise Refused(f"play: no {names} left to play (all already on the board) - a misread? judge please check",
                      Code.IMPOSSIBLE_TILES, judge=True, squares=squares)
    probe = [(sq, "e" if t == BLANK else t) for sq, t in tiles]  # a blank's letter cannot make the shape legal
    try:
        score_play(g.board, probe, g.tile_set, g.rules, game_word_available=g.game_word_available)
    except PlacementError as exc:
        raise Refused(f"play: {exc}", exc.code, judge=True, squares=exc.squares) from None
    g.pending.tiles = tiles
    g.pending.player = p
    g.pending.by_judge = bool(ev.by_judge)
    if any(t == BLANK for _, t in tiles):
        g.phase = Phase.DESIGNATING
        g.clock.stop(max(t_turn, g.clock.at))
        return
    score_pending(g, max(t_turn, g.clock.at), shown=ev.t)


@refusal_for(BlankDesignated)
def _why_not_blank_designated(g: GameModel, ev: BlankDesignated) -> None:
    """Outside DESIGNATING: a blank of the last play designated already is said so."""
    for sq, t in (g.last_play.tiles if g.last_play else ()):
        if sq == ev.square and t.islower():
            raise Refused(f"the blank on {square_name(sq)} was designated {t.upper()} already; a designation "
                          "never changes", Code.ALREADY_DESIGNATED, squares=[sq])


@handles(BlankDesignated)
def _on_blank_designated(g: GameModel, ev: BlankDesignated) -> None:
    if ev.player != g.pending.player:
        raise Refused(f"blank_designated: the blank belongs to {g.name(g.pending.player)}'s play", Code.WRONG_PLAYER)
    letter = ev.letter.upper() if isinstance(ev.letter, str) else ""
    if len(letter) != 1 or not g.tile_set.is_letter(letter):
        raise Refused(f"blank_designated: '{ev.letter}' is not a letter of the {g.tile_set.name} set", Code.BAD_LETTER,
                      squares=[ev.square] if 0 <= ev.square < 225 else [])
    tiles = list(g.pending.tiles)
    for i, (sq, t) in enumerate(tiles):
        if sq == ev.square:
            if t != BLANK:
                what = f"designated {t.upper()} already" if t.islower() else f"the tile {t}, not a blank"
                raise Refused(f"{square_name(sq)} holds {what}; a designation never changes", Code.ALREADY_DESIGNATED,
                              squares=[sq])
            tiles[i] = (sq, letter.lower())
            break
    else:
        raise Refused(f"blank_designated: no blank of this play on {square_name(ev.square) if 0 <= ev.square < 225 else ev.square}",
                      Code.NO_BLANK_THERE)
    g.pending.tiles = tuple(tiles)
    if not any(t == BLANK for _, t in tiles):
        score_pending(g, ev.t)


def score_pending(g: GameModel, t: int, shown: int | None = None) -> None:
    """Score the pending play as of its clock press ``t`` (ms). ``shown``: when the kiosk shows it (the reading
    arrived, ms): the out-play window runs from then, since the opponent cannot challenge a play before
    seeing it (the press may be seconds earlier when a judge had to fix the reading)."""
    p, tiles = g.pending.player, g.pending.tiles
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
    g.pending.tiles = ()
    g.scoreless_saved = g.scoreless
    g.scoreless = 0
    if ps.game_word_bonus:
        g.game_word_available = False
    g.record("play", p, ps.total, play=lp, note=ENTERED_BY_JUDGE if g.pending.by_judge else "")
    g.challenge.ruling = ""
    ch = g.preset.challenge
    if ch.rule == "void":
        g.phase = Phase.CHALLENGED
        g.challenge.by = None
        g.challenge.words = tuple(w.upper() for w in lp.words)
        g.challenge.back_to = Phase.PLAYING
        g.clock.stop(t)
        return
    g.window.open = True
    if outplay:
        g.phase = Phase.OUTPLAY
        g.clock.stop(t)
        g.outplay_accepted = ()
        g.window.until = max(t, shown if shown is not None else t) + ch.outplay_window_ms
        g.on_move = g.nxt(p)
        return
    g.phase = Phase.PLAYING
    g.window.until = t + ch.window_ms if ch.window_ms is not None else None
    next_turn(g, p, t)
    if g.phase == Phase.PLAYING:
        g.window.open = True


@handles(Pass)
def _on_pass(g: GameModel, ev: Pass) -> None:
    need_on_move(g, ev, ev.player)
    t_turn = max(turn_time(g, ev), g.clock.at)
    g.pending.pressed_at = None
    g.close_window()
    g.record("pass", ev.player, 0)
    g.scoreless += 1
    g.last_play = None
    next_turn(g, ev.player, t_turn)


@handles(Exchange)
def _on_exchange(g: GameModel, ev: Exchange) -> None:
    need_on_move(g, ev, ev.player)
    t_turn = max(turn_time(g, ev), g.clock.at)
    ex = g.preset.exchange
    if not ex.allowed:
        raise Refused(f"exchanges are not allowed under '{g.preset.name}'", Code.EXCHANGE_NOT_ALLOWED)
    g.close_window()  # the last play's tiles are drawn first: the bag counted is the bag after that draw
    p, n = ev.player, ev.count
    if n < 1:
        raise Refused("exchange: the count must be at least 1 (exchanging none is a pass)", Code.BAD_COUNT)
    if n > g.racks[p]:
        raise Refused(f"exchange: {g.name(p)} has only {counted(g.racks[p], 'tile')}", Code.BAD_COUNT)
    if ex.counts == "one_or_all" and n not in (1, g.racks[p]):
        raise Refused(f"exchange: under '{g.preset.name}' exchange one tile or all {g.racks[p]}", Code.BAD_COUNT)
    short = g.bag < ex.min_bag or g.bag < n
    if short and ex.improper == "pass":
        # seed 002 II.H: an improper exchange (fewer than seven in the bag) stopped before the drawn tiles
        # join the rack counts as a pass; the turn ends and the opponent's clock runs
        g.pending.pressed_at = None
        g.record("pass", p, 0, note=f"improper exchange of {n} with {g.bag} in the bag: counts as a pass")
        g.notes.append(f"{ev.t}: {g.name(p)} tried to exchange {n} with only {counted(g.bag, 'tile')} in the bag: "
                       "counts as a pass")
        g.scoreless += 1
        g.last_play = None
        next_turn(g, p, t_turn)
        return
    if g.bag < ex.min_bag:
        raise Refused(f"exchange: only {counted(g.bag, 'tile')} in the bag; '{g.preset.name}' needs at least "
                      f"{ex.min_bag}", Code.BAG_TOO_SMALL)
    if g.bag < n:
        raise Refused(f"exchange: only {counted(g.bag, 'tile')} in the bag to draw {n}", Code.BAG_TOO_SMALL)
    g.pending.pressed_at = None
    g.record("exchange", p, 0, count=n)
    g.scoreless += 1
    g.last_play = None
    next_turn(g, p, t_turn)


def exchange_counts(g: GameModel) -> tuple[int, ...]:
    """How many tiles the player on move may exchange now (ascending; empty: none, e.g. the bag is too
    small or nobody is on move). From the preset's :class:`~kiosk.referee.presets.ExchangeRules`."""
    if g.on_move is None or g.phase != Phase.PLAYING:
        return ()
    lp = g.last_play  # the last play's replacement tiles come out of the bag before any exchange
    due = min(lp.to_draw, g.bag) if lp and g.window.open and not (lp.drawn or lp.kept_apart or lp.withdrawn) else 0
    return g.preset.exchange.counts_allowed(g.racks[g.on_move], g.bag - due)


@handles(Drew)
def _on_drew(g: GameModel, ev: Drew) -> None:
    lp = g.last_play
    if lp is None or lp.player != ev.player or lp.drawn or lp.withdrawn or lp.outplay:
        raise Refused(f"drew: {g.name(ev.player)} has no tiles to draw now", Code.NOTHING_TO_DRAW)
    if g.hold.by is not None:
        raise Refused(f"drew: {g.name(g.hold.by)} holds the play; draw only after the courtesy minute, kept apart",
                      Code.HELD)
    g.draw()
