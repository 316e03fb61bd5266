"""Random boards that look like real play (crossing words drawn from the bag), for tests and benchmarks when no
game record is at hand. The words are not dictionary words; only the look matters to the camera.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from kiosk.rules.board import CENTRE, SIZE, Board
from kiosk.rules.tiles import BLANK, ENGLISH, TileSet


def random_board(seed: int, n_tiles: int = 60, tile_set: TileSet = ENGLISH, blank_share: float = 0.0,
                 letter_share: Mapping[str, float] | None = None) -> Board:
    """A board of about ``n_tiles`` tiles (at most the set's total) laid as crossing words from the centre.

    Blanks from the bag are placed as lower-case letters (designated blanks). Deterministic by ``seed``.
    ``blank_share`` (0..1, training boards only) turns about that share of the lettered tiles into blanks too
    (far more than the set has: a reader's training needs many); 0 leaves the board as drawn from the bag.
    ``letter_share`` (training boards only, e.g. ``{"Ä": 0.04}``) turns about that share of the lettered tiles
    into each of those letters (letters of the set rare in the bag); None leaves them as drawn.
    """
    rng = np.random.default_rng(seed)
    bag = [t for t, n in tile_set.full_bag().items() for _ in range(n)]
    rng.shuffle(bag)
    n_tiles = min(n_tiles, len(bag))
    cells = [""] * (SIZE * SIZE)

    def take() -> str:
        t = bag.pop()
        return str(rng.choice(tile_set.letters)).lower() if t == BLANK else t

    # the opening word through the centre
    length = int(rng.integers(2, 8))
    across = bool(rng.random() < 0.5)
    start = CENTRE - int(rng.integers(0, length)) * (1 if across else SIZE)
    for i in range(length):
        cells[start + i * (1 if across else SIZE)] = take()
    placed = length
    tries = 0
    while placed < n_tiles and tries < 5000:
        tries += 1
        anchor = int(rng.choice([i for i, c in enumerate(cells) if c]))
        across = bool(rng.random() < 0.5)
        step = 1 if across else SIZE
        length = int(rng.integers(2, 9))
        pos = int(rng.integers(0, length))
        r0, c0 = divmod(anchor, SIZE)
        if across and not 0 <= c0 - pos <= SIZE - length or not across and not 0 <= r0 - pos <= SIZE - length:
            continue
        run = [anchor + (i - pos) * step for i in range(length)]
        new = [s for s in run if not cells[s]]
        if not new or len(new) > n_tiles - placed:
            continue
        # keep words apart: a new tile may not touch an old tile sideways (looks like real play)
        side = SIZE if across else 1
        if any((s - side >= 0 and cells[s - side]) or (s + side < SIZE * SIZE and cells[s + side]) for s in new
               if (across or s % SIZE not in (0, SIZE - 1))):
            continue
        before, after = run[0] - step, run[-1] + step
        if (before >= 0 and (across and run[0] % SIZE or not across) and cells[before]) or \
                (after < SIZE * SIZE and (across and after % SIZE or not across) and cells[after]):
            continue
        for s in new:
            cells[s] = take()
        placed += len(new)
    if blank_share > 0:
        extra = np.random.default_rng([seed, 0xB1A4]).random(len(cells)) < blank_share
        cells = [c.lower() if c and m else c for c, m in zip(cells, extra)]
    if letter_share is not None:
        check_letter_share(letter_share)
    if letter_share:
        pick = np.random.default_rng([seed, 0x1E77]).random(len(cells))
        lettered = [bool(c) and not c.islower() for c in cells]
        low = 0.0
        for letter, share in letter_share.items():      # disjoint slices of [0, 1): one letter per tile at most
            if letter not in tile_set.letters:
                raise ValueError(f"letter_share: {letter!r} is not a letter of the {tile_set.name} set")
            cells = [letter if is_lettered and low <= p < low + share else c
                     for c, p, is_lettered in zip(cells, pick, lettered)]
            low += share
    return Board(cells)


def check_letter_share(letter_share: Mapping[str, float], name: str = "letter_share") -> None:
    """ValueError (its message starting with ``name``) unless ``letter_share`` maps letters to shares
    0 < share <= 1 adding up to at most 1."""
    if not isinstance(letter_share, Mapping):
        raise ValueError(f"{name}: expected a mapping letter -> share, got {type(letter_share).__name__}")
    for letter, share in letter_share.items():
        if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1:
            raise ValueError(f"{name}[{letter!r}]: expected a share 0 < share <= 1, got {share!r}")
    if sum(letter_share.values()) > 1 + 1e-9:
        raise ValueError(f"{name}: the shares add up to {sum(letter_share.values()):.4g}, more than 1")
