"""Computer self-play: generates complete, legal games as GCG records (for the built-in demo game and tests).

A small move generator: for every line of the board (rows, and columns through the transposed board) and
every window of squares that forms one contiguous word touching the existing tiles (or covering H8 on the
first move), letters from the rack are fitted by a depth-first walk over the lexicon trie (prefix pruning),
with cross-checks (each tile placed must also make a valid perpendicular word). Every candidate is scored by
:func:`kiosk.rules.scoring.score_play`; a player picks among the best few at random (seeded), exchanges when
nothing plays and the bag holds 7 or more, else passes. The record ends NASPA style (2x the opponent's rack)
or after six scoreless turns.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from kiosk.rules.board import SIZE, Board, Coordinate
from kiosk.rules.gcg import EventKind, GcgEvent, GcgGame, Player
from kiosk.rules.lexicon import TrieLexicon, default_lexicon
from kiosk.rules.placement import PlacementError
from kiosk.rules.scoring import PlayScore, score_play
from kiosk.rules.tiles import BLANK, ENGLISH, TileSet


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


def generate_moves(board: Board, rack: str, lex: TrieLexicon, tile_set: TileSet = ENGLISH) -> list[tuple[PlayScore, list[tuple[int, str]]]]:
    """All legal tile plays of ``rack`` (``?`` = blank) whose words are all in ``lex``: (score, tiles) pairs."""
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
                    _fit(window, allowed, cells, Counter(rack), trie, letters, "", [], board, tile_set, out, across)
    return list(out.values())


def _has_prefix(trie, prefix: str) -> bool:
    """True when some word starts with ``prefix`` (marisa's has_keys_with_prefix is deprecated)."""
    return next(trie.iterkeys(prefix), None) is not None


def _fit(window, allowed, cells, rack, trie, letters, prefix, placed, board, tile_set, out, across) -> None:
    i = len(prefix)
    if i == len(window):
        if prefix in trie and placed:
            key = tuple(placed)
            if key not in out:
                try:
                    out[key] = (score_play(board, placed, tile_set, across=across), list(placed))
                except PlacementError:
                    pass
        return
    sq = window[i]
    if cells[sq]:
        nxt = prefix + cells[sq].upper()
        if _has_prefix(trie, nxt):
            _fit(window, allowed, cells, rack, trie, letters, nxt, placed, board, tile_set, out, across)
        return
    ok = allowed[i]
    for ch in set(rack.elements()):
        choices = [ch] if ch != BLANK else letters
        for letter in choices:
            if ok is not None and letter not in ok:
                continue
            nxt = prefix + letter
            if not _has_prefix(trie, nxt):
                continue
            rack[ch] -= 1
            placed.append((sq, letter if ch != BLANK else letter.lower()))
            _fit(window, allowed, cells, +rack, trie, letters, nxt, placed, board, tile_set, out, across)
            placed.pop()
            rack[ch] += 1


def self_play(seed: int = 1, names: tuple[str, str] = ("Ada", "Bo"), lex: TrieLexicon | None = None,
              tile_set: TileSet = ENGLISH, top: int = 3, progress: Callable[[str], None] | None = None) -> GcgGame:
    """Play a whole two-player game; returns it as a :class:`GcgGame` (replays with 0 mismatches)."""
    lex = lex or default_lexicon()
    rng = random.Random(seed)
    bag = list(tile_set.full_bag().elements())
    rng.shuffle(bag)
    racks = [[bag.pop() for _ in range(7)], [bag.pop() for _ in range(7)]]
    board = Board()
    totals = [0, 0]
    game = GcgGame(name=f"selfplay-{seed}", players=[Player(n, n) for n in names])
    game.pragmas["lexicon"] = [lex.name]
    game.pragmas["description"] = [f"Self-play game generated by the Scrabble referee kiosk (seed {seed})"]
    scoreless, turn = 0, 0
    while True:
        rack = "".join(sorted(racks[turn]))
        moves = generate_moves(board, rack, lex, tile_set)
        nick = names[turn]
        if moves:
            moves.sort(key=lambda m: -m[0].total)
            ps, tiles = rng.choice(moves[:top])
            board.place(tiles)
            for _, t in tiles:
                racks[turn].remove(BLANK if t.islower() else t)
            totals[turn] += ps.total
            word = "".join(ch if sq in dict(tiles) else "." for sq, ch in
                           zip(Coordinate(*ps.coordinate).squares(len(ps.words[0].squares)), ps.words[0].word))
            game.events.append(GcgEvent(EventKind.PLAY, nick, rack, ps.total, totals[turn],
                                        coordinate=ps.coordinate, word=word))
            scoreless = 0
            while bag and len(racks[turn]) < 7:
                racks[turn].append(bag.pop())
            if progress:
                progress(f"{nick}: {rack} {ps.coordinate} {word} +{ps.total} {totals[turn]}")
            if not racks[turn] and not bag:
                other = 1 - turn
                left = "".join(sorted(racks[other]))
                pts = 2 * tile_set.rack_value(left)
                totals[turn] += pts
                game.events.append(GcgEvent(EventKind.END_RACK, nick, "", pts, totals[turn], tiles=left))
                return game
        else:
            if len(bag) >= 7:
                out = sorted(racks[turn], key=lambda t: (t in "AEIRST?", rng.random()))[: rng.randint(2, 5)]
                for t in out:
                    racks[turn].remove(t)
                drawn = [bag.pop() for _ in out]
                bag.extend(out)
                rng.shuffle(bag)
                racks[turn].extend(drawn)
                game.events.append(GcgEvent(EventKind.EXCHANGE, nick, rack, 0, totals[turn], tiles="".join(sorted(out)), count=len(out)))
            else:
                game.events.append(GcgEvent(EventKind.PASS, nick, rack, 0, totals[turn]))
            scoreless += 1
            if scoreless >= 6:
                for p in (turn + 1) % 2, turn:
                    left = "".join(sorted(racks[p]))
                    pen = tile_set.rack_value(left)
                    totals[p] -= pen
                    game.events.append(GcgEvent(EventKind.END_RACK, names[p], left, -pen, totals[p], tiles=left))
                return game
        turn = 1 - turn
