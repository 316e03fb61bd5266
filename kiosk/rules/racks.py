"""End-of-game rack arithmetic: the unseen tiles, racks written out, and the points unplayed tiles gain or lose.

Pure functions over counts and strings (points are whole points). The referee (:mod:`kiosk.referee.endgame`)
and the record replay (:mod:`kiosk.rules.replay`) both count end racks here.

Rules (``docs/variants.md`` "End of game"; seeds 000-004, ``[end]`` of each preset): when a player goes out,
``standard`` gives him the other racks' value and takes each other player's own value off him (WESPA, GCG
``(RACK) +N`` and ``(RACK) -N``); ``double`` gives him twice the opponent's rack and leaves the opponent as he
is (NASPA, nsf III.C.1); ``own_only`` takes each other player's own value off him and gives nothing;
``none`` changes nothing. When nobody goes out (six scoreless turns), ``own_rack`` takes each player's own
rack value off him; ``none`` changes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import StrEnum

from kiosk.rules.tiles import BLANK, TileSet


class OutAdjustment(StrEnum):
    """What unplayed tiles are worth when a player goes out (preset ``end.out_adjustment``)."""

    STANDARD = "standard"
    DOUBLE = "double"
    OWN_ONLY = "own_only"
    NONE = "none"


class NoOutAdjustment(StrEnum):
    """What unplayed tiles are worth when nobody went out (preset ``end.no_out_adjustment``)."""

    OWN_RACK = "own_rack"
    NONE = "none"


def unseen_tiles(tile_set: TileSet, board_cells: Sequence[str]) -> Counter[str]:
    """Full bag minus the tiles on the board (designated blanks count as ``"?"``): bag plus every rack."""
    unseen = tile_set.full_bag()
    for cell in board_cells:
        if cell:
            unseen[BLANK if cell.islower() else cell] -= 1
    return +unseen


def rack_string(tiles: Counter[str]) -> str:
    """A rack as a string in a stable order: letters alphabetically, blanks last (``"AEQ??"``)."""
    return "".join(sorted(tiles.elements(), key=lambda t: (t == BLANK, t)))


def split_racks(unseen: Counter[str], counts: Sequence[int]) -> tuple[str, ...]:
    """Racks of ``counts`` tiles each taken in turn from ``unseen`` in :func:`rack_string` order: racks that fit
    the tracked counts when the real ones are not known (a record without its end racks)."""
    pool = list(rack_string(unseen))
    out = []
    for n in counts:
        out.append(rack_string(Counter(pool[:n])))
        pool = pool[n:]
    return tuple(out)


def rack_adjustments(rack_values: Sequence[int], went_out: int | None, out_rule: str,
                     no_out_rule: str) -> list[int]:
    """Points each player gains (+) or loses (-) for unplayed tiles (see module doc for the rules).

    Args:
        rack_values: each player's rack value (points), in seat order.
        went_out: the seat of the player who went out, None when nobody did.
        out_rule: an :class:`OutAdjustment` value; an unknown one changes nothing.
        no_out_rule: a :class:`NoOutAdjustment` value; an unknown one changes nothing.
    """
    n = len(rack_values)
    adj = [0] * n
    if went_out is not None:
        others = sum(v for i, v in enumerate(rack_values) if i != went_out)
        if out_rule == OutAdjustment.STANDARD:
            adj = [-v for v in rack_values]
            adj[went_out] = others
        elif out_rule == OutAdjustment.DOUBLE:
            adj[went_out] = 2 * others
        elif out_rule == OutAdjustment.OWN_ONLY:
            adj = [-v for v in rack_values]
            adj[went_out] = 0
    elif no_out_rule == NoOutAdjustment.OWN_RACK:
        adj = [-v for v in rack_values]
    return adj
