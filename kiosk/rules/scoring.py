"""Scoring a play exactly as the seed sheets state.

For every word formed (the main word along the play's line, and each perpendicular run of 2+ tiles through
a newly placed tile): sum the letter values, doubling/tripling a letter only when its tile was placed this
turn on a DLS/TLS; then multiply by the word multipliers of the newly covered squares (two DWS = x4, two
TWS = x9, DWS+TWS = x6). A blank scores 0 but its square's word multiplier still applies. Premiums count
only on the turn they are covered. Playing all 7 rack tiles adds the bingo bonus (50) after all words are
totalled. Sources: ``docs/variants.md`` "Common to all"; seed 000 rules 5-7, seed 002 section "Scoring",
seed 004 "SCORING". Variant hooks come from :class:`~kiosk.rules.variants.ScoringRules`: the ``club-reading``
game word (seed 001), the ``team`` plural-S ban (seed 004), the ``nsf`` off-centre first play (seed 002).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from kiosk.rules.board import LETTER_MULTIPLIER, SIZE, WORD_MULTIPLIER, Board, Coordinate
from kiosk.rules.placement import PlacementError, validate_placement
from kiosk.rules.tiles import ENGLISH, TileSet
from kiosk.rules.variants import STANDARD, ScoringRules


class WordScore(NamedTuple):
    """One word a play formed.

    Attributes:
        word: the letters in reading order, lower-case where a blank stands.
        squares: the word's squares in reading order.
        score: its points (letter and word premiums of newly covered squares applied).
        main: True for the word along the play's line.
    """

    word: str
    squares: tuple[int, ...]
    score: int
    main: bool


class PlayScore(NamedTuple):
    """The scored play.

    Attributes:
        coordinate: GCG coordinate of the main word.
        words: main word first, then cross words in line order.
        bingo: the bingo bonus awarded (0 or ``rules.bingo_bonus``).
        game_word_bonus: extra points from the ``club-reading`` game word (0 if none).
        total: sum of word scores + bingo + game-word bonus (points).
        played: number of tiles placed.
    """

    coordinate: Coordinate
    words: tuple[WordScore, ...]
    bingo: int
    game_word_bonus: int
    total: int
    played: int

    @property
    def main_word(self) -> str:
        return self.words[0].word if self.words else ""

    @property
    def uses_game_word(self) -> bool:
        return self.game_word_bonus > 0


def _word_score(cells: list[str], squares: Sequence[int], new: dict[int, str], values: dict[str, int]) -> tuple[str, int]:
    total = 0
    mult = 1
    letters = []
    for sq in squares:
        tile = new.get(sq)
        if tile is None:
            tile = cells[sq]
            total += 0 if tile.islower() else values[tile]
        else:
            if not tile.islower():
                total += values[tile] * LETTER_MULTIPLIER[sq]
            mult *= WORD_MULTIPLIER[sq]
        letters.append(tile)
    return "".join(letters), total * mult


def score_play(
    board: Board,
    tiles: Sequence[tuple[int, str]],
    tile_set: TileSet = ENGLISH,
    rules: ScoringRules = STANDARD,
    *,
    game_word_available: bool = True,
    across: bool | None = None,
) -> PlayScore:
    """Validate and score placing ``tiles`` ((square, tile): ``"A"`` lettered, ``"a"`` a blank as A) on ``board``.

    The bingo needs a full rack's worth of tiles (``tile_set.rack_size``, 7): emptying a shorter rack at the end
    of the game is no bingo (GCG engines agree; ``docs/gcg.md``). ``across`` picks the
    main word's direction for a single tile that forms words both ways (the score is the same either way).

    Raises:
        PlacementError: the placement is illegal (see :mod:`kiosk.rules.placement`), or breaks the ``team``
            plural-S ban (code ``plural_s``).
        KeyError: a letter that is not in ``tile_set``.
    """
    shape = validate_placement(board, tiles, rules, across)
    cells = board.cells
    values = tile_set.values
    new = dict(tiles)
    for t in new.values():
        if t.upper() not in values:
            raise PlacementError("bad_tile", [sq for sq, tt in tiles if tt == t], f"'{t}' is not in the {tile_set.name} tile set")
    cross_step = SIZE if shape.coordinate.across else 1
    words: list[WordScore] = []
    if len(shape.main_squares) >= 2:
        w, s = _word_score(cells, shape.main_squares, new, values)
        words.append(WordScore(w, shape.main_squares, s, True))
    for sq in sorted(new):
        pos = sq // SIZE if cross_step == SIZE else sq % SIZE
        start = sq
        p = pos
        while p > 0 and cells[start - cross_step]:
            start -= cross_step
            p -= 1
        end = sq
        p = pos
        while p < SIZE - 1 and cells[end + cross_step]:
            end += cross_step
            p += 1
        if end > start:
            run = tuple(range(start, end + 1, cross_step))
            w, s = _word_score(cells, run, new, values)
            words.append(WordScore(w, run, s, False))
    if rules.ban_plural_s:
        for ws in words:
            last = ws.squares[-1]
            if last in new and new[last].upper() == "S" and len(ws.squares) >= 3 and all(q not in new for q in ws.squares[:-1]):
                raise PlacementError("plural_s", [last], ws.word.upper())
    bingo = rules.bingo_bonus if len(new) == tile_set.rack_size else 0
    gw_bonus = 0
    if rules.game_word and game_word_available:
        for ws in words:
            if ws.word.upper() == rules.game_word:
                gw_bonus = ws.score * (rules.game_word_factor - 1)
                break
    total = sum(ws.score for ws in words) + bingo + gw_bonus
    return PlayScore(shape.coordinate, tuple(words), bingo, gw_bonus, total, len(new))
