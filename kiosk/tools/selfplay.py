"""Computer self-play: generates complete, legal games as GCG records (for the built-in demo game and tests).

A small move generator: for every line of the board (rows, and columns through the transposed board) and
every window of squares that forms one contiguous word touching the existing tiles (or covering H8 on the
first move), letters from the rack are fitted by a depth-first walk over the lexicon trie (prefix pruning),
with cross-checks (each tile placed must also make a valid perpendicular word). Every candidate is scored by
:func:`kiosk.rules.scoring.score_play`; a player picks among the best few at random (seeded), exchanges when
nothing plays and the bag holds 7 or more, else passes. The record ends in the preset's style (default NASPA:
2x the opponents' racks) or after six scoreless turns.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from kiosk.referee.presets import Preset
from kiosk.rules.board import SIZE, Board, Coordinate
from kiosk.rules.counts import counted
from kiosk.rules.gcg import EventKind, GcgEvent, GcgGame, Player
from kiosk.rules.lexicon import TrieLexicon, default_lexicon
from kiosk.rules.placement import PlacementError
from kiosk.rules.scoring import PlayScore, score_play
from kiosk.rules.tiles import BLANK, ENGLISH, TileSet
from kiosk.rules.variants import STANDARD, ScoringRules


def _cross_letters(cells: list[str], sq: int, step: int, lex: TrieLexicon, letters: str) -> set[str] | None:
    """Letters allowed on empty ``sq`` by the perpendicular run through it (``step`` 1 across, 15 down); None = free."""
    pos = sq % SIZE if step == 1 else sq // SIZE
    before, s, p = [], sq, pos
    while p > 0 and cells[s - step]:
        s -= step
        p -= 1
        before.append(cells[s].upper())
    after, s, p = [], sq, pos
    while p < SIZE - 1 and cells[s + step]:
        s += step
        p += 1
        after.append(cells[s].upper())
    if not before and not after:
        return None
    pre, post = "".join(reversed(before)), "".join(after)
    return {ch for ch in letters if pre + ch + post in lex}


def generate_moves(board: Board, rack: str, lex: TrieLexicon, tile_set: TileSet = ENGLISH,
                   rules: ScoringRules = STANDARD) -> list[tuple[PlayScore, list[tuple[int, str]]]]:
    """All legal tile plays of ``rack`` (``?`` = blank) whose words are all in ``lex`` and that ``rules`` (a
    preset's scoring rules: first-play tiles, plural S) allow: (score, tiles) pairs."""
    letters = "".join(tile_set.letters)
    trie = lex._trie
    out: dict[tuple, tuple[PlayScore, list[tuple[int, str]]]] = {}
    cells = board.cells
    first = board.is_empty()
    for across in (True, False):
        step, cross_step = (1, SIZE) if across else (SIZE, 1)
        cross_cache: dict[int, set[str] | None] = {}
        for line in range(SIZE):
            line_sq = [line * SIZE + i for i in range(SIZE)] if across else [i * SIZE + line for i in range(SIZE)]
            for start in range(SIZE):
                if start > 0 and cells[line_sq[start - 1]]:
                    continue  # a word must start after an empty square
                for end in range(start + 1, min(SIZE, start + 15)):
                    window = line_sq[start:end + 1]
                    if end < SIZE - 1 and cells[line_sq[end + 1]]:
                        continue
                    empties = [sq for sq in window if not cells[sq]]
                    if not empties or len(empties) > len(rack):
                        continue
                    if first:
                        if 7 * SIZE + 7 not in window:
                            continue
                    elif len(empties) == len(window) and not any(
                            _cross_letters(cells, sq, cross_step, lex, letters) is not None for sq in window):
                        continue
                    allowed: list[set[str] | None] = []
                    dead = False
                    for sq in window:
                        if cells[sq]:
                            allowed.append(None)
                            continue
                        if sq not in cross_cache:
                            cross_cache[sq] = _cross_letters(cells, sq, cross_step, lex, letters)
                        a = cross_cache[sq]
                        if a is not None and not a:
                            dead = True
                            break
                        allowed.append(a)
                    if dead:
                        continue
                    _fit(window, allowed, cells, Counter(rack), trie, letters, "", [], board, (tile_set, rules), out,
                         across)
    return list(out.values())


def _has_prefix(trie, prefix: str) -> bool:
    """True when some word starts with ``prefix`` (marisa's has_keys_with_prefix is deprecated)."""
    return next(trie.iterkeys(prefix), None) is not None


def _fit(window, allowed, cells, rack, trie, letters, prefix, placed, board, how, out, across) -> None:
    i = len(prefix)
    if i == len(window):
        if prefix in trie and placed:
            key = tuple(placed)
            if key not in out:
                try:
                    out[key] = (score_play(board, placed, how[0], how[1], across=across), list(placed))
                except PlacementError:
                    pass
        return
    sq = window[i]
    if cells[sq]:
        nxt = prefix + cells[sq].upper()
        if _has_prefix(trie, nxt):
            _fit(window, allowed, cells, rack, trie, letters, nxt, placed, board, how, out, across)
        return
    ok = allowed[i]
    for ch in sorted(set(rack.elements())):   # sorted: a seed's game may not follow the process's hash seed
        choices = [ch] if ch != BLANK else letters
        for letter in choices:
            if ok is not None and letter not in ok:
                continue
            nxt = prefix + letter
            if not _has_prefix(trie, nxt):
                continue
            rack[ch] -= 1
            placed.append((sq, letter if ch != BLANK else letter.lower()))
            _fit(window, allowed, cells, +rack, trie, letters, nxt, placed, board, how, out, across)
            placed.pop()
            rack[ch] += 1


@dataclass
class _Table:
    """The state of a self-play game: bag, racks, board, totals, the record being written."""

    names: tuple[str, ...]
    bag: list[str]
    racks: list[list[str]]
    game: GcgGame
    board: Board = field(default_factory=Board)
    totals: list[int] = field(default_factory=list)

    def rack(self, p: int) -> str:
        return "".join(sorted(self.racks[p]))


def self_play(seed: int = 1, names: tuple[str, ...] = ("Ada", "Bo"), lex: TrieLexicon | None = None,
              tile_set: TileSet = ENGLISH, top: int = 3, progress: Callable[[str], None] | None = None,
              preset: Preset | None = None) -> GcgGame:
    """Play a whole game of 2-4 players in turn order (``names``); returns it as a :class:`GcgGame` that replays
    with 0 mismatches under ``preset`` (default: standard tournament rules, NASPA 2x end).

    The preset's scoring rules decide which plays are legal (first-play tiles, plural S: seed 004), its exchange
    counts how many tiles go back ("one_or_all": 1 or the whole rack), its ``end.out_adjustment`` the end lines:
    "double" (the player who went out adds twice the others' racks, one line), "standard" (he adds them once,
    each other player's line deducts his own), "own_only" (only the others' own-rack lines; seed 003).

    Raises:
        ValueError: not 2-4 names, or more than the preset's ``max_players``.
    """
    lo, hi = (preset.min_players, preset.max_players) if preset is not None else (2, 4)
    if not (2 <= len(names) <= 4 and lo <= len(names) <= hi):
        raise ValueError(f"self-play: {counted(len(names), 'player')}; the rules allow {lo} to {min(hi, 4)}")
    lex = lex or default_lexicon()
    rules = preset.scoring_rules() if preset is not None else STANDARD
    rng = random.Random(seed)
    bag = list(tile_set.full_bag().elements())
    rng.shuffle(bag)
    game = GcgGame(name=f"selfplay-{seed}", players=[Player(n, n) for n in names])
    game.pragmas["lexicon"] = [lex.name]
    game.pragmas["description"] = [f"Self-play game generated by the Scrabble referee kiosk (seed {seed}"
                                   + (f", preset {preset.name})" if preset is not None else ")")]
    t = _Table(tuple(names), bag, [[bag.pop() for _ in range(7)] for _ in names], game, totals=[0] * len(names))
    scoreless, turn = 0, 0
    while True:
        moves = generate_moves(t.board, t.rack(turn), lex, tile_set, rules)
        if moves:
            moves.sort(key=lambda m: -m[0].total)
            _play(t, turn, rng.choice(moves[:top]), progress)
            scoreless = 0
            if not t.racks[turn] and not t.bag:
                _went_out(t, turn, tile_set, preset.end.out_adjustment if preset is not None else "double")
                return game
        else:
            _no_play(t, turn, rng, preset)
            scoreless += 1
            if scoreless >= 6:
                for p in [*range(turn + 1, len(names)), *range(turn + 1)]:
                    left = t.rack(p)
                    pen = tile_set.rack_value(left)
                    t.totals[p] -= pen
                    game.events.append(GcgEvent(EventKind.END_RACK, names[p], left, -pen, t.totals[p], tiles=left))
                return game
        turn = (turn + 1) % len(names)


def _play(t: _Table, p: int, move: tuple[PlayScore, list[tuple[int, str]]],
          progress: Callable[[str], None] | None) -> None:
    ps, tiles = move
    rack = t.rack(p)
    t.board.place(tiles)
    for _, tile in tiles:
        t.racks[p].remove(BLANK if tile.islower() else tile)
    t.totals[p] += ps.total
    word = "".join(ch if sq in dict(tiles) else "." for sq, ch in
                   zip(Coordinate(*ps.coordinate).squares(len(ps.words[0].squares)), ps.words[0].word))
    t.game.events.append(GcgEvent(EventKind.PLAY, t.names[p], rack, ps.total, t.totals[p],
                                  coordinate=ps.coordinate, word=word))
    while t.bag and len(t.racks[p]) < 7:
        t.racks[p].append(t.bag.pop())
    if progress:
        progress(f"{t.names[p]}: {rack} {ps.coordinate} {word} +{ps.total} {t.totals[p]}")


def _no_play(t: _Table, p: int, rng: random.Random, preset: Preset | None) -> None:
    """Exchange (when the preset allows it and the bag holds enough) or pass."""
    rack = t.rack(p)
    ex = preset.exchange if preset is not None else None
    if (ex is None or ex.allowed) and len(t.bag) >= (ex.min_bag if ex is not None else 7):
        order = sorted(t.racks[p], key=lambda tile: (tile in "AEIRST?", rng.random()))
        one_or_all = ex is not None and ex.counts == "one_or_all"
        out = order[:rng.choice((1, len(order))) if one_or_all else rng.randint(2, 5)]
        for tile in out:
            t.racks[p].remove(tile)
        drawn = [t.bag.pop() for _ in out]
        t.bag.extend(out)
        rng.shuffle(t.bag)
        t.racks[p].extend(drawn)
        t.game.events.append(GcgEvent(EventKind.EXCHANGE, t.names[p], rack, 0, t.totals[p],
                                      tiles="".join(sorted(out)), count=len(out)))
    else:
        t.game.events.append(GcgEvent(EventKind.PASS, t.names[p], rack, 0, t.totals[p]))


def _went_out(t: _Table, p: int, tile_set: TileSet, style: str) -> None:
    """The end lines after ``p`` went out, in the record style of ``style`` (an out_adjustment)."""
    others = [q for q in [*range(p + 1, len(t.names)), *range(p)]]
    left = "".join(sorted("".join(t.rack(q) for q in others)))
    if style in ("double", "standard"):
        pts = (2 if style == "double" else 1) * tile_set.rack_value(left)
        t.totals[p] += pts
        t.game.events.append(GcgEvent(EventKind.END_RACK, t.names[p], "", pts, t.totals[p], tiles=left))
    if style in ("standard", "own_only"):
        for q in others:
            own = t.rack(q)
            pen = tile_set.rack_value(own)
            t.totals[q] -= pen
            t.game.events.append(GcgEvent(EventKind.END_RACK, t.names[q], own, -pen, t.totals[q], tiles=own))
