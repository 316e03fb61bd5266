"""Property-based tests (hypothesis) of placement and scoring invariants."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kiosk.rules.board import SIZE, Board
from kiosk.rules.placement import PlacementError
from kiosk.rules.scoring import score_play
from kiosk.rules.tiles import ENGLISH

LETTERS = "AEIOULNRSTDGBCMPFHVWYKJXQZ"


def random_play(board: Board, rng: random.Random):
    """A random placement attempt: 1-7 tiles on one line (may be illegal)."""
    across = rng.random() < 0.5
    n = rng.randint(1, 7)
    r, c = rng.randrange(SIZE), rng.randrange(SIZE)
    tiles = []
    while len(tiles) < n and r < SIZE and c < SIZE:
        sq = r * SIZE + c
        if not board[sq]:
            ch = rng.choice(LETTERS)
            tiles.append((sq, ch.lower() if rng.random() < 0.08 else ch))
        if across:
            c += 1
        else:
            r += 1
    return tiles


def random_position(seed: int, plays: int):
    """A board built from ``plays`` legal random placements, and one more legal play to score on it."""
    rng = random.Random(seed)
    board = Board()
    legal = []
    for _ in range(4000):
        if board.is_empty():  # a first play through the centre
            n = rng.randint(2, 7)
            start = 7 - rng.randrange(n)
            step = 1 if rng.random() < 0.5 else SIZE
            first = 7 * SIZE + 7 - (7 - start) * step
            t = [(first + i * step, rng.choice(LETTERS)) for i in range(n)]
        else:
            t = random_play(board, rng)
        try:
            score_play(board, t)
        except PlacementError:
            continue
        legal.append(t)
        if len(legal) > plays:
            return board, t
        board.place(t)
    return None


def test_generator_makes_real_positions():
    made = [random_position(seed, 8) for seed in range(20)]
    assert sum(p is not None for p in made) >= 18
    assert all(p[0].tiles_on_board >= 8 for p in made if p)


def transpose_sq(sq: int) -> int:
    return (sq % SIZE) * SIZE + sq // SIZE


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10**9), st.integers(0, 12))
def test_score_is_sum_of_words_plus_bingo(seed, plays):
    pos = random_position(seed, plays)
    if pos is None:
        return
    board, tiles = pos
    ps = score_play(board, tiles)
    assert ps.total == sum(w.score for w in ps.words) + ps.bingo
    assert (ps.bingo == 50) == (len(tiles) == 7)
    # every word contains at least one new tile; the main word contains them all
    new = {sq for sq, _ in tiles}
    assert all(new & set(w.squares) for w in ps.words)
    assert new <= set(ps.words[0].squares) or len(tiles) == 1
    # a word's score is never below its face value
    for w in ps.words:
        assert w.score >= sum(ENGLISH.tile_value(ch) for ch in w.word)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10**9), st.integers(0, 12))
def test_transposing_board_and_play_keeps_the_score(seed, plays):
    pos = random_position(seed, plays)
    if pos is None:
        return
    board, tiles = pos
    a = score_play(board, tiles)
    b = score_play(board.transposed(), [(transpose_sq(sq), t) for sq, t in tiles])
    assert a.total == b.total
    assert sorted(w.score for w in a.words) == sorted(w.score for w in b.words)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**9), st.integers(1, 12))
def test_illegal_placements_never_change_the_board(seed, plays):
    rng = random.Random(seed)
    pos = random_position(seed, plays)
    if pos is None:
        return
    board, _ = pos
    before = board.copy()
    for _ in range(30):
        t = random_play(board, rng)
        try:
            score_play(board, t)
        except PlacementError as exc:
            assert exc.code
        assert board == before
